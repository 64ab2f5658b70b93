/**
 * RFI rules of spec 3.3, pure: final statuses, the RFI status derived from its questions, the
 * allowed question transitions and deadlines. Unknown statuses are tolerated (treated as
 * non-final, not waiting for the customer).
 */

export const FINAL_STATUSES = ['approved', 'rejected', 'closed', 'timeout'] as const;
/** The statuses a question must have before an explicit RFI action is allowed. */
export const DECIDED_STATUSES = ['approved', 'rejected', 'closed'] as const;
export type QuestionAction = 'approve' | 'reject' | 'close';

export const TIMEOUT_MS = 30 * 24 * 60 * 60 * 1000;

export function isFinal(status: string): boolean {
  return (FINAL_STATUSES as readonly string[]).includes(status);
}

export function isDecided(status: string): boolean {
  return (DECIDED_STATUSES as readonly string[]).includes(status);
}

export type QuestionTrigger =
  | { kind: 'customer_response' }
  | { kind: 'staff_response' }
  | { kind: 'staff_action'; action: QuestionAction }
  | { kind: 'timeout' };

const ACTION_STATUS: Record<QuestionAction, 'approved' | 'rejected' | 'closed'> = {
  approve: 'approved',
  reject: 'rejected',
  close: 'closed',
};

export function actionStatus(action: QuestionAction): 'approved' | 'rejected' | 'closed' {
  return ACTION_STATUS[action];
}

/**
 * The status a question moves to on `trigger`, or null when the transition is not allowed
 * (spec 3.3 question transitions).
 */
export function nextQuestionStatus(from: string, trigger: QuestionTrigger): string | null {
  switch (trigger.kind) {
    case 'customer_response':
      return from === 'action_required' ? 'pending_review' : null;
    case 'staff_response':
      return from === 'pending_review' ? 'action_required' : null;
    case 'staff_action':
      return from === 'pending_review' ? ACTION_STATUS[trigger.action] : null;
    case 'timeout':
      return isFinal(from) ? null : 'timeout';
  }
}

/**
 * The RFI status from its questions (spec 3.3). An RFI that already has a final status keeps it
 * (approved/rejected/closed only through an explicit RFI action; timeout when a question timed out).
 */
export function deriveRfiStatus(questionStatuses: readonly string[], current?: string): string {
  if (current !== undefined && isFinal(current)) return current;
  if (questionStatuses.includes('timeout')) return 'timeout';
  if (questionStatuses.includes('action_required')) return 'action_required';
  return 'pending_review';
}

/** Whether an explicit RFI action (approve/reject/close) is allowed: every question decided. */
export function canActOnRfi(rfiStatus: string, questionStatuses: readonly string[]): boolean {
  return !isFinal(rfiStatus) && questionStatuses.length > 0 && questionStatuses.every(isDecided);
}

/** Deadline of a question: 30 days after its last update; null when final. */
export function questionDeadline(q: { status: string; updated_at: string }): Date | null {
  if (isFinal(q.status)) return null;
  const t = Date.parse(q.updated_at);
  return Number.isNaN(t) ? null : new Date(t + TIMEOUT_MS);
}

/** Deadline of an RFI: the earliest deadline among its non-final questions; null if none. */
export function rfiDeadline(rfi: {
  status: string;
  questions: readonly { status: string; updated_at: string }[];
}): Date | null {
  if (isFinal(rfi.status)) return null;
  let best: number | null = null;
  for (const q of rfi.questions) {
    const d = questionDeadline(q);
    if (d && (best === null || d.getTime() < best)) best = d.getTime();
  }
  return best === null ? null : new Date(best);
}
