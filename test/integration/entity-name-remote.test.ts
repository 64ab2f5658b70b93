/**
 * Names from the bank, for a bank reached as a remote environment (the sandbox run on its own,
 * not embedded, so the app has no fixtures to look names up in): the entity is named by what the
 * bank's answers say (its webhook configuration), in the session, the entity list, every queue row
 * and the RFI detail, with its id as the secondary detail. A bank that names none leaves the name
 * the analyst gave the profile, never a blank or the id alone. Real sandbox over HTTP (behind a
 * proxy that can strip the name), real keychain (scripts/with-keyring.sh).
 */
import { afterEach, beforeAll, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox';
import { startFaultProxy } from '../support/fault-proxy';
import { startServices } from '../support/services';

beforeAll(() => {
  if (process.platform === 'linux' && !process.env['DBUS_SESSION_BUS_ADDRESS']) {
    throw new Error('No session bus: run the keychain tests under scripts/with-keyring.sh.');
  }
});

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

it('a remote bank’s own name for the entity is shown wherever the entity appears; none named leaves the profile’s name', async () => {
  const bank = await startSandbox({ visibilityDelayMs: { min: 0, max: 0 } });
  closers.push(() => bank.close());
  const [leA, leB] = bank.fixtures.legal_entities;
  // B's bank address strips the name from the webhook configuration: a bank that names no entity.
  const nameless = await startFaultProxy(bank.url);
  closers.push(() => nameless.close());
  nameless.rules.push((req) =>
    req.path.startsWith('/v1/webhook/url')
      ? {
          kind: 'rewrite',
          fn: (json) => {
            const { legal_entity_name: _gone, ...rest } = json as Record<string, unknown>;
            return rest;
          },
        }
      : undefined,
  );

  const t = await startServices({
    environment: { kind: 'remote', baseUrl: bank.url, name: 'Alder profile', token: leA!.tokens.admin },
    rfis: {
      poll: { intervalMs: 600_000, floorMs: 600_000, jitter: 0 },
      webhook: { autoConfigureSandbox: false },
    },
  });
  closers.push(() => t.close());
  const h = t.services.handlers;
  const idA = t.services.session.profile.id;
  t.platform.nextConfirmAnswers.push(true);
  const view = await h['settings.addProfile']({ name: 'Birch profile', baseUrl: nameless.url });
  const idB = view.profiles.find((p) => p.name === 'Birch profile')!.id;
  await h['vault.setToken']({ profileId: idB, token: leB!.tokens.admin });
  await expect.poll(() => t.services.entityWatch.watched().has(idB), { timeout: 30_000 }).toBe(true);

  // The session: the bank's name, the id beside it.
  const status = await h['session.status'](undefined);
  expect(status.credential).toMatchObject({ legalEntityId: leA!.id, legalEntityName: leA!.name });

  // The entity list, every row and the detail: A by the bank's name, B (named by none) by its profile's.
  await expect
    .poll(async () => (await h['rfis.list']({})).items.filter((r) => r.profileId === idB).length, {
      timeout: 30_000,
    })
    .toBeGreaterThan(0);
  const list = await h['rfis.list']({});
  expect(Object.fromEntries((list.entities ?? []).map((e) => [e.profileId, e.name]))).toEqual({
    [idA]: leA!.name,
    [idB]: 'Birch profile',
  });
  const rowsOf = (profileId: string) => list.items.filter((r) => r.profileId === profileId);
  expect(rowsOf(idA).length).toBeGreaterThan(0);
  expect(new Set(rowsOf(idA).map((r) => r.entityName))).toEqual(new Set([leA!.name]));
  expect(new Set(rowsOf(idB).map((r) => r.entityName))).toEqual(new Set(['Birch profile']));
  const detail = await h['rfis.get']({ profileId: idA, id: rowsOf(idA)[0]!.id });
  expect(detail.owner).toEqual({ profileId: idA, entityName: leA!.name });
  // The id stays available as the secondary detail.
  expect(detail.rfi.legal_entity_id).toBe(leA!.id);
}, 120_000);

it('a bank’s name for the entity is shown cleaned: no bidi override or control character reaches the app', async () => {
  const bank = await startSandbox({ visibilityDelayMs: { min: 0, max: 0 } });
  closers.push(() => bank.close());
  const le = bank.fixtures.legal_entities[0]!;
  // A hostile or broken bank answers a name that would read reversed ("Alder Trade exe.pdf").
  const spoofing = await startFaultProxy(bank.url);
  closers.push(() => spoofing.close());
  spoofing.rules.push((req) =>
    req.path.startsWith('/v1/webhook/url')
      ? {
          kind: 'rewrite',
          fn: (json) => ({ ...(json as object), legal_entity_name: 'Alder\u0007 Trade\u202Efdp.exe\u200B' }),
        }
      : undefined,
  );
  const t = await startServices({
    environment: { kind: 'remote', baseUrl: spoofing.url, name: 'Alder profile', token: le.tokens.admin },
    rfis: {
      poll: { intervalMs: 600_000, floorMs: 600_000, jitter: 0 },
      webhook: { autoConfigureSandbox: false },
    },
  });
  closers.push(() => t.close());
  const status = await t.services.handlers['session.status'](undefined);
  expect(status.credential?.legalEntityName).toBe('Alder Tradefdp.exe');
  expect(t.services.session.current.entityName()).toBe('Alder Tradefdp.exe');
}, 120_000);
