import { generateKeyPairSync, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { keyFingerprint, loadPublicKey, verifyWebhookSignature } from '../../src/main/rfis/signature';
import { createWebhookReceiver } from '../../src/main/rfis/webhook-receiver';
import type { WebhookReceiver } from '../../src/main/rfis/webhook-receiver';
import type { WebhookEvent } from '../../src/shared/api/webhooks';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const NOW = Date.parse('2026-03-01T12:00:00Z');
const T = Math.floor(NOW / 1000);

/** Signs as the bank does: ECDSA P-256 / SHA-256 over body bytes then the decimal t. */
function signature(
  body: string,
  t: number,
  enc: 'der' | 'ieee-p1363' = 'der',
  key: KeyObject = privateKey,
): string {
  return sign('sha256', Buffer.concat([Buffer.from(body), Buffer.from(String(t))]), {
    key,
    dsaEncoding: enc,
  }).toString('base64');
}

const body = JSON.stringify({
  id: 'evt_1',
  type: 'rfi.action_required',
  created_at: '2026-03-01T12:00:00.000Z',
  data: { rfi_id: 'rfi_1', status: 'action_required' },
});

const check = (header: string | undefined, b = body, nowMs = NOW, key: KeyObject | null = publicKey) =>
  verifyWebhookSignature({ header, body: Buffer.from(b), publicKey: key, nowMs, toleranceSeconds: 300 });

describe('Service-Signature verification', () => {
  it('accepts a valid DER signature and a valid raw r‖s signature', () => {
    expect(check(`t=${T},v1=${signature(body, T, 'der')}`)).toEqual({ ok: true, t: T });
    const raw = signature(body, T, 'ieee-p1363');
    expect(Buffer.from(raw, 'base64')).toHaveLength(64);
    expect(check(`t=${T},v1=${raw}`)).toEqual({ ok: true, t: T });
  });

  it('refuses a tampered body', () => {
    const h = `t=${T},v1=${signature(body, T)}`;
    expect(check(h, body.replace('rfi_1', 'rfi_2'))).toEqual({ ok: false, reason: 'bad_signature' });
    expect(check(h, `${body} `)).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('refuses a tampered timestamp (signature made for another t)', () => {
    expect(check(`t=${T - 1},v1=${signature(body, T)}`)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(check(`t=${T + 1},v1=${signature(body, T, 'ieee-p1363')}`)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('refuses stale and future timestamps even when the signature is right', () => {
    const old = T - 301;
    expect(check(`t=${old},v1=${signature(body, old)}`)).toEqual({ ok: false, reason: 'stale_timestamp' });
    const edge = T - 300;
    expect(check(`t=${edge},v1=${signature(body, edge)}`)).toEqual({ ok: true, t: edge });
    const future = T + 301;
    expect(check(`t=${future},v1=${signature(body, future)}`)).toEqual({
      ok: false,
      reason: 'future_timestamp',
    });
  });

  it('refuses a signature by another key, a missing or malformed header, and no pinned key', () => {
    expect(check(`t=${T},v1=${signature(body, T, 'der', other.privateKey)}`)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    expect(check(undefined)).toEqual({ ok: false, reason: 'missing_signature' });
    expect(check('garbage')).toEqual({ ok: false, reason: 'malformed_signature' });
    expect(check(`t=abc,v1=${signature(body, T)}`)).toEqual({ ok: false, reason: 'malformed_signature' });
    expect(check(`t=${T},v1=!!!`)).toEqual({ ok: false, reason: 'malformed_signature' });
    expect(check(`t=${T},v1=${signature(body, T)}`, body, NOW, null)).toEqual({
      ok: false,
      reason: 'no_pinned_key',
    });
  });

  it('accepts when one of several v1 values is valid (key rotation)', () => {
    const bad = signature(body, T, 'der', other.privateKey);
    expect(check(`t=${T},v1=${bad},v1=${signature(body, T)}`)).toEqual({ ok: true, t: T });
  });

  it('loads only ECDSA P-256 public keys and fingerprints them', () => {
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const k = loadPublicKey(pem);
    expect(keyFingerprint(k)).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(keyFingerprint(k)).not.toBe(keyFingerprint(other.publicKey));
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({
      type: 'spki',
      format: 'pem',
    });
    expect(() => loadPublicKey(rsa.toString())).toThrow(/P-256/);
  });
});

describe('the local webhook receiver', () => {
  let receiver: WebhookReceiver;
  let received: WebhookEvent[];
  let url: string;

  beforeEach(async () => {
    received = [];
    receiver = createWebhookReceiver({
      publicKey: () => publicKey,
      nowMs: () => NOW,
      onEvent: (e) => received.push(e),
      maxBodyBytes: 2048,
      toleranceSeconds: 300,
      log: createLogger(memorySink(), 'debug'),
    });
    url = await receiver.start();
  });
  afterEach(() => receiver.close());

  function post(b: string | Buffer, headers: Record<string, string>, path = new URL(url).pathname) {
    const u = new URL(url);
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path,
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.end(b);
    });
  }

  it('listens on 127.0.0.1 only', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks\/rfi$/);
  });

  it('accepts a signed event once and acknowledges its duplicate without processing it again', async () => {
    const h = { 'service-signature': `t=${T},v1=${signature(body, T)}` };
    expect((await post(body, h)).status).toBe(202);
    // the bank retries the same event id with a fresh signature: acknowledged, not processed
    const t2 = T + 5;
    const again = await post(body, {
      'service-signature': `t=${t2},v1=${signature(body, t2, 'ieee-p1363')}`,
    });
    expect(again.status).toBe(200);
    expect(JSON.parse(again.body)).toEqual({ status: 'duplicate' });
    expect(received.map((e) => e.id)).toEqual(['evt_1']);
    expect(receiver.counters()).toMatchObject({
      received: 2,
      accepted: 1,
      duplicates: 1,
      verificationFailures: 0,
    });
    expect(receiver.counters().lastEvent).toMatchObject({ id: 'evt_1', rfiId: 'rfi_1' });
  });

  it('refuses tampered, stale and unsigned events with 401 and counts them', async () => {
    const tampered = body.replace('rfi_1', 'rfi_9');
    expect((await post(tampered, { 'service-signature': `t=${T},v1=${signature(body, T)}` })).status).toBe(
      401,
    );
    const old = T - 3600;
    expect((await post(body, { 'service-signature': `t=${old},v1=${signature(body, old)}` })).status).toBe(
      401,
    );
    expect((await post(body, {})).status).toBe(401);
    expect(received).toHaveLength(0);
    expect(receiver.counters().verificationFailures).toBe(3);
    expect(receiver.counters().lastFailure?.reason).toBe('the Service-Signature header is missing');
  });

  it('refuses a body over the limit with 413 (declared or streamed) and a signed non-event with 400', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(4000) });
    expect((await post(big, { 'service-signature': `t=${T},v1=${signature(big, T)}` })).status).toBe(413);
    // no content-length: counted while streaming
    const chunked = await post(big, { 'transfer-encoding': 'chunked', 'service-signature': `t=${T},v1=x` });
    expect(chunked.status).toBe(413);
    const notEvent = JSON.stringify({ hello: 'world' });
    expect(
      (await post(notEvent, { 'service-signature': `t=${T},v1=${signature(notEvent, T)}` })).status,
    ).toBe(400);
    expect((await post(body, {}, '/elsewhere')).status).toBe(404);
    expect(received).toHaveLength(0);
  });
});
