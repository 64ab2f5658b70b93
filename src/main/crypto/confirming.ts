/**
 * Confirming a quote: only a visible quote, only with an admin credential, only while the
 * computer is online (a confirmation is never queued), under the server-time guard of the
 * owner's clock; whatever happens, the order is re-read and followed to its settlement.
 */

import type { OrderView } from '../../shared/ipc/channels/crypto';
import { AppFailure } from '../../shared/ipc/errors';
import type { Operations } from '../bank/operations';
import { ConfirmRefused, guardedConfirm } from './guard';
import { appErrorOf, orderFacts, requireTrade, validUntilOf } from './order-book';
import type { OrderBook, OrderRef } from './order-book';
import type { OrderTracking } from './tracking';

export interface ConfirmingDeps {
  book: OrderBook;
  tracking: OrderTracking;
  operations: Operations;
  /** Whether the system said the computer is offline. */
  offline(): boolean;
  stop: AbortSignal;
}

/** The guard's refusal or the bank's offline answer, said for the analyst. */
function confirmFailure(err: unknown): never {
  if (err instanceof ConfirmRefused) {
    throw new AppFailure({
      kind: 'precondition',
      reason:
        err.reason === 'EXPIRED'
          ? 'QUOTE_EXPIRED'
          : err.reason === 'NOT_CONFIRMABLE'
            ? 'QUOTE_NOT_CONFIRMABLE'
            : err.reason === 'TOO_CLOSE'
              ? 'QUOTE_TOO_CLOSE_TO_EXPIRY'
              : 'SERVER_TIME_UNKNOWN',
      message: err.message,
    });
  }
  if (err instanceof AppFailure && err.kind === 'offline') {
    throw new AppFailure(
      {
        kind: 'offline',
        message:
          'The bank could not be reached while confirming. The confirmation was not queued and will not be retried; the quote is being re-read to see whether the bank received it.',
      },
      { cause: err },
    );
  }
  throw err;
}

export function createConfirming(deps: ConfirmingDeps): (ref: OrderRef) => Promise<OrderView> {
  const { book, tracking } = deps;
  return async (ref) => {
    const r = book.owned(ref);
    const orderId = r.id;
    const owner = book.ownerOf(r);
    const { bank, clock } = owner;
    const transactionId = r.transactionId;
    if (!transactionId || r.phase !== 'visible') {
      throw new AppFailure({
        kind: 'precondition',
        reason: 'QUOTE_NOT_CONFIRMABLE',
        message: 'The bank has not shown this quote yet; it cannot be confirmed.',
      });
    }
    await requireTrade(owner);
    if (deps.offline()) {
      const error = {
        message:
          'The computer is offline. The quote was not confirmed, and confirmations are never queued: request a new quote when the connection is back.',
        reason: 'OFFLINE',
      };
      book.update(orderId, { error });
      throw new AppFailure({ kind: 'offline', ...error });
    }
    try {
      await deps.operations.audited(
        {
          operation: 'crypto.confirm',
          target: transactionId,
          facts: orderFacts(book.get(orderId)),
          profileId: owner.profileId,
        },
        () =>
          guardedConfirm({
            localNow: clock.localNow,
            clock,
            marginMs: book.marginMs,
            read: async () => {
              const next = await tracking.read(orderId, transactionId);
              return { status: next.status ?? '', validUntilMs: validUntilOf(next) };
            },
            send: async () => {
              try {
                return await bank.confirmCryptoOrder(transactionId, { signal: deps.stop });
              } finally {
                // Whatever the answer, the order was confirmed from here if it settles.
                book.update(orderId, { confirmedHere: true });
              }
            },
          }).catch(confirmFailure),
      );
    } catch (err) {
      book.update(orderId, { error: appErrorOf(err) });
      // Learn the real state (expired, or confirmed after all) without sending anything.
      tracking
        .read(orderId, transactionId)
        .then((next) => {
          if (next.status === 'pending_execution') tracking.follow(next);
        })
        .catch(() => undefined);
      throw err;
    }
    book.update(orderId, { error: null });
    const next = await tracking.read(orderId, transactionId).catch(() => book.get(orderId));
    tracking.follow(next);
    return book.view(next);
  };
}
