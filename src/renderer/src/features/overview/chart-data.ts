/**
 * The overview charts' data, computed from what main hands out (pure, tested): RFIs per deadline
 * band split by awaiting action or not, RFIs opened and answered per week, and the USD volume of
 * returns and exchange orders per week. Money is summed in bigint minor units; only the bar's
 * height becomes a number (the labels are formatted from the bigint).
 */

import type { DeadlineBand } from '../../../../shared/rfi-view';
import { formatMinor, isMinorUnits, parseMinor } from '../../../../shared/money';

export const CHART_BANDS: readonly DeadlineBand[] = ['breached', 'at_risk', 'on_track', 'none'];

export interface BandBar {
  band: DeadlineBand;
  awaiting: number;
  other: number;
}

export function bandBars(
  byBand: Record<DeadlineBand, number>,
  awaiting: Record<DeadlineBand, number>,
): BandBar[] {
  return CHART_BANDS.map((band) => ({
    band,
    awaiting: awaiting[band],
    other: Math.max(0, byBand[band] - awaiting[band]),
  }));
}

/** Monday 00:00 (local) of the week holding `ms`. */
export function weekStart(ms: number): number {
  const d = new Date(ms);
  d.setHours(0, 0, 0, 0);
  const dow = (d.getDay() + 6) % 7; // Monday = 0
  d.setDate(d.getDate() - dow);
  return d.getTime();
}

/** The starts of the last `n` weeks, oldest first, the current week last. */
export function lastWeeks(nowMs: number, n = 12): number[] {
  const current = weekStart(nowMs);
  const out: number[] = [];
  for (let i = n - 1; i >= 0; i--) {
    const d = new Date(current);
    d.setDate(d.getDate() - 7 * i);
    out.push(d.getTime());
  }
  return out;
}

function isoDay(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

export interface WeekBar {
  /** Monday of the week, 'YYYY-MM-DD' (local). */
  week: string;
  label: string;
  opened: number;
  answered: number;
}

/**
 * Opened = created that week; answered = no longer awaiting action, counted in the week of its last
 * change (the cache keeps no history of when the answer went in).
 */
export function weeklyRfis(
  rfis: ReadonlyArray<{ createdAt: string; updatedAt: string; status: string }>,
  nowMs: number,
  weeks = 12,
): WeekBar[] {
  const starts = lastWeeks(nowMs, weeks);
  const index = new Map(starts.map((s, i) => [s, i]));
  const bars: WeekBar[] = starts.map((s) => ({
    week: isoDay(s),
    label: new Date(s).toLocaleDateString(undefined, { day: 'numeric', month: 'short' }),
    opened: 0,
    answered: 0,
  }));
  for (const r of rfis) {
    const c = index.get(weekStart(Date.parse(r.createdAt)));
    if (c !== undefined) bars[c]!.opened++;
    if (r.status !== 'action_required') {
      const a = index.get(weekStart(Date.parse(r.updatedAt)));
      if (a !== undefined) bars[a]!.answered++;
    }
  }
  return bars;
}

export interface VolumeBar {
  week: string;
  label: string;
  /** USD minor units, exact. */
  returnsMinor: bigint;
  exchangeMinor: bigint;
  /** Bar heights in USD (display geometry only). */
  returns: number;
  exchange: number;
}

/** USD minor units as a number of dollars, for a bar's height only. */
function heightOf(minor: bigint): number {
  return Number(minor / 100n) + Number(minor % 100n) / 100;
}

export function weeklyVolume(
  returns: ReadonlyArray<{ amount: string; currency: string; createdAt: string; phase: string }>,
  orders: ReadonlyArray<{ usdAmount: string | null; at: string; status: string }>,
  nowMs: number,
  weeks = 12,
): VolumeBar[] {
  const starts = lastWeeks(nowMs, weeks);
  const index = new Map(starts.map((s, i) => [s, i]));
  const sums = starts.map(() => ({ r: 0n, x: 0n }));
  for (const e of returns) {
    if (e.currency !== 'USD' || e.phase === 'refused' || e.phase === 'cancelled' || !isMinorUnits(e.amount))
      continue;
    const i = index.get(weekStart(Date.parse(e.createdAt)));
    if (i !== undefined) sums[i]!.r += parseMinor(e.amount);
  }
  for (const o of orders) {
    if (o.status !== 'completed' || !o.usdAmount || !isMinorUnits(o.usdAmount)) continue;
    const i = index.get(weekStart(Date.parse(o.at)));
    if (i !== undefined) sums[i]!.x += parseMinor(o.usdAmount);
  }
  return starts.map((s, i) => ({
    week: isoDay(s),
    label: new Date(s).toLocaleDateString(undefined, { day: 'numeric', month: 'short' }),
    returnsMinor: sums[i]!.r,
    exchangeMinor: sums[i]!.x,
    returns: heightOf(sums[i]!.r),
    exchange: heightOf(sums[i]!.x),
  }));
}

export const usd = (minor: bigint): string => formatMinor(minor, 'USD');
