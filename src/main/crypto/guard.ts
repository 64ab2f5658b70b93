/**
 * The confirm guard: main refuses to send PUT /v1/crypto/order unless the confirm surely reaches
 * the bank before quote_valid_until, whatever the UI shows.
 *
 * Server time is estimated from the bank's Date headers (src/main/bank/clock.ts): the true server time
 * lies within `now() ± uncertaintyMs`. A confirm is allowed only when
 *
 *   validUntil − (serverNow + uncertainty) > margin + roundTrip
 *
 * i.e. even the latest possible true server time, plus a whole measured round trip and a fixed
 * safety margin, is still before the expiry. Without any clock sample (uncertainty infinite) it
 * refuses. Everything is injected: this module reads no clock of its own.
 */

export const DEFAULT_CONFIRM_MARGIN_MS = 2000;

export interface GuardInput {
  /** quote_valid_until in ms since the epoch (server time). */
  validUntilMs: number;
  /** Estimated server time now (ms). */
  serverNowMs: number;
  /** Half-width of the server-time estimate (ms); Infinity when unknown. */
  uncertaintyMs: number;
  /** The measured round trip to the bank (ms). */
  roundTripMs: number;
  /** Fixed safety margin (ms). */
  marginMs: number;
}

export type GuardDecision =
  | { allowed: true; remainingMs: number; requiredMs: number }
  | { allowed: false; remainingMs: number; requiredMs: number; reason: 'EXPIRED' | 'TOO_CLOSE' | 'NO_CLOCK' };

/** The remaining time a confirm needs: margin + round trip + clock uncertainty. */
export function requiredHeadroomMs(input: Omit<GuardInput, 'validUntilMs' | 'serverNowMs'>): number {
  const rtt = Number.isFinite(input.roundTripMs) && input.roundTripMs > 0 ? input.roundTripMs : 0;
  return Math.max(0, input.marginMs) + rtt + Math.max(0, input.uncertaintyMs);
}

/** Pure: may a confirm be sent now? */
export function decideConfirm(input: GuardInput): GuardDecision {
  const remainingMs = input.validUntilMs - input.serverNowMs;
  const requiredMs = requiredHeadroomMs(input);
  if (!Number.isFinite(input.validUntilMs) || !Number.isFinite(input.serverNowMs)) {
    return { allowed: false, remainingMs: NaN, requiredMs, reason: 'NO_CLOCK' };
  }
  if (!Number.isFinite(input.uncertaintyMs)) {
    return { allowed: false, remainingMs, requiredMs, reason: 'NO_CLOCK' };
  }
  if (remainingMs <= 0) return { allowed: false, remainingMs, requiredMs, reason: 'EXPIRED' };
  if (remainingMs <= requiredMs) return { allowed: false, remainingMs, requiredMs, reason: 'TOO_CLOSE' };
  return { allowed: true, remainingMs, requiredMs };
}

export interface GuardClock {
  /** Estimated server time (ms). */
  now(): number;
  readonly uncertaintyMs: number;
}

export interface GuardedConfirmDeps<T> {
  /** Local monotonic-enough clock to time the re-read. */
  localNow(): number;
  clock: GuardClock;
  marginMs: number;
  /** Re-reads the quote (feeds the server clock); answers its status and quote_valid_until (ms). */
  read(): Promise<{ status: string; validUntilMs: number }>;
  /** Sends the confirm. Called at most once, and only when the guard allows it. */
  send(): Promise<T>;
}

export class ConfirmRefused extends Error {
  override name = 'ConfirmRefused';
  constructor(
    readonly reason: 'EXPIRED' | 'TOO_CLOSE' | 'NO_CLOCK' | 'NOT_CONFIRMABLE',
    readonly status: string,
    readonly remainingMs: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Re-read, decide, send: the re-read gives a fresh status, a fresh clock sample and the round
 * trip; the decision is made on the clock right after it, and the send follows immediately.
 */
export async function guardedConfirm<T>(deps: GuardedConfirmDeps<T>): Promise<T> {
  const t0 = deps.localNow();
  const quote = await deps.read();
  const roundTripMs = deps.localNow() - t0;
  if (quote.status !== 'in_progress') {
    throw new ConfirmRefused(
      quote.status === 'expired' ? 'EXPIRED' : 'NOT_CONFIRMABLE',
      quote.status,
      quote.validUntilMs - deps.clock.now(),
      quote.status === 'expired'
        ? 'The quote has expired; it was not confirmed. Request a new quote.'
        : `The quote is ${quote.status}; only a quote in progress can be confirmed.`,
    );
  }
  const decision = decideConfirm({
    validUntilMs: quote.validUntilMs,
    serverNowMs: deps.clock.now(),
    uncertaintyMs: deps.clock.uncertaintyMs,
    roundTripMs,
    marginMs: deps.marginMs,
  });
  if (!decision.allowed) {
    const secs = Math.max(0, Math.floor(decision.remainingMs / 1000));
    const message =
      decision.reason === 'NO_CLOCK'
        ? 'The bank’s time is not known yet, so the quote was not confirmed. Try again.'
        : decision.reason === 'EXPIRED'
          ? 'The quote has expired in bank time; it was not confirmed. Request a new quote.'
          : `Only ${secs} s remain on the quote in bank time, less than the ${Math.ceil(decision.requiredMs / 1000)} s safety margin; it was not confirmed. Request a new quote.`;
    throw new ConfirmRefused(decision.reason, quote.status, decision.remainingMs, message);
  }
  return deps.send();
}
