/**
 * The returns feature's writes to the bank: an intent made through the idempotency ledger (its
 * operationId, hence its Idempotency-Key, survives a restart so an ambiguous send can be retried),
 * and confirm or cancel of an intent, each audited and sent through the transfer's owner.
 */

import type { ReturnIntentRequest } from '../../shared/api';
import type { ReturnReasonCode } from '../../shared/catalogue';
import type { TransferView } from '../../shared/ipc/channels/returns';
import type { IdempotencyLedger } from '../bank/ledger';
import type { Operations } from '../bank/operations';
import { isoNow } from './record';
import type { ReturnsRecord } from './record';
import { readTransfer } from './owners';
import type { ReturnsOwner, ReturnsOwners } from './owners';
import type { ReturnsFollowing } from './following';
import { explainReturnFailure } from './view';

export interface ReturnsWritesDeps {
  owner(profileId: string): ReturnsOwner;
  owners: ReturnsOwners;
  record: ReturnsRecord;
  following: ReturnsFollowing;
  operations: Operations;
  ledger: IdempotencyLedger;
}

export interface CreateIntentInput {
  operationId: string;
  transactionId: string;
  amount: string;
  reasonCode: ReturnReasonCode;
  description?: string | undefined;
  /** The profile the transfer belongs to (the screen the analyst acts from says it). */
  profileId: string;
}

export interface ReturnsWrites {
  createIntent(
    input: CreateIntentInput,
  ): Promise<{ transactionId: string; idempotencyKey: string; alreadyDone: boolean }>;
  confirm(transactionId: string, profileId: string): Promise<TransferView>;
  cancel(transactionId: string, profileId: string): Promise<TransferView>;
}

export function createReturnsWrites(deps: ReturnsWritesDeps): ReturnsWrites {
  const { owners, record } = deps;

  /** An audited confirm or cancel through the owner, then the entry and the status read after it. */
  const decide = async (
    operation: 'return.confirm' | 'return.cancel',
    transactionId: string,
    profileId: string,
  ): Promise<{ owner: ReturnsOwner; view: TransferView }> => {
    const owner = owners.ownerOf(profileId);
    await owners.requireAdmin(owner, operation, transactionId);
    try {
      const facts = await record.factsOf(transactionId);
      await deps.operations.audited(
        { operation, target: transactionId, facts, profileId: owner.profileId },
        () =>
          operation === 'return.confirm'
            ? owner.bank.confirmReturn(transactionId)
            : owner.bank.cancelReturn(transactionId),
      );
    } catch (err) {
      throw explainReturnFailure(err);
    }
    const e = await record.latestEntry(transactionId, owner.profileId);
    const phase = operation === 'return.confirm' ? 'confirmed' : 'cancelled';
    if (e) await record.upsert(e.operationId, { phase, problem: null });
    return { owner, view: await readTransfer(transactionId, owner) };
  };

  const createIntent = async (
    input: CreateIntentInput,
  ): Promise<{ transactionId: string; idempotencyKey: string; alreadyDone: boolean }> => {
    const owner = deps.owner(input.profileId);
    await owners.requireAdmin(owner, 'return.create_intent', input.transactionId);
    const body: ReturnIntentRequest = {
      transfer_return_type: 'SWIFT_FI_TO_FI_RETURN',
      transaction_id: input.transactionId,
      return_amount: input.amount,
      status_reason_code: input.reasonCode,
      ...(input.description ? { description: input.description } : {}),
    };
    const s = await record.store();
    const existing = s.get().entries.find((e) => e.operationId === input.operationId);
    const now = isoNow();
    await record.upsert(
      input.operationId,
      { phase: 'sending', problem: null },
      existing ?? {
        operationId: input.operationId,
        transactionId: input.transactionId,
        amount: input.amount,
        currency: '',
        reasonCode: input.reasonCode,
        description: input.description ?? '',
        phase: 'sending',
        status: null,
        idempotencyKey: null,
        environmentId: owner.profileId,
        createdAt: now,
        updatedAt: now,
        problem: null,
      },
    );
    const recentItem = s.get().recent.find((r) => r.transactionId === input.transactionId);
    if (recentItem?.currency) await record.upsert(input.operationId, { currency: recentItem.currency });
    try {
      const res = await deps.operations.createReturnIntent(
        input.operationId,
        body,
        await record.factsOf(input.transactionId),
        owner.profileId,
      );
      await record.upsert(input.operationId, {
        phase: 'created',
        idempotencyKey: res.idempotencyKey,
        problem: null,
      });
      return res;
    } catch (err) {
      const explained = explainReturnFailure(err);
      const ledger = deps.ledger.get(input.operationId);
      const refused = ledger?.state === 'failed';
      await record
        .upsert(input.operationId, {
          phase: refused ? 'refused' : 'sending',
          idempotencyKey: ledger?.key ?? null,
          problem: explained instanceof Error ? explained.message : 'The return could not be sent.',
        })
        .catch(() => undefined);
      throw explained;
    }
  };

  return {
    createIntent,
    async confirm(transactionId, profileId) {
      const { owner, view } = await decide('return.confirm', transactionId, profileId);
      await record.applyStatuses([view]);
      if (view.status === 'in_progress') deps.following.follow(transactionId, owner);
      else if (view.status === 'return_completed') deps.following.notifyCompleted(view);
      return view;
    },
    async cancel(transactionId, profileId) {
      const { view } = await decide('return.cancel', transactionId, profileId);
      await record.remember(view);
      return view;
    },
  };
}
