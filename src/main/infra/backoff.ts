/**
 * Jittered exponential backoff, the one schedule of every retry loop that waits between attempts
 * (the bank client's attempts, the outbox's runs, read-after-create's reads): step n waits
 * baseMs·2^(n−1), capped at maxMs, times a random factor in `jitter` (by default [0.5, 1]: "equal
 * jitter", so clients that failed together do not come back together), never more than maxMs.
 */

export interface BackoffSchedule {
  baseMs: number;
  maxMs: number;
  /** The random factor's range [low, high]; default [0.5, 1]. */
  jitter?: readonly [number, number];
}

/** The delay before retry n (n ≥ 1 is the first retry; n < 1 counts as 1). */
export function backoffDelay(
  n: number,
  schedule: BackoffSchedule,
  random: () => number = Math.random,
): number {
  const [low, high] = schedule.jitter ?? [0.5, 1];
  const step = Math.min(schedule.maxMs, schedule.baseMs * 2 ** Math.max(0, n - 1));
  return Math.round(Math.min(schedule.maxMs, step * (low + (high - low) * random())));
}
