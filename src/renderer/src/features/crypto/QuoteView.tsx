import { useEffect, useId, useState } from 'react';
import { ArrowRight, CircleCheck, CircleX, Clock } from 'lucide-react';
import type { OrderView } from '../../../../shared/ipc/channels/crypto';
import { assetLabel, assetLongLabel } from '../../../../shared/activity';
import { formatMinor, isMinorUnits, parseMinor } from '../../../../shared/money';
import { Countdown, remainingMs } from '../../components/Countdown';
import { Money } from '../../components/Money';
import { StatusBadge } from '../../components/StatusBadge';
import { Button, ConfirmDialog, CopyableId, ErrorState, RelativeTime, Skeleton } from '../../components/ui';
import { useRouter } from '../../lib/router';
import { clockTime } from '../../lib/status-line';
import { RelatedRfis } from '../rfis/RelatedRfis';
import { FINAL_STATUSES, useCrypto } from './store';
import './exchange.css';
import { orderWords } from '../../../../shared/words';

const phaseText: Record<OrderView['phase'], string> = {
  creating: 'Sending the quote request to the bank…',
  not_visible:
    'The bank accepted the quote request. Waiting for it to show the quote (it can take a few seconds)…',
  still_processing:
    'Still processing: the bank has not shown the quote after a minute. Checking continues in the background.',
  visible: '',
  create_failed: 'The bank did not create the quote.',
};

function text(value: string | null | undefined): string {
  return value === undefined || value === null || value === '' ? '—' : value;
}

/** "25.00 USDT" — amounts as analysts say them (exact, from minor units). */
function amount(minor: string, asset: string): string {
  return isMinorUnits(minor)
    ? `${formatMinor(parseMinor(minor), asset, { code: false })} ${assetLabel(asset)}`
    : minor;
}

/** Ticks while mounted, so derived values (remaining time) re-render. */
function useTick(ms: number): void {
  const [, set] = useState(0);
  useEffect(() => {
    const t = setInterval(() => set((n) => n + 1), ms);
    return () => clearInterval(t);
  }, [ms]);
}

type Crypto = NonNullable<OrderView['crypto']>;

function Account({ who, c }: { who: 'pays' | 'receives'; c: Crypto }) {
  const a =
    who === 'pays'
      ? {
          name: c.customer_pays_account_name,
          id: c.customer_pays_account_id,
          iban: c.customer_pays_account_iban,
          wallet: c.customer_pays_account_wallet_address,
        }
      : {
          name: c.customer_receives_account_name,
          id: c.customer_receives_account_id,
          iban: c.customer_receives_account_iban,
          wallet: c.customer_receives_account_wallet_address,
        };
  return (
    <span className="account-ref">
      <span className="account-ref__name">{text(a.name)}</span>
      {a.id && <CopyableId id={a.id} kind="account id" />}
      {a.iban && (
        <span className="account-ref__extra">
          IBAN <code>{a.iban}</code>
        </span>
      )}
      {a.wallet && (
        <span className="account-ref__extra">
          Wallet <code>{a.wallet}</code> <span className="muted">(test network)</span>
        </span>
      )}
    </span>
  );
}

/** What the order moves, in one sentence: "Buy 25.00 USDT for 25.03 USD". */
function movesSentence(c: Crypto): string {
  const buy = c.side !== 'sell';
  const base = buy
    ? amount(c.customer_receives_amount, c.customer_receives_asset)
    : amount(c.customer_pays_amount, c.customer_pays_asset);
  const quote = buy
    ? amount(c.customer_pays_amount, c.customer_pays_asset)
    : amount(c.customer_receives_amount, c.customer_receives_asset);
  return `${buy ? 'Buy' : 'Sell'} ${base} for ${quote}`;
}

/** The final state in words: what happened, with the bank's time. */
function FinalState({ view, c }: { view: OrderView; c: Crypto | null }) {
  const s = view.displayStatus;
  const at = c?.updated_at ? clockTime(c.updated_at) : null;
  if (!c) return null;
  const buy = c.side !== 'sell';
  const base = buy
    ? amount(c.customer_receives_amount, c.customer_receives_asset)
    : amount(c.customer_pays_amount, c.customer_pays_asset);
  const quote = buy
    ? amount(c.customer_pays_amount, c.customer_pays_asset)
    : amount(c.customer_receives_amount, c.customer_receives_asset);
  if (s === 'completed')
    return (
      <p className="outcome outcome--ok" role="status" data-testid="crypto-outcome">
        <CircleCheck size={18} aria-hidden="true" />
        Settled: {buy ? 'bought' : 'sold'} {base} for {quote}
        {at ? ` at ${at}` : ''}.
      </p>
    );
  if (s === 'pending_execution')
    return (
      <p className="outcome outcome--info" role="status" data-testid="crypto-outcome">
        <Clock size={18} aria-hidden="true" />
        Confirmed{c.quote_confirmed_at ? ` at ${clockTime(c.quote_confirmed_at)}` : ''}: the bank is executing{' '}
        {buy ? 'the purchase of' : 'the sale of'} {base} for {quote}.
      </p>
    );
  if (s === 'failed')
    return (
      <p className="outcome outcome--bad" role="status" data-testid="crypto-outcome">
        <CircleX size={18} aria-hidden="true" />
        Failed{c['failure_reason'] ? ` (${String(c['failure_reason'])})` : ''}: nothing was exchanged.
      </p>
    );
  if (s === 'expired')
    return (
      <p className="outcome outcome--bad" role="status" data-testid="crypto-expired">
        <CircleX size={18} aria-hidden="true" />
        <span>
          <strong>Expired.</strong> This quote expired at {clockTime(c.quote_valid_until)} and was not
          confirmed. Request a new quote with the same details.
        </span>
      </p>
    );
  return null;
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
  const left = c ? remainingMs(c.quote_valid_until, offsetMs) : NaN;
  const inProgress = view?.displayStatus === 'in_progress';
  const tooLate = !view || !(left > view.safetyMarginMs);
  // The confirm step closes by itself when the margin is reached while it is open.
  const confirmOpen = asking && (busy || (!tooLate && inProgress));

  if (!view) {
    return (
      <section className="screen" aria-labelledby={`${id}-title`}>
        <h1 id={`${id}-title`}>Exchange order</h1>
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
        <a href="#/exchange">Back to the exchange list</a>
      </section>
    );
  }

  const canTrade = context?.canTrade ?? false;
  const final = FINAL_STATUSES.has(view.displayStatus) || view.displayStatus === 'pending_execution';
  const confirmDisabled = busy || !inProgress || tooLate || !view.confirmable || !canTrade;
  const marginSeconds = Math.ceil(view.safetyMarginMs / 1000);
  const confirmHint = !canTrade
    ? (context?.readOnlyReason ?? 'This credential cannot confirm.')
    : !inProgress
      ? view.displayStatus === 'expired'
        ? 'The quote has expired; it can no longer be confirmed.'
        : null
      : tooLate
        ? `Confirm is disabled: less than ${marginSeconds} s (the safety margin) remain on the quote.`
        : null;
  const totalMs = c ? Date.parse(c.quote_valid_until) - Date.parse(c.created_at) : undefined;

  const onRequote = async (): Promise<void> => {
    const next = await requote(orderId);
    if (next) navigate(`/exchange/${next.id}`);
  };

  return (
    <section className="screen crypto-quote" aria-labelledby={`${id}-title`} data-testid="crypto-quote">
      <h1 id={`${id}-title`}>
        {c ? `${c.side === 'sell' ? 'Sell' : 'Buy'} ${assetLabel(c.base_asset)}` : 'Exchange quote'}{' '}
        <StatusBadge status={view.displayStatus} data-testid="crypto-status" />
      </h1>
      <p>
        <a href="#/exchange">Back to the exchange list</a>
      </p>

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

      {/* The amounts first: what moves, before any button. */}
      {c && (
        <section className="money-summary" aria-label="What this order moves" data-testid="crypto-amounts">
          <div className="money-summary__side">
            <span className="money-summary__label">You pay</span>
            <Money
              className="money-summary__amount"
              amount={c.customer_pays_amount}
              currency={c.customer_pays_asset}
              data-testid="crypto-pays"
            />
            <span className="money-summary__from">from {text(c.customer_pays_account_name)}</span>
          </div>
          <ArrowRight size={20} aria-hidden="true" className="money-summary__arrow" />
          <div className="money-summary__side">
            <span className="money-summary__label">You receive</span>
            <Money
              className="money-summary__amount"
              amount={c.customer_receives_amount}
              currency={c.customer_receives_asset}
              data-testid="crypto-receives"
            />
            <span className="money-summary__from">into {text(c.customer_receives_account_name)}</span>
          </div>
          <div className="money-summary__rate">
            <span className="money-summary__label">Rate</span>
            <span data-testid="crypto-rate">
              1 {assetLabel(c.base_asset)} = {c.customer_rate} {assetLabel(c.quote_asset)}
            </span>
          </div>
        </section>
      )}

      <FinalState view={view} c={c} />

      {c && inProgress && (
        <div className="crypto-quote__timer" data-testid="crypto-timer">
          <Countdown
            deadline={c.quote_valid_until}
            offsetMs={offsetMs}
            marginMs={view.safetyMarginMs}
            {...(totalMs && totalMs > 0 ? { totalMs } : {})}
            label="Quote valid for"
            data-testid="crypto-countdown"
          />
          <span className="muted">
            Bank time. Valid until <RelativeTime value={c.quote_valid_until} /> (
            {clockTime(c.quote_valid_until)}); confirm closes {marginSeconds} s before.
          </span>
        </div>
      )}

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
        <Button isDisabled={busy || !canTrade} onPress={() => void onRequote()} data-testid="crypto-requote">
          {final ? 'New quote with the same details' : 'Requote (same details)'}
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
          <p className="confirm-restate" data-testid="crypto-confirm-restate">
            <strong>{movesSentence(c)}</strong>
          </p>
          <dl className="facts">
            <dt>You pay</dt>
            <dd>
              <Money amount={c.customer_pays_amount} currency={c.customer_pays_asset} /> from{' '}
              {text(c.customer_pays_account_name)}
            </dd>
            <dt>You receive</dt>
            <dd>
              <Money amount={c.customer_receives_amount} currency={c.customer_receives_asset} /> into{' '}
              {text(c.customer_receives_account_name)}
            </dd>
            <dt>Rate</dt>
            <dd>
              1 {assetLabel(c.base_asset)} = {c.customer_rate} {assetLabel(c.quote_asset)}
            </dd>
          </dl>
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

      {c && (
        <dl className="facts crypto-quote__facts" data-testid="crypto-facts">
          <dt>Requested</dt>
          <dd>
            <Money amount={c.customer_requested_amount} currency={c.customer_requested_asset} />
          </dd>
          <dt>Network fee</dt>
          <dd data-testid="crypto-fee">
            {c.customer_pays_network_fee_amount !== null && c.customer_pays_network_fee_amount !== '0' ? (
              <>
                <Money
                  amount={c.customer_pays_network_fee_amount}
                  currency={c.customer_pays_network_fee_asset || c.customer_pays_asset}
                />{' '}
                from <code>{text(c.customer_pays_network_fee_account_id)}</code>
              </>
            ) : (
              'None at quote time'
            )}
          </dd>
          <dt>Paying account</dt>
          <dd>
            <Account who="pays" c={c} />
          </dd>
          <dt>Receiving account</dt>
          <dd>
            <Account who="receives" c={c} />
          </dd>
          <dt>Initiated by (maker)</dt>
          <dd data-testid="crypto-initiated-by">
            {c.initiated_by.first_name} {c.initiated_by.last_name}{' '}
            <CopyableId id={c.initiated_by.id} kind="user id" />
          </dd>
          <dt>Checked by (checker)</dt>
          <dd>
            {c.checked_by === null || c.checked_by === undefined
              ? 'Not checked'
              : typeof c.checked_by === 'object'
                ? JSON.stringify(c.checked_by)
                : String(c.checked_by)}
            {c.checked_at ? (
              <>
                , <RelativeTime value={c.checked_at} />
              </>
            ) : null}
          </dd>
          <dt>Side / priority / rail</dt>
          <dd>
            {orderWords(c.side)} · {orderWords(c.priority)} · {orderWords(c.rail)}
          </dd>
          <dt>Symbol</dt>
          <dd>
            {c.symbol} ({assetLongLabel(c.base_asset)} / {assetLongLabel(c.quote_asset)})
          </dd>
          <dt>Description</dt>
          <dd>{text(c.description)}</dd>
          <dt>Additional details</dt>
          <dd>{text(c.additional_details)}</dd>
          <dt>Transaction</dt>
          <dd>
            {view.transactionId ? (
              <span data-testid="crypto-transaction-id">
                <CopyableId id={view.transactionId} kind="transaction id" />
              </span>
            ) : (
              '—'
            )}
          </dd>
          <dt>Created / updated</dt>
          <dd>
            <RelativeTime value={c.created_at} /> / <RelativeTime value={c.updated_at} />
          </dd>
        </dl>
      )}

      {c && (c.quote_confirmed_at || view.displayStatus === 'pending_execution') && (
        <section
          className="panel crypto-settlement"
          aria-labelledby={`${id}-settle`}
          data-testid="crypto-settlement"
        >
          <h2 id={`${id}-settle`}>Settlement</h2>
          <p data-testid="crypto-settlement-state">
            {view.displayStatus === 'pending_execution'
              ? 'Confirmed; the bank is executing the order…'
              : view.displayStatus === 'completed'
                ? 'Settled.'
                : view.displayStatus === 'failed'
                  ? `Failed${c['failure_reason'] ? `: ${String(c['failure_reason'])}` : ''}. Nothing was exchanged.`
                  : `Status: ${view.displayStatus}`}
          </p>
          <dl className="facts">
            <dt>Transaction hash</dt>
            <dd data-testid="crypto-hash">
              {c.transaction_hash ? (
                <>
                  <code>{c.transaction_hash}</code>{' '}
                  <span className="badge" data-testid="crypto-testnet">
                    Test network: no value
                  </span>
                </>
              ) : (
                '— (set at settlement)'
              )}
            </dd>
            <dt>Confirmed at</dt>
            <dd>
              <RelativeTime value={c.quote_confirmed_at} />
            </dd>
            <dt>Last update</dt>
            <dd>
              <RelativeTime value={c.updated_at} />
            </dd>
          </dl>
        </section>
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
