/**
 * The RFI "data in" service: the cache of the active scope (environment + legal entity), syncs,
 * the change detector and its native notifications, unread markers and the app badge. The
 * watcher (polling) and the webhook receiver both end in `sync()` / `refresh()`.
 *
 * Its parts: the cache of the current scope (`scope-cache.ts`), the sync runs (`sync-runner.ts`),
 * what is told after a change (`change-events.ts`) and the poller (`watcher.ts`); here, their
 * wiring and the service's calls.
 */

import type { AtRestCodec } from '../infra/at-rest';
import type { Rfi } from '../../shared/api/rfis';
import type {
  RfiCountsView,
  RfiDetailView,
  RfiSummaryView,
  RfiSyncStateView,
} from '../../shared/ipc/channels/rfis';
import { AppFailure } from '../../shared/ipc/errors';
import { isTransientRead } from '../../shared/failure-policy';
import { countSummaries } from '../../shared/rfi-view';
import type { RfiFilter, RfiSort } from '../../shared/rfi-view';
import type { BankClient } from '../bank/client';
import type { ServerClock } from '../bank/clock';
import type { StateFileProblem } from '../infra/json-store';
import type { EventHub } from '../infra/events';
import type { Logger } from '../infra/log';
import type { Platform } from '../infra/platform';
import type { SessionManager } from '../session/session';
import type { SettingsStore } from '../session/settings';
import { createChangeEvents } from './change-events';
import type { ChangeSource } from './change-events';
import type { RfiDiff, RfiRepository } from './repository';
import { openScopeCache } from './scope-cache';
import { createSyncRunner } from './sync-runner';
import type { SyncStatePatch } from './sync-runner';
import { createPoller } from './watcher';
import type { Poller, PollerOptions } from './watcher';

export { removeProfileCache } from './scope-cache';
export type { ChangeSource } from './change-events';

export interface RfiServiceOptions {
  /** Polling: interval override (tests) and floor; default from settings, floor 5 s. */
  poll?: Partial<Pick<PollerOptions, 'intervalMs' | 'floorMs' | 'jitter'>>;
  /** Do not start polling/initial sync (unit tests that drive sync by hand). */
  autoStart?: boolean;
}

export interface RfiServiceDeps {
  dataDir: string;
  bank: BankClient;
  clock: ServerClock;
  session: RfiSession;
  settings: SettingsStore;
  events: EventHub;
  platform: Platform;
  log: Logger;
  options?: RfiServiceOptions;
  /** Seals and opens the cache files at rest (default: plain). */
  codec?: AtRestCodec;
  /** Tells the analyst about a cache file that could not be read and was moved aside. */
  report?(problem: StateFileProblem): void;
  /** Names of the objects a few RFIs are about (for notifications); ids are shown without it. */
  relatedNames?(rfis: readonly Rfi[]): Promise<ReadonlyMap<string, string>>;
  /** Where the awaiting-action count goes (default: the app badge; the entity watch sums every profile's). */
  badge?(count: number): void;
  /** The legal entity's name, added to notification titles (null: not said, one entity only). */
  entityName?(): string | null;
  /** Told of every notification shown for an RFI (the case file lists them). */
  onSeen?(seen: { rfiId: string; kind: 'notification'; detail: string }): void;
}

/** What the service needs of a session: the active one, or a watched profile's own. */
export type RfiSession = Pick<SessionManager, 'environment' | 'credential' | 'lastStatus' | 'check'>;

export interface ListResult {
  items: RfiSummaryView[];
  total: number;
  counts: RfiCountsView;
  sync: RfiSyncStateView;
}

export interface RfiService {
  list(filter: RfiFilter & { sort?: RfiSort; offset?: number; limit?: number }): Promise<ListResult>;
  get(id: string, refresh?: boolean): Promise<RfiDetailView>;
  /** A sync now (joins one already running unless `full` is asked while an incremental runs). */
  sync(source: ChangeSource, full?: boolean): Promise<{ sync: RfiSyncStateView; counts: RfiCountsView }>;
  /** Re-reads one RFI from the bank and applies it (webhook events, the workspace after a send). */
  refresh(rfiId: string, source: ChangeSource): Promise<Rfi | null>;
  markSeen(
    id: string,
    updatedAt?: string,
  ): Promise<{ summary: RfiSummaryView | null; counts: RfiCountsView }>;
  counts(): Promise<{ counts: RfiCountsView; sync: RfiSyncStateView }>;
  syncState(): RfiSyncStateView;
  /** Resolves when the cache of the current scope is loaded and has had its first sync attempt. */
  ready(): Promise<void>;
  readonly poller: Poller;
  /** Listeners of applied diffs (the webhook receiver status, tests). */
  onApplied(listener: (diffs: RfiDiff[], source: ChangeSource) => void): () => void;
  dispose(): Promise<void>;
}

/** The service's poller: the settings' interval (floor 5 s), paused and resumed with the system. */
function pollerOf(
  deps: RfiServiceDeps,
  poll: () => Promise<'ok' | 'unreachable'>,
  onState: () => void,
): { poller: Poller; dispose(): void } {
  const { settings, platform, log } = deps;
  const poller = createPoller({
    intervalMs: deps.options?.poll?.intervalMs ?? (() => settings.get().pollingIntervalSeconds * 1000),
    floorMs: deps.options?.poll?.floorMs ?? 5000,
    jitter: deps.options?.poll?.jitter ?? 0.1,
    poll,
    onState,
    log,
  });
  const offSystem = platform.onSystemEvent((e) => poller.systemEvent(e));
  const offSettings = settings.onChange(() => poller.reschedule());
  return {
    poller,
    dispose() {
      poller.stop();
      offSystem();
      offSettings();
    },
  };
}

/** Back online, or a new credential: `trigger` at once. Answers the detach. */
function onSessionBack(deps: RfiServiceDeps, trigger: () => void): () => void {
  const { session } = deps;
  let lastConnection = session.lastStatus?.connection ?? null;
  let lastCredentialKey: string | null = null;
  return deps.events.attach((m) => {
    if (m.event !== 'session.changed') return;
    const st = session.lastStatus;
    const conn = st?.connection ?? null;
    const credKey = st?.credential ? `${st.environment.id}|${st.credential.legalEntityId}` : null;
    const cameBack = conn === 'connected' && lastConnection !== 'connected';
    const newCred = credKey !== null && credKey !== lastCredentialKey;
    lastConnection = conn;
    if (credKey) lastCredentialKey = credKey;
    if (cameBack || newCred) trigger();
  });
}

function detailOf(
  r: RfiRepository,
  rfi: Rfi,
  nowMs: number,
  fromCache: boolean,
  bankUnreachable: boolean,
): RfiDetailView {
  const summary = r.summary(rfi.id, nowMs);
  if (!summary) throw new AppFailure({ kind: 'not_found', message: `No RFI ${rfi.id} in the cache.` });
  return { rfi, summary, fromCache, bankUnreachable, lastSeenUpdatedAt: r.lastSeen(rfi.id) ?? null };
}

const emptyCounts = (): RfiCountsView => countSummaries([]);

export async function createRfiService(deps: RfiServiceDeps): Promise<RfiService> {
  const { bank, clock, session, events, log } = deps;
  let disposed = false;
  let state: Omit<RfiSyncStateView, 'polling' | 'pollIntervalSeconds'> = {
    state: 'idle',
    lastSyncedAt: null,
    lastError: null,
    lastMode: null,
    updatedSinceSupported: null,
  };
  const now = () => clock.now();
  const syncState = (): RfiSyncStateView => ({
    ...state,
    polling: poller.state(),
    pollIntervalSeconds: Math.round(poller.intervalMs() / 1000),
  });
  const publishState = (patch: SyncStatePatch): void => {
    state = { ...state, ...patch };
    events.emit('rfis.syncState', syncState());
  };
  const countsOf = (r: RfiRepository | null): RfiCountsView => (r ? r.counts(now()) : emptyCounts());

  const changes = createChangeEvents({
    ...deps,
    counts: () => countsOf(cache.repo),
    disposed: () => disposed,
  });
  const cache = await openScopeCache({
    ...deps,
    onOpened: (r) => {
      const m = r.meta();
      state = {
        ...state,
        lastSyncedAt: m.lastSyncedAt,
        updatedSinceSupported: m.updatedSinceSupported,
        lastError: null,
      };
    },
    onReady: () => changes.emitChanged('load', [], [], []),
  });
  const currentRepo = (): Promise<RfiRepository | null> =>
    disposed ? Promise.resolve(null) : cache.current();

  /** After an upsert: notifications (once), badge, the push event and listeners. */
  const applied = (r: RfiRepository, source: ChangeSource, diffs: RfiDiff[], removed: string[]): void => {
    if (r !== cache.repo) return; // the scope changed meanwhile
    void changes
      .notify(r, diffs)
      .catch((err: unknown) => log.warn('rfis: notifications failed', { error: err }));
    if (diffs.length > 0 || removed.length > 0) changes.emitChanged(source, diffs, removed, []);
    else changes.updateBadge(countsOf(r));
    changes.tellApplied(diffs, source, true);
  };

  const runner = createSyncRunner({
    bank,
    session,
    log,
    now,
    currentRepo,
    isCurrent: (r) => r === cache.repo,
    publishState,
    changes,
    applied,
  });

  const polling = pollerOf(
    deps,
    async () => {
      try {
        await runner.run('poll', false);
        return state.state === 'offline' ? 'unreachable' : 'ok';
      } catch (err) {
        if (err instanceof AppFailure && err.kind === 'offline') return 'unreachable';
        throw err;
      }
    },
    () => events.emit('rfis.syncState', syncState()),
  );
  const { poller } = polling;
  const offSession = onSessionBack(deps, () => {
    if (!disposed && poller.state() !== 'stopped') poller.trigger();
  });

  let firstSync: Promise<void> = Promise.resolve();
  if (deps.options?.autoStart !== false) {
    firstSync = runner
      .run('sync', false)
      .then(() => undefined)
      .catch((err: unknown) => log.warn('rfis: first sync failed; the cache is shown', { error: err }));
    poller.start();
  }

  const service: RfiService = {
    poller,
    syncState,
    ready: () => firstSync,
    async list(args) {
      const r = await currentRepo();
      if (!r) return { items: [], total: 0, counts: emptyCounts(), sync: syncState() };
      const nowMs = now();
      const rows = r.list(nowMs, args, args.sort ?? 'deadline');
      const offset = args.offset ?? 0;
      const items =
        args.limit !== undefined || offset > 0
          ? rows.slice(offset, offset + (args.limit ?? rows.length))
          : rows;
      return { items, total: rows.length, counts: r.counts(nowMs), sync: syncState() };
    },
    async get(id, refresh) {
      const r = await currentRepo();
      if (!r)
        throw new AppFailure({ kind: 'not_found', message: 'No RFIs are cached for this environment yet.' });
      let unreachable = false;
      if (refresh) {
        try {
          const fresh = await service.refresh(id, 'refresh');
          if (fresh) return detailOf(r, r.get(id) ?? fresh, now(), false, false);
        } catch (err) {
          if (!(err instanceof AppFailure) || !isTransientRead(err)) throw err;
          unreachable = true;
        }
      }
      const cached = r.get(id);
      if (!cached) throw new AppFailure({ kind: 'not_found', message: `There is no RFI ${id}.` });
      return detailOf(r, cached, now(), true, unreachable || syncState().state === 'offline');
    },
    async sync(source, full = false) {
      await runner.run(source, full);
      return { sync: syncState(), counts: countsOf(await currentRepo()) };
    },
    async refresh(rfiId, source) {
      const r = await currentRepo();
      if (!r) return null;
      let rfi: Rfi;
      try {
        rfi = await bank.getRfi(rfiId);
      } catch (err) {
        if (err instanceof AppFailure && err.kind === 'not_found') {
          const removed = r.remove([rfiId]);
          if (removed.length > 0) {
            await r.flush();
            applied(r, source, [], removed);
          }
        }
        throw err;
      }
      const diffs = r.upsert([rfi]);
      if (diffs.length > 0) await r.flush();
      applied(r, source, diffs, []);
      return rfi;
    },
    async markSeen(id, updatedAt) {
      const r = await currentRepo();
      if (!r) return { summary: null, counts: emptyCounts() };
      const rfi = r.get(id);
      const at = updatedAt ?? rfi?.updated_at;
      if (!at) throw new AppFailure({ kind: 'not_found', message: `There is no RFI ${id}.` });
      try {
        const changed = await r.markSeen(id, at);
        if (changed) changes.emitChanged('seen', [], [], [id]);
      } catch (err) {
        log.error('rfis: seen marker not saved', { error: err });
        throw new AppFailure(
          { kind: 'local', message: 'The read marker could not be saved on disk.' },
          { cause: err },
        );
      }
      return { summary: r.summary(id, now()) ?? null, counts: countsOf(r) };
    },
    async counts() {
      return { counts: countsOf(await currentRepo()), sync: syncState() };
    },
    onApplied: (listener) => changes.onApplied(listener),
    async dispose() {
      disposed = true;
      const opened = cache.dispose();
      polling.dispose();
      offSession();
      await runner.running()?.catch(() => null);
      // A cache being opened (its scope being saved) lands before the last flush.
      await opened;
      await cache.repo?.flush().catch((err: unknown) => log.warn('rfis: last flush failed', { error: err }));
      cache.repo?.close();
    },
  };
  return service;
}
