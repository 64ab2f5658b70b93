/**
 * The returns feature in main. Local state (`state/returns.json`): the transfers looked
 * up recently and every intent made from this workstation, so the Returns list survives a
 * restart and an ambiguous send can be retried with its operationId (hence its Idempotency-Key).
 */

import type { ActivityFacts } from '../../shared/activity';
import type { ReturnIntentRequest } from '../../shared/api';
import { formatMinor, parseMinor } from '../../shared/money';
import type { RecentTransfer, ReturnEntry, TransferView } from '../../shared/ipc/channels/returns';
import { DeskFailure } from '../../shared/ipc/errors';
import { isTransientRead } from '../../shared/failure-policy';
import type { ReturnReasonCode } from '../../shared/catalogue';
import { createFollower } from '../bank/follower';
import type { FollowUpdate } from '../bank/follower';
import type { BankClient } from '../bank/client';
import type { EventHub } from '../infra/events';
import type { IdempotencyLedger } from '../bank/ledger';
import type { Logger } from '../infra/log';
import type { Operations } from '../bank/operations';
import type { Platform } from '../infra/platform';
import type { Transaction } from '../../shared/api';
import type { SettingsStore } from '../session/settings';
import type { Stores } from '../infra/stores';
import type { TypedStore } from '../infra/stores';
import { returnsFormat } from './stored';
import type { ReturnsState } from './stored';
import { explainReturnFailure, toTransferView } from './view';

const MAX_RECENT = 20;
const MAX_ENTRIES = 500;
const READ_PROBLEM = 'The current status could not be read:';

export interface ReturnsTiming {
  /** First wait of the status follower after a confirm. */
  followFirstMs: number;
  followMaxMs: number;
  /** Stop following after this long (the Returns list re-reads on open). */
  followGiveUpMs: number;
}

export const defaultReturnsTiming: ReturnsTiming = {
  followFirstMs: 1000,
  followMaxMs: 10_000,
  followGiveUpMs: 30 * 60_000,
};

export interface CreateIntentInput {
  operationId: string;
  transactionId: string;
  amount: string;
  reasonCode: ReturnReasonCode;
  description?: string | undefined;
  /** The profile the transfer belongs to (default: the active profile). */
  profileId?: string | undefined;
}

/**
 * Every call may name the profile that owns the transfer (the screen it was opened from says
 * it); without it, a transfer with a return made here belongs to that return's profile, any
 * other to the default (active) profile. Each call goes through its owner's bank client.
 */
export interface ReturnsService {
  lookup(transactionId: string, profileId?: string): Promise<TransferView>;
  recent(): Promise<RecentTransfer[]>;
  createIntent(
    input: CreateIntentInput,
  ): Promise<{ transactionId: string; idempotencyKey: string; alreadyDone: boolean }>;
  review(transactionId: string, profileId?: string): Promise<TransferView>;
  confirm(transactionId: string, profileId?: string): Promise<TransferView>;
  cancel(transactionId: string, profileId?: string): Promise<TransferView>;
  /** Every return made here, of every profile, newest first. */
  list(): Promise<ReturnEntry[]>;
  /** Transactions being followed to a final status (tests, diagnostics). */
  following(): string[];
  /** Stops following; reads in flight are aborted. */
  dispose(): Promise<void>;
}

const isoNow = (): string => new Date().toISOString();

/** The profile a transfer belongs to: its bank client, credential and read-after-create. */
export interface ReturnsOwner {
  readonly profileId: string;
  readonly bank: Pick<BankClient, 'getTransaction' | 'confirmReturn' | 'cancelReturn'>;
  /** The credential as the bank last reported it (null before a check). */
  readonly credential: { role: string } | null;
  check(): Promise<unknown>;
  /** Reads a transaction this profile just created (the bank's 404 window). */
  readAfterCreate(transactionId: string): Promise<Transaction>;
}

/** What the returns service needs. */
export interface ReturnsDeps {
  /** The named profile (not_found when it is gone), else the default (active) profile. */
  owner(profileId?: string): ReturnsOwner;
  settings: SettingsStore;
  platform: Platform;
  log: Logger;
  operations: Operations;
  ledger: IdempotencyLedger;
  events: EventHub;
  stores: Stores;
}

/** The transfer as the bank reports it, named with the profile it belongs to. */
function viewOf(tx: Transaction, role: string | null, owner: ReturnsOwner): TransferView {
  return { ...toTransferView(tx, role), profileId: owner.profileId };
}

export function createReturnsService(core: ReturnsDeps, timing: Partial<ReturnsTiming> = {}): ReturnsService {
  const t = { ...defaultReturnsTiming, ...timing };
  let storePromise: Promise<TypedStore<ReturnsState>> | null = null;
  const store = (): Promise<TypedStore<ReturnsState>> => {
    storePromise ??= core.stores.open('returns', returnsFormat, { recent: [], entries: [] });
    return storePromise;
  };

  const role = async (owner: ReturnsOwner): Promise<string | null> => {
    if (!owner.credential) await owner.check().catch(() => undefined);
    return owner.credential?.role ?? null;
  };
  /** The owner of a transfer: the one named, else the profile of a return made here, else the default. */
  const ownerOf = async (transactionId: string, profileId?: string): Promise<ReturnsOwner> => {
    if (profileId !== undefined) return core.owner(profileId);
    const s = (await store()).get();
    const made = [...s.entries].reverse().find((e) => e.transactionId === transactionId);
    const seen = s.recent.find((r) => r.transactionId === transactionId);
    return core.owner(made?.environmentId ?? seen?.profileId);
  };

  /**
   * Refuses a write before sending when the credential cannot make it. The refused attempt is
   * still an analyst action: it goes to the audit log (failed, nothing sent).
   */
  const requireAdmin = async (owner: ReturnsOwner, operation: string, target: string): Promise<void> => {
    const failure = await roleFailure(owner);
    if (failure) {
      await core.operations
        .audited({ operation, target, profileId: owner.profileId }, () => Promise.reject(failure))
        .catch(() => undefined);
      throw failure;
    }
  };

  const roleFailure = async (owner: ReturnsOwner): Promise<DeskFailure | null> => {
    const r = await role(owner);
    if (r === null) {
      return new DeskFailure({
        kind: 'unauthenticated',
        message:
          'The bank has not confirmed which credential is in use, so nothing was sent. Check the connection and re-check.',
      });
    }
    if (r !== 'admin') {
      return new DeskFailure({
        kind: 'forbidden',
        reason: 'ROLE_VIEWER',
        message: `The credential in use has the ${r} role: it can read transfers but not return them. Nothing was sent. Switch to an admin credential to make a return.`,
      });
    }
    return null;
  };

  const updateEntries = async (fn: (entries: ReturnEntry[]) => ReturnEntry[]): Promise<void> => {
    const s = await store();
    s.update((cur) => ({ ...cur, entries: fn(cur.entries).slice(-MAX_ENTRIES) }));
  };

  const upsert = async (operationId: string, patch: Partial<ReturnEntry>, base?: ReturnEntry) => {
    let out: ReturnEntry | null = null;
    await updateEntries((entries) => {
      const i = entries.findIndex((e) => e.operationId === operationId);
      const cur = i >= 0 ? entries[i] : base;
      if (!cur) return entries;
      out = { ...cur, ...patch, updatedAt: isoNow() };
      const next = [...entries];
      if (i >= 0) next[i] = out;
      else next.push(out);
      return next;
    });
    return out as ReturnEntry | null;
  };

  /** The newest local entry of a transaction in the active environment. */
  /** What a return moves, for the audit log's sentence: amount, currency, to whom, why. */
  const factsOf = async (transactionId: string): Promise<ActivityFacts> => {
    const s = (await store()).get();
    const e = [...s.entries].reverse().find((x) => x.transactionId === transactionId);
    const recentItem = s.recent.find((r) => r.transactionId === transactionId);
    const currency = e?.currency || recentItem?.currency || '';
    return {
      ...(e ? { amount: e.amount, reasonCode: e.reasonCode } : {}),
      ...(currency ? { currency } : {}),
      ...(recentItem?.debtorName ? { counterparty: recentItem.debtorName } : {}),
    };
  };

  const latestEntry = async (transactionId: string, env: string): Promise<ReturnEntry | undefined> => {
    const s = await store();
    return [...s.get().entries]
      .reverse()
      .find((e) => e.transactionId === transactionId && e.environmentId === env);
  };

  /** The newest entry after a status read from the bank, or null when nothing changes. */
  const withStatus = (e: ReturnEntry, view: TransferView): ReturnEntry | null => {
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
  };

  /**
   * Applies statuses read from the bank to the recent list and to the newest entry of each
   * transaction: one store write for all of them, none when nothing changed.
   */
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
    for (const e of changed) core.events.emit('returns.changed', e);
  };

  const applyStatus = (view: TransferView): Promise<void> => applyStatuses([view]);

  const remember = async (view: TransferView): Promise<void> => {
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
  };

  const read = async (transactionId: string, owner: ReturnsOwner): Promise<TransferView> => {
    try {
      const tx = await owner.bank.getTransaction(transactionId);
      return viewOf(tx, await role(owner), owner);
    } catch (err) {
      throw explainReturnFailure(err);
    }
  };

  const notifyCompleted = (view: TransferView): void => {
    if (core.settings.get().notifications.transactionStatus === false) return;
    const amount = view.returnDetails?.amount ?? view.incoming?.amount;
    const currency = view.incoming?.currency ?? '';
    let shown = '';
    try {
      shown = amount ? `${formatMinor(parseMinor(amount), currency)} ` : '';
    } catch {
      shown = '';
    }
    core.platform.notify({
      title: 'Return completed',
      body: `The return ${shown}of transfer ${view.transactionId} is completed.`,
    });
  };

  /** Which profile each followed transaction is read through. */
  const followedBy = new Map<string, ReturnsOwner>();
  /** Follows confirmed returns until they leave in_progress; notifies on return_completed. */
  const follower = createFollower<TransferView>({
    read: async (transactionId, signal) => {
      const owner = followedBy.get(transactionId) ?? core.owner();
      return viewOf(
        await owner.bank.getTransaction(transactionId, { signal }),
        owner.credential?.role ?? null,
        owner,
      );
    },
    isFinal: (view) => view.status !== 'in_progress',
    fingerprint: (view) => `${view.status}|${view.returnDetails ? 'return' : ''}`,
    onBatch: async (batch: Array<FollowUpdate<TransferView>>) => {
      await applyStatuses(batch.map((u) => u.value));
      for (const u of batch) if (u.final && u.value.status === 'return_completed') notifyCompleted(u.value);
    },
    onBatchError: (err) => core.log.warn('returns: recording followed statuses failed', { error: err }),
    onError: (transactionId, err) => {
      // not_found: the transaction is not visible yet (read-after-create window).
      if (err instanceof DeskFailure && (err.kind === 'not_found' || isTransientRead(err))) return 'retry';
      core.log.warn('returns: following stopped', { transactionId, error: err });
      return 'stop';
    },
    policy: {
      firstDelayMs: t.followFirstMs,
      factor: 1.5,
      maxDelayMs: t.followMaxMs,
      giveUpMs: t.followGiveUpMs,
    },
  });

  /** Follows through the owner's own client, whatever profile is active (until shutdown). */
  const follow = (transactionId: string, owner: ReturnsOwner): void => {
    followedBy.set(transactionId, owner);
    follower.follow(transactionId, { active: () => !disposed });
  };
  let disposed = false;

  // Returns an earlier run confirmed and left in progress are followed again from the start.
  void store()
    .then((s) => {
      for (const e of s.get().entries) {
        if (e.phase !== 'confirmed') continue;
        try {
          follow(e.transactionId, core.owner(e.environmentId));
        } catch (err) {
          core.log.warn('returns: the profile of a confirmed return is gone', { error: err });
        }
      }
    })
    .catch((err: unknown) => core.log.warn('returns: could not resume following', { error: err }));

  return {
    async lookup(transactionId, profileId) {
      const owner = await ownerOf(transactionId, profileId);
      const view = await read(transactionId, owner);
      await remember(view);
      await applyStatus(view);
      if (view.status === 'in_progress' && view.returnDetails) follow(view.transactionId, owner);
      return view;
    },

    async recent() {
      return (await store()).get().recent;
    },

    async createIntent(input) {
      const owner = core.owner(input.profileId);
      await requireAdmin(owner, 'return.create_intent', input.transactionId);
      const body: ReturnIntentRequest = {
        transfer_return_type: 'SWIFT_FI_TO_FI_RETURN',
        transaction_id: input.transactionId,
        return_amount: input.amount,
        status_reason_code: input.reasonCode,
        ...(input.description ? { description: input.description } : {}),
      };
      const s = await store();
      const existing = s.get().entries.find((e) => e.operationId === input.operationId);
      const now = isoNow();
      await upsert(
        input.operationId,
        { phase: 'sending', problem: null },
        existing ?? {
          operationId: input.operationId,
          transactionId: input.transactionId,
          amount: input.amount,
          currency: '',
          reasonCode: input.reasonCode,
          description: input.description ?? '',
          phase: 'sending',
          status: null,
          idempotencyKey: null,
          environmentId: owner.profileId,
          createdAt: now,
          updatedAt: now,
          problem: null,
        },
      );
      const recentItem = s.get().recent.find((r) => r.transactionId === input.transactionId);
      if (recentItem?.currency) await upsert(input.operationId, { currency: recentItem.currency });
      try {
        const res = await core.operations.createReturnIntent(
          input.operationId,
          body,
          await factsOf(input.transactionId),
          owner.profileId,
        );
        await upsert(input.operationId, {
          phase: 'created',
          idempotencyKey: res.idempotencyKey,
          problem: null,
        });
        return res;
      } catch (err) {
        const explained = explainReturnFailure(err);
        const ledger = core.ledger.get(input.operationId);
        const refused = ledger?.state === 'failed';
        await upsert(input.operationId, {
          phase: refused ? 'refused' : 'sending',
          idempotencyKey: ledger?.key ?? null,
          problem: explained instanceof Error ? explained.message : 'The return could not be sent.',
        }).catch(() => undefined);
        throw explained;
      }
    },

    async review(transactionId, profileId) {
      const owner = await ownerOf(transactionId, profileId);
      // Only an intent this workstation sent (and the bank did not refuse) can be inside the bank's
      // 404 window; any other id is read once, so a wrong id answers not_found now instead of
      // holding the call for 30 min.
      const sent = await latestEntry(transactionId, owner.profileId);
      if (!sent || sent.phase === 'refused') {
        const known = await read(transactionId, owner);
        await applyStatus(known);
        return known;
      }
      let tx;
      try {
        tx = await owner.readAfterCreate(transactionId);
      } catch (err) {
        throw explainReturnFailure(err);
      }
      const view = viewOf(tx, await role(owner), owner);
      await applyStatus(view);
      return view;
    },

    async confirm(transactionId, profileId) {
      const owner = await ownerOf(transactionId, profileId);
      await requireAdmin(owner, 'return.confirm', transactionId);
      try {
        const facts = await factsOf(transactionId);
        await core.operations.audited(
          { operation: 'return.confirm', target: transactionId, facts, profileId: owner.profileId },
          () => owner.bank.confirmReturn(transactionId),
        );
      } catch (err) {
        throw explainReturnFailure(err);
      }
      const e = await latestEntry(transactionId, owner.profileId);
      if (e) await upsert(e.operationId, { phase: 'confirmed', problem: null });
      const view = await read(transactionId, owner);
      await applyStatus(view);
      if (view.status === 'in_progress') follow(transactionId, owner);
      else if (view.status === 'return_completed') notifyCompleted(view);
      return view;
    },

    async cancel(transactionId, profileId) {
      const owner = await ownerOf(transactionId, profileId);
      await requireAdmin(owner, 'return.cancel', transactionId);
      try {
        const facts = await factsOf(transactionId);
        await core.operations.audited(
          { operation: 'return.cancel', target: transactionId, facts, profileId: owner.profileId },
          () => owner.bank.cancelReturn(transactionId),
        );
      } catch (err) {
        throw explainReturnFailure(err);
      }
      const e = await latestEntry(transactionId, owner.profileId);
      if (e) await upsert(e.operationId, { phase: 'cancelled', problem: null });
      const view = await read(transactionId, owner);
      await remember(view);
      return view;
    },

    async list() {
      const s = await store();
      // Every profile's returns, each re-read once through its own profile (the newest entry
      // per transaction gets the status).
      const keys = [
        ...new Map(s.get().entries.map((e) => [`${e.environmentId}|${e.transactionId}`, e])).values(),
      ];
      const queue = keys.slice(-50);
      const worker = async (): Promise<void> => {
        for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
          const id = next.transactionId;
          try {
            const owner = core.owner(next.environmentId);
            const view = viewOf(await owner.bank.getTransaction(id), owner.credential?.role ?? null, owner);
            await applyStatus(view);
            if (view.status === 'in_progress' && view.returnDetails) follow(id, owner);
          } catch (err) {
            const e = await latestEntry(id, next.environmentId);
            if (e) {
              const msg = explainReturnFailure(err);
              await upsert(e.operationId, {
                problem: `${READ_PROBLEM} ${msg instanceof Error ? msg.message : 'unknown error'}`,
              });
            }
          }
        }
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
      return [...s.get().entries].reverse();
    },

    following: () => follower.following(),
    dispose: () => {
      disposed = true;
      return follower.dispose();
    },
  };
}
