/**
 * Which content needs a checker, by the entity's rules: an RFI answer when a rule covers every
 * answer or its RFI type; a return or an exchange when its amount is above a rule's amount
 * (compared as integers of minor units, never floats).
 */
import type { ApprovalContent, ApprovalRule } from '../shared/team/schemas';

export function approvalRequired(rules: readonly ApprovalRule[], content: ApprovalContent): boolean {
  return rules.some((rule) => {
    if (rule.kind !== content.kind) return false;
    if (rule.kind === 'rfi_answer' && content.kind === 'rfi_answer')
      return rule.rfiType === null || rule.rfiType === content.rfiType;
    if (rule.kind !== 'rfi_answer' && content.kind !== 'rfi_answer')
      return BigInt(content.amount) > BigInt(rule.above);
    return false;
  });
}

export function ruleFromRow(r: {
  kind: string;
  rfi_type: string | null;
  above: string | null;
}): ApprovalRule {
  if (r.kind === 'rfi_answer') return { kind: 'rfi_answer', rfiType: r.rfi_type };
  return { kind: r.kind as 'return' | 'exchange', above: r.above ?? '0' };
}
