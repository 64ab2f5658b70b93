import { ArrowRight, CircleCheck, CircleX, Clock } from 'lucide-react';
import type { OrderView } from '../../../../shared/ipc/channels/crypto';
import { assetLabel, assetLongLabel, pairWords } from '../../../../shared/activity';
import { formatMinor, isMinorUnits, parseMinor } from '../../../../shared/money';
import { humanize, orderWords, statusWords } from '../../../../shared/words';
import { Money } from '../../components/Money';
import { CopyableId, RelativeTime } from '../../components/ui';
import { clockTime } from '../../lib/status-line';

/** The parts of the quote screen (QuoteView): what moves, the final state, the facts, settlement. */

export type Crypto = NonNullable<OrderView['crypto']>;

export function text(value: string | null | undefined): string {
  return value === undefined || value === null || value === '' ? '—' : value;
}

/** "25.00 USDT" — amounts as analysts say them (exact, from minor units). */
function amount(minor: string, asset: string): string {
  return isMinorUnits(minor)
    ? `${formatMinor(parseMinor(minor), asset, { code: false })} ${assetLabel(asset)}`
    : minor;
}

/** The bank's failure reason in words, its code kept for the hover title ("Insufficient liquidity"). */
export function FailureReason({ c }: { c: Crypto }) {
  const raw = c['failure_reason'];
  if (raw === undefined || raw === null || raw === '') return null;
  const code = String(raw);
  return (
    <span title={`The bank’s reason code: ${code}`} data-reason-code={code}>
      {humanize(code)}
    </span>
  );
}

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

/** The base asset's and the quote asset's amounts, in the order the side reads them. */
function legs(c: Crypto): { buy: boolean; base: string; quote: string } {
  const buy = c.side !== 'sell';
  const base = buy
    ? amount(c.customer_receives_amount, c.customer_receives_asset)
    : amount(c.customer_pays_amount, c.customer_pays_asset);
  const quote = buy
    ? amount(c.customer_pays_amount, c.customer_pays_asset)
    : amount(c.customer_receives_amount, c.customer_receives_asset);
  return { buy, base, quote };
}

/** What the order moves, in one sentence: "Buy 25.00 USDT for 25.03 USD". */
export function movesSentence(c: Crypto): string {
  const { buy, base, quote } = legs(c);
  return `${buy ? 'Buy' : 'Sell'} ${base} for ${quote}`;
}

/** The final state in words: what happened, with the bank's time. */
export function FinalState({ view, c }: { view: OrderView; c: Crypto | null }) {
  const s = view.displayStatus;
  if (!c) return null;
  const at = c.updated_at ? clockTime(c.updated_at) : null;
  const { buy, base, quote } = legs(c);
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
        <span>
          Failed{c['failure_reason'] ? ' (' : ''}
          <FailureReason c={c} />
          {c['failure_reason'] ? ')' : ''}: nothing was exchanged.
        </span>
      </p>
    );
  if (s === 'expired')
    return (
      <p className="outcome outcome--bad" role="status" data-testid="crypto-expired">
        <CircleX size={18} aria-hidden="true" />
        <span>
          <strong>Expired.</strong> This quote expired at {clockTime(c.quote_valid_until)} by the bank’s clock
          and was not confirmed. Nothing was exchanged: ask for a new quote with the same details below.
        </span>
      </p>
    );
  return null;
}

/** The amounts first: what moves, before any button. */
export function AmountsSummary({ c }: { c: Crypto }) {
  return (
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
  );
}

/** What the confirm dialog restates: the sentence, then each leg and the rate. */
export function ConfirmRestatement({ c }: { c: Crypto }) {
  return (
    <>
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
    </>
  );
}

function checker(c: Crypto): string {
  const v = c.checked_by;
  if (v === null || v === undefined) return 'Not checked';
  if (typeof v === 'object') {
    const o = v as { first_name?: unknown; last_name?: unknown };
    const name = [o.first_name, o.last_name].filter((x) => typeof x === 'string' && x).join(' ');
    return name || 'Checked';
  }
  return String(v);
}

/** Every fact of the quote: requested amount, fee, accounts, maker and checker, terms, ids. */
export function QuoteFacts({ view, c }: { view: OrderView; c: Crypto }) {
  return (
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
            from{' '}
            {c.customer_pays_network_fee_account_id ? (
              <CopyableId id={c.customer_pays_network_fee_account_id} kind="account id" />
            ) : (
              '—'
            )}
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
        {checker(c)}
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
      <dt>Exchange</dt>
      <dd data-testid="crypto-pair-words">
        {pairWords(c.side, c.base_asset, c.quote_asset)}{' '}
        <span
          className="pair-code"
          title={`${assetLongLabel(c.base_asset)} / ${assetLongLabel(c.quote_asset)}`}
        >
          <code>{c.symbol}</code>
        </span>
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
  );
}

function settlementWords(view: OrderView, c: Crypto) {
  switch (view.displayStatus) {
    case 'pending_execution':
      return 'Confirmed; the bank is executing the order…';
    case 'completed':
      return 'Settled.';
    case 'failed':
      return (
        <>
          Failed{c['failure_reason'] ? ': ' : ''}
          <FailureReason c={c} />. Nothing was exchanged.
        </>
      );
    default:
      return `Status: ${statusWords(view.displayStatus)}`;
  }
}

/** Settlement of a confirmed order: where it stands, its hash, when it was confirmed. */
export function Settlement({ view, c, titleId }: { view: OrderView; c: Crypto; titleId: string }) {
  return (
    <section className="panel crypto-settlement" aria-labelledby={titleId} data-testid="crypto-settlement">
      <h2 id={titleId}>Settlement</h2>
      <p data-testid="crypto-settlement-state">{settlementWords(view, c)}</p>
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
  );
}
