/**
 * When a failed bank request runs again inside the call (which failure is which:
 * shared/failure-policy): how many attempts, how long between them, and which request may repeat.
 */

import type { AppFailure } from '../../shared/ipc/errors';
import { classifyFailure } from '../../shared/failure-policy';
import { backoffDelay } from '../infra/backoff';

export interface RetryPolicy {
  /** Total attempts for retryable failures (network, 5xx, 409 on idempotent POSTs). */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** 429: attempts, and the longest Retry-After we wait for inside a call. */
  rateLimitAttempts: number;
  maxRetryAfterMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  attempts: 4,
  baseDelayMs: 300,
  maxDelayMs: 5000,
  rateLimitAttempts: 4,
  maxRetryAfterMs: 30_000,
};

export type RetryMode = 'safe' | 'idempotent' | 'none';

/** The wait before retry `attempt` (jittered, capped). */
export function backoff(attempt: number, policy: RetryPolicy): number {
  return backoffDelay(attempt, { baseMs: policy.baseDelayMs, maxMs: policy.maxDelayMs });
}

/** Answers that say "not now" (5xx of an overloaded or restarting bank) or "still in flight" (409). */
export const retryableStatus = new Set([409, 500, 502, 503, 504]);

/**
 * Whether a failed attempt may run again inside the call: a read when waiting may help; a keyed
 * write unless refused (the same key makes a repeat safe); an unkeyed write only when nothing
 * happened.
 */
export function mayRetry(mode: RetryMode, failure: AppFailure): boolean {
  if (mode === 'safe') return classifyFailure(failure, 'read') === 'transient';
  const cls = classifyFailure(failure, 'write');
  return mode === 'idempotent' ? cls !== 'refused' : cls === 'transient';
}
