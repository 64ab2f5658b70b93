import { useState } from 'react';
import { assetLabel } from '../../../../shared/activity';
import { DIGITAL_ASSETS } from '../../../../shared/catalogue';
import type { AccountBookEntry, CryptoContext, QuoteArgs } from '../../../../shared/ipc/channels/crypto';
import { decimalsOf, readAmountInput } from '../../../../shared/money';

export type Side = 'buy' | 'sell';
export type AssetSymbol = (typeof DIGITAL_ASSETS)[number]['symbol'];

/** What the analyst typed and chose in the order form. */
export interface OrderDraft {
  side: Side;
  symbol: AssetSymbol;
  amount: string;
  amountIn: 'base' | 'quote';
  /** The chosen accounts ('' = none chosen: the first fitting one is used). */
  pays: string;
  receives: string;
  description: string;
  details: string;
}

const initialDraft: OrderDraft = {
  side: 'buy',
  symbol: 'USDT-USD',
  amount: '',
  amountIn: 'base',
  pays: '',
  receives: '',
  description: '',
  details: '',
};

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
      return { error: `${assetLabel(asset)} has ${decimals} decimal places; the amount has more.` };
    default:
      return { error: 'Use digits and at most one decimal point, e.g. 1250.50 or 1,250.50 (no signs).' };
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

/** The chosen account if it still fits the options, else the first that does. */
function effectiveAccount(chosen: string, options: AccountBookEntry[]): string {
  return options.some((a) => a.accountId === chosen) ? chosen : (options[0]?.accountId ?? '');
}

/**
 * The order form's state and everything derived from it in render: the pair, which asset is paid
 * and received, the exact amount, the accounts that fit, and the quote request when complete.
 */
export function useOrderDraft(context: CryptoContext | null) {
  const [draft, setDraft] = useState<OrderDraft>(initialDraft);
  const update = (patch: Partial<OrderDraft>): void => setDraft((d) => ({ ...d, ...patch }));

  const asset = DIGITAL_ASSETS.find((a) => a.symbol === draft.symbol) ?? DIGITAL_ASSETS[1];
  const requestedAsset = draft.amountIn === 'base' ? asset.base_asset : asset.quote_asset;
  const paysAsset = draft.side === 'buy' ? asset.quote_asset : asset.base_asset;
  const receivesAsset = draft.side === 'buy' ? asset.base_asset : asset.quote_asset;
  const converted = amountToMinor(draft.amount, requestedAsset);
  const paysOptions = context ? accountsFor(context, paysAsset) : [];
  const receivesOptions = context ? accountsFor(context, receivesAsset) : [];
  const pays = effectiveAccount(draft.pays, paysOptions);
  const receives = effectiveAccount(draft.receives, receivesOptions);

  const request: Omit<QuoteArgs, 'profileId'> | null =
    'error' in converted || !pays || !receives
      ? null
      : {
          side: draft.side,
          symbol: draft.symbol,
          requestedAsset,
          requestedAmount: converted.minor,
          paysAccountId: pays,
          receivesAccountId: receives,
          ...(draft.description.trim() ? { description: draft.description.trim() } : {}),
          ...(draft.details.trim() ? { additionalDetails: draft.details.trim() } : {}),
        };

  return {
    draft,
    update,
    asset,
    requestedAsset,
    paysAsset,
    receivesAsset,
    converted,
    paysOptions,
    receivesOptions,
    pays,
    receives,
    request,
  };
}
