import { describeDate } from '../../lib/dates';
import { useNow } from './clock';
import { cx } from './cx';

export interface RelativeTimeProps {
  /** ISO date-time (or epoch ms); null shows the fallback. */
  value: string | number | null | undefined;
  /** A fixed "now" (tests, or a screen that already ticks); otherwise the shared 30 s clock. */
  now?: number;
  fallback?: string;
  /** Words before the relative time ("Deadline", "Updated"), part of the title too. */
  prefix?: string;
  className?: string;
}

/**
 * The one date display: relative ("in 5h", "2d ago") with the absolute date and time in the
 * analyst's locale and time zone as the title and in the <time> element's dateTime.
 */
export function RelativeTime({ value, now, fallback = '—', prefix, className }: RelativeTimeProps) {
  const tick = useNow();
  const d = describeDate(value, now ?? tick);
  if (!d)
    return (
      <span className={cx('ui-time', className)}>
        {typeof value === 'string' && value ? value : fallback}
      </span>
    );
  return (
    <time
      className={cx('ui-time', className)}
      dateTime={d.iso}
      title={prefix ? `${prefix} ${d.absolute}` : d.absolute}
    >
      {prefix ? `${prefix} ${d.relative}` : d.relative}
    </time>
  );
}
