import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { napiKeyringBackend } from '../../src/main/infra/keyring';
import { lockable } from '../support/lockable-keyring';
import { startServices, tempDir } from '../support/services';
import type { TestServices } from '../support/services';

/**
 * A keychain that does not answer at start (locked) is asked again while the app runs: on the
 * analyst's "Try again" and on a schedule. Once it answers, every token entered meanwhile moves
 * from memory into it, nothing is lost, and Settings says what changed. The real Secret Service
 * (scripts/with-keyring.sh) behind a switch that refuses every call while "locked".
 */

beforeAll(() => {
  if (process.platform === 'linux' && !process.env['DBUS_SESSION_BUS_ADDRESS']) {
    throw new Error('No session bus: run the keychain tests under scripts/with-keyring.sh.');
  }
});

const real = napiKeyringBackend();
const services: string[] = [];
const accounts: string[] = ['sandbox', 'treasury-desk:data-key'];
let t: TestServices | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
  for (const service of services.splice(0)) {
    for (const account of accounts) {
      await real.delete(service, account).catch(() => false);
    }
  }
});

/** Services started while the (real) keychain refuses every call; it asks again every `reprobeMs`. */
async function startLocked(reprobeMs: number) {
  const dataDir = path.join(await tempDir(), 'data');
  const service = `treasury-desk-test/${randomUUID()}`;
  services.push(service);
  const keychain = lockable(real);
  t = await startServices({
    dataDir,
    keyring: keychain.backend,
    keyringService: service,
    keychainReprobeMs: reprobeMs,
  });
  return { dataDir, service, keychain, s: t };
}

it('"Try again" after the keychain is unlocked moves every token of the run into it, and a restart finds them', async () => {
  const { dataDir, service, keychain, s } = await startLocked(3_600_000);
  const h = s.services.handlers;
  const before = await h['vault.status'](undefined);
  expect(before).toMatchObject({ backend: 'memory', available: false });
  expect(before.problem).toMatch(/kept in memory until it answers/);
  const sandboxId = s.services.session.profile.id;
  const sandboxToken = await s.services.vault.get(sandboxId);
  expect(sandboxToken).not.toBeNull();
  expect((await h['session.status'](undefined)).connection).toBe('connected');

  // A token entered while the keychain is locked: kept in memory.
  const leB = s.services.sandbox!.fixtures.legal_entities[1]!;
  s.platform.nextConfirmAnswers.push(true);
  const view = await h['settings.addProfile']({ name: 'Birch', baseUrl: s.services.sandbox!.url });
  const birch = view.profiles.find((p) => p.name === 'Birch')!.id;
  accounts.push(birch);
  await h['vault.setToken']({ profileId: birch, token: leB.tokens.admin });
  expect(await real.get(service, birch)).toBeNull();

  keychain.unlock();
  const pushedBefore = s.pushed.length;
  // The analyst's "Try again" (the header's status check) asks the keychain again.
  expect((await h['session.status'](undefined)).connection).toBe('connected');
  const after = await h['vault.status'](undefined);
  // The data folder is sealed from this moment, without a restart (keychain-live-switch.test.ts).
  expect(after).toMatchObject({ backend: 'keychain', available: true, dataAtRest: 'encrypted' });
  expect(after.problem).toBeNull();
  // Both tokens are in the real keychain now, and still work.
  expect(await real.get(service, sandboxId)).toBe(sandboxToken);
  expect(await real.get(service, birch)).toBe(leB.tokens.admin);
  expect(await s.services.vault.get(birch)).toBe(leB.tokens.admin);
  expect((await h['session.status'](undefined)).connection).toBe('connected');
  // Settings heard of it (one truthful status).
  await expect
    .poll(() =>
      s.pushed
        .slice(pushedBefore)
        .some(
          (m) =>
            m.event === 'settings.changed' &&
            (m.payload as { vault: { backend: string } }).vault.backend === 'keychain',
        ),
    )
    .toBe(true);

  // Restart with the keychain open: the tokens are there, and files are sealed from now on.
  await s.close();
  t = await startServices({ dataDir, keyring: real, keyringService: service });
  expect(await t.services.handlers['vault.status'](undefined)).toMatchObject({
    backend: 'keychain',
    dataAtRest: 'encrypted',
  });
  expect(await t.services.vault.get(birch)).toBe(leB.tokens.admin);
}, 90_000);

it('the keychain is asked again on a schedule, without the analyst doing anything', async () => {
  const { service, keychain, s } = await startLocked(100);
  const sandboxId = s.services.session.profile.id;
  const token = await s.services.vault.get(sandboxId);
  await new Promise((r) => setTimeout(r, 300));
  expect(s.services.vault.status().backend).toBe('memory');
  keychain.unlock();
  await expect.poll(() => s.services.vault.status().backend, { timeout: 10_000 }).toBe('keychain');
  expect(await real.get(service, sandboxId)).toBe(token);
}, 60_000);
