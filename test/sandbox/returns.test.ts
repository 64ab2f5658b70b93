import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index';
import { Transaction } from '../../src/shared/api';
import { client, err, fx, start, type Json } from './helpers';

let sb: RunningSandbox;
let c: ReturnType<typeof client>;
let f: ReturnType<typeof fx>;
let n = 0;
const key = () => `ret-${++n}`;

beforeAll(async () => {
  sb = await start({ returnCompletionDelayMs: 5000 });
  c = client(sb);
  f = fx(sb);
});
afterAll(async () => {
  await sb.close();
});

async function newTransfer(amount = '100000'): Promise<string> {
  const r = await c('POST', '/v1/sandbox/incoming-transfers', {
    body: { legal_entity_id: f.a.id, amount, creditor_account_id: f.acc(f.a, 'USD').id },
  });
  expect(r.status).toBe(200);
  return (r.body as { transaction_id: string }).transaction_id;
}

const intent = (transaction_id: string, extra: Json = {}) => ({
  transfer_return_type: 'SWIFT_FI_TO_FI_RETURN',
  transaction_id,
  return_amount: '25000',
  description: 'Customer asked for the funds back',
  status_reason_code: 'FOCR',
  ...extra,
});

async function tx(id: string) {
  const r = await c('GET', `/v1/transactions/${id}`, { token: f.viewerA });
  expect(r.status).toBe(200);
  return Transaction.parse(r.body);
}

async function balance(accountId: string): Promise<bigint> {
  const r = await c<{ data: { id: string; balance: string }[] }>('GET', '/v1/sandbox/accounts');
  const a = r.body.data.find((x) => x.id === accountId);
  return BigInt(a?.balance ?? '-1');
}

describe('returns: state table of spec 3.1', () => {
  it('completed → intent_created with every return_* field, fee "0", initiated by the credential user', async () => {
    const id = await newTransfer();
    const before = await tx(id);
    expect(before.status).toBe('completed');
    expect(before.type).toBe('SWIFT-FI-TO-FI-CUSTOMER-CREDIT-INCOMING');
    expect(before.fi_to_fi_swift_incoming?.return_transfer_amount).toBeUndefined();
    const r = await c('POST', '/v1/transfer/return', { token: f.adminA, idem: key(), body: intent(id) });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ transaction_id: id });
    const t = await tx(id);
    expect(t.status).toBe('intent_created');
    const inc = t.fi_to_fi_swift_incoming;
    expect(inc).toMatchObject({
      return_transfer_amount: '25000',
      return_fee_amount: '0',
      return_description: 'Customer asked for the funds back',
      return_status_reason_code: 'FOCR',
      return_initiated_by: { first_name: 'Alex', last_name: 'Morgan' },
    });
    expect(inc?.return_created_at).toMatch(/\.\d{3}Z$/);
    expect(inc?.return_updated_at).toBe(inc?.return_created_at);
  });

  it('intent_created → cancel → completed, return fields removed; a new intent is then allowed', async () => {
    const id = await newTransfer();
    await c('POST', '/v1/transfer/return', { token: f.adminA, idem: key(), body: intent(id) });
    const del = await c('DELETE', `/v1/transfer/return/${id}`, { token: f.adminA });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ transaction_id: id });
    const t = await tx(id);
    expect(t.status).toBe('completed');
    expect(t.fi_to_fi_swift_incoming?.return_transfer_amount).toBeUndefined();
    const again = await c('POST', '/v1/transfer/return', { token: f.adminA, idem: key(), body: intent(id) });
    expect(again.status).toBe(200);
  });

  it('intent_created → confirm → in_progress → return_completed after the delay (clock), debiting the account', async () => {
    const accId = f.acc(f.a, 'USD').id;
    const id = await newTransfer('40000');
    await c('POST', '/v1/transfer/return', {
      token: f.adminA,
      idem: key(),
      body: intent(id, { return_amount: '40000', status_reason_code: 'AM09' }),
    });
    const b0 = await balance(accId);
    const put = await c('PUT', '/v1/transfer/return', { token: f.adminA, body: { transaction_id: id } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ transaction_id: id });
    expect((await tx(id)).status).toBe('in_progress');
    expect(await balance(accId)).toBe(b0);
    // cannot cancel or confirm again once confirmed
    const del = await c('DELETE', `/v1/transfer/return/${id}`, { token: f.adminA });
    expect(del.status).toBe(422);
    expect(err(del)).toMatchObject({ status: 'FAILED_PRECONDITION', reason: 'RETURN_ALREADY_CONFIRMED' });
    const put2 = await c('PUT', '/v1/transfer/return', { token: f.adminA, body: { transaction_id: id } });
    expect(err(put2).reason).toBe('RETURN_ALREADY_CONFIRMED');
    await c('POST', '/v1/sandbox/clock', { body: { advance_seconds: 5 } });
    const done = await tx(id);
    expect(done.status).toBe('return_completed');
    expect(done.fi_to_fi_swift_incoming?.return_transfer_amount).toBe('40000');
    expect(await balance(accId)).toBe(b0 - 40000n);
  });

  it('also completes on a real timer without a clock advance', async () => {
    const s2 = await start({ returnCompletionDelayMs: 50 });
    try {
      const c2 = client(s2);
      const f2 = fx(s2);
      const id = f2.a.incoming_transfers[0]?.transaction_id ?? '';
      await c2('POST', '/v1/transfer/return', { token: f2.adminA, idem: 'k', body: intent(id) });
      await c2('PUT', '/v1/transfer/return', { token: f2.adminA, body: { transaction_id: id } });
      let status = '';
      for (let i = 0; i < 100 && status !== 'return_completed'; i++) {
        await new Promise((r) => setTimeout(r, 30));
        status = String((await c2<Json>('GET', `/v1/transactions/${id}`, { token: f2.adminA })).body.status);
      }
      expect(status).toBe('return_completed');
    } finally {
      await s2.close();
    }
  });
});

describe('returns: refusals', () => {
  it('RETURN_ALREADY_ACTIVE: one active return per transaction', async () => {
    const id = await newTransfer();
    await c('POST', '/v1/transfer/return', { token: f.adminA, idem: key(), body: intent(id) });
    const r = await c('POST', '/v1/transfer/return', { token: f.adminA, idem: key(), body: intent(id) });
    expect(r.status).toBe(422);
    expect(err(r)).toMatchObject({
      code: '422',
      status: 'FAILED_PRECONDITION',
      reason: 'RETURN_ALREADY_ACTIVE',
    });
  });

  it('TRANSACTION_NOT_SETTLED for the seeded unsettled transfer', async () => {
    const unsettled = f.a.incoming_transfers.find((t) => t.status !== 'completed');
    expect(unsettled).toBeDefined();
    const r = await c('POST', '/v1/transfer/return', {
      token: f.adminA,
      idem: key(),
      body: intent(unsettled?.transaction_id ?? '', { return_amount: '100' }),
    });
    expect(r.status).toBe(422);
    expect(err(r).reason).toBe('TRANSACTION_NOT_SETTLED');
  });

  it('INSUFFICIENT_BALANCE for the seeded transfer larger than its creditor account balance, at intent and at confirm', async () => {
    const big = f.a.incoming_transfers.find((t) => {
      const acc = f.a.accounts.find((a) => a.id === t.creditor_account_id);
      return t.status === 'completed' && acc && BigInt(t.amount) > BigInt(acc.balance);
    });
    expect(big).toBeDefined();
    const r = await c('POST', '/v1/transfer/return', {
      token: f.adminA,
      idem: key(),
      body: intent(big?.transaction_id ?? '', { return_amount: big?.amount }),
    });
    expect(r.status).toBe(422);
    expect(err(r).reason).toBe('INSUFFICIENT_BALANCE');
    expect((await tx(big?.transaction_id ?? '')).status).toBe('completed');

    // balance checked again at confirm: two seeded transfers on the small account fit one by one, not together
    const small = f.acc(f.a, 'USD', 1);
    const fits = f.a.incoming_transfers.filter(
      (t) =>
        t.creditor_account_id === small.id &&
        t.status === 'completed' &&
        BigInt(t.amount) <= BigInt(small.balance),
    );
    expect(fits.length).toBeGreaterThanOrEqual(2);
    const [x, y] = fits;
    expect(BigInt(x?.amount ?? 0) + BigInt(y?.amount ?? 0)).toBeGreaterThan(BigInt(small.balance));
    for (const t of [x, y]) {
      const r2 = await c('POST', '/v1/transfer/return', {
        token: f.adminA,
        idem: key(),
        body: intent(t?.transaction_id ?? '', { return_amount: t?.amount }),
      });
      expect(r2.status).toBe(200);
    }
    expect(
      (
        await c('PUT', '/v1/transfer/return', {
          token: f.adminA,
          body: { transaction_id: x?.transaction_id },
        })
      ).status,
    ).toBe(200);
    const second = await c('PUT', '/v1/transfer/return', {
      token: f.adminA,
      body: { transaction_id: y?.transaction_id },
    });
    expect(second.status).toBe(422);
    expect(err(second).reason).toBe('INSUFFICIENT_BALANCE');
    expect((await tx(y?.transaction_id ?? '')).status).toBe('intent_created');
  });

  it('400 naming the field: amount over the original, bad amount, unknown reason code, bad type, unknown field', async () => {
    const id = await newTransfer('1000');
    const cases: [Json, string][] = [
      [intent(id, { return_amount: '1001' }), 'return_amount: must not exceed'],
      [intent(id, { return_amount: '0' }), 'return_amount: must be a positive integer string of minor units'],
      [
        intent(id, { return_amount: '10.5' }),
        'return_amount: must be a positive integer string of minor units',
      ],
      [intent(id, { return_amount: 100 }), 'return_amount: must be a positive integer string of minor units'],
      [
        intent(id, { return_amount: '0100' }),
        'return_amount: must be a positive integer string of minor units',
      ],
      [
        intent(id, { status_reason_code: 'ZZZZ' }),
        'status_reason_code: must be a known ISO return/status reason code',
      ],
      [intent(id, { transfer_return_type: 'SEPA' }), 'transfer_return_type: must be SWIFT_FI_TO_FI_RETURN'],
      [intent(id, { colour: 'red' }), 'colour: unknown field'],
    ];
    for (const [body, message] of cases) {
      const r = await c('POST', '/v1/transfer/return', { token: f.adminA, idem: key(), body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(err(r)).toMatchObject({ code: '400', status: 'INVALID_ARGUMENT' });
      expect(err(r).message).toContain(message);
    }
    expect((await tx(id)).status).toBe('completed');
  });

  it('400 without Idempotency-Key; 403 for a viewer; 404 for another entity’s transfer; 404/422 for confirm/cancel without intent', async () => {
    const id = await newTransfer();
    const noKey = await c('POST', '/v1/transfer/return', { token: f.adminA, body: intent(id) });
    expect(noKey.status).toBe(400);
    expect(err(noKey).message).toBe('Idempotency-Key: required header');
    const viewer = await c('POST', '/v1/transfer/return', {
      token: f.viewerA,
      idem: key(),
      body: intent(id),
    });
    expect(viewer.status).toBe(403);
    expect(err(viewer)).toMatchObject({ code: '403', status: 'PERMISSION_DENIED' });
    for (const m of ['PUT', 'DELETE'] as const) {
      const vr =
        m === 'PUT'
          ? await c('PUT', '/v1/transfer/return', { token: f.viewerA, body: { transaction_id: id } })
          : await c('DELETE', `/v1/transfer/return/${id}`, { token: f.viewerA });
      expect(vr.status).toBe(403);
    }
    const other = await c('POST', '/v1/transfer/return', { token: f.adminB, idem: key(), body: intent(id) });
    expect(other.status).toBe(404);
    expect((await c('GET', `/v1/transactions/${id}`, { token: f.adminB })).status).toBe(404);
    const put = await c('PUT', '/v1/transfer/return', { token: f.adminA, body: { transaction_id: id } });
    expect(put.status).toBe(422);
    expect(err(put).reason).toBe('NO_RETURN_INTENT');
    const del = await c('DELETE', `/v1/transfer/return/${id}`, { token: f.adminA });
    expect(err(del).reason).toBe('NO_RETURN_INTENT');
    const missing = await c('PUT', '/v1/transfer/return', {
      token: f.adminA,
      body: { transaction_id: 'txn_nope' },
    });
    expect(missing.status).toBe(404);
    expect((await tx(id)).status).toBe('completed');
  });
});
