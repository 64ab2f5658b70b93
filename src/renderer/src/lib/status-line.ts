/**
 * The status line's words, derived from ONE source: the session status main pushes
 * (`session.changed`: connection, since-when, next retry, keychain problem) plus whether this
 * computer has a network at all (`navigator.onLine`). Every screen that speaks of the connection
 * reads it from here, so the header and the screens never disagree.
 */

import type { SessionStatus } from '../../../shared/ipc/channels/session';

export type StatusTone = 'ok' | 'warn' | 'bad' | 'pending';

export interface StatusLine {
  tone: StatusTone;
  /** The short state: "Connected", "Bank unreachable", "Signed out"… */
  label: string;
  /** The rest of the sentence: "since 14:02:11 · retrying in 8 s", or what to do. */
  detail: string | null;
  /** The two parts of an outage's detail, for a header that may show only the second. */
  sinceText: string | null;
  retryText: string | null;
  /** Whole seconds until main retries on its own (null when nothing is scheduled). */
  retryInSeconds: number | null;
  /** The time the state began (ISO), for a precise tooltip. */
  since: string | null;
  /** Shown beside the state: the keychain cannot be used. */
  keychainProblem: string | null;
  /** This computer has no network at all (the offline banner). */
  machineOffline: boolean;
  /** The bank answers now: only then may a screen say "up to date". */
  bankReachable: boolean;
}

const timeFormat = (): Intl.DateTimeFormat =>
  new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** "14:02:11" in the analyst's locale and time zone (seconds: a retry schedule is in seconds). */
export function clockTime(iso: string): string {
  return timeFormat().format(new Date(iso));
}

/** Seconds left until `iso` from `nowMs` (whole, at least 0). */
export function secondsUntil(iso: string, nowMs: number): number {
  return Math.max(0, Math.ceil((Date.parse(iso) - nowMs) / 1000));
}

export function statusLine(status: SessionStatus | null, nowMs: number, online: boolean): StatusLine {
  const base = {
    retryInSeconds: null,
    sinceText: null,
    retryText: null,
    since: status?.since ?? null,
    keychainProblem: status?.keychainProblem ?? null,
    machineOffline: !online,
    bankReachable: false,
  };
  if (!status) return { ...base, tone: 'pending', label: 'Connecting…', detail: null };
  switch (status.connection) {
    case 'connected':
      // No network on this computer outweighs the last answer main had: never "Connected" beside
      // the offline banner.
      return online
        ? { ...base, tone: 'ok', label: 'Connected', detail: null, bankReachable: true }
        : { ...base, tone: 'bad', label: 'Offline', detail: 'this computer has no network' };
    case 'offline': {
      const retry = status.retryAt ? secondsUntil(status.retryAt, nowMs) : null;
      const sinceText = status.since ? `since ${clockTime(status.since)}` : null;
      const retryText = retry === null ? null : retry > 0 ? `retrying in ${retry} s` : 'retrying now';
      const parts = [sinceText, retryText].filter((p): p is string => p !== null);
      return {
        ...base,
        tone: 'bad',
        label: online ? 'Bank unreachable' : 'Offline',
        detail: parts.length > 0 ? parts.join(' · ') : null,
        sinceText,
        retryText,
        retryInSeconds: retry,
      };
    }
    case 'no_token':
      return { ...base, tone: 'warn', label: 'Signed out', detail: 'Enter a token in Settings' };
    case 'unauthenticated':
      return {
        ...base,
        tone: 'warn',
        label: 'Signed out',
        detail: 'The bank refused the token: enter a new one in Settings',
      };
    case 'error':
      return { ...base, tone: 'bad', label: 'Bank problem', detail: status.problem };
    default:
      return { ...base, tone: 'bad', label: String(status.connection), detail: status.problem };
  }
}
