import { describe, expect, it } from 'vitest';
import {
  HOUR_MS,
  lastReminderAt,
  planSnooze,
  snoozeEnd,
  sortedThresholds,
  thresholdLabel,
} from '../../src/shared/reminder-rules';

const T0 = Date.UTC(2026, 10, 1);
const hours = [168, 48, 24];

describe('reminder rules', () => {
  it('labels thresholds in days only for whole days of three or more', () => {
    expect([168, 96, 72, 48, 24, 1, 25].map(thresholdLabel)).toEqual([
      '7 days',
      '4 days',
      '3 days',
      '48 hours',
      '24 hours',
      '1 hour',
      '25 hours',
    ]);
    expect(sortedThresholds([24, 168, 48, 24])).toEqual([168, 48, 24]);
  });

  it('a snooze is now + its duration on the given clock, never past the last reminder', () => {
    const deadline = T0 + 5 * 24 * HOUR_MS;
    expect(lastReminderAt(deadline, hours)).toBe(deadline - 24 * HOUR_MS);
    expect(planSnooze('1d', T0, deadline, hours)).toEqual({
      ok: true,
      until: T0 + 24 * HOUR_MS,
      capped: false,
    });
    expect(planSnooze('3d', T0, deadline, hours)).toEqual({
      ok: true,
      until: T0 + 72 * HOUR_MS,
      capped: false,
    });
    // 7 days would run past the timeout: it ends at the last reminder instead, and says so.
    expect(planSnooze('7d', T0, deadline, hours)).toEqual({
      ok: true,
      until: deadline - 24 * HOUR_MS,
      capped: true,
    });
    expect(planSnooze('last', T0, deadline, hours)).toEqual({
      ok: true,
      until: deadline - 24 * HOUR_MS,
      capped: false,
    });
  });

  it('refuses when there is no deadline or the last reminder is already due', () => {
    expect(planSnooze('1d', T0, null, hours)).toEqual({ ok: false, reason: 'no_deadline' });
    expect(planSnooze('1d', T0, T0 + 24 * HOUR_MS, hours)).toEqual({ ok: false, reason: 'nothing_left' });
    expect(planSnooze('last', T0, T0 + 20 * HOUR_MS, hours)).toEqual({ ok: false, reason: 'nothing_left' });
    // With a tighter last reminder there is still room.
    expect(planSnooze('last', T0, T0 + 20 * HOUR_MS, [48, 1])).toEqual({
      ok: true,
      until: T0 + 19 * HOUR_MS,
      capped: false,
    });
  });

  it('a stored snooze ends earlier when new thresholds bring the last reminder forward', () => {
    const deadline = T0 + 10 * 24 * HOUR_MS;
    const until = deadline - 24 * HOUR_MS;
    expect(snoozeEnd(until, deadline, [168, 24])).toBe(until);
    expect(snoozeEnd(until, deadline, [168, 72])).toBe(deadline - 72 * HOUR_MS);
    // A later last reminder never lengthens it.
    expect(snoozeEnd(until, deadline, [168, 1])).toBe(until);
  });
});
