import { useEffect, useId, useState } from 'react';
import type { OrderView } from '../../../../shared/ipc/channels/crypto';
import { assetLabel } from '../../../../shared/activity';
import { Countdown, remainingMs } from '../../components/Countdown';
import { StatusBadge } from '../../components/StatusBadge';
import { BackLink, Button, ConfirmDialog, ErrorState, Skeleton } from '../../components/ui';
import { useRouter } from '../../lib/router';
import { RelatedRfis } from '../rfis/RelatedRfis';
import { AmountsSummary, ConfirmRestatement, FinalState, QuoteFacts, Settlement } from './quote-parts';
import type { Crypto } from './quote-parts';
import { QuoteValidity } from './QuoteValidity';
import { FINAL_STATUSES, useCrypto } from './store';
import './exchange.css';

const phaseText: Record<OrderView['phase'], string> = {
  creating: 'Sending the quote request to the bank…',
  not_visible:
    'The bank accepted the quote request. Waiting for it to show the quote (it can take a few seconds)…',
  still_processing:
    'Still processing: the bank has not shown the quote after a minute. Checking continues in the background.',
  visible: '',
  create_failed: 'The bank did not create the quote.',
};

/** Ticks while mounted, so derived values (remaining time) re-render. */
function useTick(ms: number): void {
  const [, set] = useState(0);
  useEffect(() => {
    const t = setInterval(() => set((n) => n + 1), ms);
    return () => clearInterval(t);
  }, [ms]);
}

const backToList = <BackLink href="#/exchange">Back to the exchange list</BackLink>;

/** Why Confirm is not offered now, in words (null: it is). */
function confirmHintOf(o: {
  view: OrderView;
  canTrade: boolean;
  readOnlyReason: string | null | undefined;
  inProgress: boolean;
  leftMs: number;
  tooLate: boolean;
}): string | null {
  if (!o.canTrade) return o.readOnlyReason ?? 'This credential cannot confirm.';
  if (!o.inProgress)
    return o.view.displayStatus === 'expired'
      ? 'The quote has expired; it can no longer be confirmed.'
      : null;
  if (o.leftMs <= 0) return 'The quote has expired by the bank’s clock; it can no longer be confirmed.';
  if (o.tooLate)
    return `Confirm is disabled: less than ${Math.ceil(o.view.safetyMarginMs / 1000)} s (the safety margin) remain on the quote.`;
  return null;
}

/** The countdown and the validity sentence of a quote still in progress. */
function QuoteTimer({
  view,
  c,
  offsetMs,
  leftMs,
}: {
  view: OrderView;
  c: Crypto;
  offsetMs: number;
  leftMs: number;
}) {
  const totalMs = Date.parse(c.quote_valid_until) - Date.parse(c.created_at);
  return (
    <div className="crypto-quote__timer" data-testid="crypto-timer">
      <Countdown
        deadline={c.quote_valid_until}
        offsetMs={offsetMs}
        marginMs={view.safetyMarginMs}
        {...(totalMs > 0 ? { totalMs } : {})}
        label="Quote valid for"
        data-testid="crypto-countdown"
      />
      <QuoteValidity validUntil={c.quote_valid_until} leftMs={leftMs} marginMs={view.safetyMarginMs} />
    </div>
  );
}

function Notices({ view, error }: { view: OrderView; error: string | null }) {
  return (
    <>
      {view.phase !== 'visible' && (
        <p
          role="status"
          className={`notice ${view.phase === 'create_failed' ? 'notice--bad' : 'notice--info'}`}
          data-testid="crypto-phase"
          data-phase={view.phase}
        >
          {phaseText[view.phase]}
        </p>
      )}
      {view.error && (
        <p role="alert" className="notice notice--bad" data-testid="crypto-order-error">
          {view.error.message}
        </p>
      )}
      {error && error !== view.error?.message && (
        <p role="alert" className="notice notice--bad" data-testid="crypto-action-error">
          {error}
        </p>
      )}
    </>
  );
}

function NotLoaded({ orderId, error, titleId }: { orderId: string; error: string | null; titleId: string }) {
  const loadOrder = useCrypto((s) => s.loadOrder);
  return (
    <section className="screen" aria-labelledby={titleId}>
      {backToList}
      <h1 id={titleId}>Exchange order</h1>
      {error ? (
        <ErrorState
          title="This order could not be read"
          action={
            <Button variant="primary" onPress={() => void loadOrder(orderId, true)}>
              Try again
            </Button>
          }
        >
          {error}
        </ErrorState>
      ) : (
        <Skeleton label="Loading the order" lines={4} />
      )}
    </section>
  );
}

export function QuoteView({ orderId }: { orderId: string }) {
  const view = useCrypto((s) => s.orders[orderId]);
  const offsetMs = useCrypto((s) => s.offsetMs);
  const error = useCrypto((s) => s.errors[orderId] ?? null);
  const busy = useCrypto((s) => s.busy[orderId] ?? false);
  const context = useCrypto((s) => s.context);
  const { loadOrder, loadContext, confirm, requote } = useCrypto.getState();
  const navigate = useRouter((s) => s.navigate);
  const id = useId();
  const [asking, setAsking] = useState(false);
  useTick(250);

  const live = !view || !FINAL_STATUSES.has(view.displayStatus);
  // The order acts through the profile it belongs to: its credential says whether it can be confirmed.
  useEffect(() => {
    void loadOrder(orderId, true).then((o) => loadContext(o?.environmentId));
  }, [orderId, loadOrder, loadContext]);
  // While the quote or order can still change, re-read it (this also keeps bank time fresh).
  useEffect(() => {
    if (!live) return;
    const t = setInterval(() => void loadOrder(orderId, true), 1000);
    return () => clearInterval(t);
  }, [orderId, live, loadOrder]);

  const c = view?.crypto ?? null;
  // Measured against the bank's clock (the offset main's answers carry), never this computer's.
  const left = c ? remainingMs(c.quote_valid_until, offsetMs) : NaN;
  const inProgress = view?.displayStatus === 'in_progress';
  const tooLate = !view || !(left > view.safetyMarginMs);
  // The confirm step closes by itself when the margin is reached while it is open.
  const confirmOpen = asking && (busy || (!tooLate && inProgress));

  if (!view) return <NotLoaded orderId={orderId} error={error} titleId={`${id}-title`} />;

  const canTrade = context?.canTrade ?? false;
  const final = FINAL_STATUSES.has(view.displayStatus) || view.displayStatus === 'pending_execution';
  const confirmDisabled = busy || !inProgress || tooLate || !view.confirmable || !canTrade;
  const confirmHint = confirmHintOf({
    view,
    canTrade,
    readOnlyReason: context?.readOnlyReason,
    inProgress,
    leftMs: left,
    tooLate,
  });
  // Past its confirm window, asking again is the way forward: that button leads.
  const requoteLeads = final || (inProgress && tooLate);

  const onRequote = async (): Promise<void> => {
    const next = await requote(orderId);
    if (next) navigate(`/exchange/${next.id}`);
  };

  return (
    <section className="screen crypto-quote" aria-labelledby={`${id}-title`} data-testid="crypto-quote">
      {backToList}
      <h1 id={`${id}-title`}>
        {c ? `${c.side === 'sell' ? 'Sell' : 'Buy'} ${assetLabel(c.base_asset)}` : 'Exchange quote'}{' '}
        <StatusBadge status={view.displayStatus} data-testid="crypto-status" />
      </h1>
      <Notices view={view} error={error} />
      {c && <AmountsSummary c={c} />}
      <FinalState view={view} c={c} />
      {c && inProgress && <QuoteTimer view={view} c={c} offsetMs={offsetMs} leftMs={left} />}

      <div className="actions">
        {!final && (
          <Button
            variant="primary"
            isDisabled={confirmDisabled}
            aria-describedby={confirmHint ? `${id}-confirm-hint` : undefined}
            onPress={() => setAsking(true)}
            data-testid="crypto-confirm"
            isPending={busy}
          >
            Confirm quote…
          </Button>
        )}
        <Button
          variant={requoteLeads && !final ? 'primary' : 'secondary'}
          isDisabled={busy || !canTrade}
          onPress={() => void onRequote()}
          data-testid="crypto-requote"
        >
          {requoteLeads ? 'New quote with the same details' : 'Requote (same details)'}
        </Button>
      </div>
      {confirmHint && !final && (
        <p id={`${id}-confirm-hint`} className="muted" data-testid="crypto-confirm-hint">
          {confirmHint}
        </p>
      )}

      {c && (
        <ConfirmDialog
          isOpen={confirmOpen}
          onOpenChange={setAsking}
          title="Confirm this quote?"
          confirmLabel={`${c.side === 'sell' ? 'Sell' : 'Buy'} now`}
          isPending={busy}
          onConfirm={() => {
            void confirm(orderId).finally(() => setAsking(false));
          }}
        >
          <ConfirmRestatement c={c} />
          <p className="muted">
            This cannot be undone. The bank executes the order at this rate; the quote must still be valid
            when it arrives (
            <Countdown
              deadline={c.quote_valid_until}
              offsetMs={offsetMs}
              marginMs={view.safetyMarginMs}
              label="Quote valid for"
            />
            ).
          </p>
        </ConfirmDialog>
      )}

      {c && <QuoteFacts view={view} c={c} />}
      {c && (c.quote_confirmed_at || view.displayStatus === 'pending_execution') && (
        <Settlement view={view} c={c} titleId={`${id}-settle`} />
      )}
      {view.requoteOf && (
        <p className="muted">
          Requote of <a href={`#/exchange/${view.requoteOf}`}>an earlier quote</a>.
        </p>
      )}
      <p className="muted">
        Idempotency key <code>{view.idempotencyKey ?? '—'}</code>
      </p>
      <RelatedRfis objectIds={[orderId, view.transactionId ?? '']} what="quote" />
    </section>
  );
}
