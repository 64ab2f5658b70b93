export interface ProgressBarProps {
  /** Done so far (any unit, e.g. bytes). */
  value: number;
  /** The whole (same unit); 0 shows an indeterminate bar. */
  max: number;
  /** What progresses, for assistive technology (e.g. "Upload of invoice.pdf"). */
  label: string;
  'data-testid'?: string;
}

/**
 * A progress bar with its percentage also in text (never the bar alone): role=progressbar with
 * aria-valuenow in percent.
 */
export function ProgressBar({ value, max, label, ...rest }: ProgressBarProps) {
  const known = max > 0 && Number.isFinite(value);
  const pct = known ? Math.max(0, Math.min(100, Math.floor((value / max) * 100))) : null;
  return (
    <div className="progress" data-testid={rest['data-testid']}>
      <div
        className="progress__track"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        {...(pct !== null ? { 'aria-valuenow': pct } : {})}
      >
        <div className="progress__fill" style={{ width: `${pct ?? 100}%` }} />
      </div>
      <span className="progress__text">{pct !== null ? `${pct}%` : 'working…'}</span>
    </div>
  );
}
