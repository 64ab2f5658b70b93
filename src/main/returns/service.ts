/**
 * The returns feature in main. Local state (`state/returns.json`, record.ts): the transfers looked
 * up recently and every intent made from this workstation, so the Returns list survives a
 * restart and an ambiguous send can be retried with its operationId (hence its Idempotency-Key).
 * Whose a transfer is (owners.ts), the writes (writes.ts) and following confirmed returns to a
 * final status (following.ts) are pieces of their own; this file joins them and reads.
 */

import type { RecentTransfer, ReturnEntry, TransferView } from '../../shared/ipc/channels/returns';
import type { EventHub } from '../infra/events';
import type { IdempotencyLedger } from '../bank/ledger';
import type { Logger } from '../infra/log';
import type { Operations } from '../bank/operations';
import type { Platform } from '../infra/platform';
import type { SettingsStore } from '../session/settings';
import type { Stores } from '../infra/stores';
import { createReturnsFollowing, defaultReturnsTiming } from './following';
import type { ReturnsTiming } from './following';
import { createReturnsOwners, readTransfer, roleOf, viewOf } from './owners';
import type { ReturnsOwner } from './owners';
import { createReturnsRecord, READ_PROBLEM } from './record';
import { createReturnsWrites } from './writes';
import type { CreateIntentInput } from './writes';
import { explainReturnFailure } from './view';

export { defaultReturnsTiming } from './following';
export type { ReturnsTiming } from './following';
export type { ReturnsOwner } from './owners';
export type { CreateIntentInput } from './writes';

/**
 * Every call names the profile that owns the transfer (the screen it was opened from says it) and
 * goes through that profile's bank client, whatever profile is active.
 */
export interface ReturnsService {
  lookup(transactionId: string, profileId: string): Promise<TransferView>;
  recent(): Promise<RecentTransfer[]>;
  createIntent(
    input: CreateIntentInput,
  ): Promise<{ transactionId: string; idempotencyKey: string; alreadyDone: boolean }>;
  review(transactionId: string, profileId: string): Promise<TransferView>;
  confirm(transactionId: string, profileId: string): Promise<TransferView>;
  cancel(transactionId: string, profileId: string): Promise<TransferView>;
  /** Every return made here, of every profile, newest first. */
  list(): Promise<ReturnEntry[]>;
  /** Transactions being followed to a final status (tests, diagnostics). */
  following(): string[];
  /** Stops following; reads in flight are aborted. */
  dispose(): Promise<void>;
}

/** What the returns service needs. */
export interface ReturnsDeps {
  /** The named profile (not_found when it is gone). */
  owner(profileId: string): ReturnsOwner;
  settings: SettingsStore;
  platform: Platform;
  log: Logger;
  operations: Operations;
  ledger: IdempotencyLedger;
  events: EventHub;
  stores: Stores;
}

export function createReturnsService(core: ReturnsDeps, timing: Partial<ReturnsTiming> = {}): ReturnsService {
  const record = createReturnsRecord(core);
  const owners = createReturnsOwners({ owner: core.owner, operations: core.operations });
  const following = createReturnsFollowing({
    record,
    settings: core.settings,
    platform: core.platform,
    log: core.log,
    timing: { ...defaultReturnsTiming, ...timing },
  });
  const writes = createReturnsWrites({ ...core, owners, record, following });

  // Returns an earlier run confirmed and left in progress are followed again from the start.
  void record
    .store()
    .then((s) => {
      for (const e of s.get().entries) {
        if (e.phase !== 'confirmed') continue;
        try {
          following.follow(e.transactionId, core.owner(e.environmentId));
        } catch (err) {
          core.log.warn('returns: the profile of a confirmed return is gone', { error: err });
        }
      }
    })
    .catch((err: unknown) => core.log.warn('returns: could not resume following', { error: err }));

  /** Re-reads one return through its own profile (a failure is kept on its entry). */
  const reread = async (next: ReturnEntry): Promise<void> => {
    const id = next.transactionId;
    try {
      const owner = core.owner(next.environmentId);
      const view = viewOf(await owner.bank.getTransaction(id), owner.credential?.role ?? null, owner);
      await record.applyStatuses([view]);
      if (view.status === 'in_progress' && view.returnDetails) following.follow(id, owner);
    } catch (err) {
      const e = await record.latestEntry(id, next.environmentId);
      if (e) {
        const msg = explainReturnFailure(err);
        await record.upsert(e.operationId, {
          problem: `${READ_PROBLEM} ${msg instanceof Error ? msg.message : 'unknown error'}`,
        });
      }
    }
  };

  return {
    async lookup(transactionId, profileId) {
      const owner = owners.ownerOf(profileId);
      const view = await readTransfer(transactionId, owner);
      await record.remember(view);
      await record.applyStatuses([view]);
      if (view.status === 'in_progress' && view.returnDetails) following.follow(view.transactionId, owner);
      return view;
    },

    async recent() {
      return (await record.store()).get().recent;
    },

    ...writes,

    async review(transactionId, profileId) {
      const owner = owners.ownerOf(profileId);
      // Only an intent this workstation sent (and the bank did not refuse) can be inside the bank's
      // 404 window; any other id is read once, so a wrong id answers not_found now instead of
      // holding the call for 30 min.
      const sent = await record.latestEntry(transactionId, owner.profileId);
      if (!sent || sent.phase === 'refused') {
        const known = await readTransfer(transactionId, owner);
        await record.applyStatuses([known]);
        return known;
      }
      let tx;
      try {
        tx = await owner.readAfterCreate(transactionId);
      } catch (err) {
        throw explainReturnFailure(err);
      }
      const view = viewOf(tx, await roleOf(owner), owner);
      await record.applyStatuses([view]);
      return view;
    },

    async list() {
      const s = await record.store();
      // Every profile's returns, each re-read once through its own profile (the newest entry
      // per transaction gets the status).
      const keys = [
        ...new Map(s.get().entries.map((e) => [`${e.environmentId}|${e.transactionId}`, e])).values(),
      ];
      const queue = keys.slice(-50);
      const worker = async (): Promise<void> => {
        for (let next = queue.shift(); next !== undefined; next = queue.shift()) await reread(next);
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
      return [...s.get().entries].reverse();
    },

    following: () => following.following(),
    dispose: () => following.dispose(),
  };
}
