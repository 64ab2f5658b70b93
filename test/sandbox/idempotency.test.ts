import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index';
import { client, err, fx, start, type Json } from './helpers';

let sb: RunningSandbox;
let c: ReturnType<typeof client>;
let f: ReturnType<typeof fx>;

beforeAll(async () => {
  sb = await start({ visibilityDelayMs: { min: 4000, max: 4000 } });
  c = client(sb);
  f = fx(sb);
});
afterAll(async () => {
  await sb.close();
});

const order = (amount = '1000000'): Json => ({
  side: 'buy',
  priority: 'instant',
  rail: 'rfq',
  symbol: 'USDT-USD',
  base_asset: 'ETHEREUM-USDT',
  quote_asset: 'USD',
  requested_asset: 'ETHEREUM-USDT',
  requested_amount: amount,
  customer_pays_account_id: f.acc(f.a, 'USD').id,
  customer_receives_account_id: f.acc(f.a, 'ETHEREUM-USDT').id,
});

async function sandboxTxns(): Promise<{ transaction: Json; idempotency_key: string | null }[]> {
  const r = await c<{ data: { transaction: Json; idempotency_key: string | null }[] }>(
    'GET',
    '/v1/sandbox/transactions',
  );
  return r.body.data;
}

describe('Idempotency-Key', () => {
  it('same key and body → the same transaction_id, one transaction; key order in the body does not matter', async () => {
    const body = order();
    const r1 = await c<Json>('POST', '/v1/crypto/order', { token: f.adminA, idem: 'same-1', body });
    const reversed = Object.fromEntries(Object.entries(body).reverse());
    const r2 = await c<Json>('POST', '/v1/crypto/order', { token: f.adminA, idem: 'same-1', body: reversed });
    expect(r1.status).toBe(200);
    expect(r2.status).toBe(200);
    expect(r2.body.transaction_id).toBe(r1.body.transaction_id);
    expect(r2.headers.get('idempotent-replayed')).toBe('true');
    const all = await sandboxTxns();
    expect(all.filter((t) => t.idempotency_key === 'same-1')).toHaveLength(1);
  });

  it('same key, different body → 422 IDEMPOTENCY_KEY_REUSED and nothing created', async () => {
    await c('POST', '/v1/crypto/order', { token: f.adminA, idem: 'reuse-1', body: order('1000000') });
    const count = (await sandboxTxns()).length;
    const r = await c('POST', '/v1/crypto/order', {
      token: f.adminA,
      idem: 'reuse-1',
      body: order('2000000'),
    });
    expect(r.status).toBe(422);
    expect(err(r)).toMatchObject({
      code: '422',
      status: 'FAILED_PRECONDITION',
      reason: 'IDEMPOTENCY_KEY_REUSED',
    });
    expect((await sandboxTxns()).length).toBe(count);
  });

  it('same key while the first is in flight → 409 ABORTED; then the replay works', async () => {
    const s2 = await start({ writeDelayMs: 400 });
    try {
      const c2 = client(s2);
      const f2 = fx(s2);
      const body = {
        ...order('3000000'),
        customer_pays_account_id: f2.acc(f2.a, 'USD').id,
        customer_receives_account_id: f2.acc(f2.a, 'ETHEREUM-USDT').id,
      };
      const results = await Promise.all([
        c2<Json>('POST', '/v1/crypto/order', { token: f2.adminA, idem: 'flight-1', body }),
        new Promise((r) => setTimeout(r, 50)).then(() =>
          c2<Json>('POST', '/v1/crypto/order', { token: f2.adminA, idem: 'flight-1', body }),
        ),
      ]);
      const a = results.find((r) => r.status === 200);
      const b = results.find((r) => r.status !== 200);
      expect(a).toBeDefined();
      expect(b?.status).toBe(409);
      if (!a || !b) throw new Error('unreachable');
      expect(err(b)).toMatchObject({ code: '409', status: 'ABORTED', reason: 'IDEMPOTENCY_KEY_IN_FLIGHT' });
      const again = await c2<Json>('POST', '/v1/crypto/order', { token: f2.adminA, idem: 'flight-1', body });
      expect(again.body.transaction_id).toBe(a.body.transaction_id);
      const list = await c2<{ data: { idempotency_key: string | null }[] }>(
        'GET',
        '/v1/sandbox/transactions',
      );
      expect(list.body.data.filter((t) => t.idempotency_key === 'flight-1')).toHaveLength(1);
    } finally {
      await s2.close();
    }
  });

  it('is scoped per credential: the same key from another credential is a new request', async () => {
    const bOrder = {
      ...order(),
      customer_pays_account_id: f.acc(f.b, 'USD').id,
      customer_receives_account_id: f.acc(f.b, 'ETHEREUM-USDT').id,
    };
    const ra = await c<Json>('POST', '/v1/crypto/order', { token: f.adminA, idem: 'scope-1', body: order() });
    const rb = await c<Json>('POST', '/v1/crypto/order', { token: f.adminB, idem: 'scope-1', body: bOrder });
    expect(rb.status).toBe(200);
    expect(rb.body.transaction_id).not.toBe(ra.body.transaction_id);
  });

  it('is retained 24 h of sandbox time, then the key is free again', async () => {
    const body = order('4000000');
    const r1 = await c<Json>('POST', '/v1/crypto/order', { token: f.adminA, idem: 'ttl-1', body });
    await c('POST', '/v1/sandbox/clock', { body: { advance_seconds: 23 * 3600 } });
    const r2 = await c<Json>('POST', '/v1/crypto/order', { token: f.adminA, idem: 'ttl-1', body });
    expect(r2.body.transaction_id).toBe(r1.body.transaction_id);
    await c('POST', '/v1/sandbox/clock', { body: { advance_seconds: 3600 } });
    const r3 = await c<Json>('POST', '/v1/crypto/order', { token: f.adminA, idem: 'ttl-1', body });
    expect(r3.status).toBe(200);
    expect(r3.body.transaction_id).not.toBe(r1.body.transaction_id);
  });

  it('a refusal is not stored: after the cause is fixed the same key succeeds', async () => {
    const body = { ...order(), customer_receives_account_id: 'acc_missing' };
    const r1 = await c('POST', '/v1/crypto/order', { token: f.adminA, idem: 'refused-1', body });
    expect(r1.status).toBe(403);
    const r2 = await c('POST', '/v1/crypto/order', { token: f.adminA, idem: 'refused-1', body: order() });
    expect(r2.status).toBe(200);
  });

  it('malformed keys → 400 naming the header', async () => {
    for (const k of ['', 'x'.repeat(256), 'has space']) {
      const r = await c('POST', '/v1/crypto/order', { token: f.adminA, idem: k, body: order() });
      expect(r.status, JSON.stringify(k)).toBe(400);
      expect(err(r).message).toContain('Idempotency-Key');
    }
  });

  it('is honoured on other POSTs (upload URL) when sent', async () => {
    const rfi = f.a.rfi_ids[0] ?? '';
    const body = { related_id: rfi, content_type: 'application/pdf', document_type: 'other' };
    const r1 = await c<Json>('POST', '/v1/documents/upload-url', { token: f.adminA, idem: 'up-1', body });
    const r2 = await c<Json>('POST', '/v1/documents/upload-url', { token: f.adminA, idem: 'up-1', body });
    expect(r2.body.id).toBe(r1.body.id);
    const r3 = await c<Json>('POST', '/v1/documents/upload-url', { token: f.adminA, body });
    expect(r3.body.id).not.toBe(r1.body.id);
  });
});

describe('read after create', () => {
  it('a new transaction answers 404 during the visibility window, then 200 (clock advance)', async () => {
    const r = await c<Json>('POST', '/v1/crypto/order', { token: f.adminA, idem: 'vis-1', body: order() });
    const id = String(r.body.transaction_id);
    const early = await c('GET', `/v1/transactions/${id}`, { token: f.adminA });
    expect(early.status).toBe(404);
    expect(err(early)).toMatchObject({ code: '404', status: 'NOT_FOUND' });
    // a retried create during the window does not make a second transaction
    const retry = await c<Json>('POST', '/v1/crypto/order', {
      token: f.adminA,
      idem: 'vis-1',
      body: order(),
    });
    expect(retry.body.transaction_id).toBe(id);
    await c('POST', '/v1/sandbox/clock', { body: { advance_seconds: 4 } });
    const later = await c<Json>('GET', `/v1/transactions/${id}`, { token: f.adminA });
    expect(later.status).toBe(200);
    expect(later.body.transaction_id).toBe(id);
  });

  it('a return intent hides the transfer for the window too (spec 7.1: a creating call)', async () => {
    const created = await c<Json>('POST', '/v1/sandbox/incoming-transfers', {
      body: { legal_entity_id: f.a.id, amount: '5000', currency: 'USD' },
    });
    const id = String(created.body.transaction_id);
    expect((await c('GET', `/v1/transactions/${id}`, { token: f.adminA })).status).toBe(200);
    const body = {
      transfer_return_type: 'SWIFT_FI_TO_FI_RETURN',
      transaction_id: id,
      return_amount: '5000',
      status_reason_code: 'FOCR',
    };
    const r = await c<Json>('POST', '/v1/transfer/return', { token: f.adminA, idem: 'vis-ret-1', body });
    expect(r.body.transaction_id).toBe(id);
    expect((await c('GET', `/v1/transactions/${id}`, { token: f.adminA })).status).toBe(404);
    const retry = await c<Json>('POST', '/v1/transfer/return', { token: f.adminA, idem: 'vis-ret-1', body });
    expect(retry.body.transaction_id).toBe(id);
    await c('POST', '/v1/sandbox/clock', { body: { advance_seconds: 4 } });
    const later = await c<Json>('GET', `/v1/transactions/${id}`, { token: f.adminA });
    expect(later.status).toBe(200);
    expect(later.body.status).toBe('intent_created');
  });

  it('the window is drawn within [min, max] and ends on a real timer too', async () => {
    const s2 = await start({ visibilityDelayMs: { min: 1000, max: 1200 } });
    try {
      const c2 = client(s2);
      const f2 = fx(s2);
      const body = {
        ...order(),
        customer_pays_account_id: f2.acc(f2.a, 'USD').id,
        customer_receives_account_id: f2.acc(f2.a, 'ETHEREUM-USDT').id,
      };
      const r = await c2<Json>('POST', '/v1/crypto/order', { token: f2.adminA, idem: 'k', body });
      const id = String(r.body.transaction_id);
      const list = await c2<{ data: { transaction: Json; visible_at: string }[] }>(
        'GET',
        '/v1/sandbox/transactions',
      );
      const row = list.body.data.find((x) => x.transaction.transaction_id === id);
      const created = Date.parse(String((row?.transaction.crypto_trade_v2 as Json).created_at));
      const delay = Date.parse(row?.visible_at ?? '') - created;
      expect(delay).toBeGreaterThanOrEqual(1000);
      expect(delay).toBeLessThanOrEqual(1200);
      expect((await c2('GET', `/v1/transactions/${id}`, { token: f2.adminA })).status).toBe(404);
      await new Promise((res) => setTimeout(res, 1300));
      expect((await c2('GET', `/v1/transactions/${id}`, { token: f2.adminA })).status).toBe(200);
    } finally {
      await s2.close();
    }
  });
});
