/**
 * Webhooks for every watched profile, over the real embedded sandbox and real signatures: the
 * active profile (entity A) and a second profile holding entity B's admin token each get their own
 * route on the one local receiver; the sandbox points each admin credential at its own route; an
 * RFI created for B arrives through B's route (polling is effectively off) and is read with B's
 * token; forged, misdirected and replayed events are refused or come to nothing; a profile whose
 * token is removed loses its route.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { signWebhook } from '../../src/sandbox';
import { staffOf } from '../support/sandbox-staff';
import { startServices } from '../support/services';
import type { TestServices } from '../support/services';

let t: TestServices | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

const bankKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const wrongKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const privatePem = bankKey.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

async function webhookUrlAtBank(sandbox: RunningSandbox, token: string): Promise<string> {
  const res = await fetch(`${sandbox.url}/v1/webhook/url`, { headers: { authorization: `Bearer ${token}` } });
  return ((await res.json()) as { webhook_url: string }).webhook_url;
}

async function rfiStatusAtBank(sandbox: RunningSandbox, token: string, id: string): Promise<number> {
  const res = await fetch(`${sandbox.url}/v1/rfis/${id}`, { headers: { authorization: `Bearer ${token}` } });
  await res.body?.cancel();
  return res.status;
}

let seq = 0;
function signedEvent(
  rfiId: string,
  key: KeyObject,
  nowMs: number,
  id = `evt_test_${Date.now()}_${++seq}`,
): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({
    id,
    type: 'rfi.action_required',
    created_at: new Date(nowMs).toISOString(),
    data: { rfi_id: rfiId, status: 'action_required' },
  });
  const ts = Math.floor(nowMs / 1000);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'service-signature': `t=${ts},v1=${signWebhook(body, ts, key)}`,
    },
  };
}

async function post(url: string, ev: { body: string; headers: Record<string, string> }): Promise<number> {
  const res = await fetch(url, { method: 'POST', headers: ev.headers, body: ev.body });
  await res.body?.cancel();
  return res.status;
}

async function twoProfiles() {
  t = await startServices({
    environment: {
      kind: 'embedded-sandbox',
      sandbox: { visibilityDelayMs: { min: 0, max: 0 }, privateKeyPem: privatePem, extraLegalEntities: 1 },
    },
    // Polling effectively off: whatever arrives comes through the webhooks.
    rfis: { poll: { intervalMs: 3_600_000, floorMs: 3_600_000, jitter: 0 } },
  });
  const services = t.services;
  const sandbox = services.sandbox!;
  const [leA, leB] = sandbox.fixtures.legal_entities;
  const h = services.handlers;
  await services.rfis.ready();
  const profileA = services.session.profile.id;
  t.platform.nextConfirmAnswers.push(true);
  const view = await h['settings.addProfile']({ name: 'Entity B', baseUrl: sandbox.url });
  const profileB = view.profiles.find((p) => p.name === 'Entity B')!.id;
  await h['vault.setToken']({ profileId: profileB, token: leB!.tokens.admin });
  await expect.poll(() => services.entityWatch.watched().has(profileB), { timeout: 10_000 }).toBe(true);
  await expect
    .poll(() => services.webhooks.profile(profileB)?.autoConfigure?.state, { timeout: 10_000 })
    .toBe('done');
  await expect
    .poll(() => services.webhooks.profile(profileA)?.autoConfigure?.state, { timeout: 10_000 })
    .toBe('done');
  await services.entityWatch.watched().get(profileB)!.rfis.ready();
  return { services, sandbox, leA: leA!, leB: leB!, profileA, profileB, h, staff: staffOf(services) };
}

describe('webhooks for every watched profile', () => {
  it('each admin credential is pointed at its own route; B’s new RFI arrives through B’s route, read with B’s token', async () => {
    const { services, sandbox, leA, leB, profileA, profileB, h, staff } = await twoProfiles();
    const urlA = services.webhooks.profile(profileA)!.url!;
    const urlB = services.webhooks.profile(profileB)!.url!;
    expect(urlA).not.toBe(urlB);
    expect(new URL(urlA).origin).toBe(new URL(urlB).origin);
    // What the page is shown: the route with its secret path hidden.
    expect(services.webhooks.status().url).toBe(`${new URL(urlA).origin}/webhooks/rfi/…`);
    // The bank's state: each credential points at its own profile's route.
    expect(await webhookUrlAtBank(sandbox, leA.tokens.admin)).toBe(urlA);
    expect(await webhookUrlAtBank(sandbox, leB.tokens.admin)).toBe(urlB);
    const entities = (await h['rfis.list'](undefined)).entities!;
    expect(entities.find((e) => e.profileId === profileB)?.events?.mode).toBe('webhook');

    const watcherB = services.entityWatch.watched().get(profileB)!;
    const pollsB = watcherB.rfis.poller.polls;
    const pollsA = services.rfis.poller.polls;
    const acceptedA = services.webhooks.profile(profileA)!.counters!.accepted;
    const before = t!.platform.notifications.length;
    const created = await staff.createRfi({
      type: 'account',
      related_id: leB.accounts[0]!.id,
      description: 'Purpose of the account for entity B',
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
    // Every event of this RFI was delivered to B's route and nowhere else.
    await expect
      .poll(
        async () => {
          const mine = (await staff.listWebhookDeliveries()).data.filter((d) => d.body.includes(created.id));
          return mine.length > 0 && mine.every((d) => d.status === 'delivered' && d.url === urlB);
        },
        { timeout: 10_000 },
      )
      .toBe(true);
    await services.webhooks.idle();
    // Nobody polled: it came through the webhook, and only B's token can read it at the bank.
    expect(watcherB.rfis.poller.polls).toBe(pollsB);
    expect(services.rfis.poller.polls).toBe(pollsA);
    expect(services.webhooks.profile(profileB)!.counters!.accepted).toBeGreaterThanOrEqual(2);
    expect(services.webhooks.profile(profileA)!.counters!.accepted).toBe(acceptedA);
    expect(await rfiStatusAtBank(sandbox, leB.tokens.admin, created.id)).toBe(200);
    expect(await rfiStatusAtBank(sandbox, leA.tokens.admin, created.id)).toBe(404);
    // Exactly one notification, naming B.
    await new Promise((r) => setTimeout(r, 300));
    const mine = t!.platform.notifications.slice(before);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.title).toContain(leB.name);
    const all = await h['rfis.list'](undefined);
    expect(all.items.filter((r) => r.id === created.id).map((r) => r.profileId)).toEqual([profileB]);
  });

  it('refuses a forged event, keeps B’s RFI out of A’s route, drops duplicates per profile, and follows the active profile', async () => {
    const { services, sandbox, leB, profileA, profileB, h, staff } = await twoProfiles();
    const urlA = services.webhooks.profile(profileA)!.url!;
    const urlB = services.webhooks.profile(profileB)!.url!;
    const rfiB = leB.rfi_ids[0]!;
    const now = Date.parse((await staff.getClock()).now);

    // Signed with a key that is not the bank's: refused.
    expect(await post(urlB, signedEvent(rfiB, wrongKey.privateKey, now))).toBe(401);
    // A guessed path: refused before the body is read.
    expect(
      await post(`${new URL(urlA).origin}/webhooks/rfi/guess`, signedEvent(rfiB, bankKey.privateKey, now)),
    ).toBe(404);

    // The bank's key, but sent to A's route for B's RFI: A re-reads it with A's token, the bank
    // answers 404, and A's queue never holds it.
    const logsBefore = t!.logs.length;
    const misdirected = signedEvent(rfiB, bankKey.privateKey, now);
    expect(await post(urlA, misdirected)).toBe(202);
    await services.webhooks.idle();
    expect(
      t!.logs
        .slice(logsBefore)
        .some((l) => l.message === 'webhook: RFI re-read failed' && JSON.stringify(l).includes(profileA)),
    ).toBe(true);
    const rows = (await h['rfis.list'](undefined)).items.filter((r) => r.id === rfiB);
    expect(rows.map((r) => r.profileId)).toEqual([profileB]);
    // The same event id is new to B (ids are per profile), then a duplicate there.
    expect(await post(urlB, misdirected)).toBe(202);
    expect(await post(urlB, misdirected)).toBe(200);
    expect(services.webhooks.profile(profileB)!.counters!.duplicates).toBeGreaterThanOrEqual(1);

    // B becomes the active profile; A is watched now. Both keep their paths, so the bank's URLs
    // need no change, and a new RFI for A still arrives through A's route (polling is off).
    await h['settings.activateProfile']({ profileId: profileB });
    await expect.poll(() => services.entityWatch.watched().has(profileA), { timeout: 10_000 }).toBe(true);
    await expect.poll(() => services.webhooks.profile(profileA)?.url ?? null, { timeout: 10_000 }).toBe(urlA);
    expect(services.webhooks.status().url).toBe(`${new URL(urlB).origin}/webhooks/rfi/…`);
    expect(services.webhooks.profile(profileB)!.url).toBe(urlB);
    const leA = sandbox.fixtures.legal_entities[0]!;
    expect(await webhookUrlAtBank(sandbox, leA.tokens.admin)).toBe(urlA);
    expect(await webhookUrlAtBank(sandbox, leB.tokens.admin)).toBe(urlB);
    const forA = await staff.createRfi({
      type: 'account',
      related_id: leA.accounts[0]!.id,
      description: 'For A after the switch',
      questions: [{ question_type: 'transaction.purpose', question_text: 'What is the account for?' }],
    });
    await expect
      .poll(async () => (await h['rfis.list']({ profileId: profileA })).items.some((r) => r.id === forA.id), {
        timeout: 10_000,
      })
      .toBe(true);
    await expect
      .poll(
        async () => {
          const mine = (await staff.listWebhookDeliveries()).data.filter((d) => d.body.includes(forA.id));
          return mine.length > 0 && mine.every((d) => d.status === 'delivered' && d.url === urlA);
        },
        { timeout: 10_000 },
      )
      .toBe(true);
  });

  it('a viewer credential is polling only, said so; a profile whose token is removed loses its route', async () => {
    const { services, sandbox, leB, profileB, h } = await twoProfiles();
    const urlB = services.webhooks.profile(profileB)!.url!;
    const now = Date.parse((await staffOf(services).getClock()).now);

    // B's token is removed: its watcher stops, its route goes, events for it are refused.
    await h['vault.deleteToken']({ profileId: profileB });
    await expect.poll(() => services.entityWatch.watched().has(profileB), { timeout: 10_000 }).toBe(false);
    expect(services.webhooks.profile(profileB)).toBeNull();
    expect(await post(urlB, signedEvent(leB.rfi_ids[0]!, bankKey.privateKey, now))).toBe(404);

    // A viewer credential of a third entity: watched, but it cannot set the webhook URL.
    const leC = sandbox.fixtures.legal_entities[2]!;
    t!.platform.nextConfirmAnswers.push(true);
    const v = await h['settings.addProfile']({ name: 'C viewer', baseUrl: sandbox.url });
    const viewerId = v.profiles.find((p) => p.name === 'C viewer')!.id;
    await h['vault.setToken']({ profileId: viewerId, token: leC.tokens.viewer! });
    await expect.poll(() => services.entityWatch.watched().has(viewerId), { timeout: 10_000 }).toBe(true);
    await expect
      .poll(() => services.webhooks.profile(viewerId)?.autoConfigure?.state, { timeout: 10_000 })
      .toBe('failed');
    const entity = (await h['rfis.list'](undefined)).entities?.find((e) => e.profileId === viewerId);
    expect(entity?.name).toBe(leC.name);
    expect(entity?.events?.mode).toBe('polling');
    expect(entity?.events?.reason).toMatch(/viewer.*Polling only/);
    // The bank's state: the viewer's webhook URL was never set.
    expect(await webhookUrlAtBank(sandbox, leC.tokens.viewer!)).toBe('');
  });

  it('no channel the page can call, and no event it hears, carries a route’s secret path', async () => {
    const { services, profileA, profileB, h } = await twoProfiles();
    const secrets = [profileA, profileB].map((id) => new URL(services.webhooks.profile(id)!.url!).pathname);
    expect(secrets.every((p) => /^\/webhooks\/rfi\/[^/…]{16,}$/.test(p))).toBe(true);
    // Every channel of the contract that takes no argument (the page's reads), as the page calls it.
    const reads = [
      'session.status',
      'session.sandboxCredentials',
      'session.clock',
      'settings.get',
      'vault.status',
      'audit.list',
      'crypto.context',
      'crypto.list',
      'returns.recent',
      'returns.list',
      'answers.list',
      'answers.status',
      'rfis.list',
      'rfis.sync',
      'rfis.counts',
      'webhook.config',
      'webhook.receiverStatus',
      'locker.list',
      'desktop.settings',
      'reminders.snoozes',
      'reminders.dueSoon',
    ] as const;
    const seen: string[] = [];
    for (const channel of reads) {
      const call = h[channel] as (args: undefined) => Promise<unknown>;
      seen.push(`${channel}: ${JSON.stringify(await call(undefined))}`);
    }
    for (const m of t!.pushed) seen.push(`${m.event}: ${JSON.stringify(m.payload)}`);
    for (const secret of secrets) {
      const tail = secret.split('/').pop()!;
      expect(seen.filter((line) => line.includes(tail))).toEqual([]);
    }
    // The page still learns there is a receiver, and where (origin only).
    expect(JSON.stringify(await h['webhook.receiverStatus'](undefined))).toContain('/webhooks/rfi/…');
  });
});
