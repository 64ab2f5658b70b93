import { describe, expect, it } from 'vitest';
import { explainReturnFailure, returnability, toTransferView } from '../../src/main/returns/view';
import type { Transaction } from '../../src/shared/api';
import { AppFailure } from '../../src/shared/ipc/errors';

const incoming = {
  amount: '125000',
  currency: 'USD',
  creditor_account_id: 'acc_1',
  debtor_name: 'Harbour Freight Ltd',
  debtor_bic: 'DEUTDEFFXXX',
  uetr: '00000000-0000-4000-a000-000000000000',
  remittance_information: 'INV-1',
  value_date: '2026-11-18',
};

function tx(over: Partial<Transaction> = {}): Transaction {
  return {
    transaction_id: 'txn_1',
    status: 'completed',
    timestamp: '2026-11-18T10:00:00.000Z',
    type: 'SWIFT-FI-TO-FI-CUSTOMER-CREDIT-INCOMING',
    fi_to_fi_swift_incoming: incoming,
    ...over,
  } as Transaction;
}

describe('returns view', () => {
  it('only a completed incoming transfer with an admin credential offers a return', () => {
    expect(returnability('completed', true, 'admin')).toEqual({ ok: true, code: 'ok', reason: null });
    expect(returnability('completed', true, 'viewer')).toMatchObject({ ok: false, code: 'viewer' });
    expect(returnability('completed', true, null)).toMatchObject({ ok: false, code: 'no_credential' });
    expect(returnability('completed', false, 'admin')).toMatchObject({ ok: false, code: 'not_incoming' });
    expect(returnability('intent_created', true, 'admin')).toMatchObject({ code: 'return_active' });
    expect(returnability('return_completed', true, 'admin')).toMatchObject({ code: 'return_active' });
    // in_progress without return details is a transfer still settling, not a return.
    expect(returnability('in_progress', true, 'admin', false)).toMatchObject({ code: 'not_settled' });
    expect(returnability('in_progress', true, 'admin', true)).toMatchObject({ code: 'return_active' });
    expect(returnability('on_hold', true, 'admin').reason).toContain('"on_hold", not completed');
  });

  it('maps the return_* fields of spec 2.2 and explains the reason code', () => {
    const v = toTransferView(
      tx({
        status: 'intent_created',
        fi_to_fi_swift_incoming: {
          ...incoming,
          return_transfer_amount: '1000',
          return_fee_amount: '0',
          return_description: 'd',
          return_status_reason_code: 'FOCR',
          return_initiated_by: { id: 'usr_1', first_name: 'Alex', last_name: 'Morgan' },
          return_created_at: '2026-11-18T10:01:00.000Z',
          return_updated_at: '2026-11-18T10:02:00.000Z',
        },
      }),
      'admin',
    );
    expect(v.returnDetails).toEqual({
      amount: '1000',
      fee: '0',
      description: 'd',
      reasonCode: 'FOCR',
      reasonMeaning: 'Following cancellation request: returned after a cancellation request',
      initiatedBy: { id: 'usr_1', firstName: 'Alex', lastName: 'Morgan' },
      createdAt: '2026-11-18T10:01:00.000Z',
      updatedAt: '2026-11-18T10:02:00.000Z',
    });
    expect(v.returnable.code).toBe('return_active');
  });

  it('shows unknown statuses, types and reason codes as they are', () => {
    const v = toTransferView(
      tx({
        status: 'held_for_review',
        type: 'SOMETHING-NEW',
        fi_to_fi_swift_incoming: { ...incoming, return_status_reason_code: 'ZZ99' },
      }),
      'admin',
    );
    expect(v.status).toBe('held_for_review');
    expect(v.type).toBe('SOMETHING-NEW');
    expect(v.returnDetails?.reasonMeaning).toBe('Unknown reason code ZZ99');
    const crypto = toTransferView(
      tx({ type: 'CRYPTO-TRADE-V2', fi_to_fi_swift_incoming: undefined }),
      'admin',
    );
    expect(crypto.incoming).toBeNull();
    expect(crypto.returnable.code).toBe('not_incoming');
  });

  it('re-words refusals with what to do and keeps kind, reason and status', () => {
    const e = explainReturnFailure(
      new AppFailure({ kind: 'precondition', reason: 'INSUFFICIENT_BALANCE', status: 422, message: 'raw' }),
    ) as AppFailure;
    expect(e).toBeInstanceOf(AppFailure);
    expect(e).toMatchObject({ kind: 'precondition', reason: 'INSUFFICIENT_BALANCE', status: 422 });
    expect(e.message).toContain('Fund the account or return a smaller amount');
    const offline = explainReturnFailure(new AppFailure({ kind: 'offline', message: 'x' })) as AppFailure;
    expect(offline.message).toContain('the same key is used, so no second return is created');
    const other = new Error('boom');
    expect(explainReturnFailure(other)).toBe(other);
  });
});
