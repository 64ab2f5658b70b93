/**
 * The consolidated desk over two legal entities of one sandbox bank, each reached through its
 * own loopback proxy so the test sees every request each profile sends: the queue covers both,
 * each profile's requests carry that profile's token only, an answer goes out under the owning
 * entity's credential, and one entity's outage or revoked token leaves the other working.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox';
import type { RunningSandbox } from '../../src/sandbox';
import type { SettingsView } from '../../src/shared/ipc/channels/settings';
import { startFaultProxy } from '../support/fault-proxy';
import type { FaultProxy, SeenRequest } from '../support/fault-proxy';
import { sandboxStaff } from '../support/sandbox-staff';
import { startServices } from '../support/services';
import type { TestServices } from '../support/services';

let sandbox: RunningSandbox | null = null;
let proxies: FaultProxy[] = [];
let t: TestServices | null = null;

afterEach(async () => {
  await t?.close();
  t = null;
  for (const p of proxies) await p.close();
  proxies = [];
  await sandbox?.close();
  sandbox = null;
});

const bearer = (r: SeenRequest): string | null => {
  const h = r.headers.authorization;
  return typeof h === 'string' ? h.replace(/^Bearer /, '') : null;
};

async function twoEntities() {
  sandbox = await startSandbox({ visibilityDelayMs: { min: 0, max: 0 } });
  const [leA, leB] = sandbox.fixtures.legal_entities;
  const tokenA = leA!.tokens.admin;
  const tokenB = leB!.tokens.admin;
  const proxyA = await startFaultProxy(sandbox.url);
  const proxyB = await startFaultProxy(sandbox.url);
  proxies = [proxyA, proxyB];
  t = await startServices({
    environment: { kind: 'remote', baseUrl: proxyA.url, name: 'Alder group A', token: tokenA },
    rfis: { poll: { intervalMs: 200, floorMs: 100, jitter: 0 }, webhook: { autoConfigureSandbox: false } },
  });
  const h = t.services.handlers;
  // The tokens live in the real Secret Service (npm run test:unit runs under with-keyring.sh): a
  // watcher starts only once the keychain has the token, as on a workstation.
  expect((await h['settings.get'](undefined)).vault.backend).toBe('keychain');
  t.platform.nextConfirmAnswers.push(true);
  let view: SettingsView = await h['settings.addProfile']({ name: 'Entity B', baseUrl: proxyB.url });
  const profileB = view.profiles.find((p) => p.name === 'Entity B')!.id;
  view = await h['vault.setToken']({ profileId: profileB, token: tokenB });
  const profileA = view.activeProfileId;
  await expect.poll(() => t!.services.entityWatch.watched().has(profileB), { timeout: 5000 }).toBe(true);
  const staff = sandboxStaff(sandbox);
  return { leA: leA!, leB: leB!, tokenA, tokenB, proxyA, proxyB, profileA, profileB, staff, h };
}

describe('consolidated desk', () => {
  it('lists both entities in one queue, each profile with its own token only', async () => {
    const { leA, leB, tokenA, tokenB, proxyA, proxyB, profileA, profileB, h } = await twoEntities();
    const ownA = (await fetchRfis(tokenA)).length;
    const ownB = (await fetchRfis(tokenB)).length;
    expect(ownB).toBeGreaterThan(0);
    await expect
      .poll(async () => (await h['rfis.list'](undefined)).total, { timeout: 10_000 })
      .toBe(ownA + ownB);
    const all = await h['rfis.list'](undefined);
    expect(all.counts.total).toBe(ownA + ownB);
    expect(all.entities?.map((e) => e.profileId)).toEqual([profileA, profileB]);
    expect(new Set(all.items.filter((r) => r.profileId === profileB).map((r) => r.id))).toEqual(
      new Set(leB.rfi_ids),
    );
    expect(all.items.every((r) => typeof r.entityName === 'string' && r.entityName.length > 0)).toBe(true);
    const onlyB = await h['rfis.list']({ profileId: profileB });
    expect(onlyB.total).toBe(ownB);
    expect(onlyB.items.every((r) => r.profileId === profileB)).toBe(true);
    expect(leA.id).not.toBe(leB.id);

    // Every request that carried a token carried the profile's own.
    const tokensA = new Set(proxyA.seen.map(bearer).filter((x) => x !== null));
    const tokensB = new Set(proxyB.seen.map(bearer).filter((x) => x !== null));
    expect([...tokensA]).toEqual([tokenA]);
    expect([...tokensB]).toEqual([tokenB]);
  });

  it('a new RFI for the watched entity raises one notification naming it; the badge counts both', async () => {
    const { leB, tokenA, tokenB, profileB, staff, h } = await twoEntities();
    await expect
      .poll(async () => (await h['rfis.list'](undefined)).total, { timeout: 10_000 })
      .toBe((await fetchRfis(tokenA)).length + (await fetchRfis(tokenB)).length);
    const before = t!.platform.notifications.length;
    const created = await staff.createRfi({
      type: 'account',
      related_id: leB.accounts[0]!.id,
      description: 'Purpose of the account for entity B',
      questions: [{ question_type: 'transaction.purpose', question_text: 'What is the account for?' }],
    });
    await expect.poll(() => t!.platform.notifications.length - before, { timeout: 10_000 }).toBe(1);
    await new Promise((r) => setTimeout(r, 700)); // more polls: still one
    const mine = t!.platform.notifications.slice(before);
    expect(mine).toHaveLength(1);
    const name = (await h['rfis.list']({ profileId: profileB })).entities?.find(
      (e) => e.profileId === profileB,
    )?.name;
    expect(name).toBeTruthy();
    expect(mine[0]!.title).toContain(name!);
    const row = (await h['rfis.list']({ profileId: profileB })).items.find((r) => r.id === created.id);
    expect(row?.profileId).toBe(profileB);
    const counts = (await h['rfis.counts'](undefined)).counts;
    expect(t!.platform.badgeCount).toBe(counts.awaitingAction);
  });

  it('an answer to B’s RFI goes out as B, with B’s token only', async () => {
    const { leB, tokenA, tokenB, proxyA, proxyB, profileA, profileB, staff, h } = await twoEntities();
    const created = await staff.createRfi({
      type: 'account',
      related_id: leB.accounts[0]!.id,
      description: 'Expected monthly volume',
      questions: [{ question_type: 'transaction.purpose', question_text: 'What is the account for?' }],
    });
    await expect
      .poll(
        async () => (await h['rfis.list']({ profileId: profileB })).items.some((r) => r.id === created.id),
        {
          timeout: 10_000,
        },
      )
      .toBe(true);
    const detail = await h['rfis.get']({ profileId: profileB, id: created.id });
    expect(detail.owner).toMatchObject({ profileId: profileB });
    // Nothing is switched: A stays the default, and the answer goes out through B's own profile.
    expect(t!.services.session.profile.id).toBe(profileA);
    proxyA.seen.length = 0;
    proxyB.seen.length = 0;
    const marker = `volume-${Date.now()}`;
    const queued = await h['answers.submit']({
      profileId: profileB,
      rfiId: created.id,
      questionId: created.questions[0]!.id,
      questionType: 'transaction.purpose',
      text: marker,
      files: [],
    });
    await expect
      .poll(() => t!.services.rfiAnswers.outbox.get(queued.id)?.state, { timeout: 10_000 })
      .toBe('sent');
    const posts = (p: FaultProxy) => p.seen.filter((r) => r.method === 'POST');
    expect(posts(proxyA)).toEqual([]);
    expect(posts(proxyB).length).toBeGreaterThan(0);
    expect(posts(proxyB).every((r) => bearer(r) === tokenB)).toBe(true);
    // At the bank: the response is on B's RFI (which A's credential cannot even see).
    const atBank = await getRfi(tokenB, created.id);
    expect(JSON.stringify(atBank.body)).toContain(marker);
    expect((await getRfi(tokenA, created.id)).status).toBe(404);
    // The audit log records the answer under B, its owner, not under A, the default.
    const lines = (await h['audit.list'](undefined)).entries.filter(
      (x) => x.operation === 'rfi.respond' && x.target === created.id,
    );
    expect(lines.map((x) => [x.environmentId, x.outcome])).toEqual([[profileB, 'succeeded']]);
  });

  it('an outage of A shows on A alone; signing A out leaves B’s RFIs working', async () => {
    const { leB, tokenA, tokenB, proxyA, profileA, profileB, staff, h } = await twoEntities();
    await expect
      .poll(async () => (await h['rfis.list'](undefined)).total, { timeout: 10_000 })
      .toBe((await fetchRfis(tokenA)).length + (await fetchRfis(tokenB)).length);
    // A's bank connection drops: A shows offline, B still syncs new RFIs.
    proxyA.rules.push(() => ({ kind: 'drop' }));
    await h['rfis.sync'](undefined).catch(() => undefined);
    const created = await staff.createRfi({
      type: 'account',
      related_id: leB.accounts[0]!.id,
      description: 'During A’s outage',
      questions: [{ question_type: 'transaction.purpose', question_text: 'What is the account for?' }],
    });
    await expect
      .poll(
        async () => {
          const l = await h['rfis.list'](undefined);
          const a = l.entities?.find((e) => e.profileId === profileA);
          const b = l.entities?.find((e) => e.profileId === profileB);
          return {
            aDown: a?.connection === 'offline' || a?.sync === 'offline',
            bOk: b?.connection === 'connected',
            hasNew: l.items.some((r) => r.id === created.id),
          };
        },
        { timeout: 15_000 },
      )
      .toEqual({ aDown: true, bOk: true, hasNew: true });
    proxyA.rules.length = 0;

    // A signs out: B keeps working.
    await h['vault.deleteToken']({ profileId: profileA });
    const second = await staff.createRfi({
      type: 'account',
      related_id: leB.accounts[0]!.id,
      description: 'After A signed out',
      questions: [{ question_type: 'transaction.purpose', question_text: 'What is the account for?' }],
    });
    await expect
      .poll(
        async () => (await h['rfis.list']({ profileId: profileB })).items.some((r) => r.id === second.id),
        {
          timeout: 10_000,
        },
      )
      .toBe(true);
    const l = await h['rfis.list'](undefined);
    expect(l.entities?.find((e) => e.profileId === profileA)?.connection).toBe('no_token');
    expect(l.entities?.find((e) => e.profileId === profileB)?.connection).toBe('connected');
  });
});

async function fetchRfis(token: string): Promise<Array<{ id: string }>> {
  const res = await fetch(`${sandbox!.url}/v1/rfis?page_size=500`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return ((await res.json()) as { data: Array<{ id: string }> }).data;
}

async function getRfi(token: string, id: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${sandbox!.url}/v1/rfis/${id}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: await res.json() };
}
