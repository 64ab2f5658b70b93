import { describe, expect, it } from 'vitest';
import {
  bandBars,
  lastWeeks,
  weekStart,
  weeklyRfis,
  weeklyVolume,
  usd,
} from '../../src/renderer/src/features/overview/chart-data';

describe('overview chart data', () => {
  const now = new Date(2026, 10, 23, 15, 0).getTime(); // a Monday afternoon
  it('bands: awaiting action and the rest, stacked per band', () => {
    expect(
      bandBars(
        { on_track: 5, at_risk: 3, breached: 2, none: 4 },
        { on_track: 2, at_risk: 3, breached: 1, none: 0 },
      ),
    ).toEqual([
      { band: 'breached', awaiting: 1, other: 1 },
      { band: 'at_risk', awaiting: 3, other: 0 },
      { band: 'on_track', awaiting: 2, other: 3 },
      { band: 'none', awaiting: 0, other: 4 },
    ]);
  });

  it('12 weeks starting on Mondays; opened by creation, answered by last change', () => {
    const weeks = lastWeeks(now);
    expect(weeks).toHaveLength(12);
    expect(new Date(weeks[11]!).getDay()).toBe(1);
    expect(weeks[11]).toBe(weekStart(now));
    const iso = (d: Date) => d.toISOString();
    const bars = weeklyRfis(
      [
        {
          createdAt: iso(new Date(2026, 10, 23, 9)),
          updatedAt: iso(new Date(2026, 10, 23, 9)),
          status: 'action_required',
        },
        {
          createdAt: iso(new Date(2026, 10, 10)),
          updatedAt: iso(new Date(2026, 10, 22)),
          status: 'pending_review',
        },
        { createdAt: iso(new Date(2025, 0, 1)), updatedAt: iso(new Date(2025, 0, 2)), status: 'closed' },
      ],
      now,
    );
    expect(bars[11]).toMatchObject({ opened: 1, answered: 0 });
    expect(bars[10]).toMatchObject({ opened: 0, answered: 1 }); // Sunday 22nd is last week
    expect(bars[9]).toMatchObject({ opened: 1 });
    expect(bars.reduce((n, b) => n + b.opened, 0)).toBe(2);
  });

  it('volume: USD sums exact in minor units, refused and cancelled returns and unsettled orders left out', () => {
    const at = new Date(2026, 10, 23, 10).toISOString();
    const v = weeklyVolume(
      [
        { amount: '1250000', currency: 'USD', createdAt: at, phase: 'completed' },
        { amount: '1', currency: 'USD', createdAt: at, phase: 'created' },
        { amount: '999', currency: 'USD', createdAt: at, phase: 'refused' },
        { amount: '500', currency: 'EUR', createdAt: at, phase: 'completed' },
      ],
      [
        { usdAmount: '9007199254740993', at, status: 'completed' },
        { usdAmount: '2503', at, status: 'failed' },
      ],
      now,
    );
    expect(v[11]!.returnsMinor).toBe(1250001n);
    expect(usd(v[11]!.returnsMinor)).toBe('12,500.01 USD');
    expect(v[11]!.exchangeMinor).toBe(9007199254740993n);
    expect(usd(v[11]!.exchangeMinor)).toBe('90,071,992,547,409.93 USD');
    expect(v[11]!.returns).toBeCloseTo(12500.01);
  });
});
