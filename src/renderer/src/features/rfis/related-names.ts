import { create } from 'zustand';
import { call } from '../../lib/desk';
import { objectKindWords, relatedWords, type RelatedName } from '../../../../shared/words';

/**
 * Names of the objects RFIs are about, as main names them through each RFI's OWNING profile
 * (`rfis.related`: that profile's account book and bank), never through the default profile: an
 * account by its own name and holder, a transfer by its counterparty and amount. Kept by profile
 * and id (ids are one bank's only). What nobody names stays its kind with the id (secondary).
 */
export interface RelatedNamesState {
  /** `relatedKey(profileId, relatedId)` → the object's name and holder. */
  names: Readonly<Record<string, RelatedName>>;
  /** Transactions that are this workstation's exchange orders: transaction id → order id. */
  orders: Readonly<Record<string, string>>;
  /** Reads the exchange orders, and lets objects nobody could name be asked for again. */
  load(): Promise<void>;
  /** Asks main to name these objects (each once per load; those already named are not asked). */
  want(items: readonly RelatedWanted[]): Promise<void>;
}

export interface RelatedWanted {
  /** The profile that owns the RFI (or the transfer); without one nothing is asked. */
  profileId?: string | null | undefined;
  type: string;
  relatedId: string;
}

export const relatedKey = (profileId: string | null | undefined, relatedId: string): string =>
  `${profileId ?? ''}\u0000${relatedId}`;

/** Keys already asked since the last load (an unnamed one is asked again after the next load). */
const asked = new Set<string>();
/** At most this many objects per call (the channel's limit). */
const BATCH = 500;

export const useRelatedNames = create<RelatedNamesState>((set, get) => ({
  names: {},
  orders: {},
  async load() {
    asked.clear();
    const exchange = await call('crypto.list', undefined).catch(() => null);
    const orders: Record<string, string> = {};
    for (const o of exchange?.orders ?? []) if (o.transactionId) orders[o.transactionId] = o.id;
    set({ orders });
  },
  async want(items) {
    const fresh: { profileId: string; type: string; relatedId: string }[] = [];
    for (const { profileId, type, relatedId } of items) {
      if (!profileId || !relatedId) continue;
      const key = relatedKey(profileId, relatedId);
      if (asked.has(key) || get().names[key]) continue;
      asked.add(key);
      fresh.push({ profileId, type, relatedId });
    }
    for (let i = 0; i < fresh.length; i += BATCH) {
      const answer = await call('rfis.related', { items: fresh.slice(i, i + BATCH) }).catch(() => null);
      if (!answer || answer.items.length === 0) continue;
      const names = { ...get().names };
      for (const r of answer.items)
        names[relatedKey(r.profileId, r.relatedId)] = { name: r.name, holder: r.holder };
      set({ names });
    }
  },
}));

/**
 * What an RFI is about, in words: the name main gave it (an account without its holder where that
 * entity, `entityShown`, is already named beside it), else null with the kind ("Transfer") for the
 * caller to show with the id.
 */
export function relatedLabel(
  names: Readonly<Record<string, RelatedName>>,
  profileId: string | null | undefined,
  type: string,
  relatedId: string,
  entityShown?: string | null,
): { name: string | null; kind: string } {
  const r = names[relatedKey(profileId, relatedId)];
  return { name: r ? relatedWords(r, entityShown) : null, kind: objectKindWords(type) };
}
