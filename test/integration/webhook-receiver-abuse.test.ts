/**
 * The local webhook receiver against a local process that abuses it, over real sockets: slow
 * headers, too many connections, a flood of unsigned requests, and a captured event replayed
 * after a restart.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, memorySink } from '../../src/main/infra/log';
import type { LogRecord } from '../../src/main/infra/log';
import { createWebhookReceiver } from '../../src/main/rfis/webhook-receiver';
import type { ReceiverOptions, WebhookReceiver } from '../../src/main/rfis/webhook-receiver';
import { SEEN_EVENTS_FILE } from '../../src/main/rfis/webhooks';
import type { KeyringBackend } from '../../src/main/infra/keyring';
import type { WebhookEvent } from '../../src/shared/api/webhooks';
import { startServices } from '../support/services';
import { staffOf } from '../support/sandbox-staff';
import { createAtRestCodec } from '../../src/main/infra/at-rest';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const T0 = Math.floor(Date.parse('2026-03-01T12:00:00Z') / 1000);

function signed(id: string, t: number): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({
    id,
    type: 'rfi.action_required',
    created_at: new Date(t * 1000).toISOString(),
    data: { rfi_id: 'rfi_1', status: 'action_required' },
  });
  const sig = sign('sha256', Buffer.concat([Buffer.from(body), Buffer.from(String(t))]), {
    key: privateKey,
    dsaEncoding: 'der',
  }).toString('base64');
  return { body, headers: { 'service-signature': `t=${t},v1=${sig}` } };
}

interface Rig {
  receiver: WebhookReceiver;
  url: URL;
  events: WebhookEvent[];
  logs: LogRecord[];
  pushes: number;
  now: { ms: number };
}

const open: WebhookReceiver[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function rig(extra: Partial<ReceiverOptions> = {}, now = { ms: T0 * 1000 }): Promise<Rig> {
  const sink = memorySink();
  const r: Rig = {
    receiver: null as unknown as WebhookReceiver,
    url: null as unknown as URL,
    events: [],
    logs: sink.records,
    pushes: 0,
    now,
  };
  r.receiver = createWebhookReceiver({
    publicKey: () => publicKey,
    nowMs: () => now.ms,
    onEvent: (e) => r.events.push(e),
    onStatus: () => r.pushes++,
    log: createLogger(sink, 'debug'),
    ...extra,
  });
  open.push(r.receiver);
  r.url = new URL(await r.receiver.start());
  return r;
}

function post(
  url: URL,
  body: string,
  headers: Record<string, string> = {},
  agent?: Agent,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        ...(agent ? { agent } : {}),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Connects and resolves when connected; `closed` resolves with the time the server closed it. */
function socketTo(url: URL): Promise<{ socket: Socket; closed: Promise<number>; data: () => string }> {
  return new Promise((resolve, reject) => {
    let data = '';
    const socket = connect(Number(url.port), url.hostname);
    const closed = new Promise<number>((res) => socket.on('close', () => res(Date.now())));
    socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ socket, closed, data: () => data }));
    socket.once('error', reject);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('webhook receiver under abuse (real sockets)', () => {
  it('closes a client that sends its headers slowly within about two seconds', async () => {
    const r = await rig();
    const { socket, closed } = await socketTo(r.url);
    const began = Date.now();
    socket.write(`POST ${r.url.pathname} HTTP/1.1\r\nHost: ${r.url.host}\r\n`);
    // one header byte every 200 ms: never completes the headers
    const drip = setInterval(() => {
      if (!socket.destroyed) socket.write('X');
    }, 200);
    const at = await Promise.race([closed, sleep(6000).then(() => -1)]);
    clearInterval(drip);
    socket.destroy();
    expect(at, 'the slow client was not closed within 6 s').toBeGreaterThan(0);
    // headers timeout 1 s, checked every second: closed after 1 to 2 s (plus scheduling)
    expect(at - began).toBeLessThan(2600);
    // the receiver still answers a real delivery
    const ev = signed('evt_after_slowloris', T0);
    expect((await post(r.url, ev.body, ev.headers)).status).toBe(202);
  });

  it('closes connections beyond the cap at once and counts them; the ones inside are served', async () => {
    const r = await rig({ maxConnections: 4 });
    const held = await Promise.all([0, 1, 2, 3].map(() => socketTo(r.url)));
    await sleep(100);
    const extra = await Promise.all([0, 1].map(() => socketTo(r.url)));
    const began = Date.now();
    const closedAt = await Promise.all(
      extra.map((x) => Promise.race([x.closed, sleep(3000).then(() => -1)])),
    );
    for (const at of closedAt) {
      expect(at).toBeGreaterThan(0);
      expect(at - began).toBeLessThan(500);
    }
    for (const x of extra) expect(x.data()).toBe('');
    // the four inside the cap are still open and one of them completes a request
    for (const h of held) expect(h.socket.destroyed).toBe(false);
    const ev = signed('evt_in_cap', T0);
    const first = held[0]!;
    first.socket.write(
      `POST ${r.url.pathname} HTTP/1.1\r\nHost: ${r.url.host}\r\nContent-Type: application/json\r\n` +
        `Service-Signature: ${ev.headers['service-signature']}\r\nContent-Length: ${Buffer.byteLength(ev.body)}\r\n` +
        `Connection: close\r\n\r\n${ev.body}`,
    );
    await first.closed;
    expect(first.data()).toMatch(/^HTTP\/1\.1 202/);
    for (const h of held) h.socket.destroy();
    expect(r.events.map((e) => e.id)).toEqual(['evt_in_cap']);
    expect(r.receiver.counters().verificationFailures).toBe(2);
    await sleep(1100);
    const lines = r.logs.filter((l) => l.message === 'webhook: requests refused');
    // at most one line per second: the first at once, the second within the next second
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.length).toBeLessThanOrEqual(2);
    const reasons = lines.map((l) => (l.data as { reasons: Record<string, number> }).reasons);
    expect(reasons.reduce((n, x) => n + (x['too many connections'] ?? 0), 0)).toBe(2);
  });

  it('1,000 unsigned POSTs: all refused, a bounded number of log lines and pushes, with the counts', async () => {
    const r = await rig();
    const pushesBefore = r.pushes;
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const began = Date.now();
    const statuses = new Map<number, number>();
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < 1000) {
          next++;
          const res = await post(r.url, '{"id":"evt_x"}', {}, agent);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        }
      }),
    );
    const elapsed = Date.now() - began;
    agent.destroy();
    expect(Object.fromEntries(statuses)).toEqual({ 401: 1000 });
    await sleep(1200); // the trailing report
    const lines = r.logs.filter((l) => l.message === 'webhook: requests refused');
    const bound = Math.ceil(elapsed / 1000) + 2;
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.length).toBeLessThanOrEqual(bound);
    const counted = lines.reduce((n, l) => n + (l.data as { count: number }).count, 0);
    expect(counted).toBe(1000);
    expect(lines[0]!.data).toMatchObject({
      reasons: { 'the Service-Signature header is missing': expect.any(Number) },
    });
    // no other line per request
    expect(r.logs.filter((l) => l.level === 'warn').length).toBe(lines.length);
    const pushes = r.pushes - pushesBefore;
    expect(pushes).toBeGreaterThanOrEqual(1);
    expect(pushes).toBeLessThanOrEqual(bound);
    expect(r.receiver.counters()).toMatchObject({ received: 1000, verificationFailures: 1000, accepted: 0 });
  });

  it('refuses a captured event replayed after a restart inside the tolerance; forgets ids past it', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'td-webhook-seen-'));
    dirs.push(dir);
    const file = path.join(dir, 'webhook-seen-events.json');
    const now = { ms: T0 * 1000 };
    const captured = signed('evt_captured', T0);

    const first = await rig({ seenIdsFile: file, toleranceSeconds: 300 }, now);
    expect((await post(first.url, captured.body, captured.headers)).status).toBe(202);
    expect(first.events.map((e) => e.id)).toEqual(['evt_captured']);
    await first.receiver.close();

    // restart, two minutes later (inside the 5-minute tolerance): the replay is a duplicate
    now.ms += 120_000;
    const second = await rig({ seenIdsFile: file, toleranceSeconds: 300 }, now);
    const replay = await post(second.url, captured.body, captured.headers);
    expect(replay.status).toBe(200);
    expect(JSON.parse(replay.body)).toEqual({ status: 'duplicate' });
    expect(second.events).toEqual([]);
    expect(second.receiver.counters().duplicates).toBe(1);

    // once its timestamp has left the tolerance, the id is dropped from the file (the signature
    // check refuses such a replay anyway)
    now.ms = (T0 + 400) * 1000;
    const fresh = signed('evt_fresh', T0 + 400);
    expect((await post(second.url, fresh.body, fresh.headers)).status).toBe(202);
    const stored = JSON.parse(await readFile(file, 'utf8')) as { ids: Record<string, number> };
    expect(stored.ids).toEqual({ evt_fresh: T0 + 400 });
    expect((await post(second.url, captured.body, captured.headers)).status).toBe(401);
  });
});

describe('the app keeps the seen event ids in its data folder', () => {
  const entries = new Map<string, string>();
  const keyring: KeyringBackend = {
    name: 'test keychain',
    get: async (s, a) => entries.get(`${s}\u0000${a}`) ?? null,
    set: async (s, a, secret) => void entries.set(`${s}\u0000${a}`, secret),
    delete: async (s, a) => entries.delete(`${s}\u0000${a}`),
  };

  it('events delivered by the embedded sandbox land in webhook-seen-events.json', async () => {
    const t = await startServices({ keyring, rfis: { poll: { intervalMs: 3_600_000 } } });
    try {
      await t.services.rfis.ready();
      await expect.poll(() => t.services.webhooks.status().autoConfigure?.state).toBe('done');
      const le = t.services.sandbox!.fixtures.legal_entities[0]!;
      await staffOf(t.services).createRfi({
        type: 'account',
        related_id: le.accounts[0]!.id,
        description: 'seen ids',
        questions: [{ question_type: 'transaction.purpose', question_text: 'Why?' }],
      });
      await expect
        .poll(() => t.services.webhooks.status().accepted, { timeout: 10_000 })
        .toBeGreaterThanOrEqual(2);
      const deliveredIds = async () =>
        (await staffOf(t.services).listWebhookDeliveries()).data
          .filter((d) => d.status === 'delivered')
          .map((d) => d.event_id);
      await expect
        .poll(async () => (await deliveredIds()).length, { timeout: 10_000 })
        .toBeGreaterThanOrEqual(2);
      const delivered = await deliveredIds();
      // Sealed at rest: opened with the data key as main does.
      const stored = JSON.parse(
        createAtRestCodec(t.services.vault.dataKey()).open(
          await readFile(path.join(t.dataDir, SEEN_EVENTS_FILE), 'utf8'),
        ).text,
      ) as {
        ids: Record<string, number>;
      };
      // Kept per profile: duplicates are dropped per profile (one profile's ids never mark another's).
      const profileId = t.services.session.profile.id;
      for (const id of delivered) expect(Object.keys(stored.ids)).toContain(`${profileId}\u0000${id}`);
    } finally {
      await t.close();
    }
  });
});
