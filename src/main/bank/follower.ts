/**
 * Follows bank transactions until they reach a final state. Callers register a transaction id;
 * the follower schedules each transaction's next read on its own (backoff per transaction with a
 * cap and jitter), keeps a bounded number of reads in flight, and hands the caller only the reads
 * that changed something, gathered into one batch per flush window (so a caller that writes its
 * store in `onBatch` writes at most once per window, and not at all when nothing changed). A
 * transaction leaves the follower at its final state, when its caller says stop, after the
 * give-up time, or when the follower is disposed. Nothing here is persisted: callers re-register
 * their unsettled transactions at start.
 *
 * Cost: one timer for the whole follower (a min-heap of due times), one read per transaction
 * per backoff step, one batch per window with changes.
 */

export interface FollowPolicy {
  /** Wait before the first read after registering. */
  firstDelayMs: number;
  /** Each wait is the previous one times this. */
  factor: number;
  /** Longest wait between two reads of one transaction. */
  maxDelayMs: number;
  /** ± this fraction of each wait, at random (0 = none). */
  jitter: number;
  /** Stop following a transaction this long after it was registered. */
  giveUpMs: number;
}

export const defaultFollowPolicy: FollowPolicy = {
  firstDelayMs: 1000,
  factor: 1.5,
  maxDelayMs: 10_000,
  jitter: 0.1,
  giveUpMs: 30 * 60_000,
};

export interface FollowUpdate<T> {
  transactionId: string;
  value: T;
  /** The transaction reached its final state; it is no longer followed. */
  final: boolean;
  /** Local time of the read (ms). */
  readAt: number;
}

export type FollowErrorDecision = 'retry' | 'stop';

export interface FollowerOptions<T> {
  read(transactionId: string, signal: AbortSignal): Promise<T>;
  isFinal(value: T): boolean;
  /** Two reads with the same fingerprint are the same state: the second is not delivered. */
  fingerprint(value: T): string;
  /** The changed and final reads since the last batch; called at most once per flush window. */
  onBatch(batch: Array<FollowUpdate<T>>): void | Promise<void>;
  /** Every successful read, changed or not (cheap bookkeeping only, e.g. a last-read time). */
  onRead?(transactionId: string, readAt: number): void;
  /** A read failed: keep following with the next backoff step, or stop. Default: retry. */
  onError?(transactionId: string, err: unknown): FollowErrorDecision;
  /** A transaction was dropped after the give-up time without reaching a final state. */
  onGiveUp?(transactionId: string): void;
  policy?: Partial<FollowPolicy>;
  /** Reads in flight at once, over all transactions. */
  maxInFlight?: number;
  /** Results are gathered this long before one batch is delivered. */
  flushMs?: number;
  now?: () => number;
  random?: () => number;
  /** Told about a batch handler that threw (the follower carries on). */
  onBatchError?(err: unknown): void;
}

export interface FollowRegistration {
  /** The fingerprint of the state the caller already holds: a read of the same state is no change. */
  known?: string | null;
  /** Checked before each read; false drops the transaction without reading (e.g. environment switched). */
  active?: () => boolean;
}

export interface FollowerStats {
  reads: number;
  changes: number;
  batches: number;
  errors: number;
}

export interface Follower {
  /** Starts following (no-op if already followed). */
  follow(transactionId: string, registration?: FollowRegistration): void;
  unfollow(transactionId: string): void;
  isFollowing(transactionId: string): boolean;
  following(): string[];
  readonly stats: FollowerStats;
  /** Stops every timer and aborts the reads in flight; resolves once they have ended. */
  dispose(): Promise<void>;
}

interface Entry {
  id: string;
  known: string | null;
  active: (() => boolean) | undefined;
  startedAt: number;
  delayMs: number;
  dueAt: number;
  /** Bumped whenever the entry is rescheduled or removed: stale heap items are skipped. */
  version: number;
  reading: boolean;
}

interface HeapItem {
  dueAt: number;
  id: string;
  version: number;
}

/** A binary min-heap of due times. */
class DueHeap {
  private items: HeapItem[] = [];
  get size(): number {
    return this.items.length;
  }
  peek(): HeapItem | undefined {
    return this.items[0];
  }
  push(item: HeapItem): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]!.dueAt <= a[i]!.dueAt) break;
      [a[p], a[i]] = [a[i]!, a[p]!];
      i = p;
    }
  }
  pop(): HeapItem | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l]!.dueAt < a[m]!.dueAt) m = l;
        if (r < a.length && a[r]!.dueAt < a[m]!.dueAt) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i]!, a[m]!];
        i = m;
      }
    }
    return top;
  }
  clear(): void {
    this.items = [];
  }
}

export function createFollower<T>(options: FollowerOptions<T>): Follower {
  const policy: FollowPolicy = { ...defaultFollowPolicy, ...options.policy };
  const maxInFlight = Math.max(1, options.maxInFlight ?? 8);
  const flushMs = Math.max(0, options.flushMs ?? 100);
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const stop = new AbortController();
  const entries = new Map<string, Entry>();
  const heap = new DueHeap();
  const pending = new Map<string, FollowUpdate<T>>();
  const inFlight = new Set<Promise<void>>();
  /** One controller per read in flight (dispose aborts them; no listener piles up on a shared signal). */
  const readAborts = new Set<AbortController>();
  const stats: FollowerStats = { reads: 0, changes: 0, batches: 0, errors: 0 };
  let wakeTimer: NodeJS.Timeout | null = null;
  let wakeAt = Number.POSITIVE_INFINITY;
  let flushTimer: NodeJS.Timeout | null = null;
  let flushing: Promise<void> = Promise.resolve();

  const jittered = (ms: number): number =>
    Math.max(0, Math.round(ms * (1 + policy.jitter * (2 * random() - 1))));

  const schedule = (e: Entry, delayMs: number): void => {
    e.version++;
    e.dueAt = now() + jittered(delayMs);
    heap.push({ dueAt: e.dueAt, id: e.id, version: e.version });
    arm();
  };

  const remove = (e: Entry): void => {
    e.version++;
    entries.delete(e.id);
    if (entries.size === 0) heap.clear();
  };

  /** Sets the one timer to the earliest due time (if it is earlier than the one set). */
  const arm = (): void => {
    if (stop.signal.aborted) return;
    // Skip items of removed or rescheduled entries.
    for (let top = heap.peek(); top; top = heap.peek()) {
      const e = entries.get(top.id);
      if (e && e.version === top.version && !e.reading) break;
      heap.pop();
    }
    const top = heap.peek();
    if (!top || inFlight.size >= maxInFlight) return;
    if (wakeTimer && wakeAt <= top.dueAt) return;
    if (wakeTimer) clearTimeout(wakeTimer);
    wakeAt = top.dueAt;
    wakeTimer = setTimeout(wake, Math.max(0, top.dueAt - now()));
    wakeTimer.unref?.();
  };

  const wake = (): void => {
    wakeTimer = null;
    wakeAt = Number.POSITIVE_INFINITY;
    const t = now();
    while (inFlight.size < maxInFlight && !stop.signal.aborted) {
      const top = heap.peek();
      if (!top || top.dueAt > t) break;
      heap.pop();
      const e = entries.get(top.id);
      if (!e || e.version !== top.version || e.reading) continue;
      start(e);
    }
    arm();
  };

  const deliver = (update: FollowUpdate<T>): void => {
    pending.set(update.transactionId, update);
    if (flushTimer || stop.signal.aborted) return;
    flushTimer = setTimeout(flush, flushMs);
    flushTimer.unref?.();
  };

  const flush = (): void => {
    flushTimer = null;
    if (pending.size === 0) return;
    const batch = [...pending.values()];
    pending.clear();
    stats.batches++;
    flushing = flushing
      .then(() => options.onBatch(batch))
      .catch((err: unknown) => options.onBatchError?.(err));
  };

  const start = (e: Entry): void => {
    if (e.active && !e.active()) {
      remove(e);
      return;
    }
    if (now() - e.startedAt > policy.giveUpMs) {
      remove(e);
      options.onGiveUp?.(e.id);
      return;
    }
    e.reading = true;
    const version = e.version;
    const abort = new AbortController();
    readAborts.add(abort);
    const run = (async () => {
      let value: T;
      try {
        value = await options.read(e.id, abort.signal);
      } catch (err) {
        if (stop.signal.aborted || entries.get(e.id) !== e || e.version !== version) return;
        stats.errors++;
        const decision = options.onError ? options.onError(e.id, err) : 'retry';
        if (decision === 'stop') {
          remove(e);
          return;
        }
        const retryAfter = (err as { retryAfterMs?: unknown }).retryAfterMs;
        next(e, typeof retryAfter === 'number' ? retryAfter : 0);
        return;
      }
      if (stop.signal.aborted || entries.get(e.id) !== e || e.version !== version) return;
      stats.reads++;
      const readAt = now();
      options.onRead?.(e.id, readAt);
      const final = options.isFinal(value);
      const print = options.fingerprint(value);
      if (print !== e.known || final) {
        e.known = print;
        stats.changes++;
        deliver({ transactionId: e.id, value, final, readAt });
      }
      if (final) remove(e);
      else next(e, 0);
    })().finally(() => {
      readAborts.delete(abort);
      e.reading = false;
      inFlight.delete(run);
      arm();
    });
    inFlight.add(run);
  };

  /** The next backoff step (at least `atLeastMs`, e.g. the bank's Retry-After). */
  const next = (e: Entry, atLeastMs: number): void => {
    e.delayMs = Math.min(policy.maxDelayMs, Math.round(e.delayMs * policy.factor));
    e.reading = false;
    schedule(e, Math.max(e.delayMs, atLeastMs));
  };

  return {
    follow(transactionId, registration = {}) {
      if (stop.signal.aborted || entries.has(transactionId)) return;
      const e: Entry = {
        id: transactionId,
        known: registration.known ?? null,
        active: registration.active,
        startedAt: now(),
        delayMs: policy.firstDelayMs,
        dueAt: 0,
        version: 0,
        reading: false,
      };
      entries.set(transactionId, e);
      schedule(e, policy.firstDelayMs);
    },
    unfollow(transactionId) {
      const e = entries.get(transactionId);
      if (e) remove(e);
    },
    isFollowing: (transactionId) => entries.has(transactionId),
    following: () => [...entries.keys()],
    stats,
    async dispose() {
      stop.abort();
      for (const a of readAborts) a.abort();
      if (wakeTimer) clearTimeout(wakeTimer);
      if (flushTimer) clearTimeout(flushTimer);
      wakeTimer = null;
      flushTimer = null;
      entries.clear();
      heap.clear();
      pending.clear();
      await Promise.allSettled([...inFlight]);
      await flushing;
    },
  };
}
