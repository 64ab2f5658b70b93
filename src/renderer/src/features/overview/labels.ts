/**
 * The overview's items named as analysts say them (names first, ids secondary): a quote as
 * "Buy 25.00 USDT for USD", a return as "Return to Acme Ltd". Amounts are formatted from
 * bigint minor units (src/shared/money), never through floats.
 */

import { assetLabel } from '../../../../shared/activity';
import { formatMinor, isMinorUnits, parseMinor } from '../../../../shared/money';

export interface QuoteRequestLike {
  side: string;
  base_asset: string;
  quote_asset: string;
  requested_asset: string;
  requested_amount: string;
}

function amountOf(minor: string, asset: string): string {
  const n = isMinorUnits(minor) ? formatMinor(parseMinor(minor), asset, { code: false }) : minor;
  return `${n} ${assetLabel(asset)}`;
}

/** "Buy 25.00 USDT for USD" (amount in the base) or "Buy USDT for 100.00 USD" (in the quote asset). */
export function quoteTitle(r: QuoteRequestLike): string {
  const verb = r.side === 'sell' ? 'Sell' : r.side === 'buy' ? 'Buy' : r.side;
  const amount = amountOf(r.requested_amount, r.requested_asset);
  return r.requested_asset === r.quote_asset
    ? `${verb} ${assetLabel(r.base_asset)} for ${amount}`
    : `${verb} ${amount} for ${assetLabel(r.quote_asset)}`;
}

/** "Return to Acme Ltd" when the debtor is known on this workstation, else "Return of a transfer". */
export function returnTitle(debtorName: string | null | undefined): string {
  return debtorName ? `Return to ${debtorName}` : 'Return of a transfer';
}
