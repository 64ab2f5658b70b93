/**
 * Whose a transfer is, and what its credential may do: each call goes through the profile that
 * owns the transfer (named by the screen the analyst acts from), and a write is refused before
 * anything is sent when the credential cannot make it (the refusal is still audited).
 */

import type { Transaction } from '../../shared/api';
import type { TransferView } from '../../shared/ipc/channels/returns';
import { AppFailure } from '../../shared/ipc/errors';
import type { BankClient } from '../bank/client';
import type { Operations } from '../bank/operations';
import { explainReturnFailure, toTransferView } from './view';

/** The profile a transfer belongs to: its bank client, credential and read-after-create. */
export interface ReturnsOwner {
  readonly profileId: string;
  readonly bank: Pick<BankClient, 'getTransaction' | 'confirmReturn' | 'cancelReturn'>;
  /** The credential as the bank last reported it (null before a check). */
  readonly credential: { role: string } | null;
  check(): Promise<unknown>;
  /** Reads a transaction this profile just created (the bank's 404 window). */
  readAfterCreate(transactionId: string): Promise<Transaction>;
}

/** The transfer as the bank reports it, named with the profile it belongs to. */
export function viewOf(tx: Transaction, role: string | null, owner: ReturnsOwner): TransferView {
  return { ...toTransferView(tx, role), profileId: owner.profileId };
}

/** The owner's role as the bank says it (checked first when not known yet). */
export async function roleOf(owner: ReturnsOwner): Promise<string | null> {
  if (!owner.credential) await owner.check().catch(() => undefined);
  return owner.credential?.role ?? null;
}

/** Reads a transfer through its owner (failures said for the analyst). */
export async function readTransfer(transactionId: string, owner: ReturnsOwner): Promise<TransferView> {
  try {
    const tx = await owner.bank.getTransaction(transactionId);
    return viewOf(tx, await roleOf(owner), owner);
  } catch (err) {
    throw explainReturnFailure(err);
  }
}

export interface ReturnsOwners {
  /** The owner of a transfer: the profile named (not_found when it is gone). */
  ownerOf(profileId: string): ReturnsOwner;
  /** Refuses a write before sending when the credential cannot make it (the refusal is audited). */
  requireAdmin(owner: ReturnsOwner, operation: string, target: string): Promise<void>;
}

export function createReturnsOwners(deps: {
  owner(profileId: string): ReturnsOwner;
  operations: Operations;
}): ReturnsOwners {
  const roleFailure = async (owner: ReturnsOwner): Promise<AppFailure | null> => {
    const r = await roleOf(owner);
    if (r === null) {
      return new AppFailure({
        kind: 'unauthenticated',
        message:
          'The bank has not confirmed which credential is in use, so nothing was sent. Check the connection and re-check.',
      });
    }
    if (r !== 'admin') {
      return new AppFailure({
        kind: 'forbidden',
        reason: 'ROLE_VIEWER',
        message: `The credential in use has the ${r} role: it can read transfers but not return them. Nothing was sent. Switch to an admin credential to make a return.`,
      });
    }
    return null;
  };

  return {
    ownerOf: (profileId) => deps.owner(profileId),
    async requireAdmin(owner, operation, target) {
      // The refused attempt is still an analyst action: it goes to the audit log (failed, nothing sent).
      const failure = await roleFailure(owner);
      if (failure) {
        await deps.operations
          .audited({ operation, target, profileId: owner.profileId }, () => Promise.reject(failure))
          .catch(() => undefined);
        throw failure;
      }
    },
  };
}
