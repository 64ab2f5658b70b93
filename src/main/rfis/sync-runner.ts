/**
 * Runs the syncs of the RFI service: one at a time (a second ask joins the one running, unless a
 * full sync is asked while an incremental runs: then it waits and runs after), only when the
 * session is connected, and says each step in the sync state. The first complete picture is the
 * baseline (not news); later ones go through `applied` (notifications, push, listeners).
 */

import type { RfiSyncStateView } from '../../shared/ipc/channels/rfis';
import { AppFailure } from '../../shared/ipc/errors';
import type { BankClient } from '../bank/client';
import type { Logger } from '../infra/log';
import type { SessionManager } from '../session/session';
import type { ChangeEvents, ChangeSource } from './change-events';
import type { RfiDiff, RfiRepository } from './repository';
import { syncRepository } from './sync';
import type { SyncOutcome } from './sync';

export type SyncStatePatch = Partial<Omit<RfiSyncStateView, 'polling' | 'pollIntervalSeconds'>>;

export interface SyncRunnerDeps {
  bank: BankClient;
  session: Pick<SessionManager, 'lastStatus' | 'check'>;
  log: Logger;
  now(): number;
  /** The cache of the current scope (opened on demand); null once disposed. */
  currentRepo(): Promise<RfiRepository | null>;
  /** Whether this cache is still the current one (the scope may change during a sync). */
  isCurrent(r: RfiRepository): boolean;
  publishState(patch: SyncStatePatch): void;
  changes: ChangeEvents;
  /** After an upsert past the baseline: notifications, badge, push and listeners. */
  applied(r: RfiRepository, source: ChangeSource, diffs: RfiDiff[], removed: string[]): void;
}

export interface SyncRunner {
  run(source: ChangeSource, full: boolean): Promise<SyncOutcome | null>;
  /** The sync running now, if any. */
  running(): Promise<SyncOutcome | null> | null;
}

const unreadableText = (n: number): string | null =>
  n > 0
    ? `${n} RFI${n === 1 ? '' : 's'} from the bank could not be read and ${n === 1 ? 'is' : 'are'} not shown (or shown as last read).`
    : null;

export function createSyncRunner(deps: SyncRunnerDeps): SyncRunner {
  const { session, log } = deps;
  let running: Promise<SyncOutcome | null> | null = null;
  let runningFull = false;

  /** The first complete picture: saved as the baseline, pushed without notifications. */
  const baseline = async (r: RfiRepository, source: ChangeSource, outcome: SyncOutcome): Promise<void> => {
    r.setMeta({ baseline: true });
    await r.flush();
    if (!deps.isCurrent(r)) return;
    if (outcome.diffs.length > 0 || outcome.removed.length > 0) {
      deps.changes.emitChanged(source, outcome.diffs, outcome.removed, []);
    }
    deps.changes.tellApplied(outcome.diffs, source, false);
  };

  const syncNow = async (r: RfiRepository, source: ChangeSource, full: boolean): Promise<SyncOutcome> => {
    deps.publishState({ state: 'syncing' });
    try {
      const outcome = await syncRepository(deps.bank, r, { full, nowMs: deps.now() });
      if (!r.meta().baseline) await baseline(r, source, outcome);
      else deps.applied(r, source, outcome.diffs, outcome.removed);
      const m = r.meta();
      if (outcome.unreadable > 0) {
        log.warn('rfis: records of the bank’s answer are not readable RFIs; skipped', {
          count: outcome.unreadable,
        });
      }
      deps.publishState({
        state: 'idle',
        lastError: unreadableText(outcome.unreadable),
        lastSyncedAt: m.lastSyncedAt,
        lastMode: outcome.mode,
        updatedSinceSupported: m.updatedSinceSupported,
      });
      return outcome;
    } catch (err) {
      const e = err instanceof AppFailure ? err : null;
      if (!e) log.error('rfis: sync failed', { error: err });
      deps.publishState({
        state: e?.kind === 'offline' ? 'offline' : 'error',
        lastError: e ? e.message : 'The RFIs could not be synced (see the log).',
      });
      throw err;
    }
  };

  const once = async (source: ChangeSource, full: boolean): Promise<SyncOutcome | null> => {
    if (session.lastStatus?.connection !== 'connected') await session.check().catch(() => undefined);
    const r = await deps.currentRepo();
    if (!r) return null;
    const conn = session.lastStatus?.connection;
    if (conn && conn !== 'connected') {
      deps.publishState({
        state: conn === 'offline' ? 'offline' : 'error',
        lastError: session.lastStatus?.problem ?? 'Not connected to the bank.',
      });
      return null;
    }
    return syncNow(r, source, full);
  };

  return {
    async run(source, full) {
      if (running && (runningFull || !full)) return running;
      if (running) await running.catch(() => null);
      runningFull = full;
      const mine = once(source, full);
      running = mine;
      try {
        return await mine;
      } finally {
        if (running === mine) {
          running = null;
          runningFull = false;
        }
      }
    },
    running: () => running,
  };
}
