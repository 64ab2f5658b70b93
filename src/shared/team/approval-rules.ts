/**
 * Which content needs a checker, by the entity's rules: an RFI answer when a rule covers every
 * answer or its RFI type; a return or an exchange when its amount is above a rule's amount
 * (compared as integers of minor units, never floats). Pure: the team server decides with it, and
 * a workstation shows with it whether its send becomes "Ask for approval".
 */
import type { ApprovalContent, ApprovalRule } from './schemas';

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
