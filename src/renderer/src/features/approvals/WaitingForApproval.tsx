import { useMemo } from 'react';
import { rfiTypeWords } from '../../../../shared/words';
import { useSubscription } from '../../lib/events';
import { approvalsSubscription, useApprovals, waitingForMe } from './store';

/**
 * The queue's "Waiting for your approval": answers a colleague asked this analyst (a checker) to
 * approve, each with who asked and a link to the RFI. Nothing when none waits or in solo use.
 */
export function WaitingForApproval() {
  useSubscription(approvalsSubscription);
  // The list itself is selected (a stable reference); the filter runs on it, not in the selector.
  const approvals = useApprovals((s) => s.approvals);
  const waiting = useMemo(() => waitingForMe(approvals), [approvals]);
  if (waiting.length === 0) return null;
  return (
    <section
      className="approvals-waiting"
      aria-labelledby="approvals-waiting-title"
      data-testid="approvals-waiting"
    >
      <h2 id="approvals-waiting-title">Waiting for your approval ({waiting.length})</h2>
      <ul>
        {waiting.map((a) => (
          <li key={`${a.legalEntityId}/${a.questionId}`}>
            <a href={`#/rfis/${encodeURIComponent(a.rfiId)}`}>
              {a.maker.name} asks for approval of an answer to a {rfiTypeWords(a.rfiType).toLowerCase()} RFI
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}
