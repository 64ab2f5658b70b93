import type { ReactElement } from 'react';
import { CircleCheck, CircleMinus, CircleX, TriangleAlert } from 'lucide-react';
import type { DeadlineBand } from '../../../../shared/rfi-view';
import { deadlineBand } from '../../../../shared/rfi-view';
import { describeDate } from '../../lib/dates';
import { bandLabel } from './format';

// One element per band, made once: a queue row that re-renders reuses it as it is (React skips an
// unchanged element), instead of building the SVG again for every row on every filter change.
const BAND_ICONS: Record<DeadlineBand, ReactElement> = {
  on_track: <CircleCheck size={14} aria-hidden="true" className="deadline__icon" />,
  at_risk: <TriangleAlert size={14} aria-hidden="true" className="deadline__icon" />,
  breached: <CircleX size={14} aria-hidden="true" className="deadline__icon" />,
  none: <CircleMinus size={14} aria-hidden="true" className="deadline__icon" />,
};

/**
 * The RFI deadline (updated_at + 30 days of the earliest non-final question, from the shared
 * rules): the band in words with an icon (never colour alone) and the time relative to now, on
 * one line; the absolute deadline is the title.
 */
export function DeadlineClock({ deadline, now }: { deadline: string | null; now: number }) {
  const band: DeadlineBand = deadlineBand(deadline, now);
  const d = describeDate(deadline, now);
  return (
    <span
      className={`deadline deadline--${band}`}
      data-band={band}
      title={d ? `Deadline ${d.absolute}` : 'No running deadline'}
    >
      {BAND_ICONS[band]}
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
