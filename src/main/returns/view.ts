/**
 * The returns feature's view of the bank: whether a transfer can be returned (and why not), the
 * bank's record as the renderer shows it, and failures re-worded for the analyst.
 */

import { describeReasonCode } from '../../shared/catalogue';
import type { Transaction } from '../../shared/api';
import type { TransferView } from '../../shared/ipc/channels/returns';
import { AppFailure } from '../../shared/ipc/errors';
import type { AppError } from '../../shared/ipc/errors';

/** Statuses during which a return exists on the transfer (spec 3.1). */
export const RETURN_ACTIVE_STATUSES = ['intent_created', 'in_progress', 'return_completed'] as const;

/** Whether a return can be made, and why not in plain words with what to do. */
export function returnability(
  status: string,
  hasIncoming: boolean,
  role: string | null,
  hasReturn = true,
): TransferView['returnable'] {
  if (!hasIncoming) {
    return {
      ok: false,
      code: 'not_incoming',
      reason:
        'This transaction is not an incoming SWIFT transfer, so it cannot be returned. Check the transaction id.',
    };
  }
  if (status === 'intent_created') {
    return {
      ok: false,
      code: 'return_active',
      reason:
        'A return intent already exists for this transfer. Review it below to confirm or cancel it before starting another.',
    };
  }
  if (status === 'in_progress' && hasReturn) {
    return {
      ok: false,
      code: 'return_active',
      reason:
        'A return of this transfer is in progress. Wait for it to finish; the Returns list shows its status.',
    };
  }
  if (status === 'return_completed') {
    return {
      ok: false,
      code: 'return_active',
      reason: 'This transfer has already been returned. Nothing more can be returned.',
    };
  }
  if (status !== 'completed') {
    return {
      ok: false,
      code: 'not_settled',
      reason: `This transfer is "${status}", not completed. Only a settled (completed) transfer can be returned; open it again once it has settled.`,
    };
  }
  if (role === null) {
    return {
      ok: false,
      code: 'no_credential',
      reason:
        'The bank has not confirmed which credential is in use, so the return is held back. Check the connection (top right) and re-check.',
    };
  }
  if (role !== 'admin') {
    return {
      ok: false,
      code: 'viewer',
      reason: `The credential in use has the ${role} role: it can read transfers but not return them. Switch to an admin credential (Connection or Settings) to make a return.`,
    };
  }
  return { ok: true, code: 'ok', reason: null };
}

/** The bank's record as the renderer shows it; tolerant of unknown statuses and types. */
export function toTransferView(tx: Transaction, role: string | null): TransferView {
  const f = tx.fi_to_fi_swift_incoming;
  const hasReturn =
    f !== undefined &&
    [
      f.return_transfer_amount,
      f.return_fee_amount,
      f.return_description,
      f.return_status_reason_code,
      f.return_initiated_by,
      f.return_created_at,
      f.return_updated_at,
    ].some((v) => v !== undefined);
  const status = String(tx.status);
  return {
    transactionId: tx.transaction_id,
    status,
    type: String(tx.type),
    timestamp: tx.timestamp,
    incoming: f
      ? {
          amount: f.amount,
          currency: f.currency,
          creditorAccountId: f.creditor_account_id,
          debtorName: f.debtor_name,
          debtorBic: f.debtor_bic,
          uetr: f.uetr,
          remittanceInformation: f.remittance_information,
          valueDate: f.value_date,
        }
      : null,
    returnDetails:
      f && hasReturn
        ? {
            amount: f.return_transfer_amount ?? null,
            fee: f.return_fee_amount ?? null,
            description: f.return_description ?? null,
            reasonCode: f.return_status_reason_code ?? null,
            reasonMeaning:
              f.return_status_reason_code !== undefined
                ? describeReasonCode(f.return_status_reason_code)
                : null,
            initiatedBy: f.return_initiated_by
              ? {
                  id: f.return_initiated_by.id,
                  firstName: f.return_initiated_by.first_name,
                  lastName: f.return_initiated_by.last_name,
                }
              : null,
            createdAt: f.return_created_at ?? null,
            updatedAt: f.return_updated_at ?? null,
          }
        : null,
    returnable: returnability(status, f !== undefined, role, hasReturn),
    role,
  };
}

const refusalWords: Record<string, string> = {
  TRANSACTION_NOT_SETTLED:
    'The bank refused: this transfer is not settled yet. Only a completed transfer can be returned; try again once it shows completed.',
  INSUFFICIENT_BALANCE:
    'The bank refused: the creditor account does not have enough available balance for this return. Fund the account or return a smaller amount, then try again.',
  RETURN_ALREADY_ACTIVE:
    'The bank refused: this transfer already has a return (an open intent or a confirmed return). Open it from the Returns list to review, confirm or cancel it.',
  NO_RETURN_INTENT:
    'There is no open return intent on this transfer any more (it may have been cancelled or confirmed elsewhere). Reload the transfer to see its current state.',
  RETURN_ALREADY_CONFIRMED:
    'This return is already confirmed, so it can no longer be cancelled or confirmed again. Follow its status in the Returns list.',
  IDEMPOTENCY_KEY_REUSED:
    'The bank saw this request before with different details. Start a new return from the transfer instead.',
};

/**
 * Re-words a failure of a return call for the analyst: what happened and what to do. Keeps kind,
 * reason, field and status so the renderer can still tell refusals apart.
 */
export function explainReturnFailure(err: unknown): unknown {
  if (!(err instanceof AppFailure)) return err;
  const e: AppError = err.toAppError();
  let message = e.message;
  if (e.reason && refusalWords[e.reason]) message = refusalWords[e.reason] ?? message;
  else if (e.kind === 'forbidden')
    message =
      'The bank refused: the credential in use may not make returns (viewer role, or another legal entity’s transfer). Switch to an admin credential of this legal entity.';
  else if (e.kind === 'not_found')
    message =
      'The bank has no such transaction for the credential in use. Check the id; a transfer belongs to one legal entity.';
  else if (e.kind === 'offline')
    message =
      'The bank could not be reached, so it is not known whether the request arrived. Send again when the connection is back: the same key is used, so no second return is created.';
  else if (e.kind === 'server' || e.kind === 'conflict')
    message = `${e.message} It is not known whether the request took effect: send again (the same key is used, so no second return is created).`;
  else if (e.kind === 'invalid' && e.field === undefined && e.status === 400)
    message = `The bank refused the request: ${e.message}`;
  return new AppFailure({ ...e, message }, { cause: err });
}
