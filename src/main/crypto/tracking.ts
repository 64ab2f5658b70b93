/**
 * Keeping the exchange's orders current: a new quote read through the bank's visibility window,
 * an unconfirmed quote re-read once it expires (with a native reminder just before), and a
 * confirmed order followed to its settlement, each through the profile it belongs to.
 */

import type { Transaction } from '../../shared/api';
import { AppFailure } from '../../shared/ipc/errors';
import { createFollower } from '../bank/follower';
import type { FollowPolicy, FollowUpdate } from '../bank/follower';
import type { Logger } from '../infra/log';
import type { Platform } from '../infra/platform';
import type { SettingsStore } from '../session/settings';
import { appErrorOf, isFinalStatus, validUntilOf } from './order-book';
import type { CryptoOwner, OrderBook, OrderRecord } from './order-book';

/** The quote-expiry reminder comes this long before quote_valid_until. */
const EXPIRY_WARNING_MS = 10_000;

export interface OrderTracking {
  /** Re-reads an order from the bank through its owner and records what it says. */
  read(id: string, transactionId: string): Promise<OrderRecord>;
  /** Re-read a confirmed order until it is final (or the give-up time passes). */
  follow(r: OrderRecord): void;
  /** An unconfirmed quote: one re-read just after it expires, so the list shows expired. */
  scheduleExpiryCheck(r: OrderRecord): void;
  /** The read-after-create window of a new quote, in the background. */
  awaitVisible(id: string, transactionId: string): void;
  dispose(): void;
}

export interface OrderTrackingDeps {
  book: OrderBook;
  settings: SettingsStore;
  platform: Platform;
  log: Logger;
  /** Aborted when the service stops: nothing is read or scheduled after. */
  stop: AbortSignal;
  follow?: Partial<FollowPolicy>;
  followMaxInFlight?: number;
}

export function createOrderTracking(deps: OrderTrackingDeps): OrderTracking {
  const { book, stop } = deps;
  const expiry = createExpiryWatch({ ...deps, reread: (id, txId) => read(id, txId) });
  const following = createSettlementFollower({ ...deps, expiry });

  function apply(id: string, tx: Transaction): OrderRecord {
    book.readAt.delete(id);
    const next = book.update(id, {
      status: tx.status,
      crypto: tx.crypto_trade_v2 ?? null,
      phase: 'visible',
      lastReadAt: new Date(book.ownerOf(book.get(id)).clock.now()).toISOString(),
    });
    book.notifySettled(next);
    expiry.schedule(next);
    return next;
  }

  async function read(id: string, transactionId: string): Promise<OrderRecord> {
    const { bank, clock } = book.ownerOf(book.get(id));
    const tx = await book.timed(clock, () => bank.getTransaction(transactionId, { signal: stop }));
    return apply(id, tx);
  }

  const awaiting = new Set<string>();
  const awaitVisible = (id: string, transactionId: string): void => {
    if (awaiting.has(id)) return;
    awaiting.add(id);
    void book
      .ownerOf(book.get(id))
      .readAfterCreate(transactionId, {
        signal: stop,
        onState: (u) => {
          if (u.state === 'processing' || u.state === 'still_processing') {
            const current = book.find(id);
            const phase = u.state === 'processing' ? 'not_visible' : 'still_processing';
            if (current && current.phase !== phase && current.phase !== 'visible') book.update(id, { phase });
          }
        },
      })
      .then((tx) => {
        const r = apply(id, tx);
        if (r.status === 'pending_execution') following.follow(r);
      })
      .catch((err: unknown) => {
        if (stop.aborted) return;
        book.update(id, { error: appErrorOf(err) });
      })
      .finally(() => awaiting.delete(id));
  };

  return {
    read,
    follow: following.follow,
    scheduleExpiryCheck: expiry.schedule,
    awaitVisible,
    dispose() {
      following.dispose();
      expiry.dispose();
    },
  };
}

interface ExpiryWatch {
  schedule(r: OrderRecord): void;
  dispose(): void;
}

/** One re-read of an unconfirmed quote just after it expires, and a reminder 10 s before. */
function createExpiryWatch(
  deps: OrderTrackingDeps & { reread(id: string, transactionId: string): Promise<unknown> },
): ExpiryWatch {
  const { book, stop, log } = deps;
  const expiryTimers = new Map<string, NodeJS.Timeout>();
  const warnTimers = new Map<string, NodeJS.Timeout>();
  const warned = new Set<string>();

  const warn = (id: string, clock: CryptoOwner['clock']): void => {
    warnTimers.delete(id);
    const current = book.find(id);
    if (current?.status !== 'in_progress' || current.confirmedHere || warned.has(id)) return;
    const left = validUntilOf(current) - clock.now();
    if (!(left > 0)) return;
    warned.add(id);
    if (!deps.settings.get().notifications.quoteExpiry) return;
    deps.platform.notify({
      title: `Quote about to expire: ${current.body.symbol} ${current.body.side}`,
      body: `${Math.ceil(left / 1000)} s left to confirm quote ${current.transactionId ?? ''}.`,
    });
  };

  return {
    schedule(r) {
      if (r.status !== 'in_progress' || !r.transactionId || expiryTimers.has(r.id) || stop.aborted) return;
      const validUntil = validUntilOf(r);
      if (!Number.isFinite(validUntil)) return;
      const clock = book.ownerOf(r).clock;
      const delay = Math.min(2 ** 31 - 1, Math.max(0, validUntil - clock.now()) + 1500);
      const txId = r.transactionId;
      const timer = setTimeout(() => {
        expiryTimers.delete(r.id);
        if (book.find(r.id)?.status !== 'in_progress') return;
        deps
          .reread(r.id, txId)
          .catch((err: unknown) => log.warn('crypto: expiry re-read failed', { error: err }));
      }, delay);
      timer.unref?.();
      expiryTimers.set(r.id, timer);

      // A native reminder 10 s before expiry (Settings → notifications → quote expiry).
      const warnIn = validUntil - EXPIRY_WARNING_MS - clock.now();
      if (warnIn > 0 && !warned.has(r.id) && !warnTimers.has(r.id)) {
        const t = setTimeout(() => warn(r.id, clock), Math.min(2 ** 31 - 1, warnIn));
        t.unref?.();
        warnTimers.set(r.id, t);
      }
    },
    dispose() {
      for (const t of [...expiryTimers.values(), ...warnTimers.values()]) clearTimeout(t);
      expiryTimers.clear();
      warnTimers.clear();
    },
  };
}

/** The state of an order as far as following is concerned: a read with the same one changes nothing. */
const stateOf = (status: string | null, crypto: unknown): string =>
  `${status ?? ''}|${JSON.stringify(crypto ?? null)}`;

/** Confirmed orders re-read through their own profile until they settle, whatever is active. */
function createSettlementFollower(deps: OrderTrackingDeps & { expiry: ExpiryWatch }): {
  follow(r: OrderRecord): void;
  dispose(): void;
} {
  const { book, stop, log } = deps;
  /** Followed transaction id → order id. */
  const followedOrders = new Map<string, string>();

  /** Applies the follower's changed reads: one store write for the whole batch, then the pushes. */
  const applyFollowed = (batch: Array<FollowUpdate<Transaction>>): void => {
    const byOrder = new Map<string, FollowUpdate<Transaction>>();
    for (const u of batch) {
      const orderId = followedOrders.get(u.transactionId);
      if (orderId) byOrder.set(orderId, u);
      if (u.final) followedOrders.delete(u.transactionId);
    }
    if (byOrder.size === 0 || stop.aborted) return;
    const changed: OrderRecord[] = [];
    const settled: OrderRecord[] = [];
    book.orders.update((file) => {
      const rest: OrderRecord[] = [];
      for (const o of file.orders) {
        const u = byOrder.get(o.id);
        if (!u || o.transactionId !== u.transactionId) {
          rest.push(o);
          continue;
        }
        let next: OrderRecord = {
          ...o,
          status: u.value.status,
          crypto: u.value.crypto_trade_v2 ?? null,
          phase: 'visible',
          lastReadAt: new Date(book.ownerOf(o).clock.now()).toISOString(),
        };
        if (book.settles(next)) {
          next = { ...next, notified: true };
          settled.push(next);
        }
        changed.push(next);
      }
      // Updated orders come first, as every other update puts them.
      return { orders: [...changed, ...rest] };
    });
    for (const r of changed) {
      book.readAt.delete(r.id);
      book.pushView(r);
      deps.expiry.schedule(r);
    }
    for (const r of settled) book.showSettled(r);
  };

  /** The profile a followed transaction is read through. */
  const followOwner = (transactionId: string): CryptoOwner => {
    const orderId = followedOrders.get(transactionId);
    const r = orderId ? book.find(orderId) : undefined;
    if (!r) throw new AppFailure({ kind: 'not_found', message: 'This order is no longer kept here.' });
    return book.ownerOf(r);
  };
  const follower = createFollower<Transaction>({
    read: (transactionId, signal) => {
      const { bank, clock } = followOwner(transactionId);
      return book.timed(clock, () => bank.getTransaction(transactionId, { signal }));
    },
    isFinal: (tx) => isFinalStatus(tx.status),
    fingerprint: (tx) => stateOf(tx.status, tx.crypto_trade_v2),
    onRead: (transactionId, at) => {
      const orderId = followedOrders.get(transactionId);
      if (orderId) book.readAt.set(orderId, at);
    },
    onBatch: applyFollowed,
    now: () => Date.now(),
    onBatchError: (err) => log.warn('crypto: recording re-read orders failed', { error: err }),
    onError: (transactionId, err) => {
      // Not this credential's or this bank's order (switched meanwhile): the list follows it again.
      if (err instanceof AppFailure && (err.kind === 'not_found' || err.kind === 'forbidden')) {
        followedOrders.delete(transactionId);
        return 'stop';
      }
      log.warn('crypto: re-reading an order failed; trying again', { transactionId, error: err });
      return 'retry';
    },
    onGiveUp: (transactionId) => followedOrders.delete(transactionId),
    policy: { giveUpMs: 10 * 60_000, ...deps.follow },
    ...(deps.followMaxInFlight !== undefined ? { maxInFlight: deps.followMaxInFlight } : {}),
  });

  return {
    follow(r) {
      const transactionId = r.transactionId;
      if (!transactionId || isFinalStatus(r.status) || stop.aborted) return;
      if (follower.isFollowing(transactionId)) return;
      followedOrders.set(transactionId, r.id);
      // Followed through its own profile, whatever is active, until the app stops.
      follower.follow(transactionId, {
        known: stateOf(r.status, r.crypto),
        active: () => !stop.aborted,
      });
    },
    dispose: () => void follower.dispose(),
  };
}
