import { useCallback, useEffect, useState } from 'react';
import { describeReasonCode } from '../../../../shared/catalogue';
import type { ReturnApprovalView } from '../../../../shared/ipc/channels/team-returns';
import { Money } from '../../components/Money';
import { Button } from '../../components/ui';
import { call, errorMessage } from '../../lib/desk';
import { useSubscription } from '../../lib/events';
import { DecisionButtons, type Decision } from './DecisionButtons';
import { approvalsSubscription, useApprovals } from './store';

export interface ReturnApprovalState {
  /** null: solo use, not a team entity, or the rules are not known. */
  required: boolean | null;
  approval: ReturnApprovalView | null;
  /** The approval covers the intent the bank holds as it is now. */
  covers: boolean;
}

const NONE: ReturnApprovalState = { required: null, approval: null, covers: false };

/**
 * A return intent's approval as main sees it (read through the transfer's own profile), read again
 * when approvals change or the transfer's status does (`statusKey`).
 */
export function useReturnApproval(
  profileId: string | undefined,
  transactionId: string,
  statusKey: string,
): ReturnApprovalState & { refresh(): void } {
  useSubscription(approvalsSubscription);
  const version = useApprovals((s) => s.version);
  const [state, setState] = useState<ReturnApprovalState>(NONE);
  const refresh = useCallback(() => {
    if (!profileId) return;
    void call('team.returnApproval', { profileId, transactionId })
      .then(setState)
      .catch(() => setState(NONE));
  }, [profileId, transactionId]);
  useEffect(refresh, [refresh, version, statusKey]);
  return { ...state, refresh };
}

/** Why the confirm is not this analyst's to make now, in words (null: they may confirm). */
export function confirmBlockedBy(s: ReturnApprovalState): string | null {
  if (s.required !== true) return null;
  const a = s.approval;
  if (!a || a.status === 'cleared' || a.status === 'rejected')
    return 'Your team’s rules want a checker to approve returns of this amount: ask for approval first.';
  if (a.status === 'pending')
    return a.maker.isYou
      ? 'A checker approves this return before it is confirmed.'
      : 'Approve the return (or reject it) before confirming it.';
  if (!s.covers) return 'The intent at the bank is not the one approved: ask for approval again.';
  if (a.maker.isYou)
    return `${a.checker?.name ?? 'A checker'} approved this return; a checker confirms it at the bank with their own credential.`;
  return null;
}

/**
 * The four-eyes part of a return intent under review: its approval in words, Ask for approval for
 * the maker, the exact return (amount, currency, reason) with Approve and Reject… for a checker who
 * did not ask. The server refuses one's own approval, in words shown here.
 */
export function ReturnApproval({
  profileId,
  transactionId,
  state,
  onChanged,
}: {
  profileId: string;
  transactionId: string;
  state: ReturnApprovalState;
  onChanged(): void;
}) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  if (state.required !== true) return null;
  const a = state.approval;
  const run = async (what: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setProblem(null);
    try {
      await what();
      onChanged();
      return true;
    } catch (err) {
      setProblem(errorMessage(err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  const ask = (): Promise<boolean> => run(() => call('team.askReturnApproval', { profileId, transactionId }));
  const decide = (d: Decision): Promise<boolean> =>
    run(() => {
      if (!a?.approvalId) return Promise.resolve();
      const target = { profileId, transactionId, approvalId: a.approvalId, contentHash: a.contentHash };
      return call('team.decideReturnApproval', { ...target, ...d });
    });
  const live = a && (a.status === 'pending' || a.status === 'approved');
  const reviewing = a?.status === 'pending' && a.mayDecide;
  return (
    <div className="answer-approval" data-testid="return-approval-box">
      <p role="status" className="answer-approval__words" data-testid="return-approval">
        {a && a.status !== 'cleared'
          ? a.words
          : 'Your team’s rules want a checker to approve returns of this amount.'}
      </p>
      {reviewing && (
        <div className="answer-approval__content" data-testid="return-approval-content">
          <p className="muted">What {a.maker.name} asks to confirm, exactly:</p>
          <p>
            Return <Money amount={a.amount} currency={a.currency} />; reason:{' '}
            <strong>{describeReasonCode(a.reasonCode)}</strong>.
          </p>
        </div>
      )}
      {reviewing && <DecisionButtons busy={busy} onDecide={decide} />}
      {(!live || !state.covers) && !(a?.status === 'pending') && (
        <div className="answer__actions">
          <Button variant="primary" isPending={busy} onPress={() => void ask()}>
            Ask for approval
          </Button>
        </div>
      )}
      {problem && (
        <p role="alert" className="field-error" data-testid="return-approval-problem">
          {problem}
        </p>
      )}
    </div>
  );
}

/**
 * Returns a colleague asked this analyst (a checker) to approve, each with who asked, how much and
 * a link to the transfer through the profile that reaches its legal entity. Nothing in solo use.
 */
export function ReturnsWaitingForApproval() {
  useSubscription(approvalsSubscription);
  const version = useApprovals((s) => s.version);
  const [waiting, setWaiting] = useState<ReturnApprovalView[]>([]);
  useEffect(() => {
    void call('team.returnApprovals', undefined)
      .then((list) => setWaiting(list.filter((a) => a.mayDecide)))
      .catch(() => setWaiting([]));
  }, [version]);
  if (waiting.length === 0) return null;
  return (
    <section
      className="approvals-waiting panel"
      aria-labelledby="returns-waiting-title"
      data-testid="returns-waiting"
    >
      <h2 id="returns-waiting-title">Returns waiting for your approval ({waiting.length})</h2>
      <ul>
        {waiting.map((a) => (
          <li key={`${a.legalEntityId}/${a.transactionId}`}>
            <a
              href={`#/returns/${encodeURIComponent(a.transactionId)}${a.profileId ? `?profile=${encodeURIComponent(a.profileId)}` : ''}`}
            >
              {a.maker.name} asks for approval of a return of{' '}
              <Money amount={a.amount} currency={a.currency} /> for {a.legalEntityName}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}
