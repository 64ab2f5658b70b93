import { useCallback, useEffect, useState } from 'react';
import type { ApprovalView } from '../../../../shared/ipc/channels/team-approvals';
import { Button, TextArea } from '../../components/ui';
import { call, errorMessage } from '../../lib/desk';
import { useSubscription } from '../../lib/events';
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
  profileId: string | undefined,
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
    void call('team.answerApproval', { rfiId, questionId, ...(profileId ? { profileId } : {}) })
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
  profileId: string | undefined;
  onDecided(): void;
}) {
  const [reason, setReason] = useState('');
  const [rejecting, setRejecting] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  if (!approval || approval.status === 'cleared') return null;

  const decide = async (decision: 'approve' | 'reject'): Promise<void> => {
    if (!approval.approvalId) return;
    setBusy(true);
    setProblem(null);
    const target = {
      rfiId: approval.rfiId,
      questionId: approval.questionId,
      ...(profileId ? { profileId } : {}),
      approvalId: approval.approvalId,
      contentHash: approval.contentHash,
    };
    try {
      await call(
        'team.decideApproval',
        decision === 'approve'
          ? { ...target, decision: 'approve' }
          : { ...target, decision: 'reject', reason: reason.trim() },
      );
      setRejecting(false);
      setReason('');
      onDecided();
    } catch (err) {
      setProblem(errorMessage(err));
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
      {reviewing && (
        <div className="answer__actions">
          <Button variant="primary" isPending={busy} onPress={() => void decide('approve')}>
            Approve
          </Button>
          {!rejecting ? (
            <Button onPress={() => setRejecting(true)}>Reject…</Button>
          ) : (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                void decide('reject');
              }}
            >
              <TextArea
                label="Why is it rejected?"
                rows={2}
                value={reason}
                onChange={setReason}
                maxLength={2000}
              />
              <Button type="submit" isDisabled={reason.trim() === ''} isPending={busy}>
                Reject with this reason
              </Button>
            </form>
          )}
        </div>
      )}
      {problem && (
        <p role="alert" className="field-error" data-testid="approval-problem">
          {problem}
        </p>
      )}
    </div>
  );
}
