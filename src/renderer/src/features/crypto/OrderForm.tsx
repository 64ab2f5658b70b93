import { useEffect, useId, useMemo, useState } from 'react';
import type { FormEvent } from 'react';
import { DIGITAL_ASSETS } from '../../../../shared/catalogue';
import type { AccountBookEntry, CryptoContext } from '../../../../shared/ipc/channels/crypto';
import { decimalsOf, readAmountInput } from '../../../../shared/money';
import { errorMessage } from '../../lib/desk';
import { useRouter } from '../../lib/router';
import { useCrypto } from './store';

type Side = 'buy' | 'sell';
type Symbol = (typeof DIGITAL_ASSETS)[number]['symbol'];

/** Decimal input → minor units of `asset`, exactly (or the reason it cannot be). */
export function amountToMinor(input: string, asset: string): { minor: string } | { error: string } {
  const decimals = decimalsOf(asset);
  const read = readAmountInput(input, decimals);
  if (read.problem === undefined) return { minor: read.minor.toString() };
  switch (read.problem) {
    case 'empty':
      return { error: 'Enter an amount.' };
    case 'not_positive':
      return { error: 'The amount must be more than zero.' };
    case 'too_many_decimals':
      return { error: `${asset} has ${decimals} decimal places; the amount has more.` };
    default:
      return { error: 'Use digits and at most one decimal point, e.g. 1250.50 (no signs or separators).' };
  }
}

/** Account book entries usable for an asset under the current legal entity. */
export function accountsFor(ctx: CryptoContext, asset: string): AccountBookEntry[] {
  return ctx.accounts.filter(
    (a) =>
      (a.asset === asset || a.asset === '') &&
      (a.legalEntityId === null || ctx.legalEntityId === null || a.legalEntityId === ctx.legalEntityId),
  );
}

export function OrderForm() {
  const context = useCrypto((s) => s.context);
  const contextError = useCrypto((s) => s.contextError);
  const loadContext = useCrypto((s) => s.loadContext);
  const quote = useCrypto((s) => s.quote);
  const navigate = useRouter((s) => s.navigate);
  const id = useId();

  const [side, setSide] = useState<Side>('buy');
  const [symbol, setSymbol] = useState<Symbol>('USDT-USD');
  const [amount, setAmount] = useState('');
  const [amountIn, setAmountIn] = useState<'base' | 'quote'>('base');
  const [pays, setPays] = useState('');
  const [receives, setReceives] = useState('');
  const [description, setDescription] = useState('');
  const [details, setDetails] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [touched, setTouched] = useState(false);

  useEffect(() => {
    void loadContext();
  }, [loadContext]);

  const asset = DIGITAL_ASSETS.find((a) => a.symbol === symbol) ?? DIGITAL_ASSETS[1];
  const requestedAsset = amountIn === 'base' ? asset.base_asset : asset.quote_asset;
  const paysAsset = side === 'buy' ? asset.quote_asset : asset.base_asset;
  const receivesAsset = side === 'buy' ? asset.base_asset : asset.quote_asset;
  const converted = amountToMinor(amount, requestedAsset);
  const paysOptions = useMemo(() => (context ? accountsFor(context, paysAsset) : []), [context, paysAsset]);
  const receivesOptions = useMemo(
    () => (context ? accountsFor(context, receivesAsset) : []),
    [context, receivesAsset],
  );

  // Keep the chosen accounts valid for the side/asset; pick the first fitting one.
  useEffect(() => {
    if (!paysOptions.some((a) => a.accountId === pays)) setPays(paysOptions[0]?.accountId ?? '');
  }, [paysOptions, pays]);
  useEffect(() => {
    if (!receivesOptions.some((a) => a.accountId === receives))
      setReceives(receivesOptions[0]?.accountId ?? '');
  }, [receivesOptions, receives]);

  const readOnly = !context?.canTrade;

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    setTouched(true);
    setError(null);
    if (readOnly || 'error' in converted || !pays || !receives) return;
    setSubmitting(true);
    try {
      const view = await quote({
        side,
        symbol,
        requestedAsset,
        requestedAmount: converted.minor,
        paysAccountId: pays,
        receivesAccountId: receives,
        ...(description.trim() ? { description: description.trim() } : {}),
        ...(details.trim() ? { additionalDetails: details.trim() } : {}),
      });
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

  const accountLabel = (a: AccountBookEntry): string => `${a.label} (${a.accountId})`;

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
                checked={side === 'buy'}
                onChange={() => setSide('buy')}
              />{' '}
              Buy: pay USD, receive the digital asset
            </label>
            <label>
              <input
                type="radio"
                name="side"
                value="sell"
                checked={side === 'sell'}
                onChange={() => setSide('sell')}
              />{' '}
              Sell: pay the digital asset, receive USD
            </label>
          </fieldset>

          <label htmlFor={`${id}-asset`}>Digital asset</label>
          <select
            id={`${id}-asset`}
            value={symbol}
            onChange={(e) => setSymbol(e.target.value as Symbol)}
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
              value={amount}
              onChange={(e) => setAmount(e.target.value)}
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
              value={amountIn}
              onChange={(e) => setAmountIn(e.target.value === 'quote' ? 'quote' : 'base')}
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

          <label htmlFor={`${id}-pays`}>Paying account ({paysAsset})</label>
          <select
            id={`${id}-pays`}
            value={pays}
            onChange={(e) => setPays(e.target.value)}
            data-testid="crypto-pays"
          >
            {paysOptions.length === 0 && <option value="">No {paysAsset} account in the book</option>}
            {paysOptions.map((a) => (
              <option key={a.accountId} value={a.accountId}>
                {accountLabel(a)}
              </option>
            ))}
          </select>
          <label htmlFor={`${id}-receives`}>Receiving account ({receivesAsset})</label>
          <select
            id={`${id}-receives`}
            value={receives}
            onChange={(e) => setReceives(e.target.value)}
            data-testid="crypto-receives"
          >
            {receivesOptions.length === 0 && <option value="">No {receivesAsset} account in the book</option>}
            {receivesOptions.map((a) => (
              <option key={a.accountId} value={a.accountId}>
                {accountLabel(a)}
              </option>
            ))}
          </select>
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
            value={description}
            maxLength={500}
            onChange={(e) => setDescription(e.target.value)}
          />
          <label htmlFor={`${id}-details`}>Additional details (optional)</label>
          <textarea
            id={`${id}-details`}
            value={details}
            maxLength={2000}
            rows={3}
            onChange={(e) => setDetails(e.target.value)}
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
