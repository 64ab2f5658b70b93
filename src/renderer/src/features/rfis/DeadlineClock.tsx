import { CircleCheck, CircleMinus, CircleX, TriangleAlert } from 'lucide-react';
import type { LucideIcon } from 'lucide-react';
import type { DeadlineBand } from '../../../../shared/rfi-view';
import { deadlineBand } from '../../../../shared/rfi-view';
import { describeDate } from '../../lib/dates';
import { bandLabel } from './format';

const BAND_ICONS: Record<DeadlineBand, LucideIcon> = {
  on_track: CircleCheck,
  at_risk: TriangleAlert,
  breached: CircleX,
  none: CircleMinus,
};

/**
 * The RFI deadline (updated_at + 30 days of the earliest non-final question, from the shared
 * rules): the band in words with an icon (never colour alone) and the time relative to now, on
 * one line; the absolute deadline is the title.
 */
export function DeadlineClock({ deadline, now }: { deadline: string | null; now: number }) {
  const band: DeadlineBand = deadlineBand(deadline, now);
  const d = describeDate(deadline, now);
  const Icon = BAND_ICONS[band];
  return (
    <span
      className={`deadline deadline--${band}`}
      data-band={band}
      title={d ? `Deadline ${d.absolute}` : 'No running deadline'}
    >
      <Icon size={14} aria-hidden="true" className="deadline__icon" />
      <span className="deadline__band">{bandLabel(band)}</span>
      {d && (
        <time className="deadline__left" dateTime={d.iso}>
          {' · '}
          {d.relative}
        </time>
      )}
    </span>
  );
}
