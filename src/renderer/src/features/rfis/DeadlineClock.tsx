import type { DeadlineBand } from '../../../../shared/rfi-view';
import { deadlineBand } from '../../../../shared/rfi-view';
import { BAND_ICONS, bandLabel, formatLeft, formatTime } from './format';

/**
 * The RFI deadline (updated_at + 30 days of the earliest non-final question, from the shared
 * rules): band in words and an icon (never colour alone) and the time left.
 */
export function DeadlineClock({ deadline, now }: { deadline: string | null; now: number }) {
  const band: DeadlineBand = deadlineBand(deadline, now);
  const left = formatLeft(deadline, now);
  return (
    <span
      className={`deadline deadline--${band}`}
      data-band={band}
      title={deadline ? `Deadline ${formatTime(deadline)}` : undefined}
    >
      <span aria-hidden="true" className="deadline__icon">
        {BAND_ICONS[band]}
      </span>{' '}
      <span className="deadline__band">{bandLabel(band)}</span>
      {deadline && <span className="deadline__left"> · {left}</span>}
    </span>
  );
}
