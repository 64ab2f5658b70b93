/**
 * The digital-asset exchange, main side: the account book, this workstation's orders
 * (kept in a schema-checked state file), quotes created through the idempotency ledger and read
 * through the bank's visibility window, confirmation under the server-time guard (never queued),
 * and following a confirmed order to its settlement with a native notification.
 */

import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { CryptoOrderRequest, Transaction } from '../../shared/api';
import { digitalAssetBySymbol } from '../../shared/catalogue';
import type { AccountBookEntry, CryptoContext, OrderView, QuoteArgs } from '../../shared/ipc/channels/crypto';
import { DeskFailure } from '../../shared/ipc/errors';
import type { ActivityFacts } from '../../shared/activity';
import { formatMinor, isPositiveMinorUnits, parseMinor } from '../../shared/money';
import type { BankClient } from '../bank/client';
import { createFollower } from '../bank/follower';
import type { FollowPolicy, FollowUpdate } from '../bank/follower';
import type { ServerClock } from '../bank/clock';
import type { EventHub } from '../infra/events';
import type { IdempotencyLedger } from '../bank/ledger';
import type { Logger } from '../infra/log';
import type { Platform } from '../infra/platform';
import type { ReadAfterCreate } from '../bank/read-after-create';
import type { Operations } from '../bank/operations';
import type { RunningSandbox } from '../../sandbox';
import type { SettingsStore } from '../session/settings';
import type { Stores, TypedStore } from '../infra/stores';
import {
  ConfirmRefused,
  DEFAULT_CONFIRM_MARGIN_MS,
  decideConfirm,
  guardedConfirm,
  requiredHeadroomMs,
} from './guard';
import { cryptoAccountsFormat, cryptoOrdersFormat } from './stored';
import type { storedAccountSchema, storedOrderRecordSchema } from './stored';

/** The profile an order (or a new quote) belongs to: its bank client, clock and credential. */
export interface CryptoOwner {
  readonly profileId: string;
  readonly bank: Pick<BankClient, 'getTransaction' | 'confirmCryptoOrder'>;
  readonly clock: ServerClock;
  /** As the bank last reported it (null before a check). */
  readonly credential: { role: string; legalEntityId: string } | null;
  check(): Promise<unknown>;
  /** 'embedded-sandbox' or 'remote'. */
  readonly kind: string;
  /** The bank's origin (a remote profile pointed at the embedded sandbox shares its fixtures). */
  readonly origin: string | null;
  readAfterCreate: ReadAfterCreate;
}

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
    profileId?: string;
  }): Promise<CryptoContext>;
  removeAccount(accountId: string, profileId?: string): Promise<CryptoContext>;
  quote(args: QuoteArgs): Promise<OrderView>;
  requote(orderId: string): Promise<OrderView>;
  confirm(orderId: string): Promise<OrderView>;
  order(orderId: string, refresh?: boolean): Promise<OrderView>;
  list(): Promise<OrderView[]>;
  dispose(): void;
}

type OrderRecord = z.infer<typeof storedOrderRecordSchema>;

/**
 * What an order moves, for the audit log's sentence: the side, the digital asset and the currency,
 * with the bank's amounts once it has quoted (else the amount asked for, on its side).
 */
export function orderFacts(r: {
  body: Pick<
    OrderRecord['body'],
    'side' | 'base_asset' | 'quote_asset' | 'requested_asset' | 'requested_amount'
  >;
  crypto: OrderRecord['crypto'];
}): ActivityFacts {
  const { body, crypto } = r;
  const facts: ActivityFacts = { side: body.side, baseAsset: body.base_asset, quoteAsset: body.quote_asset };
  if (crypto) {
    const buy = body.side === 'buy';
    facts.baseAmount = buy ? crypto.customer_receives_amount : crypto.customer_pays_amount;
    facts.quoteAmount = buy ? crypto.customer_pays_amount : crypto.customer_receives_amount;
  } else if (body.requested_asset === body.base_asset) {
    facts.baseAmount = body.requested_amount;
  } else {
    facts.quoteAmount = body.requested_amount;
  }
  return facts;
}
type StoredAccount = z.infer<typeof storedAccountSchema>;

const MAX_ORDERS = 500;
/** The quote-expiry reminder comes this long before quote_valid_until. */
const EXPIRY_WARNING_MS = 10_000;
/** Statuses after which nothing changes any more. Anything else (unknown too) may still move. */
const FINAL = new Set([
  'completed',
  'failed',
  'expired',
  'declined',
  'cancelled',
  'refund_completed',
  'return_completed',
]);

function deskErrorOf(err: unknown): { message: string; reason: string | null } {
  if (err instanceof DeskFailure) return { message: err.message, reason: err.reason ?? null };
  return { message: 'Unexpected error; see the log.', reason: null };
}

export async function createCryptoService(
  deps: CryptoDeps,
  options: CryptoOptions = {},
): Promise<CryptoService> {
  const { events, log } = deps;
  const marginMs = options.confirmMarginMs ?? DEFAULT_CONFIRM_MARGIN_MS;
  const orders: TypedStore<{ orders: OrderRecord[] }> = await deps.stores.open(
    'crypto-orders',
    cryptoOrdersFormat,
    { orders: [] },
  );
  const accounts: TypedStore<{ accounts: StoredAccount[] }> = await deps.stores.open(
    'crypto-accounts',
    cryptoAccountsFormat,
    { accounts: [] },
  );
  const stop = new AbortController();
  const expiryTimers = new Map<string, NodeJS.Timeout>();
  const warnTimers = new Map<string, NodeJS.Timeout>();
  const warned = new Set<string>();
  const seededFor = new Set<string>();
  let lastRoundTripMs = 0;
  let offline = false;
  const unsubscribeSystem = deps.platform.onSystemEvent((e) => {
    if (e === 'offline') offline = true;
    if (e === 'online' || e === 'resume') offline = false;
  });

  /** The profile an order belongs to. */
  const ownerOf = (r: Pick<OrderRecord, 'environmentId'>): CryptoOwner => deps.owner(r.environmentId);

  // ---- Records ----

  const getRecord = (id: string): OrderRecord => {
    const r = orders.get().orders.find((o) => o.id === id);
    if (!r) throw new DeskFailure({ kind: 'not_found', message: `No exchange order ${id} here.` });
    return r;
  };

  const putRecord = (next: OrderRecord): OrderRecord => {
    orders.update((file) => {
      const rest = file.orders.filter((o) => o.id !== next.id);
      const all = [next, ...rest];
      // Keep the newest; drop the oldest final orders beyond the cap.
      while (all.length > MAX_ORDERS) {
        const i = all.map((o) => o.status !== null && FINAL.has(o.status)).lastIndexOf(true);
        if (i < 0) break;
        all.splice(i, 1);
      }
      return { orders: all };
    });
    return next;
  };

  const update = (id: string, patch: Partial<OrderRecord>): OrderRecord => {
    const current = orders.get().orders.find((o) => o.id === id);
    if (!current) throw new DeskFailure({ kind: 'not_found', message: `No exchange order ${id} here.` });
    const next = putRecord({ ...current, ...patch });
    events.emit('crypto.orderChanged', view(next));
    return next;
  };

  const canTrade = (owner: CryptoOwner): { ok: boolean; reason: string | null } => {
    const cred = owner.credential;
    if (!cred) return { ok: false, reason: 'The bank has not confirmed the credential yet.' };
    if (cred.role !== 'admin') {
      return {
        ok: false,
        reason: `This credential has the ${cred.role} role: it can read quotes and orders but not create or confirm them (admin only).`,
      };
    }
    return { ok: true, reason: null };
  };

  const validUntilOf = (r: OrderRecord): number =>
    r.crypto ? Date.parse(r.crypto.quote_valid_until) : Number.NaN;

  /** The last read of an order: the follower's reads that changed nothing are not written. */
  const lastReadOf = (r: OrderRecord, serverNow: number, clock: ServerClock): string | null => {
    const at = readAt.get(r.id);
    return at === undefined ? r.lastReadAt : new Date(serverNow - (clock.localNow() - at)).toISOString();
  };

  const view = (r: OrderRecord): OrderView => {
    const owner = ownerOf(r);
    const clock = owner.clock;
    const serverNow = clock.now();
    const validUntil = validUntilOf(r);
    const expiredByClock =
      r.status === 'in_progress' && Number.isFinite(validUntil) && serverNow >= validUntil;
    const displayStatus = expiredByClock
      ? 'expired'
      : (r.status ??
        (r.phase === 'create_failed' ? 'refused' : r.phase === 'creating' ? 'creating' : 'awaiting_bank'));
    const decision = decideConfirm({
      validUntilMs: validUntil,
      serverNowMs: serverNow,
      uncertaintyMs: clock.uncertaintyMs,
      roundTripMs: lastRoundTripMs,
      marginMs,
    });
    const uncertainty = Number.isFinite(clock.uncertaintyMs) ? clock.uncertaintyMs : 0;
    return {
      id: r.id,
      environmentId: r.environmentId,
      createdAt: r.createdAt,
      requoteOf: r.requoteOf,
      request: r.body,
      idempotencyKey: r.idempotencyKey,
      transactionId: r.transactionId,
      phase: r.phase,
      status: r.status,
      displayStatus,
      crypto: r.crypto,
      error: r.error,
      serverNow: new Date(serverNow).toISOString(),
      safetyMarginMs: Math.ceil(
        requiredHeadroomMs({ marginMs, roundTripMs: lastRoundTripMs, uncertaintyMs: uncertainty }),
      ),
      confirmable: r.status === 'in_progress' && decision.allowed && canTrade(owner).ok,
      lastReadAt: lastReadOf(r, serverNow, clock),
    };
  };

  // ---- Reading the bank ----

  /** A confirmed-here order that just settled and was not announced yet. */
  const settles = (r: OrderRecord): boolean =>
    r.confirmedHere &&
    !r.notified &&
    r.crypto !== null &&
    (r.status === 'completed' || r.status === 'failed');

  /** The native notification of a settled order (its record already says notified). */
  const showSettled = (r: OrderRecord): void => {
    if (!r.crypto || !deps.settings.get().notifications.transactionStatus) return;
    const c = r.crypto;
    const pays = formatMinor(parseMinor(c.customer_pays_amount), c.customer_pays_asset);
    const receives = formatMinor(parseMinor(c.customer_receives_amount), c.customer_receives_asset);
    deps.platform.notify(
      r.status === 'completed'
        ? {
            title: `Exchange settled: ${c.symbol} ${c.side}`,
            body: `Paid ${pays}, received ${receives}. Transaction ${r.transactionId ?? ''}.`,
          }
        : {
            title: `Exchange failed: ${c.symbol} ${c.side}`,
            body: `Order ${r.transactionId ?? ''} failed${c['failure_reason'] ? ` (${String(c['failure_reason'])})` : ''}; nothing was exchanged.`,
          },
    );
  };

  const notifySettled = (r: OrderRecord): void => {
    if (!settles(r)) return;
    showSettled(update(r.id, { notified: true }));
  };

  const apply = (id: string, tx: Transaction): OrderRecord => {
    readAt.delete(id);
    const next = update(id, {
      status: tx.status,
      crypto: tx.crypto_trade_v2 ?? null,
      phase: 'visible',
      lastReadAt: new Date(ownerOf(getRecord(id)).clock.now()).toISOString(),
    });
    notifySettled(next);
    scheduleExpiryCheck(next);
    return next;
  };

  const read = async (id: string, transactionId: string): Promise<OrderRecord> => {
    const { bank, clock } = ownerOf(getRecord(id));
    const t0 = clock.localNow();
    const tx = await bank.getTransaction(transactionId, { signal: stop.signal });
    lastRoundTripMs = Math.max(0, clock.localNow() - t0);
    return apply(id, tx);
  };

  // ---- Following confirmed orders to settlement ----

  /** The state of an order as far as following is concerned: a read with the same one changes nothing. */
  const stateOf = (status: string | null, crypto: unknown): string =>
    `${status ?? ''}|${JSON.stringify(crypto ?? null)}`;
  const isFinalStatus = (status: string | null): boolean => status !== null && FINAL.has(status);
  /** Followed transaction id → order id. */
  const followedOrders = new Map<string, string>();
  /** Reads by the follower that found nothing new are not written; the view still says when. */
  const readAt = new Map<string, number>();

  /** Applies the follower's changed reads: one store write for the whole batch, then the pushes. */
  const applyFollowed = (batch: Array<FollowUpdate<Transaction>>): void => {
    const byOrder = new Map<string, FollowUpdate<Transaction>>();
    for (const u of batch) {
      const orderId = followedOrders.get(u.transactionId);
      if (orderId) byOrder.set(orderId, u);
      if (u.final) followedOrders.delete(u.transactionId);
    }
    if (byOrder.size === 0 || stop.signal.aborted) return;
    const changed: OrderRecord[] = [];
    const settled: OrderRecord[] = [];
    orders.update((file) => {
      const rest: OrderRecord[] = [];
      for (const o of file.orders) {
        const u = byOrder.get(o.id);
        if (!u || o.transactionId !== u.transactionId) {
          rest.push(o);
          continue;
        }
        let next: OrderRecord = {
          ...o,
          status: u.value.status,
          crypto: u.value.crypto_trade_v2 ?? null,
          phase: 'visible',
          lastReadAt: new Date(ownerOf(o).clock.now()).toISOString(),
        };
        if (settles(next)) {
          next = { ...next, notified: true };
          settled.push(next);
        }
        changed.push(next);
      }
      // Updated orders come first, as every other update puts them.
      return { orders: [...changed, ...rest] };
    });
    for (const r of changed) {
      readAt.delete(r.id);
      events.emit('crypto.orderChanged', view(r));
      scheduleExpiryCheck(r);
    }
    for (const r of settled) showSettled(r);
  };

  /** The profile a followed transaction is read through. */
  const followOwner = (transactionId: string): CryptoOwner => {
    const orderId = followedOrders.get(transactionId);
    const r = orderId ? orders.get().orders.find((o) => o.id === orderId) : undefined;
    if (!r) throw new DeskFailure({ kind: 'not_found', message: 'This order is no longer kept here.' });
    return ownerOf(r);
  };
  const follower = createFollower<Transaction>({
    read: async (transactionId, signal) => {
      const { bank, clock } = followOwner(transactionId);
      const t0 = clock.localNow();
      const tx = await bank.getTransaction(transactionId, { signal });
      lastRoundTripMs = Math.max(0, clock.localNow() - t0);
      return tx;
    },
    isFinal: (tx) => isFinalStatus(tx.status),
    fingerprint: (tx) => stateOf(tx.status, tx.crypto_trade_v2),
    onRead: (transactionId, at) => {
      const orderId = followedOrders.get(transactionId);
      if (orderId) readAt.set(orderId, at);
    },
    onBatch: applyFollowed,
    now: () => Date.now(),
    onBatchError: (err) => log.warn('crypto: recording re-read orders failed', { error: err }),
    onError: (transactionId, err) => {
      // Not this credential's or this bank's order (switched meanwhile): the list follows it again.
      if (err instanceof DeskFailure && (err.kind === 'not_found' || err.kind === 'forbidden')) {
        followedOrders.delete(transactionId);
        return 'stop';
      }
      log.warn('crypto: re-reading an order failed; trying again', { transactionId, error: err });
      return 'retry';
    },
    onGiveUp: (transactionId) => followedOrders.delete(transactionId),
    policy: { giveUpMs: 10 * 60_000, ...options.follow },
    ...(options.followMaxInFlight !== undefined ? { maxInFlight: options.followMaxInFlight } : {}),
  });

  /** Re-read a confirmed order until it is final (or the give-up time passes). */
  const follow = (r: OrderRecord): void => {
    const transactionId = r.transactionId;
    if (!transactionId || isFinalStatus(r.status) || stop.signal.aborted) return;
    if (follower.isFollowing(transactionId)) return;
    followedOrders.set(transactionId, r.id);
    // Followed through its own profile, whatever is active, until the app stops.
    follower.follow(transactionId, {
      known: stateOf(r.status, r.crypto),
      active: () => !stop.signal.aborted,
    });
  };

  /** An unconfirmed quote: one re-read just after it expires, so the list shows expired. */
  function scheduleExpiryCheck(r: OrderRecord): void {
    if (r.status !== 'in_progress' || !r.transactionId || expiryTimers.has(r.id) || stop.signal.aborted)
      return;
    const validUntil = validUntilOf(r);
    if (!Number.isFinite(validUntil)) return;
    const clock = ownerOf(r).clock;
    const delay = Math.min(2 ** 31 - 1, Math.max(0, validUntil - clock.now()) + 1500);
    const txId = r.transactionId;
    const timer = setTimeout(() => {
      expiryTimers.delete(r.id);
      const current = orders.get().orders.find((o) => o.id === r.id);
      if (current?.status !== 'in_progress') return;
      read(r.id, txId).catch((err: unknown) => log.warn('crypto: expiry re-read failed', { error: err }));
    }, delay);
    timer.unref?.();
    expiryTimers.set(r.id, timer);

    // A native reminder 10 s before expiry (Settings → notifications → quote expiry).
    const warnIn = validUntil - EXPIRY_WARNING_MS - clock.now();
    if (warnIn > 0 && !warned.has(r.id) && !warnTimers.has(r.id)) {
      const warn = setTimeout(
        () => {
          warnTimers.delete(r.id);
          const current = orders.get().orders.find((o) => o.id === r.id);
          if (current?.status !== 'in_progress' || current.confirmedHere || warned.has(r.id)) return;
          const left = validUntilOf(current) - clock.now();
          if (!(left > 0)) return;
          warned.add(r.id);
          if (!deps.settings.get().notifications.quoteExpiry) return;
          deps.platform.notify({
            title: `Quote about to expire: ${current.body.symbol} ${current.body.side}`,
            body: `${Math.ceil(left / 1000)} s left to confirm quote ${current.transactionId ?? ''}.`,
          });
        },
        Math.min(2 ** 31 - 1, warnIn),
      );
      warn.unref?.();
      warnTimers.set(r.id, warn);
    }
  }

  /** The read-after-create window of a new quote, in the background. */
  const awaiting = new Set<string>();
  const awaitVisible = (id: string, transactionId: string): void => {
    if (awaiting.has(id)) return;
    awaiting.add(id);
    void ownerOf(getRecord(id))
      .readAfterCreate(transactionId, {
        signal: stop.signal,
        onState: (u) => {
          if (u.state === 'processing' || u.state === 'still_processing') {
            const current = orders.get().orders.find((o) => o.id === id);
            const phase = u.state === 'processing' ? 'not_visible' : 'still_processing';
            if (current && current.phase !== phase && current.phase !== 'visible') update(id, { phase });
          }
        },
      })
      .then((tx) => {
        const r = apply(id, tx);
        if (r.status === 'pending_execution') follow(r);
      })
      .catch((err: unknown) => {
        if (stop.signal.aborted) return;
        update(id, { error: deskErrorOf(err) });
      })
      .finally(() => awaiting.delete(id));
  };

  // ---- Account book ----

  const seedFromSandbox = (owner: CryptoOwner): void => {
    const sb = deps.sandbox();
    if (!sb || (owner.kind !== 'embedded-sandbox' && owner.origin !== new URL(sb.url).origin)) return;
    const key = `${owner.profileId}|${sb.url}`;
    if (seededFor.has(key)) return;
    seededFor.add(key);
    const env = owner.profileId;
    accounts.update((file) => {
      const have = new Set(file.accounts.filter((a) => a.environmentId === env).map((a) => a.accountId));
      const added: StoredAccount[] = [];
      for (const le of sb.fixtures.legal_entities) {
        for (const acc of le.accounts) {
          if (have.has(acc.id)) continue;
          added.push({
            environmentId: env,
            accountId: acc.id,
            label: `${le.name}: ${acc.name}`,
            asset: acc.asset,
            legalEntityId: le.id,
            source: 'sandbox',
          });
        }
      }
      return { accounts: [...file.accounts, ...added] };
    });
  };

  const context = async (profileId?: string): Promise<CryptoContext> => {
    const owner = deps.owner(profileId);
    if (!owner.credential) await owner.check().catch(() => undefined);
    seedFromSandbox(owner);
    const env = owner.profileId;
    const trade = canTrade(owner);
    return {
      environmentId: env,
      role: owner.credential?.role ?? null,
      legalEntityId: owner.credential?.legalEntityId ?? null,
      canTrade: trade.ok,
      readOnlyReason: trade.reason,
      accounts: accounts
        .get()
        .accounts.filter((a) => a.environmentId === env)
        .map(({ environmentId: _e, ...entry }): AccountBookEntry => entry),
      confirmMarginMs: marginMs,
    };
  };

  const requireTrade = async (owner: CryptoOwner): Promise<void> => {
    if (!owner.credential) await owner.check().catch(() => undefined);
    const trade = canTrade(owner);
    if (!trade.ok) throw new DeskFailure({ kind: 'forbidden', message: trade.reason ?? 'Not allowed.' });
  };

  // ---- Quotes ----

  const create = async (
    body: CryptoOrderRequest,
    requoteOf: string | null,
    owner: CryptoOwner,
  ): Promise<OrderView> => {
    await requireTrade(owner);
    const id = `cx-${randomUUID()}`;
    putRecord({
      id,
      environmentId: owner.profileId,
      legalEntityId: owner.credential?.legalEntityId ?? null,
      createdAt: new Date(owner.clock.now()).toISOString(),
      requoteOf,
      body: {
        side: body.side,
        symbol: body.symbol,
        base_asset: body.base_asset,
        quote_asset: body.quote_asset,
        requested_asset: body.requested_asset,
        requested_amount: body.requested_amount,
        customer_pays_account_id: body.customer_pays_account_id,
        customer_receives_account_id: body.customer_receives_account_id,
        description: body.description ?? '',
        additional_details: body.additional_details ?? '',
      },
      idempotencyKey: null,
      transactionId: null,
      phase: 'creating',
      status: null,
      crypto: null,
      error: null,
      lastReadAt: null,
      confirmedHere: false,
      notified: false,
    });
    events.emit('crypto.orderChanged', view(getRecord(id)));
    try {
      const res = await deps.operations.createCryptoOrder(
        id,
        body,
        orderFacts({ body, crypto: null }),
        owner.profileId,
      );
      const r = update(id, {
        transactionId: res.transactionId,
        idempotencyKey: res.idempotencyKey,
        phase: 'not_visible',
      });
      awaitVisible(id, res.transactionId);
      return view(r);
    } catch (err) {
      const error = deskErrorOf(err);
      if (deps.ledger.get(id)?.state === 'pending') {
        // Ambiguous (offline, 5xx): the bank may have made the quote. It moves no funds unless
        // confirmed, and it expires by itself, so a new quote is safe.
        error.message = `${error.message} The bank may or may not have made this quote; it cannot be confirmed from here and expires by itself. Request a new quote when the bank answers.`;
      }
      update(id, {
        phase: 'create_failed',
        error,
        // The ledger keeps the key of the attempt even when it failed.
        idempotencyKey: deps.ledger.get(id)?.key ?? null,
      });
      throw err;
    }
  };

  const bodyOf = (args: QuoteArgs): CryptoOrderRequest => {
    const asset = digitalAssetBySymbol(args.symbol);
    if (!asset) {
      throw new DeskFailure({
        kind: 'invalid_argument',
        field: 'symbol',
        message: `symbol: ${args.symbol} is not supported.`,
      });
    }
    if (args.requestedAsset !== asset.base_asset && args.requestedAsset !== asset.quote_asset) {
      throw new DeskFailure({
        kind: 'invalid_argument',
        field: 'requestedAsset',
        message: `requestedAsset: must be ${asset.base_asset} or ${asset.quote_asset}.`,
      });
    }
    if (!isPositiveMinorUnits(args.requestedAmount)) {
      throw new DeskFailure({
        kind: 'invalid_argument',
        field: 'requestedAmount',
        message: 'requestedAmount: must be a positive amount.',
      });
    }
    return {
      side: args.side,
      priority: 'instant',
      rail: 'rfq',
      symbol: asset.symbol,
      base_asset: asset.base_asset,
      quote_asset: asset.quote_asset,
      requested_asset: args.requestedAsset,
      requested_amount: args.requestedAmount,
      customer_pays_account_id: args.paysAccountId,
      customer_receives_account_id: args.receivesAccountId,
      ...(args.description ? { description: args.description } : {}),
      ...(args.additionalDetails ? { additional_details: args.additionalDetails } : {}),
    };
  };

  const confirm = async (orderId: string): Promise<OrderView> => {
    const r = getRecord(orderId);
    const owner = ownerOf(r);
    const { bank, clock } = owner;
    const transactionId = r.transactionId;
    if (!transactionId || r.phase !== 'visible') {
      throw new DeskFailure({
        kind: 'precondition',
        reason: 'QUOTE_NOT_CONFIRMABLE',
        message: 'The bank has not shown this quote yet; it cannot be confirmed.',
      });
    }
    await requireTrade(owner);
    if (offline) {
      const error = {
        message:
          'The computer is offline. The quote was not confirmed, and confirmations are never queued: request a new quote when the connection is back.',
        reason: 'OFFLINE',
      };
      update(orderId, { error });
      throw new DeskFailure({ kind: 'offline', ...error });
    }
    try {
      await deps.operations.audited(
        {
          operation: 'crypto.confirm',
          target: transactionId,
          facts: orderFacts(getRecord(orderId)),
          profileId: owner.profileId,
        },
        () =>
          guardedConfirm({
            localNow: clock.localNow,
            clock,
            marginMs,
            read: async () => {
              const next = await read(orderId, transactionId);
              return { status: next.status ?? '', validUntilMs: validUntilOf(next) };
            },
            send: async () => {
              try {
                return await bank.confirmCryptoOrder(transactionId, { signal: stop.signal });
              } finally {
                // Whatever the answer, the order was confirmed from here if it settles.
                update(orderId, { confirmedHere: true });
              }
            },
          }).catch((err: unknown) => {
            if (err instanceof ConfirmRefused) {
              throw new DeskFailure({
                kind: 'precondition',
                reason:
                  err.reason === 'EXPIRED'
                    ? 'QUOTE_EXPIRED'
                    : err.reason === 'NOT_CONFIRMABLE'
                      ? 'QUOTE_NOT_CONFIRMABLE'
                      : err.reason === 'TOO_CLOSE'
                        ? 'QUOTE_TOO_CLOSE_TO_EXPIRY'
                        : 'SERVER_TIME_UNKNOWN',
                message: err.message,
              });
            }
            if (err instanceof DeskFailure && err.kind === 'offline') {
              throw new DeskFailure(
                {
                  kind: 'offline',
                  message:
                    'The bank could not be reached while confirming. The confirmation was not queued and will not be retried; the quote is being re-read to see whether the bank received it.',
                },
                { cause: err },
              );
            }
            throw err;
          }),
      );
    } catch (err) {
      update(orderId, { error: deskErrorOf(err) });
      // Learn the real state (expired, or confirmed after all) without sending anything.
      read(orderId, transactionId)
        .then((next) => {
          if (next.status === 'pending_execution') follow(next);
        })
        .catch(() => undefined);
      throw err;
    }
    update(orderId, { error: null });
    const next = await read(orderId, transactionId).catch(() => getRecord(orderId));
    follow(next);
    return view(next);
  };

  const service: CryptoService = {
    context,
    async saveAccount({ accountId, label, asset, profileId }) {
      const env = deps.owner(profileId).profileId;
      accounts.update((file) => {
        const existing = file.accounts.find((a) => a.environmentId === env && a.accountId === accountId);
        const entry: StoredAccount = existing
          ? { ...existing, label, ...(asset !== undefined ? { asset } : {}) }
          : {
              environmentId: env,
              accountId,
              label,
              asset: asset ?? '',
              legalEntityId: null,
              source: 'analyst',
            };
        return {
          accounts: existing
            ? file.accounts.map((a) => (a === existing ? entry : a))
            : [...file.accounts, entry],
        };
      });
      return context(env);
    },
    async removeAccount(accountId, profileId) {
      const env = deps.owner(profileId).profileId;
      accounts.update((file) => ({
        accounts: file.accounts.filter((a) => !(a.environmentId === env && a.accountId === accountId)),
      }));
      return context(env);
    },
    quote: ({ profileId, ...args }) => create(bodyOf(args), null, deps.owner(profileId)),
    async requote(orderId) {
      const r = getRecord(orderId);
      const b = r.body;
      const body = bodyOf({
        side: b.side === 'sell' ? 'sell' : 'buy',
        symbol: b.symbol as QuoteArgs['symbol'],
        requestedAsset: b.requested_asset,
        requestedAmount: b.requested_amount,
        paysAccountId: b.customer_pays_account_id,
        receivesAccountId: b.customer_receives_account_id,
        ...(b.description ? { description: b.description } : {}),
        ...(b.additional_details ? { additionalDetails: b.additional_details } : {}),
      });
      return create(body, orderId, ownerOf(r));
    },
    confirm,
    async order(orderId, refresh) {
      let r = getRecord(orderId);
      if (
        refresh &&
        r.transactionId &&
        r.phase === 'visible' &&
        (r.status === null || !FINAL.has(r.status))
      ) {
        try {
          r = await read(orderId, r.transactionId);
        } catch (err) {
          // The last known state is still worth showing; say why it is not fresh.
          r = update(orderId, { error: deskErrorOf(err) });
        }
      }
      return view(r);
    },
    async list() {
      // Every profile's orders, each as far as its own credential can read it (an order of another
      // legal entity than the profile's token now is not listed); a removed profile's are not.
      const mine = orders.get().orders.filter((o) => {
        let entity: string | null;
        try {
          entity = ownerOf(o).credential?.legalEntityId ?? null;
        } catch {
          return false;
        }
        return !o.legalEntityId || !entity || o.legalEntityId === entity;
      });
      for (const r of mine) {
        // Orders left unsettled by an earlier run are followed again.
        if (r.transactionId && r.phase === 'visible' && r.status === 'pending_execution') follow(r);
        if (r.transactionId && r.phase !== 'visible' && r.phase !== 'create_failed')
          awaitVisible(r.id, r.transactionId);
        scheduleExpiryCheck(r);
      }
      return mine.map(view);
    },
    dispose() {
      stop.abort();
      void follower.dispose();
      unsubscribeSystem();
      for (const t of [...expiryTimers.values(), ...warnTimers.values()]) clearTimeout(t);
      expiryTimers.clear();
      warnTimers.clear();
    },
  };
  // Orders an earlier run left unsettled are followed again from the start.
  for (const r of orders.get().orders) {
    if (r.phase !== 'visible' || r.status !== 'pending_execution') continue;
    try {
      ownerOf(r);
      follow(r);
    } catch (err) {
      log.warn('crypto: the profile of an unsettled order is gone', { error: err });
    }
  }
  return service;
}
