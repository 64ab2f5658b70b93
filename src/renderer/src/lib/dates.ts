/**
 * The one way dates are shown: relative to now ("in 5h", "2d ago", in the analyst's locale) with
 * the absolute date and time, in the analyst's time zone, for the hover title. Pure: locale,
 * time zone and now are parameters (the defaults come from the runtime), so tests pin them.
 */

import { absoluteDateFormatter } from '../../../shared/words';

export interface DateFormatOptions {
  /** BCP 47 locale; undefined = the runtime's (the analyst's) locale. */
  locale?: string;
  /** IANA time zone; undefined = the runtime's (the analyst's) zone. */
  timeZone?: string;
}

const relativeCache = new Map<string, Intl.RelativeTimeFormat>();
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function relativeFormatter(locale: string | undefined): Intl.RelativeTimeFormat {
  const key = locale ?? '';
  let f = relativeCache.get(key);
  if (!f) {
    f = new Intl.RelativeTimeFormat(locale, { style: 'narrow', numeric: 'always' });
    relativeCache.set(key, f);
  }
  return f;
}

function absoluteFormatter(o: DateFormatOptions): Intl.DateTimeFormat {
  return absoluteDateFormatter(o);
}

/** Milliseconds since the epoch, or null when the value is not a date. */
export function toEpoch(value: string | number | Date | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const t = typeof value === 'number' ? value : value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isFinite(t) ? t : null;
}

/**
 * "now", "in 3m", "in 5h", "2d ago", "in 3mo", "1y ago" (words from Intl in the given locale).
 * Under 45 s is "now"; minutes under an hour, hours under a day, days under 60 days, then months
 * and years.
 */
export function formatRelative(at: number, now: number, o: DateFormatOptions = {}): string {
  const diff = at - now;
  const abs = Math.abs(diff);
  const sign = diff < 0 ? -1 : 1;
  const f = relativeFormatter(o.locale);
  if (abs < 45 * SECOND)
    return new Intl.RelativeTimeFormat(o.locale, { numeric: 'auto' }).format(0, 'second');
  if (abs < HOUR) return f.format(sign * Math.max(1, Math.round(abs / MINUTE)), 'minute');
  if (abs < DAY) return f.format(sign * Math.max(1, Math.round(abs / HOUR)), 'hour');
  if (abs < 60 * DAY) return f.format(sign * Math.round(abs / DAY), 'day');
  if (abs < 365 * DAY) return f.format(sign * Math.round(abs / (30.44 * DAY)), 'month');
  return f.format(sign * Math.round(abs / (365.25 * DAY)), 'year');
}

const absoluteText = new Map<string, string>();

/** "23 Nov 2026, 15:30:05 UTC": the full date and time in the analyst's zone, for titles. */
export function formatAbsolute(at: number, o: DateFormatOptions = {}): string {
  // Tables show thousands of dates; each distinct one is formatted once.
  const key = `${at}|${o.locale ?? ''}|${o.timeZone ?? ''}`;
  let text = absoluteText.get(key);
  if (text === undefined) {
    text = absoluteFormatter(o).format(at);
    if (absoluteText.size > 50_000) absoluteText.clear();
    absoluteText.set(key, text);
  }
  return text;
}

/** Both forms of one value, or null when it is not a date. */
export function describeDate(
  value: string | number | Date | null | undefined,
  now: number,
  o: DateFormatOptions = {},
): { relative: string; absolute: string; iso: string } | null {
  const t = toEpoch(value);
  if (t === null) return null;
  return {
    relative: formatRelative(t, now, o),
    absolute: formatAbsolute(t, o),
    iso: new Date(t).toISOString(),
  };
}
