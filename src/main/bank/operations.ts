import type { CryptoOrderRequest, ReturnIntentRequest } from '../../shared/api';
import { auditOutcomeOf } from '../../shared/failure-policy';
import { AppFailure } from '../../shared/ipc/errors';
import type { AppError } from '../../shared/ipc/errors';
import type { EventHub } from '../infra/events';
import type { Logger } from '../infra/log';
import type { ActivityFacts } from '../../shared/activity';
import type { AuditLog, AuditRecordInput } from './audit';
import type { BankClient } from './client';
import type { IdempotencyLedger, OperationKind } from './ledger';

/** Creating operations that go through the idempotency ledger and the audit log. */
export interface Operations {
  /**
   * POST /v1/transfer/return under the ledger: the key is written before sending, reused on every
   * retry and after a restart; a succeeded operation answers its transaction id without sending.
   */
  createReturnIntent(
    operationId: string,
    body: ReturnIntentRequest,
    facts?: ActivityFacts,
    profileId?: string,
  ): Promise<CreateResult>;
  /** POST /v1/crypto/order, the same way. */
  createCryptoOrder(
    operationId: string,
    body: CryptoOrderRequest,
    facts?: ActivityFacts,
    profileId?: string,
  ): Promise<CreateResult>;
  /**
   * Runs any other write and records it in the audit log (succeeded/failed); `facts` (what moved)
   * make the entry's sentence.
   */
  audited<T>(
    input: {
      operation: string;
      target?: string;
      idempotencyKey?: string;
      facts?: ActivityFacts;
      /** The profile that owns the object (default: the active one). */
      profileId?: string;
    },
    run: () => Promise<T>,
  ): Promise<T>;
  /**
   * Records a write whose outcome its owner decided with the failure policy (the answer outbox:
   * an upload or a response whose answer was lost is `pending` until a re-read settles it).
   * Never throws: a failing audit line is logged, the write's own result stands.
   */
  record(input: AuditRecordInput): Promise<void>;
  /** The audit outcome and detail of a failed write (pending when the bank may have acted). */
  outcomeOf(err: unknown): { outcome: 'failed' | 'pending'; detail: string };
}

export interface CreateResult {
  transactionId: string;
  idempotencyKey: string;
  /** true when the operation had already succeeded and nothing was sent. */
  alreadyDone: boolean;
}

export interface OperationsDeps {
  ledger: IdempotencyLedger;
  audit: AuditLog;
  /** The bank client of the profile that owns the object (default: the active profile's). */
  bank(profileId?: string): Pick<BankClient, 'createReturnIntent' | 'createCryptoOrder'>;
  events: EventHub;
  log: Logger;
  /** Runs before an audit line is written (the owner's session learns who the credential is). */
  beforeRecord(profileId?: string): Promise<void>;
}

function toAppError(err: unknown): AppError {
  return err instanceof AppFailure ? err.toAppError() : { kind: 'internal', message: 'Unexpected error' };
}

/**
 * The writes of every feature, each recorded once in the audit log with the outcome the failure
 * policy gives it; creating writes also go through the idempotency ledger (key written before
 * sending, reused on every retry and after a restart).
 */
export function createOperations(deps: OperationsDeps): Operations {
  const { ledger, audit, bank, events, log } = deps;

  const record = async (input: AuditRecordInput): Promise<void> => {
    try {
      await deps.beforeRecord(input.profileId);
      const entry = await audit.record(input);
      events.emit('audit.recorded', entry);
    } catch (err) {
      // The write itself happened; a failing audit line must not hide its result.
      log.error('audit: entry not recorded', { operation: input.operation, error: err });
    }
  };

  const outcomeOf = (err: unknown): { outcome: 'failed' | 'pending'; detail: string } => {
    const e = toAppError(err);
    return {
      outcome: auditOutcomeOf(e),
      detail: `${e.kind}${e.reason ? ` ${e.reason}` : ''}: ${e.message}`,
    };
  };

  const create = async (
    kind: OperationKind,
    operation: string,
    operationId: string,
    body: ReturnIntentRequest | CryptoOrderRequest,
    facts: ActivityFacts | undefined,
    profileId: string | undefined,
    send: (key: string) => Promise<{ transaction_id: string }>,
  ): Promise<CreateResult> => {
    const owner = profileId !== undefined ? { profileId } : {};
    const begun = await ledger.begin(operationId, kind, body);
    if (begun.state === 'succeeded' && begun.transactionId) {
      return { transactionId: begun.transactionId, idempotencyKey: begun.key, alreadyDone: true };
    }
    const target = 'transaction_id' in body ? body.transaction_id : body.symbol;
    try {
      const res = await send(begun.key);
      await ledger.settle(operationId, { transactionId: res.transaction_id });
      await record({
        operation,
        idempotencyKey: begun.key,
        target: res.transaction_id,
        outcome: 'succeeded',
        facts: facts ?? null,
        ...owner,
      });
      return { transactionId: res.transaction_id, idempotencyKey: begun.key, alreadyDone: false };
    } catch (err) {
      await ledger
        .settle(operationId, { error: toAppError(err) })
        .catch((e: unknown) => log.error('ledger: settle failed', { error: e }));
      await record({
        operation,
        idempotencyKey: begun.key,
        target,
        facts: facts ?? null,
        ...owner,
        ...outcomeOf(err),
      });
      throw err;
    }
  };

  return {
    createReturnIntent: (operationId, body, facts, profileId) =>
      create('return_intent', 'return.create_intent', operationId, body, facts, profileId, (key) =>
        bank(profileId).createReturnIntent(body, { idempotencyKey: key }),
      ),
    createCryptoOrder: (operationId, body, facts, profileId) =>
      create('crypto_order', 'crypto.create_order', operationId, body, facts, profileId, (key) =>
        bank(profileId).createCryptoOrder(body, { idempotencyKey: key }),
      ),
    record,
    outcomeOf,
    async audited(input, run) {
      try {
        const value = await run();
        await record({ ...input, outcome: 'succeeded' });
        return value;
      } catch (err) {
        await record({ ...input, ...outcomeOf(err) });
        throw err;
      }
    },
  };
}
