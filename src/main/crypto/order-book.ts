/**
 * The exchange's order book: this workstation's orders in their schema-checked state file, each
 * read through the profile it belongs to, and the view the renderer gets of one (its display
 * status and whether it can be confirmed now, by its owner's server clock).
 */

import type { z } from 'zod';
import type { OrderView } from '../../shared/ipc/channels/crypto';
import { AppFailure } from '../../shared/ipc/errors';
import { exchangeWords } from '../../shared/activity';
import { humanize } from '../../shared/words';
import type { ActivityFacts } from '../../shared/activity';
import type { BankClient } from '../bank/client';
import type { ServerClock } from '../bank/clock';
import type { ReadAfterCreate } from '../bank/read-after-create';
import type { EventHub } from '../infra/events';
import type { Platform } from '../infra/platform';
import type { TypedStore } from '../infra/stores';
import type { SettingsStore } from '../session/settings';
import { decideConfirm, requiredHeadroomMs } from './guard';
import type { storedOrderRecordSchema } from './stored';

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

export type OrderRecord = z.infer<typeof storedOrderRecordSchema>;
/** An order as the renderer names it: the profile that owns it and its id. */
export interface OrderRef {
  profileId: string;
  orderId: string;
}
export type OrdersFile = { orders: OrderRecord[] };

const MAX_ORDERS = 500;
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
export const isFinalStatus = (status: string | null): boolean => status !== null && FINAL.has(status);

export function appErrorOf(err: unknown): { message: string; reason: string | null } {
  if (err instanceof AppFailure) return { message: err.message, reason: err.reason ?? null };
  return { message: 'Unexpected error; see the log.', reason: null };
}

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

/** Whether the owner's credential may create and confirm quotes (admin only), and why not. */
export function canTrade(owner: CryptoOwner): { ok: boolean; reason: string | null } {
  const cred = owner.credential;
  if (!cred) return { ok: false, reason: 'The bank has not confirmed the credential yet.' };
  if (cred.role !== 'admin') {
    return {
      ok: false,
      reason: `This credential has the ${cred.role} role: it can read quotes and orders but not create or confirm them (admin only).`,
    };
  }
  return { ok: true, reason: null };
}

/** Refuses (forbidden) unless the owner's credential may trade; learns the credential first. */
export async function requireTrade(owner: CryptoOwner): Promise<void> {
  if (!owner.credential) await owner.check().catch(() => undefined);
  const trade = canTrade(owner);
  if (!trade.ok) throw new AppFailure({ kind: 'forbidden', message: trade.reason ?? 'Not allowed.' });
}

export const validUntilOf = (r: OrderRecord): number =>
  r.crypto ? Date.parse(r.crypto.quote_valid_until) : Number.NaN;

export interface OrderBookDeps {
  orders: TypedStore<OrdersFile>;
  /** The named profile (not_found when it is gone). */
  owner(profileId?: string): CryptoOwner;
  settings: SettingsStore;
  events: EventHub;
  platform: Platform;
  marginMs: number;
}

export interface OrderBook {
  readonly orders: TypedStore<OrdersFile>;
  readonly marginMs: number;
  /** The profile an order belongs to. */
  ownerOf(r: Pick<OrderRecord, 'environmentId'>): CryptoOwner;
  find(id: string): OrderRecord | undefined;
  /** The order (not_found when it is not kept here). */
  get(id: string): OrderRecord;
  /** The order of that profile (not_found when it is not kept here or another profile owns it). */
  owned(ref: OrderRef): OrderRecord;
  /** Writes an order first in the file (the oldest final orders beyond the cap are dropped). */
  put(next: OrderRecord): OrderRecord;
  /** Patches an order and pushes its view. */
  update(id: string, patch: Partial<OrderRecord>): OrderRecord;
  view(r: OrderRecord): OrderView;
  /** Tells the renderer an order changed (its view). */
  pushView(r: OrderRecord): void;
  /** Reads the bank through the owner's clock, remembering the round trip (the confirm margin). */
  timed<T>(clock: ServerClock, run: () => Promise<T>): Promise<T>;
  /** When the follower last read an order that did not change (not written; the view says it). */
  readonly readAt: Map<string, number>;
  /** A confirmed-here order that just settled and was not announced yet. */
  settles(r: OrderRecord): boolean;
  /** The native notification of a settled order (its record already says notified). */
  showSettled(r: OrderRecord): void;
  notifySettled(r: OrderRecord): void;
}

export function createOrderBook(deps: OrderBookDeps): OrderBook {
  const { orders, marginMs } = deps;
  const readAt = new Map<string, number>();
  let lastRoundTripMs = 0;
  const ownerOf = (r: Pick<OrderRecord, 'environmentId'>): CryptoOwner => deps.owner(r.environmentId);
  const find = (id: string): OrderRecord | undefined => orders.get().orders.find((o) => o.id === id);

  const put = (next: OrderRecord): OrderRecord => {
    orders.update((file) => {
      const rest = file.orders.filter((o) => o.id !== next.id);
      const all = [next, ...rest];
      // Keep the newest; drop the oldest final orders beyond the cap.
      while (all.length > MAX_ORDERS) {
        const i = all.map((o) => isFinalStatus(o.status)).lastIndexOf(true);
        if (i < 0) break;
        all.splice(i, 1);
      }
      return { orders: all };
    });
    return next;
  };

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

  const update = (id: string, patch: Partial<OrderRecord>): OrderRecord => {
    const current = find(id);
    if (!current) throw new AppFailure({ kind: 'not_found', message: `No exchange order ${id} here.` });
    const next = put({ ...current, ...patch });
    deps.events.emit('crypto.orderChanged', view(next));
    return next;
  };

  const settles = (r: OrderRecord): boolean =>
    r.confirmedHere &&
    !r.notified &&
    r.crypto !== null &&
    (r.status === 'completed' || r.status === 'failed');

  const showSettled = (r: OrderRecord): void => {
    if (!r.crypto || !deps.settings.get().notifications.transactionStatus) return;
    const c = r.crypto;
    // What was exchanged in words ("Buy 250.00 USDT for 250.00 USD"), never the symbol or an id.
    const what = exchangeWords(c.side, c);
    const sentence = what.charAt(0).toUpperCase() + what.slice(1);
    deps.platform.notify(
      r.status === 'completed'
        ? { title: 'Exchange settled', body: `${sentence}: done.` }
        : {
            title: 'Exchange failed',
            body: `${sentence} did not go through${c['failure_reason'] ? ` (${humanize(String(c['failure_reason'])).toLowerCase()})` : ''}; nothing was exchanged.`,
          },
    );
  };

  return {
    orders,
    marginMs,
    ownerOf,
    find,
    get(id) {
      const r = find(id);
      if (!r) throw new AppFailure({ kind: 'not_found', message: `No exchange order ${id} here.` });
      return r;
    },
    owned(ref) {
      const r = find(ref.orderId);
      if (!r || r.environmentId !== ref.profileId)
        throw new AppFailure({
          kind: 'not_found',
          message: `No exchange order ${ref.orderId} of this profile here.`,
        });
      return r;
    },
    put,
    update,
    view,
    pushView: (r) => deps.events.emit('crypto.orderChanged', view(r)),
    async timed(clock, run) {
      const t0 = clock.localNow();
      const result = await run();
      lastRoundTripMs = Math.max(0, clock.localNow() - t0);
      return result;
    },
    readAt,
    settles,
    showSettled,
    notifySettled(r) {
      if (!settles(r)) return;
      showSettled(update(r.id, { notified: true }));
    },
  };
}
