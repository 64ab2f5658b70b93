/**
 * Activity in words: the audit log's entries as sentences an analyst reads ("Return intent created
 * — 12,500.00 USD to Harbour Freight Ltd, reason: invalid creditor account number"), from the operation, its outcome and the facts
 * recorded with it. Pure: main adds the sentence to every entry it hands out (audit.list,
 * audit.recorded, the CSV export); the raw operation, key and ids stay beside it.
 */

import { reasonCodeName } from './catalogue';
import { formatMinor, isMinorUnits, parseMinor } from './money';

/**
 * What moved, recorded with an audit entry when the write is made (all optional: old entries have
 * none). Its zod schema is in ipc/channels/audit.ts; this file stays free of zod, since the
 * renderer's first chunk uses the describer.
 */
export interface ActivityFacts {
  /** Integer minor units of `currency` (returns: the amount returned). */
  amount?: string;
  currency?: string;
  /** Who the money goes to or came from (a return: the original transfer's debtor). */
  counterparty?: string;
  /** ISO return reason code (AC03, FOCR…). */
  reasonCode?: string;
  /**
   * Exchange: buy or sell, the digital asset (base) and its amount, and the currency paid or
   * received for it (quote) with its amount (minor units); an amount not known yet is left out.
   */
  side?: string;
  baseAsset?: string;
  baseAmount?: string;
  quoteAsset?: string;
  quoteAmount?: string;
}

export interface DescribableEntry {
  operation: string;
  outcome: 'succeeded' | 'failed' | 'pending';
  target: string | null;
  facts?: ActivityFacts | null | undefined;
}

/** The kinds the Activity screen filters by. */
export type ActivityKind = 'return' | 'exchange' | 'rfi' | 'webhook' | 'access' | 'other';

export function activityKindOf(operation: string): ActivityKind {
  if (operation.startsWith('return.')) return 'return';
  if (operation.startsWith('crypto.')) return 'exchange';
  if (operation.startsWith('rfi.')) return 'rfi';
  if (operation.startsWith('webhook.')) return 'webhook';
  if (/^(profile|token|bank_origin)\./.test(operation)) return 'access';
  return 'other';
}

const what: Record<string, { done: string; failed: string; pending: string }> = {
  'return.create_intent': {
    done: 'Return intent created',
    failed: 'Return intent refused',
    pending: 'Return intent sent, outcome not known yet',
  },
  'return.confirm': {
    done: 'Return confirmed',
    failed: 'Return not confirmed',
    pending: 'Return confirmation sent',
  },
  'return.cancel': {
    done: 'Return cancelled',
    failed: 'Return not cancelled',
    pending: 'Return cancellation sent',
  },
  'crypto.create_order': {
    done: 'Quote requested',
    failed: 'Quote refused',
    pending: 'Quote requested, outcome not known yet',
  },
  'crypto.confirm': {
    done: 'Quote confirmed',
    failed: 'Quote not confirmed',
    pending: 'Quote confirmation sent',
  },
  'rfi.respond': {
    done: 'RFI answered',
    failed: 'RFI answer not accepted',
    pending: 'RFI answer sent, outcome not known yet',
  },
  'rfi.upload': {
    done: 'Document uploaded for an RFI',
    failed: 'Document upload failed',
    pending: 'Document upload sent, outcome not known yet',
  },
  'profile.add': { done: 'Profile added', failed: 'Profile not added', pending: 'Profile being added' },
  'profile.rename': {
    done: 'Profile renamed',
    failed: 'Profile not renamed',
    pending: 'Profile being renamed',
  },
  'profile.activate': {
    done: 'Profile made the default',
    failed: 'Profile not made active',
    pending: 'Profile being made active',
  },
  'profile.remove': {
    done: 'Profile removed',
    failed: 'Profile not removed',
    pending: 'Profile being removed',
  },
  'token.set': { done: 'Token saved', failed: 'Token not saved', pending: 'Token being saved' },
  'token.delete': {
    done: 'Token removed (signed out)',
    failed: 'Token not removed',
    pending: 'Token being removed',
  },
  'bank_origin.approve': {
    done: 'Bank address approved',
    failed: 'Bank address declined',
    pending: 'Bank address awaiting approval',
  },
  'bank_origin.revoke': {
    done: 'Bank address approval withdrawn',
    failed: 'Bank address approval not withdrawn',
    pending: 'Bank address approval being withdrawn',
  },
  'webhook.set_url': {
    done: 'Webhook address changed',
    failed: 'Webhook address not changed',
    pending: 'Webhook address change sent',
  },
};

/** An asset as analysts name it: "ETHEREUM-USDT" → "USDT". */
export function assetLabel(asset: string): string {
  return asset.replace(/^ETHEREUM-/i, '');
}

/** The network an asset id names, in words: "ETHEREUM-USDT" → "Ethereum"; null for "USD". */
export function assetNetwork(asset: string): string | null {
  return /^ETHEREUM-/i.test(asset) ? 'Ethereum' : null;
}

/** The asset with its network as secondary words: "USDT · Ethereum"; "USD" as it is. */
export function assetLongLabel(asset: string): string {
  const network = assetNetwork(asset);
  return network ? `${assetLabel(asset)} · ${network}` : asset;
}

/**
 * An exchange pair in words, from the customer's side: "Buy USDT with USD", "Sell USDT for USD"
 * ("USDT against USD" without a side); the symbol ("USDT-USD") is secondary, shown after it.
 */
export function pairWords(side: string | null | undefined, base: string, quote: string): string {
  const b = assetLabel(base);
  const q = assetLabel(quote);
  if (side === 'buy') return `Buy ${b} with ${q}`;
  if (side === 'sell') return `Sell ${b} for ${q}`;
  return `${b} against ${q}`;
}

/** The hover title of an asset's name: its long label and the wire id, "USDT · Ethereum (ETHEREUM-USDT)". */
export function assetTitle(asset: string): string {
  return `${assetLongLabel(asset)} (${asset})`;
}

/** "12,500.00 USD", "25.00 USDT" from minor units; null when either is missing or not an amount. */
function money(amount: string | undefined, currency: string | undefined): string | null {
  if (!amount || !currency || !isMinorUnits(amount)) return null;
  return `${formatMinor(parseMinor(amount), currency, { code: false })} ${assetLabel(currency)}`;
}

function fallbackWords(operation: string): string {
  const words = operation.replace(/[._]/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** One sentence for one audit entry. */
export function describeActivity(entry: DescribableEntry): string {
  const words = what[entry.operation];
  const head = words
    ? entry.outcome === 'succeeded'
      ? words.done
      : entry.outcome === 'failed'
        ? words.failed
        : words.pending
    : `${fallbackWords(entry.operation)}${entry.outcome === 'succeeded' ? '' : ` (${entry.outcome})`}`;
  const f = entry.facts ?? {};
  const parts: string[] = [];
  switch (activityKindOf(entry.operation)) {
    case 'return': {
      const amount = money(f.amount, f.currency);
      const to = f.counterparty ? `to ${f.counterparty}` : '';
      const first = [amount, to].filter(Boolean).join(' ');
      if (first) parts.push(first);
      // The reason by its name; the code is in the entry's raw fields and the CSV.
      if (f.reasonCode) parts.push(`reason: ${reasonCodeName(f.reasonCode).toLowerCase()}`);
      break;
    }
    case 'exchange': {
      const side = f.side === 'sell' || f.side === 'buy' ? f.side : null;
      const base = money(f.baseAmount, f.baseAsset) ?? (f.baseAsset ? assetLabel(f.baseAsset) : null);
      const quote = money(f.quoteAmount, f.quoteAsset);
      if (side && base) parts.push(`${side} ${base}${quote ? ` for ${quote}` : ''}`);
      break;
    }
    case 'webhook':
    case 'rfi':
    case 'access':
      // The RFI, the uploaded document, the profile or the bank address acted on.
      if (entry.target) parts.push(entry.target);
      break;
    default:
      break;
  }
  return parts.length > 0 ? `${head} — ${parts.join(', ')}` : head;
}

/** What an exchange order does, in words: "buy 250.00 USDT for 250.00 USD" (no symbol, no ids). */
export function exchangeWords(
  side: string,
  c: {
    base_asset: string;
    quote_asset: string;
    customer_pays_amount: string;
    customer_receives_amount: string;
  },
): string {
  return describeActivity({
    operation: 'crypto.confirm',
    outcome: 'succeeded',
    target: null,
    facts: {
      side,
      baseAsset: c.base_asset,
      baseAmount: side === 'buy' ? c.customer_receives_amount : c.customer_pays_amount,
      quoteAsset: c.quote_asset,
      quoteAmount: side === 'buy' ? c.customer_pays_amount : c.customer_receives_amount,
    },
  }).replace(/^[^—]*— /, '');
}
