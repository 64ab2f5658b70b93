import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index';
import { startSandbox } from '../../src/sandbox/index';
import { Fixtures, WebhookConfig } from '../../src/shared/api';
import { client, err, fx, start } from './helpers';

let sb: RunningSandbox;
let c: ReturnType<typeof client>;
let f: ReturnType<typeof fx>;

beforeAll(async () => {
  sb = await start();
  c = client(sb);
  f = fx(sb);
});
afterAll(async () => {
  await sb.close();
});

describe('startSandbox', () => {
  it('listens on 127.0.0.1 with a free port and exposes the seed', () => {
    expect(sb.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sb.options.host).toBe('127.0.0.1');
    expect(sb.publicKeyPem).toContain('BEGIN PUBLIC KEY');
    expect(Fixtures.parse(sb.fixtures).legal_entities).toHaveLength(2);
    expect(f.a.tokens.viewer).toBeTruthy();
    expect(f.b.tokens.admin).toBeTruthy();
  });

  it('is deterministic for a given seed (ids and tokens) and differs for another seed', async () => {
    const again = await startSandbox({ port: 0, seed: sb.options.seed });
    const other = await startSandbox({ port: 0, seed: 'other' });
    try {
      expect(again.fixtures.legal_entities.map((l) => [l.id, l.tokens, l.rfi_ids])).toEqual(
        sb.fixtures.legal_entities.map((l) => [l.id, l.tokens, l.rfi_ids]),
      );
      expect(other.fixtures.legal_entities[0]?.tokens.admin).not.toBe(f.adminA);
    } finally {
      await again.close();
      await other.close();
    }
  });

  it('stops cleanly: the port no longer answers and close() is idempotent', async () => {
    const s = await startSandbox({ port: 0 });
    await s.close();
    await s.close();
    await expect(fetch(`${s.url}/v1/sandbox/fixtures`)).rejects.toThrow();
  });
});

describe('GET /v1/sandbox/fixtures', () => {
  it('needs no token and has the api-gaps shape', async () => {
    const r = await c('GET', '/v1/sandbox/fixtures');
    expect(r.status).toBe(200);
    const fixtures = Fixtures.parse(r.body);
    const a = fixtures.legal_entities[0];
    expect(a?.accounts.map((x) => x.asset).sort()).toEqual(['ETHEREUM-USDC', 'ETHEREUM-USDT', 'USD', 'USD']);
    expect(a?.incoming_transfers.length).toBeGreaterThanOrEqual(4);
    expect(a?.rfi_ids.length).toBeGreaterThanOrEqual(7);
  });
});

describe('GET /v1/webhook/url', () => {
  it('answers the spec 2.7 shape to a viewer, with the entity by name (our extension)', async () => {
    const r = await c('GET', '/v1/webhook/url', { token: f.viewerA });
    expect(r.status).toBe(200);
    const cfg = WebhookConfig.parse(r.body);
    expect(cfg).toMatchObject({
      webhook_url: '',
      legal_entity_id: f.a.id,
      legal_entity_name: f.a.name,
      role: 'viewer',
    });
    expect(Object.keys(r.body).sort()).toEqual(
      [
        'created_at',
        'legal_entity_id',
        'legal_entity_name',
        'role',
        'updated_at',
        'webhook_name',
        'webhook_url',
      ].sort(),
    );
  });

  it('answers admin with role admin and the entity of the token', async () => {
    const r = await c('GET', '/v1/webhook/url', { token: f.adminB });
    expect(r.body).toMatchObject({ role: 'admin', legal_entity_id: f.b.id });
  });

  it('refuses a missing or unknown token with 401 UNAUTHENTICATED', async () => {
    for (const token of [null, 'nope']) {
      const r = await c('GET', '/v1/webhook/url', { token });
      expect(r.status).toBe(401);
      expect(err(r)).toMatchObject({ code: '401', status: 'UNAUTHENTICATED' });
    }
    const malformed = await c('GET', '/v1/webhook/url', { headers: { authorization: `Basic ${f.adminA}` } });
    expect(malformed.status).toBe(401);
  });
});

describe('error bodies', () => {
  it('404 route, bad JSON, unsupported media type and schema errors use the api-gaps body', async () => {
    const r404 = await c('GET', '/v1/nope');
    expect(r404.status).toBe(404);
    expect(err(r404)).toMatchObject({ code: '404', status: 'NOT_FOUND' });

    const bad = await c('POST', '/v1/transfer/return', { token: f.adminA, idem: 'k1', raw: '{bad' });
    expect(bad.status).toBe(400);
    expect(err(bad)).toMatchObject({
      code: '400',
      status: 'INVALID_ARGUMENT',
      message: 'body: invalid JSON',
    });

    const media = await c('PUT', '/v1/webhook/url', {
      token: f.adminA,
      raw: 'x',
      headers: { 'content-type': 'application/xml' },
    });
    expect(media.status).toBe(415);
    expect(err(media).code).toBe('415');

    const huge = await c('PUT', '/v1/webhook/url', {
      token: f.adminA,
      body: { webhook_url: `http://x/${'a'.repeat(2 * 1024 * 1024)}` },
    });
    expect(huge.status).toBe(413);
    expect(err(huge).code).toBe('413');

    const missing = await c('POST', '/v1/transfer/return', { token: f.adminA, idem: 'k2', body: {} });
    expect(missing.status).toBe(400);
    expect(err(missing).message).toContain('transaction_id: required');
  });

  it('every response carries a Date header in sandbox time', async () => {
    const r = await c('GET', '/v1/sandbox/clock');
    const date = r.headers.get('date');
    expect(date).toBeTruthy();
    const body = r.body as { now: string };
    expect(Math.abs(Date.parse(date ?? '') - Date.parse(body.now))).toBeLessThan(2000);
  });
});
