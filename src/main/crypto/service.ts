/**
 * The digital-asset exchange, main side: the account book (accounts.ts), this workstation's
 * orders (order-book.ts, a schema-checked state file), quotes created through the idempotency
 * ledger and read through the bank's visibility window (quoting.ts), confirmation under the
 * server-time guard, never queued (confirming.ts), and following a confirmed order to its
 * settlement with a native notification (tracking.ts). This file joins them.
 */

import type { CryptoContext, OrderView, QuoteArgs } from '../../shared/ipc/channels/crypto';
import type { FollowPolicy } from '../bank/follower';
import type { EventHub } from '../infra/events';
import type { IdempotencyLedger } from '../bank/ledger';
import type { Logger } from '../infra/log';
import type { Platform } from '../infra/platform';
import type { Operations } from '../bank/operations';
import type { RunningSandbox } from '../../sandbox';
import type { SettingsStore } from '../session/settings';
import type { Stores, TypedStore } from '../infra/stores';
import { DEFAULT_CONFIRM_MARGIN_MS } from './guard';
import { cryptoAccountsFormat, cryptoOrdersFormat } from './stored';
import { createAccountBook } from './accounts';
import type { StoredAccount } from './accounts';
import { createConfirming } from './confirming';
import { createOrderBook, appErrorOf, isFinalStatus } from './order-book';
import type { CryptoOwner, OrderRef, OrdersFile } from './order-book';
import { bodyOfRecord, bodyOf, createQuoting } from './quoting';
import { createOrderTracking } from './tracking';

export type { CryptoOwner, OrderRef } from './order-book';
export { orderFacts } from './order-book';

export interface CryptoDeps {
  /** The named profile (not_found when it is gone), else the default (active) profile. */
  owner(profileId?: string): CryptoOwner;
  /** The embedded sandbox, when it runs (its fixtures seed the sandbox profile's account book). */
  sandbox(): RunningSandbox | null;
  stores: Stores;
  operations: Operations;
  ledger: IdempotencyLedger;
  settings: SettingsStore;
  events: EventHub;
  platform: Platform;
  log: Logger;
}

export interface CryptoOptions {
  /** Confirm safety margin before quote_valid_until (plus round trip and clock uncertainty). */
  confirmMarginMs?: number;
  /**
   * How a confirmed order is re-read until it settles (backoff per order). `giveUpMs`: stop
   * following after this long (the order stays as last read; it can be refreshed).
   */
  follow?: Partial<FollowPolicy>;
  /** Re-reads of confirmed orders in flight at once. */
  followMaxInFlight?: number;
}

/**
 * Orders act through the profile they belong to (their `environmentId`), whatever is active; a new
 * quote and the account book are the named profile's, else the default profile's.
 */
export interface CryptoService {
  context(profileId?: string): Promise<CryptoContext>;
  saveAccount(input: {
    accountId: string;
    label: string;
    asset?: string;
    profileId: string;
  }): Promise<CryptoContext>;
  removeAccount(accountId: string, profileId: string): Promise<CryptoContext>;
  quote(args: QuoteArgs): Promise<OrderView>;
  /** An order is named by the profile that owns it and its id: another profile's order is not found. */
  requote(ref: OrderRef): Promise<OrderView>;
  confirm(ref: OrderRef): Promise<OrderView>;
  order(ref: OrderRef, refresh?: boolean): Promise<OrderView>;
  list(): Promise<OrderView[]>;
  dispose(): void;
}

export async function createCryptoService(
  deps: CryptoDeps,
  options: CryptoOptions = {},
): Promise<CryptoService> {
  const marginMs = options.confirmMarginMs ?? DEFAULT_CONFIRM_MARGIN_MS;
  const orders: TypedStore<OrdersFile> = await deps.stores.open('crypto-orders', cryptoOrdersFormat, {
    orders: [],
  });
  const accounts: TypedStore<{ accounts: StoredAccount[] }> = await deps.stores.open(
    'crypto-accounts',
    cryptoAccountsFormat,
    { accounts: [] },
  );
  const stop = new AbortController();
  let offline = false;
  const unsubscribeSystem = deps.platform.onSystemEvent((e) => {
    if (e === 'offline') offline = true;
    if (e === 'online' || e === 'resume') offline = false;
  });

  const book = createOrderBook({ ...deps, orders, marginMs });
  const tracking = createOrderTracking({
    book,
    settings: deps.settings,
    platform: deps.platform,
    log: deps.log,
    stop: stop.signal,
    ...(options.follow ? { follow: options.follow } : {}),
    ...(options.followMaxInFlight !== undefined ? { followMaxInFlight: options.followMaxInFlight } : {}),
  });
  const accountBook = createAccountBook({ accounts, owner: deps.owner, sandbox: deps.sandbox, marginMs });
  const create = createQuoting({ book, tracking, operations: deps.operations, ledger: deps.ledger });
  const confirm = createConfirming({
    book,
    tracking,
    operations: deps.operations,
    offline: () => offline,
    stop: stop.signal,
  });

  const service: CryptoService = {
    context: accountBook.context,
    saveAccount: accountBook.save,
    removeAccount: accountBook.remove,
    quote: ({ profileId, ...args }) => create(bodyOf(args), null, deps.owner(profileId)),
    async requote(ref) {
      const r = book.owned(ref);
      return create(bodyOfRecord(r), r.id, book.ownerOf(r));
    },
    confirm,
    async order(ref, refresh) {
      let r = book.owned(ref);
      const orderId = r.id;
      if (refresh && r.transactionId && r.phase === 'visible' && !isFinalStatus(r.status)) {
        try {
          r = await tracking.read(orderId, r.transactionId);
        } catch (err) {
          // The last known state is still worth showing; say why it is not fresh.
          r = book.update(orderId, { error: appErrorOf(err) });
        }
      }
      return book.view(r);
    },
    async list() {
      // Every profile's orders, each as far as its own credential can read it (an order of another
      // legal entity than the profile's token now is not listed); a removed profile's are not.
      const mine = orders.get().orders.filter((o) => {
        let entity: string | null;
        try {
          entity = book.ownerOf(o).credential?.legalEntityId ?? null;
        } catch {
          return false;
        }
        return !o.legalEntityId || !entity || o.legalEntityId === entity;
      });
      for (const r of mine) {
        // Orders left unsettled by an earlier run are followed again.
        if (r.transactionId && r.phase === 'visible' && r.status === 'pending_execution') tracking.follow(r);
        if (r.transactionId && r.phase !== 'visible' && r.phase !== 'create_failed')
          tracking.awaitVisible(r.id, r.transactionId);
        tracking.scheduleExpiryCheck(r);
      }
      return mine.map(book.view);
    },
    dispose() {
      stop.abort();
      tracking.dispose();
      unsubscribeSystem();
    },
  };
  // Orders an earlier run left unsettled are followed again from the start.
  for (const r of orders.get().orders) {
    if (r.phase !== 'visible' || r.status !== 'pending_execution') continue;
    try {
      book.ownerOf(r);
      tracking.follow(r);
    } catch (err) {
      deps.log.warn('crypto: the profile of an unsettled order is gone', { error: err });
    }
  }
  return service;
}
