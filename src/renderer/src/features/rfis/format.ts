import type { DeadlineBand } from '../../../../shared/rfi-view';
import { BAND_LABELS } from '../../../../shared/rfi-view';

export { formatBytes } from '../../../../shared/words';

/** "3 d 4 h left", "5 h 2 min left", "overdue by 2 d". */
export function formatLeft(deadline: string | null, now: number): string {
  if (!deadline) return 'no running deadline';
  const t = Date.parse(deadline);
  if (Number.isNaN(t)) return 'unknown deadline';
  const ms = t - now;
  const abs = Math.abs(ms);
  const d = Math.floor(abs / 86_400_000);
  const h = Math.floor((abs % 86_400_000) / 3_600_000);
  const m = Math.floor((abs % 3_600_000) / 60_000);
  const span = d > 0 ? `${d} d ${h} h` : h > 0 ? `${h} h ${m} min` : `${m} min`;
  return ms > 0 ? `${span} left` : `overdue by ${span}`;
}

export function bandLabel(band: DeadlineBand): string {
  return BAND_LABELS[band];
}
