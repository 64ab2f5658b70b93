import { useEffect, useState } from 'react';
import { TriangleAlert } from 'lucide-react';
import './countdown.css';

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
  /**
   * Inside this the action it guards can no longer be taken (the quote's confirm margin): the ring
   * turns to the "too late" colour and the words say so.
   */
  marginMs?: number;
  /** The whole span (e.g. the quote's lifetime), for the ring's fill; without it, no ring. */
  totalMs?: number;
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

export type CountdownZone = 'ok' | 'warn' | 'margin' | 'expired';

/** The colour zone: ok, warn (urgent), margin (inside the confirm margin), expired. */
export function zoneOf(leftMs: number, urgentBelowMs: number, marginMs: number): CountdownZone {
  if (leftMs <= 0) return 'expired';
  if (leftMs <= marginMs) return 'margin';
  if (leftMs <= urgentBelowMs) return 'warn';
  return 'ok';
}

const RADIUS = 20;
const CIRCUMFERENCE = 2 * Math.PI * RADIUS;

/**
 * A live countdown to a deadline in another clock (the bank's): a ring that empties and changes
 * colour as time runs out (at the urgent point, and again at the confirm margin), with the seconds
 * in words: "0:27 left", "Urgent: 0:08 left", "Too late to confirm: 0:01 left", "Expired".
 * Urgency is said in words and by an icon, never by colour alone. `data-remaining-seconds` carries
 * the whole seconds left (rounded up) and `data-zone` the colour zone, for tests and tools. The
 * ring is SVG drawn with attributes (no inline style, for the CSP).
 */
export function Countdown({
  deadline,
  offsetMs,
  urgentBelowMs = 10_000,
  marginMs = 0,
  totalMs,
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
  const zone = zoneOf(left, urgentBelowMs, marginMs);
  const text =
    state === 'expired'
      ? 'Expired'
      : zone === 'margin'
        ? `Urgent: too late to confirm, ${formatSeconds(seconds)} left`
        : state === 'urgent'
          ? `Urgent: ${formatSeconds(seconds)} left`
          : `${formatSeconds(seconds)} left`;
  const fraction = totalMs && totalMs > 0 ? Math.min(1, Math.max(0, left / totalMs)) : null;
  return (
    <span
      role="timer"
      aria-label={`${label}: ${text}`}
      className={`countdown countdown--${state} countdown--zone-${zone}`}
      data-testid={rest['data-testid']}
      data-state={state}
      data-zone={zone}
      data-remaining-seconds={seconds}
    >
      {fraction !== null && (
        <svg className="countdown__ring" viewBox="0 0 48 48" width="48" height="48" aria-hidden="true">
          <circle className="countdown__track" cx="24" cy="24" r={RADIUS} fill="none" strokeWidth="5" />
          <circle
            className="countdown__arc"
            cx="24"
            cy="24"
            r={RADIUS}
            fill="none"
            strokeWidth="5"
            strokeLinecap="round"
            strokeDasharray={`${CIRCUMFERENCE}`}
            strokeDashoffset={`${CIRCUMFERENCE * (1 - fraction)}`}
            transform="rotate(-90 24 24)"
          />
        </svg>
      )}
      <span className="countdown__text">
        {state !== 'running' && <TriangleAlert size={14} aria-hidden="true" className="countdown__icon" />}
        {text}
      </span>
    </span>
  );
}
