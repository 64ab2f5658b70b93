import { execFileSync } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index';
import { parseSignatureHeader, Rfi, WebhookConfig, WebhookEvent } from '../../src/shared/api';
import { client, err, fx, start, type Json } from './helpers';

interface Received {
  raw: Buffer;
  signature: string;
  event: WebhookEvent;
}

class Receiver {
  received: Received[] = [];
  /** Status codes to answer, in order (0: never answer); then 200. */
  script: number[] = [];
  /**
   * Which events the script applies to. Deliveries left over from earlier tests share this
   * receiver, so a test scopes its scripted faults to the events it caused.
   */
  scriptApplies: (event: WebhookEvent) => boolean = () => true;
  hits = 0;
  server: Server;
  url = '';
  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (ch: Buffer) => chunks.push(ch));
      req.on('end', () => {
        this.hits++;
        const raw = Buffer.concat(chunks);
        let event: WebhookEvent | null = null;
        try {
          event = WebhookEvent.parse(JSON.parse(raw.toString('utf8')));
        } catch {
          event = null;
        }
        const status = event && this.scriptApplies(event) ? (this.script.shift() ?? 200) : 200;
        if (status === 0) return; // hang: never answer
        if (status === 200 && event) {
          this.received.push({ raw, signature: String(req.headers['service-signature'] ?? ''), event });
        }
        res.statusCode = status;
        res.end();
      });
    });
  }
  async listen(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    const a = this.server.address();
    this.url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}/hook`;
  }
  async waitFor(pred: (r: Received[]) => boolean, ms = 10_000): Promise<void> {
    const end = Date.now() + ms;
    while (!pred(this.received)) {
      if (Date.now() > end)
        throw new Error(`timed out; got ${this.received.map((r) => r.event.type).join(', ')}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

let sb: RunningSandbox;
let c: ReturnType<typeof client>;
let f: ReturnType<typeof fx>;
const rx = new Receiver();
const rxB = new Receiver();

beforeAll(async () => {
  sb = await start({ webhookRetry: { initialMs: 30, maxMs: 100, giveUpAfterMs: 4000, timeoutMs: 200 } });
  c = client(sb);
  f = fx(sb);
  await rx.listen();
  await rxB.listen();
});
afterAll(async () => {
  await sb.close();
  await rx.close();
  await rxB.close();
});

function verifySig(r: Received, pem: string): boolean {
  const parsed = parseSignatureHeader(r.signature);
  if (!parsed) return false;
  const data = Buffer.concat([r.raw, Buffer.from(String(parsed.t))]);
  return parsed.v1.some((s) => verify('sha256', data, createPublicKey(pem), Buffer.from(s, 'base64')));
}

describe('webhook URL configuration', () => {
  it('PUT sets the URL of the calling credential (admin only), GET reads it back; "" clears', async () => {
    const before = WebhookConfig.parse((await c('GET', '/v1/webhook/url', { token: f.adminA })).body);
    const r = await c('PUT', '/v1/webhook/url', { token: f.adminA, body: { webhook_url: rx.url } });
    expect(r.status).toBe(200);
    const cfg = WebhookConfig.parse(r.body);
    expect(cfg).toMatchObject({ webhook_url: rx.url, role: 'admin', legal_entity_id: f.a.id });
    expect(Date.parse(cfg.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));
    expect(cfg.created_at).toBe(before.created_at);
    expect(
      WebhookConfig.parse((await c('GET', '/v1/webhook/url', { token: f.adminA })).body).webhook_url,
    ).toBe(rx.url);
    // per credential: the viewer's own configuration is unchanged
    expect(
      WebhookConfig.parse((await c('GET', '/v1/webhook/url', { token: f.viewerA })).body).webhook_url,
    ).toBe('');
    const viewer = await c('PUT', '/v1/webhook/url', { token: f.viewerA, body: { webhook_url: rx.url } });
    expect(viewer.status).toBe(403);
    const bad = await c('PUT', '/v1/webhook/url', { token: f.adminA, body: { webhook_url: 'ftp://x' } });
    expect(bad.status).toBe(400);
    expect(err(bad).message).toContain('webhook_url');
    await c('PUT', '/v1/webhook/url', { token: f.adminB, body: { webhook_url: rxB.url } });
  });

  it('serves the public key at GET /v1/sandbox/webhook-public-key', async () => {
    const r = await c<Json>('GET', '/v1/sandbox/webhook-public-key');
    expect(r.body.public_key_pem).toBe(sb.publicKeyPem);
    const key = createPublicKey(sb.publicKeyPem);
    expect(key.asymmetricKeyType).toBe('ec');
    expect(key.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
  });
});

describe('RFI events', () => {
  it('creation and every status change send signed events to the entity’s URL only', async () => {
    rx.received = [];
    rxB.received = [];
    const created = await c('POST', '/v1/sandbox/rfis', {
      body: {
        legal_entity_id: f.a.id,
        type: 'account',
        related_id: f.acc(f.a, 'USD').id,
        questions: [{ question_type: 'transaction.purpose', question_text: 'Why?' }],
      },
    });
    const rfi = Rfi.parse(created.body);
    const qid = rfi.questions[0]?.id ?? '';
    await rx.waitFor((r) => r.length >= 2);
    await c('POST', `/v1/rfis/${rfi.id}/questions/${qid}/responses`, {
      token: f.adminA,
      body: {
        question_type: 'transaction.purpose',
        'transaction.purpose': { response_text: 'Trade', document_ids: [] },
      },
    });
    await c('POST', `/v1/sandbox/rfis/${rfi.id}/questions/${qid}/action`, { body: { action: 'approve' } });
    await c('POST', `/v1/sandbox/rfis/${rfi.id}/action`, { body: { action: 'approve' } });
    const want = [
      'rfi.action_required',
      'rfi.question.action_required',
      'rfi.question.pending_review',
      'rfi.pending_review',
      'rfi.question.approved',
      'rfi.approved',
    ];
    await rx.waitFor((r) => want.every((w) => r.some((x) => x.event.type === w)));
    const mine = rx.received.filter((r) => r.event.data.rfi_id === rfi.id);
    expect(new Set(mine.map((r) => r.event.type))).toEqual(new Set(want));
    for (const r of mine) {
      expect(r.event.id).toMatch(/^evt_/);
      expect(r.event.data.status).toBe(r.event.type.split('.').at(-1));
      expect(r.event.type.startsWith('rfi.question.') ? r.event.data.question_id : undefined).toBe(
        r.event.type.startsWith('rfi.question.') ? qid : undefined,
      );
      expect(r.signature).toMatch(/^t=\d+,v1=[A-Za-z0-9+/]+=*$/);
      expect(verifySig(r, sb.publicKeyPem)).toBe(true);
    }
    // tampering breaks the signature
    const one = mine[0];
    if (!one) throw new Error('no event');
    expect(
      verifySig({ ...one, raw: Buffer.from(one.raw.toString().replace('rfi', 'rfx')) }, sb.publicKeyPem),
    ).toBe(false);
    expect(rxB.received.filter((r) => r.event.data.rfi_id === rfi.id)).toHaveLength(0);
  });

  it('the signature verifies with openssl dgst -sha256 -verify', async () => {
    const r = rx.received.at(-1);
    if (!r) throw new Error('no event');
    const parsed = parseSignatureHeader(r.signature);
    if (!parsed) throw new Error('bad header');
    const dir = mkdtempSync(path.join(tmpdir(), 'sig-'));
    try {
      writeFileSync(path.join(dir, 'pub.pem'), sb.publicKeyPem);
      writeFileSync(path.join(dir, 'data'), Buffer.concat([r.raw, Buffer.from(String(parsed.t))]));
      writeFileSync(path.join(dir, 'sig.der'), Buffer.from(parsed.v1[0] ?? '', 'base64'));
      const out = execFileSync(
        'openssl',
        ['dgst', '-sha256', '-verify', 'pub.pem', '-signature', 'sig.der', 'data'],
        { cwd: dir, encoding: 'utf8' },
      );
      expect(out.trim()).toBe('Verified OK');
      writeFileSync(path.join(dir, 'data'), Buffer.concat([r.raw, Buffer.from(String(parsed.t + 1))]));
      expect(() =>
        execFileSync('openssl', ['dgst', '-sha256', '-verify', 'pub.pem', '-signature', 'sig.der', 'data'], {
          cwd: dir,
          stdio: 'pipe',
        }),
      ).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('t is the sandbox time; a clock advance and a timeout fire rfi.timeout events', async () => {
    rx.received = [];
    const created = await c('POST', '/v1/sandbox/rfis', {
      body: {
        legal_entity_id: f.a.id,
        type: 'transaction',
        related_id: f.acc(f.a, 'USD').id,
        questions: [{ question_type: 'transaction.purpose', question_text: 'Why?' }],
      },
    });
    const rfi = Rfi.parse(created.body);
    await c('POST', '/v1/sandbox/clock', { body: { advance_seconds: 31 * 86_400 } });
    // Delivery is unordered: wait for both events of this RFI, whichever comes first.
    const timeoutOf = (type: string) =>
      rx.received.find((x) => x.event.type === type && x.event.data.rfi_id === rfi.id);
    await rx.waitFor(() => Boolean(timeoutOf('rfi.timeout') && timeoutOf('rfi.question.timeout')));
    const t = parseSignatureHeader(timeoutOf('rfi.timeout')?.signature ?? '')?.t ?? 0;
    expect(t * 1000 - Date.now()).toBeGreaterThan(30 * 86_400_000);
  });
});

/** Ids of every event the sandbox has queued so far (to tell a test's own events apart). */
async function knownEventIds(): Promise<Set<string>> {
  const d = await c<{ data: { event_id: string }[] }>('GET', '/v1/sandbox/webhook-deliveries');
  return new Set(d.body.data.map((x) => x.event_id));
}

describe('delivery', () => {
  afterEach(() => {
    rx.script = [];
    rx.scriptApplies = () => true;
  });

  it('retries non-2xx with backoff until delivered (at least once)', async () => {
    rx.received = [];
    const known = await knownEventIds();
    rx.scriptApplies = (ev) => !known.has(ev.id);
    rx.script = [500, 503, 404];
    const hits0 = rx.hits;
    const created = await c('POST', '/v1/sandbox/rfis', {
      body: {
        legal_entity_id: f.a.id,
        type: 'account',
        related_id: f.acc(f.a, 'USD').id,
        questions: [{ question_type: 'transaction.purpose', question_text: 'Why?' }],
      },
    });
    const rfiId = Rfi.parse(created.body).id;
    await rx.waitFor((r) => r.filter((x) => x.event.data.rfi_id === rfiId).length >= 2, 10_000);
    expect(rx.hits - hits0).toBeGreaterThanOrEqual(5);
    // The receiver saw the events before the sandbox recorded their 200: wait for the records.
    const retriedDeliveries = async () => {
      const d = await c<{
        data: {
          event_type: string;
          status: string;
          attempts: number;
          last_status_code: number | null;
          body: string;
        }[];
      }>('GET', '/v1/sandbox/webhook-deliveries');
      return d.body.data.filter((x) => x.attempts > 1 && x.body.includes(rfiId));
    };
    await expect.poll(async () => (await retriedDeliveries()).length, { timeout: 10_000 }).toBeGreaterThan(0);
    await expect
      .poll(
        async () =>
          (await retriedDeliveries()).every((x) => x.status === 'delivered' && x.last_status_code === 200),
        { timeout: 10_000 },
      )
      .toBe(true);
  });

  it('an attempt without an answer within timeoutMs counts as failed and is retried', async () => {
    rx.received = [];
    const known = await knownEventIds();
    rx.scriptApplies = (ev) => !known.has(ev.id);
    rx.script = [0];
    const created = await c('POST', '/v1/sandbox/rfis', {
      body: {
        legal_entity_id: f.a.id,
        type: 'account',
        related_id: f.acc(f.a, 'USD').id,
        questions: [{ question_type: 'transaction.purpose', question_text: 'Hang?' }],
      },
    });
    const rfiId = Rfi.parse(created.body).id;
    await rx.waitFor((r) => r.filter((x) => x.event.data.rfi_id === rfiId).length >= 2, 10_000);
    await expect
      .poll(
        async () => {
          const d = await c<{ data: { attempts: number; status: string; body: string }[] }>(
            'GET',
            '/v1/sandbox/webhook-deliveries',
          );
          return d.body.data.some(
            (x) => x.body.includes(rfiId) && x.attempts >= 2 && x.status === 'delivered',
          );
        },
        { timeout: 10_000 },
      )
      .toBe(true);
  });

  it('gives up after giveUpAfterMs when the receiver never answers 2xx', async () => {
    rx.script = Array.from({ length: 1000 }, () => 500);
    const created = await c('POST', '/v1/sandbox/rfis', {
      body: {
        legal_entity_id: f.a.id,
        type: 'account',
        related_id: f.acc(f.a, 'USD').id,
        questions: [{ question_type: 'transaction.purpose', question_text: 'Give up?' }],
      },
    });
    const rfiId = Rfi.parse(created.body).id;
    const end = Date.now() + 15_000;
    let failed: { status: string; attempts: number }[] = [];
    while (Date.now() < end) {
      const d = await c<{ data: { status: string; attempts: number; body: string }[] }>(
        'GET',
        '/v1/sandbox/webhook-deliveries',
      );
      const mine = d.body.data.filter((x) => x.body.includes(rfiId));
      failed = mine.filter((x) => x.status === 'failed');
      if (mine.length >= 2 && failed.length === mine.length) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    rx.script = [];
    expect(failed.length).toBeGreaterThanOrEqual(2);
    expect(failed.every((x) => x.attempts >= 3)).toBe(true);
  });
});
