import { useEffect, useId, useState } from 'react';
import type { FormEvent } from 'react';
import { DIGITAL_ASSETS } from '../../../../shared/catalogue';
import type { AccountBookEntry } from '../../../../shared/ipc/channels/crypto';
import { decimalsOf } from '../../../../shared/money';
import { errorMessage } from '../../lib/desk';
import { useRouter } from '../../lib/router';
import { useOrderDraft } from './order-draft';
import type { AssetSymbol } from './order-draft';
import { useCrypto } from './store';

const accountLabel = (a: AccountBookEntry): string => `${a.label} (${a.accountId})`;

/** A paying or receiving account: the account book's entries that fit the asset. */
function AccountField(props: {
  id: string;
  label: string;
  asset: string;
  value: string;
  options: AccountBookEntry[];
  onChange(accountId: string): void;
  testId: string;
}) {
  return (
    <>
      <label htmlFor={props.id}>
        {props.label} ({props.asset})
      </label>
      <select
        id={props.id}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        data-testid={props.testId}
      >
        {props.options.length === 0 && <option value="">No {props.asset} account in the book</option>}
        {props.options.map((a) => (
          <option key={a.accountId} value={a.accountId}>
            {accountLabel(a)}
          </option>
        ))}
      </select>
    </>
  );
}

/** New exchange quote (#/exchange/new): side, asset, exact amount, accounts; asks the bank for a quote. */
export function OrderForm() {
  const context = useCrypto((s) => s.context);
  const contextError = useCrypto((s) => s.contextError);
  const loadContext = useCrypto((s) => s.loadContext);
  const quote = useCrypto((s) => s.quote);
  const navigate = useRouter((s) => s.navigate);
  const id = useId();
  const order = useOrderDraft(context);
  const { draft, update, asset, requestedAsset, paysAsset, receivesAsset, converted } = order;
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [touched, setTouched] = useState(false);

  useEffect(() => {
    void loadContext();
  }, [loadContext]);

  const readOnly = !context?.canTrade;

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    setTouched(true);
    setError(null);
    if (readOnly || !order.request) return;
    setSubmitting(true);
    try {
      const view = await quote(order.request);
      navigate(`/exchange/${view.id}`);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setSubmitting(false);
    }
  };

  if (!context) {
    return (
      <section className="screen" aria-labelledby={`${id}-title`}>
        <h1 id={`${id}-title`}>New exchange quote</h1>
        {contextError ? <p role="alert">{contextError}</p> : <p role="status">Loading…</p>}
      </section>
    );
  }

  return (
    <section className="screen crypto-form" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`}>New exchange quote</h1>
      {readOnly && (
        <p
          id={`${id}-readonly`}
          className="notice notice--readonly"
          role="note"
          data-testid="crypto-readonly"
        >
          <strong>Read-only.</strong> {context.readOnlyReason}
        </p>
      )}
      <form
        onSubmit={(e) => void submit(e)}
        noValidate
        aria-describedby={readOnly ? `${id}-readonly` : undefined}
      >
        <fieldset disabled={readOnly || submitting} className="crypto-form__fields">
          <fieldset className="crypto-form__group">
            <legend>Side (from the customer’s view)</legend>
            <label>
              <input
                type="radio"
                name="side"
                value="buy"
                checked={draft.side === 'buy'}
                onChange={() => update({ side: 'buy' })}
              />{' '}
              Buy: pay USD, receive the digital asset
            </label>
            <label>
              <input
                type="radio"
                name="side"
                value="sell"
                checked={draft.side === 'sell'}
                onChange={() => update({ side: 'sell' })}
              />{' '}
              Sell: pay the digital asset, receive USD
            </label>
          </fieldset>

          <label htmlFor={`${id}-asset`}>Digital asset</label>
          <select
            id={`${id}-asset`}
            value={draft.symbol}
            onChange={(e) => update({ symbol: e.target.value as AssetSymbol })}
            data-testid="crypto-asset"
          >
            {DIGITAL_ASSETS.map((a) => (
              <option key={a.symbol} value={a.symbol}>
                {a.name} ({a.symbol})
              </option>
            ))}
          </select>
          <dl className="facts crypto-form__pair" data-testid="crypto-pair">
            <dt>Base asset</dt>
            <dd>{asset.base_asset}</dd>
            <dt>Quote asset</dt>
            <dd>{asset.quote_asset}</dd>
            <dt>Symbol</dt>
            <dd>{asset.symbol}</dd>
            <dt>Priority / rail</dt>
            <dd>instant / rfq (set by the app)</dd>
          </dl>
          {asset.name === 'USDC' && (
            <p className="notice notice--warn" role="note" data-testid="usdc-warning">
              <strong>Warning: limited liquidity.</strong> The bank holds little USDC; a USDC order may fail
              after confirmation for lack of liquidity. USDT is the recommended test asset.
            </p>
          )}

          <label htmlFor={`${id}-amount`}>Amount</label>
          <div className="crypto-form__amount">
            <input
              id={`${id}-amount`}
              inputMode="decimal"
              autoComplete="off"
              value={draft.amount}
              onChange={(e) => update({ amount: e.target.value })}
              onBlur={() => setTouched(true)}
              aria-invalid={touched && 'error' in converted}
              aria-describedby={`${id}-amount-help`}
              data-testid="crypto-amount"
            />
            <label htmlFor={`${id}-amount-in`} className="visually-hidden">
              Amount expressed in
            </label>
            <select
              id={`${id}-amount-in`}
              value={draft.amountIn}
              onChange={(e) => update({ amountIn: e.target.value === 'quote' ? 'quote' : 'base' })}
              data-testid="crypto-amount-in"
            >
              <option value="base">{asset.base_asset}</option>
              <option value="quote">{asset.quote_asset}</option>
            </select>
          </div>
          <p id={`${id}-amount-help`} className={touched && 'error' in converted ? 'field-error' : 'muted'}>
            {'error' in converted
              ? touched
                ? converted.error
                : `In ${requestedAsset}, up to ${decimalsOf(requestedAsset)} decimal places.`
              : `= ${converted.minor} minor units of ${requestedAsset} (${decimalsOf(requestedAsset)} decimals)`}
          </p>

          <AccountField
            id={`${id}-pays`}
            label="Paying account"
            asset={paysAsset}
            value={order.pays}
            options={order.paysOptions}
            onChange={(pays) => update({ pays })}
            testId="crypto-pays"
          />
          <AccountField
            id={`${id}-receives`}
            label="Receiving account"
            asset={receivesAsset}
            value={order.receives}
            options={order.receivesOptions}
            onChange={(receives) => update({ receives })}
            testId="crypto-receives"
          />
          <p className="muted">
            Accounts come from the{' '}
            <a href="#/exchange/accounts" data-testid="crypto-account-book-link">
              account book
            </a>
            ; the bank checks that they belong to your legal entity.
          </p>

          <label htmlFor={`${id}-description`}>Description (optional)</label>
          <input
            id={`${id}-description`}
            value={draft.description}
            maxLength={500}
            onChange={(e) => update({ description: e.target.value })}
          />
          <label htmlFor={`${id}-details`}>Additional details (optional)</label>
          <textarea
            id={`${id}-details`}
            value={draft.details}
            maxLength={2000}
            rows={3}
            onChange={(e) => update({ details: e.target.value })}
          />
        </fieldset>
        {error && (
          <p role="alert" className="field-error" data-testid="crypto-form-error">
            {error}
          </p>
        )}
        <div className="actions">
          <button
            type="submit"
            className="primary"
            disabled={readOnly || submitting}
            data-testid="crypto-get-quote"
          >
            {submitting ? 'Requesting quote…' : 'Get quote'}
          </button>
          <a href="#/exchange">Back to the exchange list</a>
        </div>
      </form>
    </section>
  );
}
