import { useEffect, useId, useState } from 'react';
import type { OrderView } from '../../../../shared/ipc/channels/crypto';
import { Countdown, remainingMs } from '../../components/Countdown';
import { Money } from '../../components/Money';
import { StatusBadge } from '../../components/StatusBadge';
import { useRouter } from '../../lib/router';
import { FINAL_STATUSES, useCrypto } from './store';

const phaseText: Record<OrderView['phase'], string> = {
  creating: 'Sending the quote request to the bank…',
  not_visible:
    'The bank accepted the quote request. Waiting for it to show the quote (it can take a few seconds)…',
  still_processing:
    'Still processing: the bank has not shown the quote after a minute. Checking continues in the background.',
  visible: '',
  create_failed: 'The bank did not create the quote.',
};

function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  return Number.isFinite(t) ? `${iso} (${new Date(t).toLocaleString()})` : iso;
}

function text(value: string | null | undefined): string {
  return value === undefined || value === null || value === '' ? '—' : value;
}

/** Ticks while mounted, so derived values (remaining time) re-render. */
function useTick(ms: number): void {
  const [, set] = useState(0);
  useEffect(() => {
    const t = setInterval(() => set((n) => n + 1), ms);
    return () => clearInterval(t);
  }, [ms]);
}

function Account({ who, c }: { who: 'pays' | 'receives'; c: NonNullable<OrderView['crypto']> }) {
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
    <>
      <span>{text(a.name)}</span> <code className="muted">{text(a.id)}</code>
      {a.iban && (
        <>
          <br />
          IBAN <code>{a.iban}</code>
        </>
      )}
      {a.wallet && (
        <>
          <br />
          Wallet <code>{a.wallet}</code> <span className="muted">(test network)</span>
        </>
      )}
    </>
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
  useTick(250);

  const live = !view || !FINAL_STATUSES.has(view.displayStatus);
  useEffect(() => {
    void loadContext();
    void loadOrder(orderId, true);
  }, [orderId, loadOrder, loadContext]);
  // While the quote or order can still change, re-read it (this also keeps bank time fresh).
  useEffect(() => {
    if (!live) return;
    const t = setInterval(() => void loadOrder(orderId, true), 1000);
    return () => clearInterval(t);
  }, [orderId, live, loadOrder]);

  if (!view) {
    return (
      <section className="screen" aria-labelledby={`${id}-title`}>
        <h1 id={`${id}-title`}>Exchange order</h1>
        {error ? <p role="alert">{error}</p> : <p role="status">Loading…</p>}
        <a href="#/exchange">Back to the exchange list</a>
      </section>
    );
  }

  const c = view.crypto;
  const left = c ? remainingMs(c.quote_valid_until, offsetMs) : NaN;
  const inProgress = view.displayStatus === 'in_progress';
  const tooLate = !(left > view.safetyMarginMs);
  const canTrade = context?.canTrade ?? false;
  const confirmDisabled = busy || !inProgress || tooLate || !view.confirmable || !canTrade;
  const confirmHint = !canTrade
    ? (context?.readOnlyReason ?? 'This credential cannot confirm.')
    : !inProgress
      ? view.displayStatus === 'expired'
        ? 'The quote has expired; it can no longer be confirmed.'
        : null
      : tooLate
        ? `Confirm is disabled: less than ${Math.ceil(view.safetyMarginMs / 1000)} s (the safety margin) remain on the quote.`
        : null;

  const onRequote = async (): Promise<void> => {
    const next = await requote(orderId);
    if (next) navigate(`/exchange/${next.id}`);
  };

  return (
    <section className="screen crypto-quote" aria-labelledby={`${id}-title`} data-testid="crypto-quote">
      <h1 id={`${id}-title`}>
        {c ? `${c.side === 'sell' ? 'Sell' : 'Buy'} ${c.symbol}` : 'Exchange quote'}{' '}
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

      {c && inProgress && (
        <div className="crypto-quote__timer" data-testid="crypto-timer">
          <span className="muted">Quote valid for </span>
          <Countdown
            deadline={c.quote_valid_until}
            offsetMs={offsetMs}
            label="Quote valid for"
            data-testid="crypto-countdown"
          />
          <span className="muted"> (bank time; until {c.quote_valid_until})</span>
        </div>
      )}
      {view.displayStatus === 'expired' && c && (
        <p className="notice notice--bad" data-testid="crypto-expired">
          <strong>Expired.</strong> This quote expired at {when(c.quote_valid_until)} and was not confirmed.
          Request a new quote with the same details.
        </p>
      )}

      <div className="actions">
        <button
          type="button"
          className="primary"
          disabled={confirmDisabled}
          aria-describedby={confirmHint ? `${id}-confirm-hint` : undefined}
          onClick={() => void confirm(orderId)}
          data-testid="crypto-confirm"
        >
          {busy ? 'Working…' : 'Confirm quote'}
        </button>
        <button
          type="button"
          disabled={busy || !canTrade}
          onClick={() => void onRequote()}
          data-testid="crypto-requote"
        >
          Requote (same details)
        </button>
      </div>
      {confirmHint && (
        <p id={`${id}-confirm-hint`} className="muted" data-testid="crypto-confirm-hint">
          {confirmHint}
        </p>
      )}

      {c && (
        <dl className="facts crypto-quote__facts" data-testid="crypto-facts">
          <dt>Customer pays</dt>
          <dd data-testid="crypto-pays">
            <Money amount={c.customer_pays_amount} currency={c.customer_pays_asset} />
          </dd>
          <dt>Customer receives</dt>
          <dd data-testid="crypto-receives">
            <Money amount={c.customer_receives_amount} currency={c.customer_receives_asset} />
          </dd>
          <dt>Rate (Base/Quote)</dt>
          <dd data-testid="crypto-rate">
            1 {c.base_asset} = {c.customer_rate} {c.quote_asset}
          </dd>
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
            <code className="muted">{c.initiated_by.id}</code>
          </dd>
          <dt>Checked by (checker)</dt>
          <dd>
            {c.checked_by === null || c.checked_by === undefined
              ? 'Not checked'
              : typeof c.checked_by === 'object'
                ? JSON.stringify(c.checked_by)
                : String(c.checked_by)}
            {c.checked_at ? `, ${when(c.checked_at)}` : ''}
          </dd>
          <dt>Side / priority / rail</dt>
          <dd>
            {c.side} / {c.priority} / {c.rail}
          </dd>
          <dt>Symbol</dt>
          <dd>
            {c.symbol} ({c.base_asset} / {c.quote_asset})
          </dd>
          <dt>Quote valid until</dt>
          <dd>{when(c.quote_valid_until)}</dd>
          <dt>Description</dt>
          <dd>{text(c.description)}</dd>
          <dt>Additional details</dt>
          <dd>{text(c.additional_details)}</dd>
          <dt>Transaction</dt>
          <dd>
            <code data-testid="crypto-transaction-id">{view.transactionId}</code> ·{' '}
            {c.customer_legal_entity_id}
          </dd>
          <dt>Created / updated</dt>
          <dd>
            {when(c.created_at)} / {when(c.updated_at)}
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
          <p role="status" data-testid="crypto-settlement-state">
            {view.displayStatus === 'pending_execution'
              ? 'Confirmed; the bank is executing the order…'
              : view.displayStatus === 'completed'
                ? 'Settled.'
                : view.displayStatus === 'failed'
                  ? `Failed${c['failure_reason'] ? `: ${String(c['failure_reason'])}` : ''}. Nothing was exchanged.`
                  : `Status: ${view.displayStatus}`}
          </p>
          <dl className="facts">
            <dt>Paid</dt>
            <dd>
              <Money amount={c.customer_pays_amount} currency={c.customer_pays_asset} />
            </dd>
            <dt>Received</dt>
            <dd>
              <Money amount={c.customer_receives_amount} currency={c.customer_receives_asset} />
            </dd>
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
            <dd>{when(c.quote_confirmed_at)}</dd>
            <dt>Last update</dt>
            <dd>{when(c.updated_at)}</dd>
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
    </section>
  );
}
