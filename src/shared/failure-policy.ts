/**
 * The failure policy: what a failed call to the bank means for what happens next. Main (client
 * retries, idempotency ledger, audit, outbox, read-after-create, followers) and the renderer (may
 * the analyst send again?) all ask here, so they agree.
 *
 * A failure is one of three classes:
 * - transient: nothing happened and the same request can run later (after a wait, after the
 *   analyst enters a new token);
 * - ambiguous: only for writes; the bank may have acted (network cut, 5xx, same key in flight, a
 *   2xx answer that could not be read, a bug on our side after sending). Keep the idempotency key,
 *   verify before sending again, audit as pending;
 * - refused: the bank (or the app, before sending) said no. Sending the same again will not help;
 *   the write failed and the next attempt gets a fresh key.
 *
 * A read never has side effects, so it is never ambiguous: what would be ambiguous for a write is
 * transient for a read when waiting may help (offline, 5xx, 429), refused otherwise.
 */
import type { AppError } from './ipc/errors';

export type FailureClass = 'transient' | 'ambiguous' | 'refused';

/** A read (GET: no side effect) or a write (anything that may change the bank's state). */
export type CallKind = 'read' | 'write';

type Failure = Pick<AppError, 'kind' | 'status'>;

/** A 2xx answer that could not be read (cut, not JSON, wrong shape): `invalid` without a 4xx. */
export function isUnreadableAnswer(error: Failure): boolean {
  return error.kind === 'invalid' && (error.status === undefined || error.status < 300);
}

export function classifyFailure(error: Failure, call: CallKind): FailureClass {
  switch (error.kind) {
    case 'offline':
    case 'server':
      return call === 'read' ? 'transient' : 'ambiguous';
    case 'rate_limited':
      // The bank did not process the request.
      return 'transient';
    case 'unauthenticated':
      // Nothing was processed; a write waits for a token that works, a read is reported.
      return call === 'read' ? 'refused' : 'transient';
    case 'conflict':
    case 'internal':
      return call === 'read' ? 'refused' : 'ambiguous';
    case 'invalid':
      return call === 'write' && isUnreadableAnswer(error) ? 'ambiguous' : 'refused';
    case 'forbidden':
    case 'not_found':
    case 'precondition':
    case 'invalid_argument':
    case 'forbidden_sender':
    case 'unknown_channel':
    case 'keychain_unavailable':
    case 'not_approved':
    case 'local':
      return 'refused';
  }
}

/**
 * After a failed keyed write: keep its idempotency key (the ledger entry stays pending and the
 * audit line says pending) unless the failure was a refusal. A transient last failure keeps the
 * key too: the client may have made earlier attempts with that key that reached the bank, and
 * reusing a key is always safe.
 */
export function keepsIdempotencyKey(error: Failure): boolean {
  return classifyFailure(error, 'write') !== 'refused';
}

/** The audit outcome of a failed write: pending exactly when the ledger keeps its key. */
export function auditOutcomeOf(error: Failure): 'pending' | 'failed' {
  return keepsIdempotencyKey(error) ? 'pending' : 'failed';
}

/** May the analyst send the same write again? Yes exactly when its key is kept (same operation). */
export const maySendAgain: (error: Failure) => boolean = keepsIdempotencyKey;

/** Is a failed read worth waiting out (read again later)? */
export function isTransientRead(error: Failure): boolean {
  return classifyFailure(error, 'read') === 'transient';
}
