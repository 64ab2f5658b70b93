/**
 * Deadline reminders and their snoozes, as rules every process shares (pure, no clock of its own:
 * "now" is always a parameter, and main passes the owning entity's bank time).
 *
 * A reminder fires when an RFI awaiting action comes within a threshold of its timeout. A snooze
 * holds an RFI's reminders back until an instant; it never runs past the last reminder (the
 * tightest threshold), so nobody snoozes an RFI into its timeout without being told once more.
 */

export const HOUR_MS = 3_600_000;

/** Hours before the timeout: at risk (7 days), then 48 h and 24 h. */
export const DEFAULT_REMINDER_HOURS: readonly number[] = [168, 48, 24];
/** Thresholds the analyst may set: 1 hour to 29 days (an RFI times out 30 days after its update). */
export const MIN_REMINDER_HOURS = 1;
export const MAX_REMINDER_HOURS = 29 * 24;
export const MAX_REMINDER_THRESHOLDS = 5;
/** The "due soon" horizon when reminders are off. */
export const DEFAULT_DUE_SOON_HOURS = 168;

/** "7 days", "48 hours", "1 hour": days only for whole days of 3 or more (48 h stays 48 hours). */
export function thresholdLabel(hours: number): string {
  if (hours % 24 === 0 && hours >= 72) return `${hours / 24} days`;
  return hours === 1 ? '1 hour' : `${hours} hours`;
}

/** Distinct thresholds, largest first. */
export function sortedThresholds(hours: readonly number[]): number[] {
  return [...new Set(hours)].sort((a, b) => b - a);
}

/** What the analyst picks in "Snooze reminders". */
export const SNOOZE_CHOICES = ['1d', '3d', '7d', 'last'] as const;
export type SnoozeChoice = (typeof SNOOZE_CHOICES)[number];

export const SNOOZE_CHOICE_LABELS: Record<SnoozeChoice, string> = {
  '1d': '1 day',
  '3d': '3 days',
  '7d': '7 days',
  last: 'Until the last reminder',
};

const SNOOZE_MS: Record<Exclude<SnoozeChoice, 'last'>, number> = {
  '1d': 24 * HOUR_MS,
  '3d': 72 * HOUR_MS,
  '7d': 168 * HOUR_MS,
};

/** The last reminder of a deadline: the tightest threshold's instant (ms). */
export function lastReminderAt(deadlineMs: number, hours: readonly number[]): number {
  const tightest = Math.min(...hours);
  return deadlineMs - tightest * HOUR_MS;
}

export type SnoozePlan =
  { ok: true; until: number; capped: boolean } | { ok: false; reason: 'no_deadline' | 'nothing_left' };

/**
 * Until when a snooze chosen now holds the reminders back: now + the duration, but never past the
 * last reminder (then `capped`). Refused when the RFI has no running deadline, or when its last
 * reminder is already due (a snooze would hold back nothing but the timeout).
 */
export function planSnooze(
  choice: SnoozeChoice,
  now: number,
  deadlineMs: number | null,
  hours: readonly number[],
): SnoozePlan {
  if (deadlineMs === null || !Number.isFinite(deadlineMs)) return { ok: false, reason: 'no_deadline' };
  const cap = lastReminderAt(deadlineMs, hours.length > 0 ? hours : DEFAULT_REMINDER_HOURS);
  if (cap <= now) return { ok: false, reason: 'nothing_left' };
  if (choice === 'last') return { ok: true, until: cap, capped: false };
  const wanted = now + SNOOZE_MS[choice];
  return wanted > cap ? { ok: true, until: cap, capped: true } : { ok: true, until: wanted, capped: false };
}

/**
 * When a stored snooze really ends under today's thresholds: its instant, or the last reminder
 * when the thresholds moved it earlier.
 */
export function snoozeEnd(until: number, deadlineMs: number, hours: readonly number[]): number {
  return hours.length > 0 ? Math.min(until, lastReminderAt(deadlineMs, hours)) : until;
}
