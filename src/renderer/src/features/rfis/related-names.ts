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
  /** `relatedKey(profileId, relatedId)` → the object's name and holder (a transfer's parts too). */
  names: Readonly<Record<string, RelatedName>>;
  /**
   * `relatedKey(profileId, relatedId)` of the objects main was asked for and gave no name (the
   * bank names none, or the call failed). An object neither named nor here is still being read:
   * a list says "reading…" for it, never a stand-in label that the name then replaces.
   */
  unnamed: Readonly<Record<string, true>>;
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
  unnamed: {},
  orders: {},
  async load() {
    asked.clear();
    set({ unnamed: {} });
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
      const batch = fresh.slice(i, i + BATCH);
      const answer = await call('rfis.related', { items: batch }).catch(() => null);
      // Not answered (main or the bank failed): asked again next time someone wants it.
      if (!answer) for (const f of batch) asked.delete(relatedKey(f.profileId, f.relatedId));
      const names = { ...get().names };
      for (const r of answer?.items ?? [])
        names[relatedKey(r.profileId, r.relatedId)] = {
          name: r.name,
          holder: r.holder,
          // A transfer's counterparty and amount, for lists that show them in columns.
          ...(r.transfer ? { transfer: r.transfer } : {}),
        };
      // Answered without a name, or failed: no longer being read.
      const unnamed = { ...get().unnamed };
      for (const f of batch) {
        const key = relatedKey(f.profileId, f.relatedId);
        if (!names[key]) unnamed[key] = true;
      }
      set({ names, unnamed });
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
