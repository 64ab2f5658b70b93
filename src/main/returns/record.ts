/**
 * The returns feature's local record (`state/returns.json`): the transfers looked up recently and
 * every intent made from this workstation, each with the profile it belongs to, and the statuses
 * read from the bank applied to them (one store write for a batch, none when nothing changed).
 */

import type { ActivityFacts } from '../../shared/activity';
import type { RecentTransfer, ReturnEntry, TransferView } from '../../shared/ipc/channels/returns';
import type { EventHub } from '../infra/events';
import type { Stores, TypedStore } from '../infra/stores';
import { returnsFormat } from './stored';
import type { ReturnsState } from './stored';

const MAX_RECENT = 20;
const MAX_ENTRIES = 500;
/** How a problem of reading the status starts (cleared by the next good read). */
export const READ_PROBLEM = 'The current status could not be read:';

export const isoNow = (): string => new Date().toISOString();

export interface ReturnsRecord {
  store(): Promise<TypedStore<ReturnsState>>;
  /** Patches the entry of an operation (or adds `base` patched); the entry written, if any. */
  upsert(operationId: string, patch: Partial<ReturnEntry>, base?: ReturnEntry): Promise<ReturnEntry | null>;
  /** What a return moves, for the audit log's sentence: amount, currency, to whom, why. */
  factsOf(transactionId: string): Promise<ActivityFacts>;
  /** The newest local entry of a transaction made through a profile. */
  latestEntry(transactionId: string, profileId: string): Promise<ReturnEntry | undefined>;
  /** Applies statuses read from the bank to the recent list and each transaction's newest entry. */
  applyStatuses(views: TransferView[]): Promise<void>;
  /** Puts a transfer first in the recent list. */
  remember(view: TransferView): Promise<void>;
}

/** The newest entry after a status read from the bank, or null when nothing changes. */
function withStatus(e: ReturnEntry, view: TransferView): ReturnEntry | null {
  let phase = e.phase;
  switch (view.status) {
    case 'intent_created':
      if (e.phase === 'sending' || e.phase === 'created') phase = 'created';
      break;
    case 'in_progress':
      if (view.returnDetails && ['created', 'confirmed', 'sending'].includes(e.phase)) phase = 'confirmed';
      break;
    case 'return_completed':
      if (e.phase !== 'refused') phase = 'completed';
      break;
    case 'completed':
      // The intent is gone (cancelled here or elsewhere).
      if (e.phase === 'created' || e.phase === 'confirmed') phase = 'cancelled';
      break;
    default:
      break;
  }
  const staleProblem = e.problem?.startsWith(READ_PROBLEM) ?? false;
  if (phase === e.phase && view.status === e.status && !staleProblem) return null;
  return {
    ...e,
    phase,
    status: view.status,
    ...(staleProblem ? { problem: null } : {}),
    updatedAt: isoNow(),
  };
}

export function createReturnsRecord(deps: { stores: Stores; events: EventHub }): ReturnsRecord {
  let storePromise: Promise<TypedStore<ReturnsState>> | null = null;
  const store = (): Promise<TypedStore<ReturnsState>> => {
    storePromise ??= deps.stores.open('returns', returnsFormat, { recent: [], entries: [] });
    return storePromise;
  };

  const upsert = async (operationId: string, patch: Partial<ReturnEntry>, base?: ReturnEntry) => {
    let out: ReturnEntry | null = null;
    const s = await store();
    s.update((cur) => {
      const entries = cur.entries;
      const i = entries.findIndex((e) => e.operationId === operationId);
      const existing = i >= 0 ? entries[i] : base;
      if (!existing) return { ...cur, entries: entries.slice(-MAX_ENTRIES) };
      out = { ...existing, ...patch, updatedAt: isoNow() };
      const next = [...entries];
      if (i >= 0) next[i] = out;
      else next.push(out);
      return { ...cur, entries: next.slice(-MAX_ENTRIES) };
    });
    return out as ReturnEntry | null;
  };

  const applyStatuses = async (views: TransferView[]): Promise<void> => {
    const s = await store();
    const cur = s.get();
    const byId = new Map(views.map((v) => [v.transactionId, v]));
    let recentChanged = false;
    const recent = cur.recent.map((r) => {
      const v = byId.get(r.transactionId);
      if (!v || r.status === v.status) return r;
      recentChanged = true;
      return { ...r, status: v.status };
    });
    const entries = [...cur.entries];
    const changed: ReturnEntry[] = [];
    for (const v of byId.values()) {
      let i = entries.length - 1;
      while (
        i >= 0 &&
        !(entries[i]!.transactionId === v.transactionId && entries[i]!.environmentId === v.profileId)
      )
        i--;
      const e = entries[i];
      if (!e) continue;
      const next = withStatus(e, v);
      if (!next) continue;
      entries[i] = next;
      changed.push(next);
    }
    if (!recentChanged && changed.length === 0) return;
    s.set({ ...cur, recent, entries: entries.slice(-MAX_ENTRIES) });
    for (const e of changed) deps.events.emit('returns.changed', e);
  };

  return {
    store,
    upsert,
    async factsOf(transactionId) {
      const s = (await store()).get();
      const e = [...s.entries].reverse().find((x) => x.transactionId === transactionId);
      const recentItem = s.recent.find((r) => r.transactionId === transactionId);
      const currency = e?.currency || recentItem?.currency || '';
      return {
        ...(e ? { amount: e.amount, reasonCode: e.reasonCode } : {}),
        ...(currency ? { currency } : {}),
        ...(recentItem?.debtorName ? { counterparty: recentItem.debtorName } : {}),
      };
    },
    async latestEntry(transactionId, profileId) {
      const s = await store();
      return [...s.get().entries]
        .reverse()
        .find((e) => e.transactionId === transactionId && e.environmentId === profileId);
    },
    applyStatuses,
    async remember(view) {
      const s = await store();
      const item: RecentTransfer = {
        transactionId: view.transactionId,
        amount: view.incoming?.amount ?? null,
        currency: view.incoming?.currency ?? null,
        debtorName: view.incoming?.debtorName ?? null,
        status: view.status,
        viewedAt: isoNow(),
        ...(view.profileId ? { profileId: view.profileId } : {}),
      };
      s.update((cur) => ({
        ...cur,
        recent: [item, ...cur.recent.filter((r) => r.transactionId !== item.transactionId)].slice(
          0,
          MAX_RECENT,
        ),
      }));
    },
  };
}
