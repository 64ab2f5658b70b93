import { create } from 'zustand';
import { formatMinor, parseMinor } from '../../../../shared/money';
import { call } from '../../lib/desk';
import { objectKindWords } from '../../../../shared/words';
import { quoteTitle } from '../overview/labels';

/**
 * Names of the objects RFIs are about, from what this workstation already knows without asking
 * the bank once per row: the account book (account → its label) and the transfers looked up
 * recently (transaction → debtor). What is not known stays its id (shown secondary, monospace).
 */
export interface RelatedNamesState {
  names: Readonly<Record<string, string>>;
  /** Transactions that are this workstation's exchange orders: transaction id → order id. */
  orders: Readonly<Record<string, string>>;
  load(): Promise<void>;
}

export const useRelatedNames = create<RelatedNamesState>((set) => ({
  names: {},
  orders: {},
  async load() {
    const [book, recent, exchange] = await Promise.allSettled([
      call('crypto.context', undefined),
      call('returns.recent', undefined),
      call('crypto.list', undefined),
    ]);
    const names: Record<string, string> = {};
    const orders: Record<string, string> = {};
    if (exchange.status === 'fulfilled') {
      for (const o of exchange.value.orders) {
        if (!o.transactionId) continue;
        orders[o.transactionId] = o.id;
        names[o.transactionId] = quoteTitle(o.request);
      }
    }
    if (recent.status === 'fulfilled') {
      for (const t of recent.value.items)
        if (t.debtorName)
          names[t.transactionId] = `Transfer from ${t.debtorName}${amountText(t.amount, t.currency)}`;
    }
    if (book.status === 'fulfilled') {
      for (const a of book.value.accounts) names[a.accountId] = a.label;
    }
    set({ names, orders });
  },
}));

function amountText(amount: string | null, currency: string | null): string {
  if (!amount || !currency) return '';
  try {
    return `, ${formatMinor(parseMinor(amount), currency)}`;
  } catch {
    return '';
  }
}

/**
 * An account's label without its holder when the holder is the RFI's own entity, already named
 * beside it ("Alder Trade GmbH: Alder USD operating" for an Alder Trade GmbH RFI reads "Alder USD
 * operating"): the entity is said once, not on every line.
 */
export function withoutOwner(name: string, entityName: string | null | undefined): string {
  const prefix = entityName ? `${entityName}: ` : null;
  return prefix && name.startsWith(prefix) && name.length > prefix.length ? name.slice(prefix.length) : name;
}

/**
 * "Operating EUR account", or "Account" + the id when the name is not known here. With the RFI's
 * entity (`ownerName`), the name leaves out that entity, said elsewhere on the line or screen.
 */
export function relatedLabel(
  names: Readonly<Record<string, string>>,
  type: string,
  relatedId: string,
  ownerName?: string | null,
): { name: string | null; kind: string } {
  const name = names[relatedId];
  return { name: name === undefined ? null : withoutOwner(name, ownerName), kind: objectKindWords(type) };
}
