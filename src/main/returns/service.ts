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
import type { ReadAfterCreate } from '../bank/read-after-create';
import type { Environment, SessionManager } from '../session/session';
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
}

export interface ReturnsService {
  lookup(transactionId: string): Promise<TransferView>;
  recent(): Promise<RecentTransfer[]>;
  createIntent(
    input: CreateIntentInput,
  ): Promise<{ transactionId: string; idempotencyKey: string; alreadyDone: boolean }>;
  review(transactionId: string): Promise<TransferView>;
  confirm(transactionId: string): Promise<TransferView>;
  cancel(transactionId: string): Promise<TransferView>;
  list(): Promise<ReturnEntry[]>;
  /** Transactions being followed to a final status (tests, diagnostics). */
  following(): string[];
  /** Stops following; reads in flight are aborted. */
  dispose(): Promise<void>;
}

const isoNow = (): string => new Date().toISOString();

/** What the returns service uses of the core services (a part of ServiceCore). */
export interface ReturnsDeps {
  /** The active environment (changes when the profile is switched). */
  readonly environment: Environment;
  bank: BankClient;
  settings: SettingsStore;
  platform: Platform;
  session: SessionManager;
  log: Logger;
  operations: Operations;
  ledger: IdempotencyLedger;
  readAfterCreate: ReadAfterCreate;
  events: EventHub;
  stores: Stores;
}

export function createReturnsService(core: ReturnsDeps, timing: Partial<ReturnsTiming> = {}): ReturnsService {
  const t = { ...defaultReturnsTiming, ...timing };
  let storePromise: Promise<TypedStore<ReturnsState>> | null = null;
  const store = (): Promise<TypedStore<ReturnsState>> => {
    storePromise ??= core.stores.open('returns', returnsFormat, { recent: [], entries: [] });
    return storePromise;
  };

  const role = async (): Promise<string | null> => {
    if (!core.session.credential) await core.session.check().catch(() => undefined);
    return core.session.credential?.role ?? null;
  };

  /**
   * Refuses a write before sending when the credential cannot make it. The refused attempt is
   * still an analyst action: it goes to the audit log (failed, nothing sent).
   */
  const requireAdmin = async (operation: string, target: string): Promise<void> => {
    const failure = await roleFailure();
    if (failure) {
      await core.operations
        .audited({ operation, target }, () => Promise.reject(failure))
        .catch(() => undefined);
      throw failure;
    }
  };

  const roleFailure = async (): Promise<DeskFailure | null> => {
    const r = await role();
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

  const latestEntry = async (transactionId: string): Promise<ReturnEntry | undefined> => {
    const s = await store();
    const env = core.environment.id;
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
    const env = core.environment.id;
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
      while (i >= 0 && !(entries[i]!.transactionId === v.transactionId && entries[i]!.environmentId === env))
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
    };
    s.update((cur) => ({
      ...cur,
      recent: [item, ...cur.recent.filter((r) => r.transactionId !== item.transactionId)].slice(
        0,
        MAX_RECENT,
      ),
    }));
  };

  const read = async (transactionId: string): Promise<TransferView> => {
    try {
      const tx = await core.bank.getTransaction(transactionId);
      return toTransferView(tx, await role());
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

  /** Follows confirmed returns until they leave in_progress; notifies on return_completed. */
  const follower = createFollower<TransferView>({
    read: async (transactionId, signal) =>
      toTransferView(
        await core.bank.getTransaction(transactionId, { signal }),
        core.session.credential?.role ?? null,
      ),
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

  const follow = (transactionId: string): void => {
    const baseUrl = core.environment.baseUrl;
    // The environment changed (profile switch, shutdown): stop; the list re-reads on open.
    follower.follow(transactionId, { active: () => !!baseUrl && core.environment.baseUrl === baseUrl });
  };

  // Returns an earlier run confirmed and left in progress are followed again from the start.
  void store()
    .then((s) => {
      const env = core.environment.id;
      for (const e of s.get().entries) {
        if (e.environmentId === env && e.phase === 'confirmed') follow(e.transactionId);
      }
    })
    .catch((err: unknown) => core.log.warn('returns: could not resume following', { error: err }));

  return {
    async lookup(transactionId) {
      const view = await read(transactionId);
      await remember(view);
      await applyStatus(view);
      if (view.status === 'in_progress' && view.returnDetails) follow(view.transactionId);
      return view;
    },

    async recent() {
      return (await store()).get().recent;
    },

    async createIntent(input) {
      await requireAdmin('return.create_intent', input.transactionId);
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
          environmentId: core.environment.id,
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

    async review(transactionId) {
      // Only an intent this workstation sent (and the bank did not refuse) can be inside the bank's
      // 404 window; any other id is read once, so a wrong id answers not_found now instead of
      // holding the call for 30 min.
      const sent = await latestEntry(transactionId);
      if (!sent || sent.phase === 'refused') {
        const known = await read(transactionId);
        await applyStatus(known);
        return known;
      }
      let tx;
      try {
        tx = await core.readAfterCreate(transactionId);
      } catch (err) {
        throw explainReturnFailure(err);
      }
      const view = toTransferView(tx, await role());
      await applyStatus(view);
      return view;
    },

    async confirm(transactionId) {
      await requireAdmin('return.confirm', transactionId);
      try {
        const facts = await factsOf(transactionId);
        await core.operations.audited({ operation: 'return.confirm', target: transactionId, facts }, () =>
          core.bank.confirmReturn(transactionId),
        );
      } catch (err) {
        throw explainReturnFailure(err);
      }
      const e = await latestEntry(transactionId);
      if (e) await upsert(e.operationId, { phase: 'confirmed', problem: null });
      const view = await read(transactionId);
      await applyStatus(view);
      if (view.status === 'in_progress') follow(transactionId);
      else if (view.status === 'return_completed') notifyCompleted(view);
      return view;
    },

    async cancel(transactionId) {
      await requireAdmin('return.cancel', transactionId);
      try {
        const facts = await factsOf(transactionId);
        await core.operations.audited({ operation: 'return.cancel', target: transactionId, facts }, () =>
          core.bank.cancelReturn(transactionId),
        );
      } catch (err) {
        throw explainReturnFailure(err);
      }
      const e = await latestEntry(transactionId);
      if (e) await upsert(e.operationId, { phase: 'cancelled', problem: null });
      const view = await read(transactionId);
      await remember(view);
      return view;
    },

    async list() {
      const s = await store();
      const env = core.environment.id;
      const mine = s.get().entries.filter((e) => e.environmentId === env);
      // Re-read every transaction once (newest entry per transaction gets the status).
      const ids = [...new Set(mine.map((e) => e.transactionId))].slice(-50);
      const queue = [...ids];
      const worker = async (): Promise<void> => {
        for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
          try {
            const view = toTransferView(
              await core.bank.getTransaction(id),
              core.session.credential?.role ?? null,
            );
            await applyStatus(view);
            if (view.status === 'in_progress' && view.returnDetails) follow(id);
          } catch (err) {
            const e = await latestEntry(id);
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
      return s
        .get()
        .entries.filter((e) => e.environmentId === env)
        .reverse();
    },

    following: () => follower.following(),
    dispose: () => follower.dispose(),
  };
}
