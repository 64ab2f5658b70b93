/**
 * Approval rules as stored: the evaluation itself is shared with the workstation
 * (`src/shared/team/approval-rules.ts`), so both decide alike.
 */
import type { ApprovalRule } from '../shared/team/schemas';

export { approvalRequired } from '../shared/team/approval-rules';

export function ruleFromRow(r: {
  kind: string;
  rfi_type: string | null;
  above: string | null;
}): ApprovalRule {
  if (r.kind === 'rfi_answer') return { kind: 'rfi_answer', rfiType: r.rfi_type };
  return { kind: r.kind as 'return' | 'exchange', above: r.above ?? '0' };
}
