import { plural } from '../../../../shared/words';
import { clockTime } from '../../lib/status-line';

export type ValidityState = 'valid' | 'too-late' | 'expired';

/** "27 seconds", "1 minute 5 seconds": a span of whole seconds in words. */
export function spanWords(ms: number): string {
  const total = Math.max(0, Math.ceil(Math.abs(ms) / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  if (minutes === 0) return plural(seconds, 'second');
  return seconds === 0
    ? plural(minutes, 'minute')
    : `${plural(minutes, 'minute')} ${plural(seconds, 'second')}`;
}

/**
 * A quote's validity in words, measured against the bank's clock (`leftMs`: the bank's
 * valid-until minus the bank's now): how long it stays valid and when confirming closes; inside
 * the safety margin, that it is too late and what to do; past its end, that it expired and what
 * to do. Never "valid until now".
 */
export function quoteValidity(
  validUntil: string,
  leftMs: number,
  marginMs: number,
): { state: ValidityState; text: string } {
  const at = `${clockTime(validUntil)} by the bank’s clock`;
  const margin = spanWords(marginMs);
  if (!Number.isFinite(leftMs)) return { state: 'valid', text: `Valid until ${at}.` };
  if (leftMs <= 0)
    return {
      state: 'expired',
      text: `Expired at ${at}, ${spanWords(leftMs)} ago. It can no longer be confirmed: ask for a new quote with the same details.`,
    };
  if (leftMs <= marginMs)
    return {
      state: 'too-late',
      text: `Too late to confirm: the quote ends at ${at}, in ${spanWords(leftMs)}, and confirming closes ${margin} before its end. Ask for a new quote with the same details.`,
    };
  return {
    state: 'valid',
    text: `Valid until ${at}: ${spanWords(leftMs)} left. Confirming closes ${margin} before the end.`,
  };
}

/** The quote's validity sentence (re-rendered by the screen's own tick). */
export function QuoteValidity({
  validUntil,
  leftMs,
  marginMs,
}: {
  validUntil: string;
  leftMs: number;
  marginMs: number;
}) {
  const v = quoteValidity(validUntil, leftMs, marginMs);
  return (
    <span
      className={v.state === 'valid' ? 'muted' : 'crypto-quote__validity--late'}
      data-testid="crypto-validity"
      data-state={v.state}
    >
      {v.text}
    </span>
  );
}
