/** The Activity screen's filters: kind (returns, exchange, webhook), outcome and a date range. */

import type { AuditEntryView } from '../../../../shared/ipc/channels/audit';
import { activityKindOf } from '../../../../shared/activity';
import type { ActivityKind } from '../../../../shared/activity';

export interface ActivityFilter {
  kind: ActivityKind | 'all';
  outcome: AuditEntryView['outcome'] | 'all';
  /** Local calendar days, 'YYYY-MM-DD', inclusive; '' for open. */
  from: string;
  to: string;
}

export const noFilter: ActivityFilter = { kind: 'all', outcome: 'all', from: '', to: '' };

/** Start of a local calendar day in ms ('' → null). */
function dayStart(day: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return null;
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])).getTime();
}

export function filterActivity(entries: readonly AuditEntryView[], f: ActivityFilter): AuditEntryView[] {
  const from = dayStart(f.from);
  const toStart = dayStart(f.to);
  const to = toStart === null ? null : toStart + 24 * 3600_000;
  return entries.filter((e) => {
    if (f.kind !== 'all' && activityKindOf(e.operation) !== f.kind) return false;
    if (f.outcome !== 'all' && e.outcome !== f.outcome) return false;
    const at = Date.parse(e.at);
    if (from !== null && at < from) return false;
    if (to !== null && at >= to) return false;
    return true;
  });
}
