import { useEffect, useId, useRef } from 'react';
import { describeReasonCode } from '../../../../shared/catalogue';
import type { TransferView } from '../../../../shared/ipc/channels/returns';
import { Money } from '../../components/Money';
import { StatusBadge } from '../../components/StatusBadge';
import { useShallow } from 'zustand/react/shallow';
import { useSubscription } from '../../lib/events';
import { useRouter, useRouteQuery } from '../../lib/router';
import { useSession } from '../session/store';
import { ReturnForm } from './ReturnForm';
import { ReviewPane } from './ReviewPane';
import { returnsSubscription, useReturns } from './store';
import { TransferDetails } from './TransferDetails';
import { RelatedRfis } from '../rfis/RelatedRfis';
import { ConfirmDialog } from '../../components/ui';
import { clockTime } from '../../lib/status-line';

type WithIncoming = TransferView & { incoming: NonNullable<TransferView['incoming']> };

function hasIncoming(v: TransferView): v is WithIncoming {
  return v.incoming !== null;
}

/** #/returns/<transaction id>: the transfer, the return form, processing, review, confirm or cancel. */
export function TransferScreen({ transactionId }: { transactionId: string }) {
  const data = useReturns(
    useShallow((r) => ({
      actionError: r.actionError,
      loading: r.loading,
      lookupError: r.lookupError,
      notice: r.notice,
      phase: r.phase,
      progress: r.progress,
      review: r.review,
      transfer: r.transfer,
    })),
  );
  const { open, askConfirm, backToReview, cancel, confirm, recheck, startForm } = useReturns.getState();
  const s = { ...data, askConfirm, backToReview, cancel, confirm, recheck, startForm };
  const navigate = useRouter((r) => r.navigate);
  const id = useId();

  // The profile the transfer belongs to, when the link says it (an RFI of another entity): every
  // call for it goes through that profile, whatever is the default.
  const profileId = useRouteQuery().get('profile');
  useSubscription(returnsSubscription);
  useEffect(() => {
    void open(transactionId, profileId);
  }, [open, transactionId, profileId]);
  // Re-read when the credential changes (e.g. a switch to the viewer role): what is allowed changes.
  const credentialKey = useSession((x) =>
    x.status?.credential ? `${x.status.credential.legalEntityId}/${x.status.credential.role}` : 'none',
  );
  const seenCredential = useRef(credentialKey);
  useEffect(() => {
    if (seenCredential.current === credentialKey) return;
    seenCredential.current = credentialKey;
    const cur = useReturns.getState();
    if (['idle', 'cancelled', 'form', 'review', 'completed'].includes(cur.phase))
      void open(transactionId, profileId);
  }, [open, transactionId, profileId, credentialKey]);

  const back = (
    <p>
      <a
        href="#/returns"
        onClick={(e) => {
          e.preventDefault();
          navigate('/returns');
        }}
      >
        ← Returns
      </a>
    </p>
  );

  if (s.loading || (!s.transfer && !s.lookupError)) {
    return (
      <section className="screen returns">
        {back}
        <p role="status">Reading transaction {transactionId}…</p>
      </section>
    );
  }
  if (s.lookupError || !s.transfer) {
    return (
      <section className="screen returns">
        {back}
        <h1>Transaction {transactionId}</h1>
        <div className="notice notice--bad" role="alert" data-testid="return-lookup-error">
          {s.lookupError}
        </div>
        <button type="button" onClick={() => void open(transactionId)}>
          Try again
        </button>
      </section>
    );
  }

  const transfer = s.transfer;
  const review = s.review;
  const role = review?.role ?? transfer.role;
  const writeBlocked = role !== 'admin';
  const writeReason = writeBlocked
    ? `The credential in use has the ${role ?? 'unknown'} role: it can read returns but not confirm or cancel them. Switch to an admin credential.`
    : null;
  const currency = review?.incoming?.currency ?? transfer.incoming?.currency ?? '';

  return (
    <section className="screen returns" aria-labelledby={`${id}-h`}>
      {back}
      <h1 id={`${id}-h`}>Return of transaction {transfer.transactionId}</h1>

      {s.notice && (
        <div className="notice notice--ok" role="status" data-testid="return-notice">
          {s.notice}
        </div>
      )}

      {(s.phase === 'idle' || s.phase === 'cancelled' || s.phase === 'form' || s.phase === 'sending') && (
        <>
          <TransferDetails view={transfer} />
          {s.phase === 'form' || s.phase === 'sending' ? (
            hasIncoming(transfer) && <ReturnForm transfer={transfer} />
          ) : (
            <div className="actions">
              <button
                type="button"
                className="primary"
                disabled={!transfer.returnable.ok}
                aria-describedby={transfer.returnable.ok ? undefined : `${id}-why-not`}
                onClick={s.startForm}
                data-testid="return-start"
              >
                Return this transfer…
              </button>
              {!transfer.returnable.ok && (
                <p
                  id={`${id}-why-not`}
                  className="why-not"
                  data-testid="return-why-not"
                  data-code={transfer.returnable.code}
                >
                  {transfer.returnable.reason}
                </p>
              )}
            </div>
          )}
        </>
      )}

      {s.phase === 'processing' && (
        <div className="notice notice--info" role="status" aria-live="polite" data-testid="return-processing">
          <p>
            <strong>Processing.</strong>{' '}
            {s.progress?.state === 'still_processing'
              ? 'The bank is still preparing the return intent. It was created; the app keeps checking.'
              : 'The return intent was created. Waiting for the bank to show it (this can take several seconds)…'}
          </p>
          {s.actionError && (
            <>
              <p role="alert">{s.actionError}</p>
              <button type="button" onClick={() => void s.recheck()}>
                Check again
              </button>
            </>
          )}
        </div>
      )}

      {review &&
        ['review', 'confirm-step', 'confirming', 'cancelling', 'following', 'completed'].includes(
          s.phase,
        ) && (
          <>
            <ReviewPane original={transfer.status === review.status ? review : transfer} review={review} />
            {s.actionError && (
              <div className="notice notice--bad" role="alert" data-testid="return-action-error">
                {s.actionError}
              </div>
            )}
            {(s.phase === 'review' || s.phase === 'confirming' || s.phase === 'cancelling') && (
              <div className="actions">
                <button
                  type="button"
                  className="primary"
                  onClick={s.askConfirm}
                  disabled={writeBlocked || s.phase !== 'review'}
                  aria-describedby={writeReason ? `${id}-write-why` : undefined}
                >
                  {s.phase === 'confirming' ? 'Confirming…' : 'Confirm return…'}
                </button>
                <button
                  type="button"
                  onClick={() => void s.cancel()}
                  disabled={writeBlocked || s.phase !== 'review'}
                  aria-describedby={writeReason ? `${id}-write-why` : undefined}
                >
                  {s.phase === 'cancelling' ? 'Cancelling…' : 'Cancel the intent'}
                </button>
                {writeReason && (
                  <p id={`${id}-write-why`} className="why-not">
                    {writeReason}
                  </p>
                )}
              </div>
            )}
            <ConfirmDialog
              isOpen={s.phase === 'confirm-step'}
              onOpenChange={(open) => {
                if (!open) s.backToReview();
              }}
              title="Confirm the return?"
              confirmLabel="Yes, confirm the return"
              cancelLabel="Back"
              onConfirm={() => void s.confirm()}
            >
              <p className="confirm-restate" data-testid="return-confirm-restate">
                <strong>
                  Return <Money amount={review.returnDetails?.amount} currency={currency} /> to{' '}
                  {review.incoming?.debtorName ?? 'the debtor'}
                </strong>
              </p>
              <p data-testid="return-confirm-step">
                Currency {currency}; reason <strong>{review.returnDetails?.reasonCode}</strong> —{' '}
                {review.returnDetails?.reasonCode ? describeReasonCode(review.returnDetails.reasonCode) : ''}.
                The bank sends the SWIFT return message; this cannot be undone.
              </p>
            </ConfirmDialog>
            {s.phase === 'following' && (
              <p
                className="notice notice--info"
                role="status"
                aria-live="polite"
                data-testid="return-following"
              >
                Return confirmed. The bank is executing it (<StatusBadge status={review.status} />
                ); this screen updates when it completes.
              </p>
            )}
            {s.phase === 'completed' && (
              <p className="outcome outcome--ok" role="status" data-testid="return-completed">
                The return is completed: returned{' '}
                <Money amount={review.returnDetails?.amount} currency={currency} /> to{' '}
                {review.incoming?.debtorName ?? 'the debtor'} ({review.returnDetails?.reasonCode})
                {review.returnDetails?.updatedAt ? ` at ${clockTime(review.returnDetails.updatedAt)}` : ''}.
              </p>
            )}
          </>
        )}

      <RelatedRfis objectIds={[transfer.transactionId]} what="transfer" />
    </section>
  );
}
