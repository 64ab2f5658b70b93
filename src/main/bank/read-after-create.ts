/**
 * Read after create (docs/api-decisions.md): a transaction created by POST answers 404 for a few seconds. We
 * read it at once, then after about 1 s, then with jittered exponential backoff capped at 15 s.
 * After 60 s the state becomes 'still_processing' (the UI says so) and checking continues in the
 * background until the record shows up, the caller aborts, or the give-up time passes. A 404
 * never leads to a second POST: this only ever reads.
 */

import { AppFailure } from '../../shared/ipc/errors';
import { isTransientRead } from '../../shared/failure-policy';
import { backoffDelay } from '../infra/backoff';
import type { Transaction } from '../../shared/api';
import type { BankClient } from './client';
import { abortableSleep } from './client';

export type ProgressState = 'processing' | 'still_processing' | 'visible' | 'failed';

export interface ProgressUpdate {
  transactionId: string;
  state: ProgressState;
  /** Reads made so far. */
  attempts: number;
  elapsedMs: number;
  /** For 'failed': why, in words an analyst can read. */
  message: string | null;
}

export interface ReadAfterCreateTiming {
  firstDelayMs: number;
  maxDelayMs: number;
  stillProcessingAfterMs: number;
  /** Stop checking after this long (the record is reported as failed to appear). */
  giveUpAfterMs: number;
}

export const defaultReadAfterCreateTiming: ReadAfterCreateTiming = {
  firstDelayMs: 1000,
  maxDelayMs: 15_000,
  stillProcessingAfterMs: 60_000,
  giveUpAfterMs: 30 * 60_000,
};

export interface ReadAfterCreateOptions {
  onState?(update: ProgressUpdate): void;
  signal?: AbortSignal;
}

export type ReadAfterCreate = (
  transactionId: string,
  options?: ReadAfterCreateOptions,
) => Promise<Transaction>;

/** Delay before read n (n ≥ 1 is the first retry): ~1 s, then doubling, jittered ±20 %, capped. */
export function readDelay(
  n: number,
  timing: ReadAfterCreateTiming,
  random: () => number = Math.random,
): number {
  return backoffDelay(
    n,
    { baseMs: timing.firstDelayMs, maxMs: timing.maxDelayMs, jitter: [0.8, 1.2] },
    random,
  );
}

export function createReadAfterCreate(deps: {
  bank: BankClient;
  timing?: Partial<ReadAfterCreateTiming>;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Every progress update also goes here (the services forward it as a push event). */
  publish?(update: ProgressUpdate): void;
}): ReadAfterCreate {
  const timing = { ...defaultReadAfterCreateTiming, ...deps.timing };
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? abortableSleep;

  return async (transactionId, options = {}) => {
    const started = now();
    let attempts = 0;
    let state: ProgressState | null = null;
    const report = (next: ProgressState, message: string | null = null): void => {
      if (next === state && next !== 'failed') return;
      state = next;
      const update: ProgressUpdate = {
        transactionId,
        state: next,
        attempts,
        elapsedMs: now() - started,
        message,
      };
      options.onState?.(update);
      deps.publish?.(update);
    };

    for (;;) {
      attempts++;
      try {
        const tx = await deps.bank.getTransaction(
          transactionId,
          options.signal ? { signal: options.signal } : {},
        );
        report('visible');
        return tx;
      } catch (err) {
        if (options.signal?.aborted) throw err;
        // 404 is the visibility window; offline / 5xx (after the client's own retries) are waited out.
        const waitable = err instanceof AppFailure && (err.kind === 'not_found' || isTransientRead(err));
        if (!waitable) {
          report('failed', err instanceof AppFailure ? err.message : 'The transaction could not be read.');
          throw err;
        }
        const elapsed = now() - started;
        if (elapsed >= timing.giveUpAfterMs) {
          const failure = new AppFailure({
            kind: 'not_found',
            message: `The bank has not shown transaction ${transactionId} after ${Math.round(elapsed / 60_000)} minutes. It was created; check it later in the transaction list.`,
          });
          report('failed', failure.message);
          throw failure;
        }
        report(elapsed >= timing.stillProcessingAfterMs ? 'still_processing' : 'processing');
        await sleep(readDelay(attempts, timing), options.signal);
      }
    }
  };
}
