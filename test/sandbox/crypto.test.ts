import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index';
import { CryptoTradeV2, Transaction } from '../../src/shared/api';
import { baseToQuote, parseRate, quoteToBase } from '../../src/shared/money';
import { client, err, fx, start, type Json } from './helpers';

let sb: RunningSandbox;
let c: ReturnType<typeof client>;
let f: ReturnType<typeof fx>;
let n = 0;
const key = () => `cr-${++n}`;

beforeAll(async () => {
  sb = await start({ quoteTtlSeconds: 30, settlementDelayMs: 1000, usdcInventory: 5_000_000n });
  c = client(sb);
  f = fx(sb);
});
afterAll(async () => {
  await sb.close();
});

const order = (extra: Json = {}): Json => ({
  side: 'buy',
  priority: 'instant',
  rail: 'rfq',
  symbol: 'USDT-USD',
  base_asset: 'ETHEREUM-USDT',
  quote_asset: 'USD',
  requested_asset: 'ETHEREUM-USDT',
  requested_amount: '100000000',
  customer_pays_account_id: f.acc(f.a, 'USD').id,
  customer_receives_account_id: f.acc(f.a, 'ETHEREUM-USDT').id,
  description: 'Treasury top-up',
  additional_details: 'desk test',
  ...extra,
});

async function create(body: Json): Promise<string> {
  const r = await c<Json>('POST', '/v1/crypto/order', { token: f.adminA, idem: key(), body });
  expect(r.status, r.text).toBe(200);
  expect(Object.keys(r.body)).toEqual(['transaction_id']);
  return String(r.body.transaction_id);
}

async function read(id: string) {
  const r = await c('GET', `/v1/transactions/${id}`, { token: f.viewerA });
  expect(r.status, r.text).toBe(200);
  const t = Transaction.parse(r.body);
  return { t, q: CryptoTradeV2.parse(t.crypto_trade_v2) };
}

async function balances(): Promise<Map<string, bigint>> {
  const r = await c<{ data: { id: string; balance: string }[] }>('GET', '/v1/sandbox/accounts');
  return new Map(r.body.data.map((a) => [a.id, BigInt(a.balance)]));
}

const advance = (s: number) => c('POST', '/v1/sandbox/clock', { body: { advance_seconds: s } });

describe('crypto quotes (spec 2.4)', () => {
  it('a quote has every field of spec 2.4, reads in_progress and moves no funds', async () => {
    const before = await balances();
    const id = await create(order());
    const { t, q } = await read(id);
    expect(t).toMatchObject({ transaction_id: id, status: 'in_progress', type: 'CRYPTO-TRADE-V2' });
    expect(t.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(typeof t.customer_type).toBe('string');
    const fields = [
      'transaction_id',
      'customer_legal_entity_id',
      'initiated_by',
      'checked_by',
      'checked_at',
      'priority',
      'side',
      'rail',
      'symbol',
      'base_asset',
      'quote_asset',
      'customer_pays_account_id',
      'customer_pays_account_name',
      'customer_pays_account_iban',
      'customer_pays_account_wallet_address',
      'customer_receives_account_id',
      'customer_receives_account_name',
      'customer_receives_account_iban',
      'customer_receives_account_wallet_address',
      'customer_requested_asset',
      'customer_requested_amount',
      'customer_pays_asset',
      'customer_pays_amount',
      'customer_receives_asset',
      'customer_receives_amount',
      'customer_rate',
      'quote_valid_until',
      'quote_confirmed_at',
      'description',
      'additional_details',
      'document_ids',
      'transaction_hash',
      'customer_pays_network_fee_asset',
      'customer_pays_network_fee_amount',
      'customer_pays_network_fee_account_id',
      'created_at',
      'updated_at',
    ];
    for (const k of fields) expect(q, k).toHaveProperty(k);
    expect(q).toMatchObject({
      transaction_id: id,
      customer_legal_entity_id: f.a.id,
      initiated_by: { first_name: 'Alex', last_name: 'Morgan' },
      checked_by: null,
      checked_at: null,
      side: 'buy',
      priority: 'instant',
      rail: 'rfq',
      customer_requested_asset: 'ETHEREUM-USDT',
      customer_requested_amount: '100000000',
      customer_pays_asset: 'USD',
      customer_receives_asset: 'ETHEREUM-USDT',
      customer_receives_amount: '100000000',
      quote_confirmed_at: null,
      document_ids: [],
      transaction_hash: '',
      customer_pays_network_fee_asset: '',
      customer_pays_network_fee_amount: null,
      customer_pays_account_wallet_address: '',
      customer_receives_account_iban: '',
    });
    expect(q.customer_pays_account_iban).not.toBe('');
    expect(q.customer_receives_account_wallet_address).toMatch(/^0x[0-9a-f]{40}$/);
    // integer arithmetic: 100 USDT at rate r, rounded up for the customer paying USD
    const rate = parseRate(q.customer_rate);
    expect(q.customer_pays_amount).toBe(baseToQuote(100_000_000n, rate, 6, 2, 'up').toString());
    expect(rate.units > 10n ** BigInt(rate.scale)).toBe(true); // buy: above 1, the spread in the bank's favour
    expect(Date.parse(q.quote_valid_until) - Date.parse(q.created_at)).toBe(30_000);
    expect(await balances()).toEqual(before);
  });

  it('buy with a USD amount and sell with either amount round in the bank’s favour', async () => {
    const buyUsd = await read(await create(order({ requested_asset: 'USD', requested_amount: '12345' })));
    const r1 = parseRate(buyUsd.q.customer_rate);
    expect(buyUsd.q.customer_pays_amount).toBe('12345');
    expect(buyUsd.q.customer_receives_amount).toBe(quoteToBase(12345n, r1, 6, 2, 'down').toString());

    const sellBase = await read(
      await create(
        order({
          side: 'sell',
          requested_amount: '1234567',
          customer_pays_account_id: f.acc(f.a, 'ETHEREUM-USDT').id,
          customer_receives_account_id: f.acc(f.a, 'USD').id,
        }),
      ),
    );
    const r2 = parseRate(sellBase.q.customer_rate);
    expect(r2.units < 10n ** BigInt(r2.scale)).toBe(true);
    expect(sellBase.q.customer_pays_asset).toBe('ETHEREUM-USDT');
    expect(sellBase.q.customer_receives_amount).toBe(baseToQuote(1234567n, r2, 6, 2, 'down').toString());

    const sellUsd = await read(
      await create(
        order({
          side: 'sell',
          requested_asset: 'USD',
          requested_amount: '999',
          customer_pays_account_id: f.acc(f.a, 'ETHEREUM-USDT').id,
          customer_receives_account_id: f.acc(f.a, 'USD').id,
        }),
      ),
    );
    const r3 = parseRate(sellUsd.q.customer_rate);
    expect(sellUsd.q.customer_pays_amount).toBe(quoteToBase(999n, r3, 6, 2, 'up').toString());
  });

  it('confirm before expiry → pending_execution → completed with a test-network hash; balances move', async () => {
    const id = await create(order({ requested_amount: '5000000' }));
    const before = await balances();
    const put = await c('PUT', '/v1/crypto/order', { token: f.adminA, body: { transaction_id: id } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ transaction_id: id });
    const pending = await read(id);
    expect(pending.t.status).toBe('pending_execution');
    expect(pending.q.quote_confirmed_at).not.toBeNull();
    expect(pending.q.transaction_hash).toBe('');
    const again = await c('PUT', '/v1/crypto/order', { token: f.adminA, body: { transaction_id: id } });
    expect(again.status).toBe(422);
    expect(err(again).reason).toBe('QUOTE_NOT_CONFIRMABLE');
    await advance(1);
    const done = await read(id);
    expect(done.t.status).toBe('completed');
    expect(done.q.transaction_hash).toMatch(/^0x[0-9a-f]{64}$/);
    const after = await balances();
    const usd = f.acc(f.a, 'USD').id;
    const usdt = f.acc(f.a, 'ETHEREUM-USDT').id;
    expect(after.get(usd)).toBe((before.get(usd) ?? 0n) - BigInt(done.q.customer_pays_amount));
    expect(after.get(usdt)).toBe((before.get(usdt) ?? 0n) + 5_000_000n);
  });

  it('a quote not confirmed in time expires by itself (clock) and confirm answers QUOTE_EXPIRED', async () => {
    const id = await create(order());
    await advance(31);
    const { t } = await read(id);
    expect(t.status).toBe('expired');
    const put = await c('PUT', '/v1/crypto/order', { token: f.adminA, body: { transaction_id: id } });
    expect(put.status).toBe(422);
    expect(err(put)).toMatchObject({ code: '422', status: 'FAILED_PRECONDITION', reason: 'QUOTE_EXPIRED' });
  });

  it('USDC beyond the sandbox inventory fails with INSUFFICIENT_LIQUIDITY and moves nothing', async () => {
    const id = await create(
      order({
        symbol: 'USDC-USD',
        base_asset: 'ETHEREUM-USDC',
        requested_asset: 'ETHEREUM-USDC',
        requested_amount: '6000000',
        customer_receives_account_id: f.acc(f.a, 'ETHEREUM-USDC').id,
      }),
    );
    const before = await balances();
    expect(
      (await c('PUT', '/v1/crypto/order', { token: f.adminA, body: { transaction_id: id } })).status,
    ).toBe(200);
    await advance(1);
    const { t, q } = await read(id);
    expect(t.status).toBe('failed');
    expect(q.failure_reason).toBe('INSUFFICIENT_LIQUIDITY');
    expect(q.transaction_hash).toBe('');
    expect(await balances()).toEqual(before);
    // within the inventory it settles
    const ok = await create(
      order({
        symbol: 'USDC-USD',
        base_asset: 'ETHEREUM-USDC',
        requested_asset: 'ETHEREUM-USDC',
        requested_amount: '1000000',
        customer_receives_account_id: f.acc(f.a, 'ETHEREUM-USDC').id,
      }),
    );
    await c('PUT', '/v1/crypto/order', { token: f.adminA, body: { transaction_id: ok } });
    await advance(1);
    expect((await read(ok)).t.status).toBe('completed');
  });
});

describe('crypto refusals', () => {
  it('INSUFFICIENT_BALANCE at confirm when an earlier confirmed order holds the funds', async () => {
    const b = await balances();
    const usd = b.get(f.acc(f.a, 'USD').id) ?? 0n;
    const each = ((usd * 2n) / 3n).toString();
    const q1 = await create(order({ requested_asset: 'USD', requested_amount: each }));
    const q2 = await create(order({ requested_asset: 'USD', requested_amount: each }));
    expect(
      (await c('PUT', '/v1/crypto/order', { token: f.adminA, body: { transaction_id: q1 } })).status,
    ).toBe(200);
    const second = await c('PUT', '/v1/crypto/order', { token: f.adminA, body: { transaction_id: q2 } });
    expect(second.status).toBe(422);
    expect(err(second)).toMatchObject({
      code: '422',
      status: 'FAILED_PRECONDITION',
      reason: 'INSUFFICIENT_BALANCE',
    });
    expect((await read(q2)).t.status).toBe('in_progress');
    await advance(1);
    expect((await read(q1)).t.status).toBe('completed');
  });

  it('400 naming the field for every invalid enum or amount', async () => {
    const cases: [Json, string][] = [
      [{ side: 'hold' }, 'side: must be buy or sell'],
      [{ priority: 'slow' }, 'priority: must be instant'],
      [{ rail: 'clob' }, 'rail: must be rfq'],
      [{ symbol: 'BTC-USD' }, 'symbol: must be one of'],
      [{ base_asset: 'ETHEREUM-USDC' }, 'base_asset: must be ETHEREUM-USDT for symbol USDT-USD'],
      [{ quote_asset: 'EUR' }, 'quote_asset: must be USD'],
      [{ requested_asset: 'EUR' }, 'requested_asset: must be ETHEREUM-USDT or USD'],
      [{ requested_amount: '-5' }, 'requested_amount: must be a positive integer string of minor units'],
      [{ requested_amount: '1e6' }, 'requested_amount: must be a positive integer string of minor units'],
      [
        {
          side: 'sell',
          requested_amount: '1',
          customer_pays_account_id: f.acc(f.a, 'ETHEREUM-USDT').id,
          customer_receives_account_id: f.acc(f.a, 'USD').id,
        },
        'requested_amount: too small',
      ],
      [
        { customer_receives_account_id: f.acc(f.a, 'ETHEREUM-USDC').id },
        'customer_receives_account_id: account holds',
      ],
      [{ customer_pays_account_id: undefined }, 'customer_pays_account_id: required'],
    ];
    for (const [extra, message] of cases) {
      const r = await c('POST', '/v1/crypto/order', { token: f.adminA, idem: key(), body: order(extra) });
      expect(r.status, JSON.stringify(extra)).toBe(400);
      expect(err(r).message).toContain(message);
    }
  });

  it('403 for a viewer and for accounts of another legal entity; 422 INSUFFICIENT_BALANCE; 404 confirm of unknown', async () => {
    const v = await c('POST', '/v1/crypto/order', { token: f.viewerA, idem: key(), body: order() });
    expect(v.status).toBe(403);
    expect(err(v).status).toBe('PERMISSION_DENIED');
    const foreign = await c('POST', '/v1/crypto/order', {
      token: f.adminA,
      idem: key(),
      body: order({ customer_receives_account_id: f.acc(f.b, 'ETHEREUM-USDT').id }),
    });
    expect(foreign.status).toBe(403);
    expect(err(foreign).message).toContain('customer_receives_account_id');
    const poor = await c('POST', '/v1/crypto/order', {
      token: f.adminA,
      idem: key(),
      body: order({ requested_amount: '999999999999999' }),
    });
    expect(poor.status).toBe(422);
    expect(err(poor).reason).toBe('INSUFFICIENT_BALANCE');
    const vput = await c('PUT', '/v1/crypto/order', { token: f.viewerA, body: { transaction_id: 'x' } });
    expect(vput.status).toBe(403);
    const unknown = await c('PUT', '/v1/crypto/order', {
      token: f.adminA,
      body: { transaction_id: 'txn_unknown' },
    });
    expect(unknown.status).toBe(404);
    const other = await create(order());
    const byB = await c('PUT', '/v1/crypto/order', { token: f.adminB, body: { transaction_id: other } });
    expect(byB.status).toBe(404);
  });
});
