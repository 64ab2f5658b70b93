/**
 * The default profile is an ordinary member of the entity watch: Alder (the default) and Birch
 * (watched) are two banks, each reached through its own loopback proxy so the test sees every
 * request each profile sends, and Birch's bank clock runs two hours ahead of Alder's. Making Birch
 * the default and then Alder again changes which profile is the default, never the identity
 * behind a member: each profile keeps its RFI service, its webhook route and its clock, every
 * request of each carries that profile's token only, and each route judges signature times on its
 * own bank's clock and re-reads through its own bank.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { signWebhook, startSandbox } from '../../src/sandbox';
import type { RunningSandbox } from '../../src/sandbox';
import type { WatchedEntity } from '../../src/main/watch/entity-watch';
import { startFaultProxy } from '../support/fault-proxy';
import type { FaultProxy, SeenRequest } from '../support/fault-proxy';
import { sandboxStaff } from '../support/sandbox-staff';
import { startServices } from '../support/services';
import type { TestServices } from '../support/services';

let sandboxes: RunningSandbox[] = [];
let proxies: FaultProxy[] = [];
let t: TestServices | null = null;

afterEach(async () => {
  await t?.close();
  t = null;
  for (const p of proxies) await p.close();
  proxies = [];
  for (const s of sandboxes) await s.close();
  sandboxes = [];
});

const TWO_HOURS_S = 2 * 3600;

const bearer = (r: SeenRequest): string | null => {
  const h = r.headers.authorization;
  return typeof h === 'string' ? h.replace(/^Bearer /, '') : null;
};

function keyPair(): { privateKey: KeyObject; privatePem: string; publicPem: string } {
  const k = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privateKey: k.privateKey,
    privatePem: k.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: k.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

let seq = 0;
/** An RFI event for `rfiId`, signed with `key` at `atMs` (a bank's time). */
async function post(url: string, rfiId: string, key: KeyObject, atMs: number): Promise<number> {
  const body = JSON.stringify({
    id: `evt_default_${Date.now()}_${++seq}`,
    type: 'rfi.action_required',
    created_at: new Date(atMs).toISOString(),
    data: { rfi_id: rfiId, status: 'action_required' },
  });
  const ts = Math.floor(atMs / 1000);
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'service-signature': `t=${ts},v1=${signWebhook(body, ts, key)}`,
    },
    body,
  });
  await res.body?.cancel();
  return res.status;
}

it('switching the default to Birch and back leaves each profile’s RFI service, route and clock bound to its own bank and token', async () => {
  const keyA = keyPair();
  const keyB = keyPair();
  const bankA = await startSandbox({ visibilityDelayMs: { min: 0, max: 0 }, privateKeyPem: keyA.privatePem });
  const bankB = await startSandbox({ visibilityDelayMs: { min: 0, max: 0 }, privateKeyPem: keyB.privatePem });
  sandboxes = [bankA, bankB];
  const alder = bankA.fixtures.legal_entities[0]!;
  const birch = bankB.fixtures.legal_entities[1]!;
  const proxyA = await startFaultProxy(bankA.url);
  const proxyB = await startFaultProxy(bankB.url);
  proxies = [proxyA, proxyB];
  // Birch's bank runs two hours ahead: a clock that followed the default would show it.
  await sandboxStaff(bankB).advanceClock(TWO_HOURS_S);
  t = await startServices({
    environment: { kind: 'remote', baseUrl: proxyA.url, name: 'Alder', token: alder.tokens.admin },
    rfis: { poll: { intervalMs: 300, floorMs: 100, jitter: 0 }, webhook: { autoConfigureSandbox: false } },
  });
  const { services } = t;
  const h = services.handlers;
  const profileA = services.session.profile.id;
  t.platform.nextConfirmAnswers.push(true);
  const view = await h['settings.addProfile']({ name: 'Birch', baseUrl: proxyB.url });
  const profileB = view.profiles.find((p) => p.name === 'Birch')!.id;
  await h['vault.setToken']({ profileId: profileB, token: birch.tokens.admin });
  // Each bank's webhook key is pinned for its own profile.
  services.settings.setWebhookPublicKey(profileA, keyA.publicPem);
  services.settings.setWebhookPublicKey(profileB, keyB.publicPem);
  await expect.poll(() => services.entityWatch.watched().has(profileB), { timeout: 10_000 }).toBe(true);
  await services.entityWatch.sync(true);

  const memberOf = (id: string): WatchedEntity => services.entityWatch.member(id)!;
  const bound = {
    [profileA]: { rfis: memberOf(profileA).rfis, session: memberOf(profileA).session },
    [profileB]: { rfis: memberOf(profileB).rfis, session: memberOf(profileB).session },
  };
  const routeA = services.webhooks.profile(profileA)!.url!;
  const routeB = services.webhooks.profile(profileB)!.url!;
  expect(routeA).not.toBe(routeB);
  const rfiA = alder.rfi_ids[0]!;
  const rfiB = birch.rfi_ids[0]!;

  /** Each profile is still served by what it was served by at the start, whoever is the default. */
  const expectBoundToOwnBank = async (defaultId: string): Promise<void> => {
    expect(services.session.profile.id).toBe(defaultId);
    for (const id of [profileA, profileB]) {
      expect(memberOf(id).rfis).toBe(bound[id]!.rfis);
      expect(memberOf(id).session).toBe(bound[id]!.session);
      expect(services.webhooks.profile(id)?.url).toBe(id === profileA ? routeA : routeB);
    }
    expect(services.rfis).toBe(bound[defaultId]!.rfis);
    expect([...services.entityWatch.watched().keys()]).toEqual([
      defaultId === profileA ? profileB : profileA,
    ]);
    // Each member's clock is its own bank's: Birch's two hours ahead of Alder's.
    await services.entityWatch.sync(false);
    const skewA = memberOf(profileA).now() - Date.now();
    const skewB = memberOf(profileB).now() - Date.now();
    expect(Math.abs(skewA)).toBeLessThan(60_000);
    expect(Math.abs(skewB - TWO_HOURS_S * 1000)).toBeLessThan(60_000);

    // Each route checks times on its own bank's clock and re-reads through its own bank.
    const seenA = proxyA.seen.length;
    const seenB = proxyB.seen.length;
    const nowA = Date.parse((await sandboxStaff(bankA).getClock()).now);
    const nowB = Date.parse((await sandboxStaff(bankB).getClock()).now);
    expect(await post(routeA, rfiA, keyA.privateKey, nowB)).toBe(401);
    expect(await post(routeB, rfiB, keyB.privateKey, nowA)).toBe(401);
    expect(await post(routeA, rfiA, keyA.privateKey, nowA)).toBe(202);
    expect(await post(routeB, rfiB, keyB.privateKey, nowB)).toBe(202);
    await services.webhooks.idle();
    const reread = (seen: SeenRequest[], rfi: string) =>
      seen.filter((r) => r.method === 'GET' && r.path.startsWith(`/v1/rfis/${rfi}`));
    expect(reread(proxyA.seen.slice(seenA), rfiA).length).toBeGreaterThan(0);
    expect(reread(proxyB.seen.slice(seenB), rfiB).length).toBeGreaterThan(0);
    expect(reread(proxyA.seen, rfiB)).toEqual([]);
    expect(reread(proxyB.seen, rfiA)).toEqual([]);
  };

  await expectBoundToOwnBank(profileA);
  await h['settings.activateProfile']({ profileId: profileB });
  await expectBoundToOwnBank(profileB);
  await h['settings.activateProfile']({ profileId: profileA });
  await expectBoundToOwnBank(profileA);

  // Every request that carried a token, through the whole run, carried its own profile's.
  expect([...new Set(proxyA.seen.map(bearer).filter((x) => x !== null))]).toEqual([alder.tokens.admin]);
  expect([...new Set(proxyB.seen.map(bearer).filter((x) => x !== null))]).toEqual([birch.tokens.admin]);
  // Both entities stayed in the one queue, each row with its owner.
  const all = await h['rfis.list'](undefined);
  expect(all.items.find((r) => r.id === rfiA && r.profileId === profileA)).toBeTruthy();
  expect(all.items.find((r) => r.id === rfiB && r.profileId === profileB)).toBeTruthy();
});
