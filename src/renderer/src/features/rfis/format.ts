import type { DeadlineBand } from '../../../../shared/rfi-view';
import { BAND_LABELS } from '../../../../shared/rfi-view';

// One formatter for the whole app: creating one per call (toLocaleString) costs more than the row.
let formatter: Intl.DateTimeFormat | null = null;
const cache = new Map<string, string>();

/** Short date-time in the analyst's locale (falls back to the raw value when it is not a date). */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const hit = cache.get(iso);
  if (hit !== undefined) return hit;
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  formatter ??= new Intl.DateTimeFormat(undefined, {
    year: 'numeric',
    month: 'short',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  });
  const out = formatter.format(t);
  if (cache.size > 50_000) cache.clear();
  cache.set(iso, out);
  return out;
}

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

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}
