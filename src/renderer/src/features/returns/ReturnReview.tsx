import { describeReasonCode, reasonCodeName } from '../../../../shared/catalogue';
import type { TransferView } from '../../../../shared/ipc/channels/returns';
import { Money } from '../../components/Money';
import { StatusBadge } from '../../components/StatusBadge';
import { Button, ConfirmDialog } from '../../components/ui';
import { clockTime } from '../../lib/status-line';
import { ReturnApproval, confirmBlockedBy, useReturnApproval } from '../approvals/ReturnApproval';
import { ReviewPane } from './ReviewPane';
import { useReturns } from './store';

/** The return intent under review: confirm or cancel it, the confirm step, following, completed. */
export function ReturnReview({
  transfer,
  review,
  idBase,
}: {
  transfer: TransferView;
  review: TransferView;
  idBase: string;
}) {
  const phase = useReturns((s) => s.phase);
  const actionError = useReturns((s) => s.actionError);
  const { askConfirm, backToReview, cancel, confirm } = useReturns.getState();
  const role = review.role ?? transfer.role;
  const profileId = review.profileId ?? transfer.profileId;
  // The team's four-eyes rule (nothing in solo use): who may confirm, and why not.
  const approval = useReturnApproval(profileId, review.transactionId, `${review.status}|${phase}`);
  const approvalBlock = confirmBlockedBy(approval);
  const writeBlocked = role !== 'admin';
  const writeReason = writeBlocked
    ? `The credential in use has the ${role ?? 'unknown'} role: it can read returns but not confirm or cancel them. Switch to an admin credential.`
    : null;
  const confirmWhyId = approvalBlock && !writeReason ? `${idBase}-confirm-why` : undefined;
  const currency = review.incoming?.currency ?? transfer.incoming?.currency ?? '';
  const debtor = review.incoming?.debtorName ?? 'the debtor';
  const reason = review.returnDetails?.reasonCode;
  const whyId = writeReason ? `${idBase}-write-why` : undefined;
  return (
    <>
      <ReviewPane original={transfer.status === review.status ? review : transfer} review={review} />
      {actionError && (
        <div className="notice notice--bad" role="alert" data-testid="return-action-error">
          {actionError}
        </div>
      )}
      {profileId && (phase === 'review' || phase === 'confirming' || phase === 'cancelling') && (
        <ReturnApproval
          profileId={profileId}
          transactionId={review.transactionId}
          state={approval}
          onChanged={approval.refresh}
        />
      )}
      {(phase === 'review' || phase === 'confirming' || phase === 'cancelling') && (
        <div className="actions">
          <Button
            variant="primary"
            onPress={askConfirm}
            isDisabled={writeBlocked || approvalBlock !== null || phase !== 'review'}
            aria-describedby={whyId ?? confirmWhyId}
            data-testid="return-confirm"
          >
            {phase === 'confirming' ? 'Confirming…' : 'Confirm return…'}
          </Button>
          <Button
            onPress={() => void cancel()}
            isDisabled={writeBlocked || phase !== 'review'}
            aria-describedby={whyId}
          >
            {phase === 'cancelling' ? 'Cancelling…' : 'Cancel the intent'}
          </Button>
          {writeReason && (
            <p id={whyId} className="why-not">
              {writeReason}
            </p>
          )}
          {confirmWhyId && (
            <p id={confirmWhyId} className="why-not" data-testid="return-confirm-why-not">
              {approvalBlock}
            </p>
          )}
        </div>
      )}
      <ConfirmDialog
        isOpen={phase === 'confirm-step'}
        onOpenChange={(open) => {
          if (!open) backToReview();
        }}
        title="Confirm the return?"
        confirmLabel="Yes, confirm the return"
        cancelLabel="Back"
        onConfirm={() => void confirm()}
      >
        <p className="confirm-restate" data-testid="return-confirm-restate">
          <strong>
            Return <Money amount={review.returnDetails?.amount} currency={currency} /> to {debtor}
          </strong>
        </p>
        <p data-testid="return-confirm-step">
          Currency {currency}; reason: <strong>{reason ? describeReasonCode(reason) : 'none given'}</strong>
          {reason && (
            <>
              {' '}
              <code className="muted" title="ISO reason code">
                {reason}
              </code>
            </>
          )}
          . The bank sends the SWIFT return message; this cannot be undone.
        </p>
      </ConfirmDialog>
      {phase === 'following' && (
        <p className="notice notice--info" role="status" aria-live="polite" data-testid="return-following">
          Return confirmed. The bank is executing it (<StatusBadge status={review.status} />
          ); this screen updates when it completes.
        </p>
      )}
      {phase === 'completed' && (
        <p className="outcome outcome--ok" role="status" data-testid="return-completed">
          The return is completed: returned{' '}
          <Money amount={review.returnDetails?.amount} currency={currency} /> to {debtor}
          {review.returnDetails?.updatedAt ? ` at ${clockTime(review.returnDetails.updatedAt)}` : ''}.
          {/* The reason by its name; its ISO code is in the Return panel above. */}
          {reason ? ` Reason: ${reasonCodeName(reason)}.` : ''}
        </p>
      )}
    </>
  );
}
