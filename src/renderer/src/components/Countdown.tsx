import { useEffect, useState } from 'react';

export interface CountdownProps {
  /** The deadline: ms since the epoch or an ISO 8601 time, in the reference (e.g. server) clock. */
  deadline: number | string;
  /**
   * Reference clock − this window's clock, in ms (e.g. server time − Date.now() when the server's
   * time was last learned). 0 counts down in local time.
   */
  offsetMs: number;
  /** Below this the countdown turns urgent (text and style). Default 10 s. */
  urgentBelowMs?: number;
  /** What is counting down, for assistive technology (e.g. "Quote valid for"). */
  label: string;
  /** How often to update (ms). Default 250. */
  intervalMs?: number;
  'data-testid'?: string;
}

/** Remaining ms before the deadline in the reference clock. */
export function remainingMs(deadline: number | string, offsetMs: number, localNow = Date.now()): number {
  const d = typeof deadline === 'number' ? deadline : Date.parse(deadline);
  return d - (localNow + offsetMs);
}

/** m:ss of a non-negative whole number of seconds. */
export function formatSeconds(totalSeconds: number): string {
  const s = Math.max(0, totalSeconds);
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * A live countdown to a deadline in another clock (the bank's): "0:27 left", "Urgent: 0:08 left"
 * in its last seconds, "Expired" after. Urgency is said in words and by style, never by colour
 * alone. `data-remaining-seconds` carries the whole seconds left (rounded up) for tests and tools.
 */
export function Countdown({
  deadline,
  offsetMs,
  urgentBelowMs = 10_000,
  label,
  intervalMs = 250,
  ...rest
}: CountdownProps) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(t);
  }, [intervalMs]);

  const left = remainingMs(deadline, offsetMs, now);
  if (!Number.isFinite(left)) {
    return (
      <span className="countdown countdown--unknown" data-testid={rest['data-testid']} data-state="unknown">
        {label}: unknown deadline
      </span>
    );
  }
  const seconds = Math.max(0, Math.ceil(left / 1000));
  const state = left <= 0 ? 'expired' : left <= urgentBelowMs ? 'urgent' : 'running';
  const text =
    state === 'expired'
      ? 'Expired'
      : state === 'urgent'
        ? `Urgent: ${formatSeconds(seconds)} left`
        : `${formatSeconds(seconds)} left`;
  return (
    <span
      role="timer"
      aria-label={`${label}: ${text}`}
      className={`countdown countdown--${state}`}
      data-testid={rest['data-testid']}
      data-state={state}
      data-remaining-seconds={seconds}
    >
      {state === 'urgent' && (
        <span className="countdown__icon" aria-hidden="true">
          ⚠{' '}
        </span>
      )}
      {text}
    </span>
  );
}
