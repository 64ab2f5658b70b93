import { describe, expect, it } from 'vitest';
import { describeDate, formatAbsolute, formatRelative, toEpoch } from '../../src/renderer/src/lib/dates';

const now = Date.parse('2026-11-23T12:00:00Z');
const en = { locale: 'en-US', timeZone: 'UTC' };

describe('relative dates', () => {
  it('says now under 45 seconds, either side', () => {
    expect(formatRelative(now + 10_000, now, en)).toBe('now');
    expect(formatRelative(now - 44_000, now, en)).toBe('now');
  });

  it('picks minutes, hours, days, months and years by distance', () => {
    expect(formatRelative(now + 3 * 60_000, now, en)).toBe('in 3m');
    expect(formatRelative(now + 5 * 3_600_000, now, en)).toBe('in 5h');
    expect(formatRelative(now - 2 * 86_400_000, now, en)).toBe('2d ago');
    expect(formatRelative(now - 45 * 86_400_000, now, en)).toBe('45d ago');
    expect(formatRelative(now + 90 * 86_400_000, now, en)).toBe('in 3mo');
    expect(formatRelative(now - 800 * 86_400_000, now, en)).toBe('2y ago');
  });

  it('never says "in 0" units just past a boundary', () => {
    expect(formatRelative(now + 46_000, now, en)).toBe('in 1m');
    expect(formatRelative(now - 60 * 60_000, now, en)).toBe('1h ago');
  });

  it('speaks the given locale', () => {
    expect(formatRelative(now + 5 * 3_600_000, now, { locale: 'de-DE' })).toBe('in 5 Std.');
  });
});

describe('absolute dates', () => {
  it('shows date, time with seconds and the zone', () => {
    expect(formatAbsolute(Date.parse('2026-11-23T15:30:05Z'), en)).toBe('Nov 23, 2026, 03:30:05 PM UTC');
  });

  it('converts to the analyst time zone', () => {
    const s = formatAbsolute(Date.parse('2026-11-23T15:30:05Z'), {
      locale: 'en-GB',
      timeZone: 'Europe/Berlin',
    });
    expect(s).toBe('23 Nov 2026, 16:30:05 CET');
  });
});

describe('describeDate', () => {
  it('gives both forms and the ISO value', () => {
    expect(describeDate('2026-11-23T17:00:00Z', now, en)).toEqual({
      relative: 'in 5h',
      absolute: 'Nov 23, 2026, 05:00:00 PM UTC',
      iso: '2026-11-23T17:00:00.000Z',
    });
  });

  it('returns null for what is not a date', () => {
    expect(describeDate('soon', now, en)).toBeNull();
    expect(describeDate(null, now, en)).toBeNull();
    expect(toEpoch('')).toBeNull();
  });
});
