import { create } from 'zustand';
import type { CryptoContext, OrderView, QuoteArgs } from '../../../../shared/ipc/channels/crypto';
import { call, errorMessage } from '../../lib/desk';
import { onEvents, sharedSubscription } from '../../lib/events';
import { onSessionChange } from '../session/store';

/**
 * The exchange screens' state: the form context (role, account book), this workstation's orders,
 * and the offset between the bank's clock and this window's clock (learned from every order view
 * main sends, so countdowns run in bank time even when this machine's clock is wrong).
 */
export interface CryptoStore {
  context: CryptoContext | null;
  contextError: string | null;
  orders: Record<string, OrderView>;
  /** Ids newest first, as last listed. */
  listIds: string[];
  listLoaded: boolean;
  listError: string | null;
  /** Bank time − Date.now() in this window, in ms. */
  offsetMs: number;
  /** Per order: the last action's error. */
  errors: Record<string, string | null>;
  busy: Record<string, boolean>;
  /** The form context of a profile (the entity a new quote is for); default: the default profile. */
  loadContext(profileId?: string | null): Promise<void>;
  loadList(): Promise<void>;
  loadOrder(orderId: string, refresh?: boolean): Promise<OrderView | null>;
  /** A quote for the named profile, else for the entity whose context the form shows. */
  quote(args: Omit<QuoteArgs, 'profileId'> & { profileId?: string }): Promise<OrderView>;
  requote(orderId: string): Promise<OrderView | null>;
  confirm(orderId: string): Promise<void>;
  saveAccount(input: { accountId: string; label: string; asset?: string }): Promise<void>;
  removeAccount(accountId: string): Promise<void>;
  /** Takes an order view main sent (an answer or a push). */
  accept(view: OrderView): OrderView;
}

function offsetFrom(view: OrderView): number {
  const server = Date.parse(view.serverNow);
  return Number.isFinite(server) ? server - Date.now() : 0;
}

export const useCrypto = create<CryptoStore>((set, get) => {
  const accept = (view: OrderView): OrderView => {
    set((s) => ({
      orders: { ...s.orders, [view.id]: view },
      listIds: s.listIds.includes(view.id) ? s.listIds : [view.id, ...s.listIds],
      offsetMs: offsetFrom(view),
    }));
    return view;
  };
  const setBusy = (id: string, value: boolean): void => set((s) => ({ busy: { ...s.busy, [id]: value } }));
  const setError = (id: string, value: string | null): void =>
    set((s) => ({ errors: { ...s.errors, [id]: value } }));
  /** An order is named with the profile that owns it (the list says it; a link's order is looked up there). */
  const refOf = async (orderId: string): Promise<{ profileId: string; orderId: string }> => {
    let known = get().orders[orderId];
    if (!known) {
      await get().loadList();
      known = get().orders[orderId];
    }
    if (!known) throw new Error('This exchange order is not kept on this workstation.');
    return { profileId: known.environmentId, orderId };
  };

  return {
    accept,
    context: null,
    contextError: null,
    orders: {},
    listIds: [],
    listLoaded: false,
    listError: null,
    offsetMs: 0,
    errors: {},
    busy: {},
    async loadContext(profileId) {
      try {
        set({
          context: await call('crypto.context', profileId ? { profileId } : undefined),
          contextError: null,
        });
      } catch (err) {
        set({ contextError: errorMessage(err) });
      }
    },
    async loadList() {
      try {
        const { orders } = await call('crypto.list', undefined);
        const map: Record<string, OrderView> = {};
        for (const o of orders) map[o.id] = o;
        const first = orders[0];
        set((s) => ({
          orders: { ...s.orders, ...map },
          listIds: orders.map((o) => o.id),
          listLoaded: true,
          listError: null,
          ...(first ? { offsetMs: offsetFrom(first) } : {}),
        }));
      } catch (err) {
        set({ listError: errorMessage(err), listLoaded: true });
      }
    },
    async loadOrder(orderId, refresh = false) {
      try {
        return accept(await call('crypto.order', { ...(await refOf(orderId)), refresh }));
      } catch (err) {
        setError(orderId, errorMessage(err));
        return null;
      }
    },
    async quote(args) {
      // The quote is for the entity whose context the form shows.
      const profileId = args.profileId ?? get().context?.environmentId;
      if (!profileId) throw new Error('Choose the entity the exchange is for first.');
      return accept(await call('crypto.quote', { ...args, profileId }));
    },
    async requote(orderId) {
      setBusy(orderId, true);
      setError(orderId, null);
      try {
        return accept(await call('crypto.requote', await refOf(orderId)));
      } catch (err) {
        setError(orderId, errorMessage(err));
        return null;
      } finally {
        setBusy(orderId, false);
      }
    },
    async confirm(orderId) {
      setBusy(orderId, true);
      setError(orderId, null);
      try {
        accept(await call('crypto.confirm', await refOf(orderId)));
      } catch (err) {
        setError(orderId, errorMessage(err));
        await get().loadOrder(orderId);
      } finally {
        setBusy(orderId, false);
      }
    },
    async saveAccount(input) {
      const profileId = get().context?.environmentId;
      if (!profileId) throw new Error('Choose the entity the account is for first.');
      set({
        context: await call('crypto.saveAccount', { ...input, profileId }),
        contextError: null,
      });
    },
    async removeAccount(accountId) {
      const profileId = get().context?.environmentId;
      if (!profileId) throw new Error('Choose the entity the account is for first.');
      set({
        context: await call('crypto.removeAccount', { accountId, profileId }),
        contextError: null,
      });
    },
  };
});

/** Orders as main reports them; the form context again when the session changes. */
export const cryptoSubscription = sharedSubscription(() => {
  const offEvents = onEvents({ 'crypto.orderChanged': (view) => useCrypto.getState().accept(view) });
  const offSession = onSessionChange(() => void useCrypto.getState().loadContext());
  return () => {
    offEvents();
    offSession();
  };
});

/** Statuses after which an order no longer changes (unknown ones may still move). */
export const FINAL_STATUSES = new Set([
  'completed',
  'failed',
  'expired',
  'declined',
  'cancelled',
  // Local: the bank refused to create the quote.
  'refused',
]);
