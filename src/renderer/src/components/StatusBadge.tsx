import { Badge } from './ui/Badge';
import type { BadgeTone } from './ui/Badge';
import { statusWords } from '../../../shared/words';

export type StatusTone = BadgeTone;

export interface StatusBadgeProps {
  /** The status as the bank reports it; unknown values are shown as they are. */
  status: string;
  /** Overrides: status → tone and label. Defaults cover the common transaction statuses. */
  tones?: Record<string, StatusTone>;
  labels?: Record<string, string>;
  'data-testid'?: string;
}

const defaultTones: Record<string, StatusTone> = {
  completed: 'ok',
  return_completed: 'ok',
  refund_completed: 'ok',
  approved: 'ok',
  intent_created: 'info',
  in_progress: 'warn',
  pending_execution: 'warn',
  pending_approval: 'warn',
  pending_review: 'info',
  action_required: 'warn',
  partially_completed: 'warn',
  failed: 'bad',
  declined: 'bad',
  rejected: 'bad',
  expired: 'bad',
  timeout: 'bad',
  cancelled: 'neutral',
  closed: 'neutral',
};

/** Words for the status (colour is never the only signal: the text always says it). */
export function statusLabel(status: string, labels?: Record<string, string>): string {
  return labels?.[status] ?? statusWords(status);
}

/** A status shown as a badge with a tone; an unknown status is shown as received, in a neutral tone. */
export function StatusBadge({ status, tones, labels, ...rest }: StatusBadgeProps) {
  const tone = tones?.[status] ?? defaultTones[status] ?? 'neutral';
  return (
    <span className="status-badge" data-status={status} data-tone={tone} data-testid={rest['data-testid']}>
      <Badge tone={tone}>{statusLabel(status, labels)}</Badge>
    </span>
  );
}
