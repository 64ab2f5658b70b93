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
 * analyst's locale and time zone as the title and in the <time> element's dateTime. Given `now`,
 * it renders against that clock alone; otherwise it follows the shared 30 s clock.
 */
export function RelativeTime(props: RelativeTimeProps) {
  return props.now === undefined ? <LiveRelativeTime {...props} /> : <TimeAt {...props} now={props.now} />;
}

/** Subscribes to the shared clock (one interval for every live time on screen). */
function LiveRelativeTime(props: RelativeTimeProps) {
  const tick = useNow();
  return <TimeAt {...props} now={tick} />;
}

/** A pure rendering against a given now: table rows pass the screen's clock and subscribe to nothing. */
function TimeAt({ value, now, fallback = '—', prefix, className }: RelativeTimeProps & { now: number }) {
  const d = describeDate(value, now);
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
