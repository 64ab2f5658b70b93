import { useEffect, useId, useState } from 'react';
import type { FormEvent } from 'react';
import { assetLabel, assetLongLabel, pairWords } from '../../../../shared/activity';
import { DIGITAL_ASSETS } from '../../../../shared/catalogue';
import type { AccountBookEntry } from '../../../../shared/ipc/channels/crypto';
import { decimalsOf } from '../../../../shared/money';
import { errorMessage } from '../../lib/desk';
import { useRouter, useRouteQuery } from '../../lib/router';
import { useOrderDraft } from './order-draft';
import type { AssetSymbol } from './order-draft';
import { useCrypto } from './store';
import { useQueue } from '../rfis/queue-store';
import {
  AmountField,
  BackLink,
  Button,
  ErrorState,
  Segmented,
  Select,
  Skeleton,
  TextArea,
  TextField,
} from '../../components/ui';
import type { SegmentedOption } from '../../components/ui';
import { orderWords, relatedWords } from '../../../../shared/words';
import type { DigitalAsset } from '../../../../shared/catalogue';

/** An account by its own name, its holder beside it only when that is not the quote's entity. */
const accountLabel = (a: AccountBookEntry, entityShown: string | null): string =>
  relatedWords({ name: a.label, holder: a.holderName ?? null }, entityShown);

/** A paying or receiving account: the account book's entries that fit the asset. */
function AccountField(props: {
  label: string;
  asset: string;
  value: string;
  options: AccountBookEntry[];
  /** The quote's entity, named on the form ("For"): its own accounts do not repeat it. */
  entityName: string | null;
  onChange(accountId: string): void;
  isDisabled: boolean;
  testId: string;
}) {
  return (
    <Select
      label={`${props.label} (${assetLabel(props.asset)})`}
      value={props.value}
      onChange={props.onChange}
      options={props.options.map((a) => ({
        value: a.accountId,
        label: accountLabel(a, props.entityName),
        description: a.accountId,
      }))}
      placeholder={`No ${assetLabel(props.asset)} account in the book`}
      isDisabled={props.isDisabled}
      data-testid={props.testId}
    />
  );
}

const SIDE_OPTIONS: readonly SegmentedOption<'buy' | 'sell'>[] = [
  { value: 'buy', content: 'Buy', title: 'Buy: pay USD, receive the digital asset' },
  { value: 'sell', content: 'Sell', title: 'Sell: pay the digital asset, receive USD' },
];

/** Buy or sell, from the customer's view: the design system's one-of-a-few choice, what it means beside it. */
function SideChoice({ side, onChange }: { side: 'buy' | 'sell'; onChange(side: 'buy' | 'sell'): void }) {
  return (
    <div className="crypto-form__side">
      <Segmented
        label="Side (from the customer’s view)"
        value={side}
        onChange={onChange}
        options={SIDE_OPTIONS}
        data-testid="crypto-side"
      />
      <p className="muted" data-testid="crypto-side-meaning">
        {side === 'buy' ? 'Pay USD, receive the digital asset.' : 'Pay the digital asset, receive USD.'}
      </p>
    </div>
  );
}

/** The pair the asset trades as, and the liquidity warning of USDC. */
function PairFacts({ asset, side }: { asset: DigitalAsset; side: 'buy' | 'sell' }) {
  return (
    <>
      <dl className="facts crypto-form__pair" data-testid="crypto-pair">
        <dt>Base asset</dt>
        <dd>{assetLongLabel(asset.base_asset)}</dd>
        <dt>Quote asset</dt>
        <dd>{assetLongLabel(asset.quote_asset)}</dd>
        <dt>Exchange</dt>
        <dd data-testid="crypto-pair-words">
          {pairWords(side, asset.base_asset, asset.quote_asset)}{' '}
          <span className="pair-code">
            <code>{asset.symbol}</code>
          </span>
        </dd>
        <dt>Priority / rail</dt>
        <dd>
          {orderWords('instant')} · {orderWords('rfq')} (set by the app)
        </dd>
      </dl>
      {asset.name === 'USDC' && (
        <p className="notice notice--warn" role="note" data-testid="usdc-warning">
          <strong>Warning: limited liquidity.</strong> The bank holds little USDC; a USDC order may fail after
          confirmation for lack of liquidity. USDT is the recommended test asset.
        </p>
      )}
    </>
  );
}

/** The exact amount and the asset it is expressed in, converted to minor units as typed. */
function AmountRow({
  order,
  touched,
  onTouched,
  locked,
}: {
  order: ReturnType<typeof useOrderDraft>;
  touched: boolean;
  onTouched(): void;
  locked: boolean;
}) {
  const { draft, update, asset, requestedAsset, converted } = order;
  return (
    <div className="crypto-form__amount">
      <AmountField
        label="Amount"
        value={draft.amount}
        onChange={(amount) => update({ amount })}
        onBlur={onTouched}
        isDisabled={locked}
        errorMessage={touched && 'error' in converted ? converted.error : null}
        description={
          'error' in converted
            ? touched
              ? undefined
              : `In ${assetLabel(requestedAsset)}, up to ${decimalsOf(requestedAsset)} decimal places.`
            : `= ${converted.minor} minor units of ${assetLabel(requestedAsset)} (${decimalsOf(requestedAsset)} decimals)`
        }
        data-testid="crypto-amount"
      />
      <Select
        label="Amount expressed in"
        hideLabel
        value={draft.amountIn}
        onChange={(v) => update({ amountIn: v === 'quote' ? 'quote' : 'base' })}
        options={[
          { value: 'base', label: assetLabel(asset.base_asset) },
          { value: 'quote', label: assetLabel(asset.quote_asset) },
        ]}
        isDisabled={locked}
        data-testid="crypto-amount-in"
      />
    </div>
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
  const { draft, update, asset, paysAsset, receivesAsset } = order;
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [touched, setTouched] = useState(false);

  // Which entity the quote is for: the link's (an entity's own screen), else the default profile.
  const linked = useRouteQuery().get('profile');
  const entities = useQueue((s) => s.entities);
  useEffect(() => {
    void loadContext(linked);
  }, [loadContext, linked]);
  // The entities the desk watches (read once if the queue was not opened yet).
  useEffect(() => {
    const q = useQueue.getState();
    if (q.entities.length === 0 && !q.loading) void q.load();
  }, []);
  const forEntity = context?.environmentId ?? '';
  const forName = entities.find((e) => e.profileId === forEntity)?.name ?? null;
  const entityOptions = entities
    .filter((e) => e.connection !== 'no_token')
    .map((e) => ({ value: e.profileId, label: e.name, description: e.profileName }));

  const readOnly = !context?.canTrade;
  const locked = readOnly || submitting;

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
        <BackLink href="#/exchange">Back to the exchange list</BackLink>
        <h1 id={`${id}-title`}>New exchange quote</h1>
        {contextError ? (
          <ErrorState
            title="The exchange form could not be prepared"
            action={
              <Button variant="primary" onPress={() => void loadContext(linked)}>
                Try again
              </Button>
            }
          >
            {contextError}
          </ErrorState>
        ) : (
          <Skeleton label="Loading the exchange form" lines={4} />
        )}
      </section>
    );
  }

  return (
    <section className="screen crypto-form" aria-labelledby={`${id}-title`}>
      <BackLink href="#/exchange">Back to the exchange list</BackLink>
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
        <fieldset disabled={locked} className="crypto-form__fields">
          {entityOptions.length > 1 && (
            <Select
              label="For"
              options={entityOptions}
              value={forEntity}
              onChange={(v) => void loadContext(v)}
              description="The quote is made and confirmed with this entity’s own credential."
              data-testid="crypto-entity"
            />
          )}
          <SideChoice side={draft.side} onChange={(side) => update({ side })} />

          <Select
            label="Digital asset"
            value={draft.symbol}
            onChange={(v) => update({ symbol: v as AssetSymbol })}
            options={DIGITAL_ASSETS.map((a) => ({ value: a.symbol, label: `${a.name} (${a.symbol})` }))}
            isDisabled={locked}
            data-testid="crypto-asset"
          />
          <PairFacts asset={asset} side={draft.side} />

          <AmountRow order={order} touched={touched} onTouched={() => setTouched(true)} locked={locked} />

          <AccountField
            label="Paying account"
            asset={paysAsset}
            value={order.pays}
            options={order.paysOptions}
            entityName={forName}
            onChange={(pays) => update({ pays })}
            isDisabled={locked}
            testId="crypto-pays"
          />
          <AccountField
            label="Receiving account"
            asset={receivesAsset}
            value={order.receives}
            options={order.receivesOptions}
            entityName={forName}
            onChange={(receives) => update({ receives })}
            isDisabled={locked}
            testId="crypto-receives"
          />
          <p className="muted">
            Accounts come from the{' '}
            <a href="#/exchange/accounts" data-testid="crypto-account-book-link">
              account book
            </a>
            ; the bank checks that they belong to your legal entity.
          </p>

          <TextField
            label="Description (optional)"
            value={draft.description}
            maxLength={500}
            onChange={(description) => update({ description })}
            isDisabled={locked}
          />
          <TextArea
            label="Additional details (optional)"
            value={draft.details}
            maxLength={2000}
            rows={3}
            onChange={(details) => update({ details })}
            isDisabled={locked}
          />
        </fieldset>
        {error && (
          <p role="alert" className="field-error" data-testid="crypto-form-error">
            {error}
          </p>
        )}
        <div className="actions">
          {/* Not isPending: React Aria announces a pending button by its id, and this one is gone
              (the quote screen replaces the form) before the announcement ends. */}
          <Button type="submit" variant="primary" isDisabled={locked} data-testid="crypto-get-quote">
            {submitting ? 'Requesting quote…' : 'Get quote'}
          </Button>
        </div>
      </form>
    </section>
  );
}
