/**
 * Confirmed returns followed to a final status through their own profile's client, whatever
 * profile is active, with a native notification when one completes.
 */

import { isTransientRead } from '../../shared/failure-policy';
import type { TransferView } from '../../shared/ipc/channels/returns';
import { AppFailure } from '../../shared/ipc/errors';
import { formatMinor, parseMinor } from '../../shared/money';
import { createFollower } from '../bank/follower';
import type { FollowUpdate } from '../bank/follower';
import type { Logger } from '../infra/log';
import type { Platform } from '../infra/platform';
import type { SettingsStore } from '../session/settings';
import { viewOf } from './owners';
import type { ReturnsOwner } from './owners';
import type { ReturnsRecord } from './record';

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

export interface ReturnsFollowing {
  /** Follows through the owner's own client (until shutdown). */
  follow(transactionId: string, owner: ReturnsOwner): void;
  notifyCompleted(view: TransferView): void;
  following(): string[];
  dispose(): Promise<void>;
}

export function createReturnsFollowing(deps: {
  record: ReturnsRecord;
  settings: SettingsStore;
  platform: Platform;
  log: Logger;
  timing: ReturnsTiming;
}): ReturnsFollowing {
  const t = deps.timing;
  let disposed = false;

  const notifyCompleted = (view: TransferView): void => {
    if (deps.settings.get().notifications.transactionStatus === false) return;
    const amount = view.returnDetails?.amount ?? view.incoming?.amount;
    const currency = view.incoming?.currency ?? '';
    let shown = '';
    try {
      shown = amount ? `${formatMinor(parseMinor(amount), currency)} ` : '';
    } catch {
      shown = '';
    }
    deps.platform.notify({
      title: 'Return completed',
      body: `The return ${shown}of transfer ${view.transactionId} is completed.`,
    });
  };

  /** Which profile each followed transaction is read through. */
  const followedBy = new Map<string, ReturnsOwner>();
  /** Follows confirmed returns until they leave in_progress; notifies on return_completed. */
  const follower = createFollower<TransferView>({
    read: async (transactionId, signal) => {
      const owner = followedBy.get(transactionId);
      if (!owner) throw new AppFailure({ kind: 'not_found', message: `${transactionId} is not followed.` });
      return viewOf(
        await owner.bank.getTransaction(transactionId, { signal }),
        owner.credential?.role ?? null,
        owner,
      );
    },
    isFinal: (view) => view.status !== 'in_progress',
    fingerprint: (view) => `${view.status}|${view.returnDetails ? 'return' : ''}`,
    onBatch: async (batch: Array<FollowUpdate<TransferView>>) => {
      await deps.record.applyStatuses(batch.map((u) => u.value));
      for (const u of batch) if (u.final && u.value.status === 'return_completed') notifyCompleted(u.value);
    },
    onBatchError: (err) => deps.log.warn('returns: recording followed statuses failed', { error: err }),
    onError: (transactionId, err) => {
      // not_found: the transaction is not visible yet (read-after-create window).
      if (err instanceof AppFailure && (err.kind === 'not_found' || isTransientRead(err))) return 'retry';
      deps.log.warn('returns: following stopped', { transactionId, error: err });
      return 'stop';
    },
    policy: {
      firstDelayMs: t.followFirstMs,
      factor: 1.5,
      maxDelayMs: t.followMaxMs,
      giveUpMs: t.followGiveUpMs,
    },
  });

  return {
    follow(transactionId, owner) {
      followedBy.set(transactionId, owner);
      follower.follow(transactionId, { active: () => !disposed });
    },
    notifyCompleted,
    following: () => follower.following(),
    dispose() {
      disposed = true;
      return follower.dispose();
    },
  };
}
