import { useCallback, useEffect, useState } from 'react';
import type { ApprovalView } from '../../../../shared/ipc/channels/team-approvals';
import { call, errorMessage } from '../../lib/desk';
import { useSubscription } from '../../lib/events';
import { DecisionButtons, type Decision } from './DecisionButtons';
import { approvalsSubscription, useApprovals } from './store';

export interface AnswerApprovalState {
  /** null: solo use, or the rules are not known. */
  required: boolean | null;
  approval: ApprovalView | null;
  /** The approval covers the saved draft as it is now. */
  covers: boolean;
  /** Why the answer cannot go to the bank now, in words (null: nothing holds it). */
  held: string | null;
}

/**
 * An answer's approval as main sees it, read again when approvals change or the draft was saved
 * (`savedAt`): whether it needs a checker and whether an approval covers the draft.
 */
export function useAnswerApproval(
  rfiId: string,
  questionId: string,
  profileId: string,
  savedAt: string | null,
): AnswerApprovalState & { refresh(): void } {
  useSubscription(approvalsSubscription);
  const version = useApprovals((s) => s.version);
  const [state, setState] = useState<AnswerApprovalState>({
    required: null,
    approval: null,
    covers: false,
    held: null,
  });
  const refresh = useCallback(() => {
    void call('team.answerApproval', { rfiId, questionId, profileId })
      .then(setState)
      .catch(() => setState({ required: null, approval: null, covers: false, held: null }));
  }, [rfiId, questionId, profileId]);
  useEffect(refresh, [refresh, version, savedAt]);
  return { ...state, refresh };
}

/**
 * The approval of one answer, in words: waiting, approved by whom, rejected with the checker's
 * reason. A checker (never the maker) reviews the exact text and documents and approves or rejects
 * it with a reason; the server's refusal is shown as it says it.
 */
export function AnswerApproval({
  approval,
  profileId,
  onDecided,
}: {
  approval: ApprovalView | null;
  profileId: string;
  onDecided(): void;
}) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  if (!approval || approval.status === 'cleared') return null;

  const decide = async (d: Decision): Promise<boolean> => {
    if (!approval.approvalId) return false;
    setBusy(true);
    setProblem(null);
    const target = {
      rfiId: approval.rfiId,
      questionId: approval.questionId,
      profileId,
      approvalId: approval.approvalId,
      contentHash: approval.contentHash,
    };
    try {
      await call('team.decideApproval', { ...target, ...d });
      onDecided();
      return true;
    } catch (err) {
      setProblem(errorMessage(err));
      return false;
    } finally {
      setBusy(false);
    }
  };

  const reviewing = approval.status === 'pending' && !approval.maker.isYou;
  return (
    <div className="answer-approval" data-testid="answer-approval-box">
      <p role="status" className="answer-approval__words" data-testid="answer-approval">
        {approval.words}
      </p>
      {reviewing && (
        <div className="answer-approval__content" data-testid="approval-content">
          <p className="muted">What {approval.maker.name} asks to send, exactly:</p>
          {approval.text !== '' && <blockquote>{approval.text}</blockquote>}
          {approval.documentSha256s.length > 0 && (
            <ul aria-label="Documents by sha256">
              {approval.documentSha256s.map((h) => (
                <li key={h}>
                  Document sha256 <code className="mono">{h}</code>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {reviewing && <DecisionButtons busy={busy} onDecide={decide} />}
      {problem && (
        <p role="alert" className="field-error" data-testid="approval-problem">
          {problem}
        </p>
      )}
    </div>
  );
}
