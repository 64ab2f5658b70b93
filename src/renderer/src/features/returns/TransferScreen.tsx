import { useEffect, useId, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { TransferView } from '../../../../shared/ipc/channels/returns';
import { Money } from '../../components/Money';
import { BackLink, Button, CopyableId, Skeleton } from '../../components/ui';
import { useSubscription } from '../../lib/events';
import { useRouteQuery } from '../../lib/router';
import { RelatedRfis } from '../rfis/RelatedRfis';
import { useSession } from '../session/store';
import { ReturnForm } from './ReturnForm';
import { ReturnReview } from './ReturnReview';
import { returnsSubscription, useReturns } from './store';
import { TransferDetails } from './TransferDetails';
import { TransferUnavailable } from './TransferUnavailable';

type WithIncoming = TransferView & { incoming: NonNullable<TransferView['incoming']> };

function hasIncoming(v: TransferView): v is WithIncoming {
  return v.incoming !== null;
}

const back = <BackLink href="#/returns">Back to Returns</BackLink>;
const REVIEW_PHASES = ['review', 'confirm-step', 'confirming', 'cancelling', 'following', 'completed'];

/** The transfer's name: who sent it and how much; the id is secondary (copyable, beside it). */
function TransferTitle({ transfer, titleId }: { transfer: TransferView; titleId: string }) {
  const inc = transfer.incoming;
  return (
    <>
      <h1 id={titleId}>
        {inc ? (
          <>
            Return the transfer from {inc.debtorName || 'an unnamed debtor'},{' '}
            <Money amount={inc.amount} currency={inc.currency} />
          </>
        ) : (
          'Return a transfer'
        )}
      </h1>
      <p className="muted">
        Transaction{' '}
        <span data-testid="transfer-id">
          <CopyableId id={transfer.transactionId} kind="transaction id" />
        </span>
      </p>
    </>
  );
}

/** The transfer and the button that starts its return (or why it cannot be returned). */
function StartReturn({ transfer, idBase }: { transfer: TransferView; idBase: string }) {
  const startForm = useReturns((s) => s.startForm);
  const whyId = `${idBase}-why-not`;
  return (
    <div className="actions">
      <Button
        variant="primary"
        isDisabled={!transfer.returnable.ok}
        aria-describedby={transfer.returnable.ok ? undefined : whyId}
        onPress={startForm}
        data-testid="return-start"
      >
        Return this transfer…
      </Button>
      {!transfer.returnable.ok && (
        <p id={whyId} className="why-not" data-testid="return-why-not" data-code={transfer.returnable.code}>
          {transfer.returnable.reason}
        </p>
      )}
    </div>
  );
}

function Processing() {
  const progress = useReturns((s) => s.progress);
  const actionError = useReturns((s) => s.actionError);
  const recheck = useReturns((s) => s.recheck);
  return (
    <div className="notice notice--info" role="status" aria-live="polite" data-testid="return-processing">
      <p>
        <strong>Processing.</strong>{' '}
        {progress?.state === 'still_processing'
          ? 'The bank is still preparing the return intent. It was created; the app keeps checking.'
          : 'The return intent was created. Waiting for the bank to show it (this can take several seconds)…'}
      </p>
      {actionError && (
        <>
          <p role="alert">{actionError}</p>
          <Button onPress={() => void recheck()}>Check again</Button>
        </>
      )}
    </div>
  );
}

/** Opens the transfer through its profile, and again when the credential changes (what is allowed changes). */
function useOpenTransfer(transactionId: string, profileId: string | null): void {
  const open = useReturns((s) => s.open);
  useSubscription(returnsSubscription);
  useEffect(() => {
    void open(transactionId, profileId);
  }, [open, transactionId, profileId]);
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
}

/** #/returns/<transaction id>: the transfer, the return form, processing, review, confirm or cancel. */
export function TransferScreen({ transactionId }: { transactionId: string }) {
  const s = useReturns(
    useShallow((r) => ({
      loading: r.loading,
      lookupError: r.lookupError,
      notice: r.notice,
      phase: r.phase,
      review: r.review,
      transfer: r.transfer,
    })),
  );
  const id = useId();
  // The profile the transfer belongs to, when the link says it (an RFI of another entity): every
  // call for it goes through that profile, whatever is the default.
  const profileId = useRouteQuery().get('profile');
  useOpenTransfer(transactionId, profileId);

  if (s.loading || (!s.transfer && !s.lookupError)) {
    return (
      <section className="screen returns" aria-busy="true" aria-labelledby={`${id}-h`}>
        {back}
        <h1 id={`${id}-h`}>Return a transfer</h1>
        <Skeleton label="Reading the transfer from the bank" lines={4} />
      </section>
    );
  }
  if (s.lookupError || !s.transfer) {
    return (
      <section className="screen returns" aria-labelledby={`${id}-h`}>
        {back}
        <h1 id={`${id}-h`}>Return a transfer</h1>
        <TransferUnavailable transactionId={transactionId} profileId={profileId} />
      </section>
    );
  }

  const transfer = s.transfer;
  const before = s.phase === 'idle' || s.phase === 'cancelled' || s.phase === 'form' || s.phase === 'sending';
  return (
    <section className="screen returns" aria-labelledby={`${id}-h`}>
      {back}
      <TransferTitle transfer={transfer} titleId={`${id}-h`} />
      {s.notice && (
        <div className="notice notice--ok" role="status" data-testid="return-notice">
          {s.notice}
        </div>
      )}
      {before && (
        <>
          <TransferDetails view={transfer} />
          {s.phase === 'form' || s.phase === 'sending' ? (
            hasIncoming(transfer) && <ReturnForm transfer={transfer} />
          ) : (
            <StartReturn transfer={transfer} idBase={id} />
          )}
        </>
      )}
      {s.phase === 'processing' && <Processing />}
      {s.review && REVIEW_PHASES.includes(s.phase) && (
        <ReturnReview transfer={transfer} review={s.review} idBase={id} />
      )}
      <RelatedRfis objectIds={[transfer.transactionId]} what="transfer" />
    </section>
  );
}
