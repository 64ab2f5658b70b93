/**
 * The RFI "data in" service: the cache of the active scope (environment + legal entity), syncs,
 * the change detector and its native notifications, unread markers and the app badge. The
 * watcher (polling) and the webhook receiver both end in `sync()` / `refresh()`.
 */

import { createHash } from 'node:crypto';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { AtRestCodec } from '../infra/at-rest';
import { EMBEDDED_SANDBOX_ORIGIN, scopeOrigin } from '../bank/scope';
import type { Rfi } from '../../shared/api/rfis';
import type {
  RfiChangedView,
  RfiCountsView,
  RfiDetailView,
  RfiSummaryView,
  RfiSyncStateView,
} from '../../shared/ipc/channels/rfis';
import { DeskFailure } from '../../shared/ipc/errors';
import { isTransientRead } from '../../shared/failure-policy';
import { countSummaries } from '../../shared/rfi-view';
import type { RfiFilter, RfiSort } from '../../shared/rfi-view';
import type { BankClient } from '../bank/client';
import type { ServerClock } from '../bank/clock';
import { fileExists } from '../infra/durable-file';
import { stateFile } from '../infra/json-store';
import type { StateFileProblem } from '../infra/json-store';
import { scopesFormat } from './scopes-file';
import type { EventHub } from '../infra/events';
import type { Logger } from '../infra/log';
import type { Platform } from '../infra/platform';
import type { SessionManager } from '../session/session';
import type { SettingsStore } from '../session/settings';
import { ChangeDetector, newsOf, SUMMARY_THRESHOLD } from './notifier';
import { openRfiRepository } from './repository';
import type { RfiDiff, RfiRepository } from './repository';
import { syncRepository } from './sync';
import type { SyncOutcome } from './sync';
import { createPoller } from './watcher';
import type { Poller, PollerOptions } from './watcher';

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
  /** Where the awaiting-action count goes (default: the app badge; the desk sums every profile's). */
  badge?(count: number): void;
  /** The legal entity's name, added to notification titles (null: not said, one entity only). */
  entityName?(): string | null;
  /** Told of every notification shown for an RFI (the case file lists them). */
  onSeen?(seen: { rfiId: string; kind: 'notification'; detail: string }): void;
}

/** What the service needs of a session: the active one, or a watched profile's own. */
export type RfiSession = Pick<SessionManager, 'environment' | 'credential' | 'lastStatus' | 'check'>;

export type ChangeSource = RfiChangedView['source'];

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

const ID_CAP = 1000;

function safeSegment(s: string): string {
  const clean = s.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40);
  return `${clean}-${createHash('sha256').update(s).digest('hex').slice(0, 8)}`;
}

/** Deletes a profile's RFI caches (every legal entity it held), once the profile is removed. */
export async function removeProfileCache(dataDir: string, profileId: string, origin: string): Promise<void> {
  const root = path.join(dataDir, 'rfis');
  for (const segment of new Set([safeSegment(profileId), safeSegment(`${profileId}@${origin}`)])) {
    // A last cache write may still be landing: rm retries a folder that filled up meanwhile.
    await rm(path.join(root, segment), { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  }
}

export async function createRfiService(deps: RfiServiceDeps): Promise<RfiService> {
  const { bank, clock, session, settings, events, platform, log } = deps;
  const root = path.join(deps.dataDir, 'rfis');
  const scopesFile = path.join(root, 'scopes.json');
  const detector = new ChangeDetector();
  const appliedListeners = new Set<(diffs: RfiDiff[], source: ChangeSource) => void>();

  const scopesStore = stateFile(scopesFormat, {
    log,
    ...(deps.codec ? { codec: deps.codec } : {}),
    ...(deps.report ? { report: deps.report } : {}),
  });
  let lastScopes: Record<string, string> = (await scopesStore.read(scopesFile))?.value.scopes ?? {};

  let repo: RfiRepository | null = null;
  let repoScope: string | null = null;
  let opening: Promise<RfiRepository | null> | null = null;
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

  const publishState = (patch: Partial<typeof state>): void => {
    state = { ...state, ...patch };
    events.emit('rfis.syncState', syncState());
  };

  const emptyCounts = (): RfiCountsView => countSummaries([]);

  /**
   * The scope of the active environment: the legal entity of the credential; while it is not known
   * (offline at start, or a bank without GET /v1/webhook/url, which then never tells) the last one
   * seen in this environment, else one default scope per environment (a full sync reconciles it).
   */
  const UNKNOWN_ENTITY = '_unknown';
  const scopeOf = (): { env: string; le: string; origin: string } => {
    const env = session.environment.id;
    const le = session.credential?.legalEntityId ?? lastScopes[env] ?? UNKNOWN_ENTITY;
    return { env, le, origin: scopeOrigin(session.environment) };
  };

  const currentRepo = async (): Promise<RfiRepository | null> => {
    if (disposed) return null;
    const scope = scopeOf();
    const key = `${scope.env}\u0000${scope.origin}\u0000${scope.le}`;
    if (repo && repoScope === key) return repo;
    if (opening) {
      await opening.catch(() => null);
      return currentRepo();
    }
    opening = (async () => {
      // The folder names the bank too: a profile pointed at another origin never reads this cache.
      const envSegment =
        scope.origin === EMBEDDED_SANDBOX_ORIGIN
          ? safeSegment(scope.env)
          : safeSegment(`${scope.env}@${scope.origin}`);
      const dir = path.join(root, envSegment, safeSegment(scope.le));
      if (scope.origin !== EMBEDDED_SANDBOX_ORIGIN) {
        // A cache from before the folder named the origin belongs to the profile's origin of now:
        // adopted (its plain files are rewritten sealed at the next flush), not left behind.
        const legacy = path.join(root, safeSegment(scope.env), safeSegment(scope.le));
        if (!(await fileExists(dir)) && (await fileExists(legacy))) {
          await mkdir(path.dirname(dir), { recursive: true, mode: 0o700 });
          await rename(legacy, dir).catch((err: unknown) =>
            log.warn('rfis: cache from before origin scoping not adopted', { error: err }),
          );
        }
      }
      const r = await openRfiRepository({ dir, log, ...(deps.codec ? { codec: deps.codec } : {}) });
      for (const p of r.problems) deps.report?.(p);
      repo = r;
      repoScope = key;
      const m = r.meta();
      state = {
        ...state,
        lastSyncedAt: m.lastSyncedAt,
        updatedSinceSupported: m.updatedSinceSupported,
        lastError: null,
      };
      if (scope.le !== UNKNOWN_ENTITY && lastScopes[scope.env] !== scope.le) {
        lastScopes = { ...lastScopes, [scope.env]: scope.le };
        await scopesStore
          .write(scopesFile, { version: 1, scopes: lastScopes })
          .catch((err: unknown) => log.warn('rfis: last scope not saved', { error: err }));
      }
      emitChanged('load', [], [], []);
      return r;
    })();
    try {
      return await opening;
    } finally {
      opening = null;
    }
  };

  const countsOf = (r: RfiRepository | null): RfiCountsView => (r ? r.counts(now()) : emptyCounts());

  let lastBadge = -1;
  const updateBadge = (counts: RfiCountsView): void => {
    if (counts.awaitingAction === lastBadge) return;
    lastBadge = counts.awaitingAction;
    try {
      if (deps.badge) deps.badge(counts.awaitingAction);
      else platform.setBadgeCount(counts.awaitingAction);
    } catch (err) {
      log.warn('rfis: badge not set', { error: err });
    }
  };

  const cap = (ids: string[]): { list: string[]; over: boolean } =>
    ids.length > ID_CAP ? { list: ids.slice(0, ID_CAP), over: true } : { list: ids, over: false };

  function emitChanged(source: ChangeSource, diffs: RfiDiff[], removed: string[], seen: string[]): void {
    const counts = countsOf(repo);
    updateBadge(counts);
    const created = cap(diffs.filter((d) => !d.before).map((d) => d.id));
    const updated = cap(diffs.map((d) => d.id));
    const statusChanged = cap(
      diffs.filter((d) => d.before && d.before.status !== d.after.status).map((d) => d.id),
    );
    const rem = cap(removed);
    events.emit('rfis.changed', {
      source,
      created: created.list,
      updated: updated.list,
      statusChanged: statusChanged.list,
      removed: rem.list,
      seen,
      truncated: created.over || updated.over || statusChanged.over || rem.over,
      counts,
    });
  }

  const notify = async (r: RfiRepository, diffs: RfiDiff[]): Promise<void> => {
    if (!r.meta().baseline) return;
    const prefs = settings.get().notifications;
    // A few RFIs with news are named (one read each); many become one summary without names.
    const withNews = diffs.filter((d) => newsOf(d).length > 0).map((d) => d.after);
    const names =
      deps.relatedNames && withNews.length > 0 && withNews.length <= SUMMARY_THRESHOLD
        ? await deps.relatedNames(withNews).catch((err: unknown) => {
            log.info('rfis: related objects not named', { error: err });
            return new Map<string, string>();
          })
        : new Map<string, string>();
    if (disposed) return;
    for (const plan of detector.plan(diffs, { newRfi: prefs.newRfi, rfiStatus: prefs.rfiStatus }, names)) {
      const rfiId = plan.rfiId;
      const entity = deps.entityName?.() ?? null;
      if (rfiId) deps.onSeen?.({ rfiId, kind: 'notification', detail: `${plan.title}: ${plan.body}` });
      try {
        platform.notify({
          title: entity ? `${plan.title} — ${entity}` : plan.title,
          body: plan.body,
          onClick: () => events.emit('rfis.openRequested', { rfiId: rfiId ?? '' }),
        });
      } catch (err) {
        log.warn('rfis: notification not shown', { error: err });
      }
    }
  };

  /** After an upsert: notifications (once), badge, the push event and listeners. */
  const applied = (r: RfiRepository, source: ChangeSource, diffs: RfiDiff[], removed: string[]): void => {
    if (r !== repo) return; // the scope changed meanwhile
    void notify(r, diffs).catch((err: unknown) => log.warn('rfis: notifications failed', { error: err }));
    if (diffs.length > 0 || removed.length > 0) emitChanged(source, diffs, removed, []);
    else updateBadge(countsOf(r));
    for (const l of [...appliedListeners]) {
      try {
        l(diffs, source);
      } catch (err) {
        log.warn('rfis: applied listener failed', { error: err });
      }
    }
  };

  let running: Promise<SyncOutcome | null> | null = null;
  let runningFull = false;

  const runSync = async (source: ChangeSource, full: boolean): Promise<SyncOutcome | null> => {
    if (running && (runningFull || !full)) return running;
    if (running) await running.catch(() => null);
    runningFull = full;
    const mine: Promise<SyncOutcome | null> = (async () => {
      if (session.lastStatus?.connection !== 'connected') await session.check().catch(() => undefined);
      const r = await currentRepo();
      if (!r) return null;
      const conn = session.lastStatus?.connection;
      if (conn && conn !== 'connected') {
        publishState({
          state: conn === 'offline' ? 'offline' : 'error',
          lastError: session.lastStatus?.problem ?? 'Not connected to the bank.',
        });
        return null;
      }
      publishState({ state: 'syncing' });
      try {
        const outcome = await syncRepository(bank, r, { full, nowMs: now() });
        if (!r.meta().baseline) {
          // The first complete picture is the baseline: it is not news.
          r.setMeta({ baseline: true });
          await r.flush();
          if (r === repo) {
            if (outcome.diffs.length > 0 || outcome.removed.length > 0) {
              emitChanged(source, outcome.diffs, outcome.removed, []);
            }
            for (const l of [...appliedListeners]) l(outcome.diffs, source);
          }
        } else {
          applied(r, source, outcome.diffs, outcome.removed);
        }
        const m = r.meta();
        if (outcome.unreadable > 0) {
          log.warn('rfis: records of the bank’s answer are not readable RFIs; skipped', {
            count: outcome.unreadable,
          });
        }
        publishState({
          state: 'idle',
          lastError:
            outcome.unreadable > 0
              ? `${outcome.unreadable} RFI${outcome.unreadable === 1 ? '' : 's'} from the bank could not be read and ${outcome.unreadable === 1 ? 'is' : 'are'} not shown (or shown as last read).`
              : null,
          lastSyncedAt: m.lastSyncedAt,
          lastMode: outcome.mode,
          updatedSinceSupported: m.updatedSinceSupported,
        });
        return outcome;
      } catch (err) {
        const e = err instanceof DeskFailure ? err : null;
        if (!e) log.error('rfis: sync failed', { error: err });
        publishState({
          state: e?.kind === 'offline' ? 'offline' : 'error',
          lastError: e ? e.message : 'The RFIs could not be synced (see the log).',
        });
        throw err;
      }
    })();
    running = mine;
    try {
      return await mine;
    } finally {
      if (running === mine) {
        running = null;
        runningFull = false;
      }
    }
  };

  const pollingInterval = (): number => settings.get().pollingIntervalSeconds * 1000;
  const poller = createPoller({
    intervalMs: deps.options?.poll?.intervalMs ?? pollingInterval,
    floorMs: deps.options?.poll?.floorMs ?? 5000,
    jitter: deps.options?.poll?.jitter ?? 0.1,
    poll: async () => {
      try {
        await runSync('poll', false);
        return state.state === 'offline' ? 'unreachable' : 'ok';
      } catch (err) {
        if (err instanceof DeskFailure && err.kind === 'offline') return 'unreachable';
        throw err;
      }
    },
    onState: () => events.emit('rfis.syncState', syncState()),
    log,
  });
  const offSystem = platform.onSystemEvent((e) => poller.systemEvent(e));
  const offSettings = settings.onChange(() => poller.reschedule());

  // Back online / a new credential: sync at once.
  let lastConnection = session.lastStatus?.connection ?? null;
  let lastCredentialKey: string | null = null;
  const offEvents = events.attach((m) => {
    if (m.event !== 'session.changed') return;
    const st = session.lastStatus;
    const conn = st?.connection ?? null;
    const credKey = st?.credential ? `${st.environment.id}|${st.credential.legalEntityId}` : null;
    const cameBack = conn === 'connected' && lastConnection !== 'connected';
    const newCred = credKey !== null && credKey !== lastCredentialKey;
    lastConnection = conn;
    if (credKey) lastCredentialKey = credKey;
    if ((cameBack || newCred) && !disposed && poller.state() !== 'stopped') poller.trigger();
  });

  let firstSync: Promise<void> = Promise.resolve();
  if (deps.options?.autoStart !== false) {
    firstSync = runSync('sync', false)
      .then(() => undefined)
      .catch((err: unknown) => log.warn('rfis: first sync failed; the cache is shown', { error: err }));
    poller.start();
  }

  const detail = (
    r: RfiRepository,
    rfi: Rfi,
    fromCache: boolean,
    bankUnreachable: boolean,
  ): RfiDetailView => {
    const summary = r.summary(rfi.id, now());
    if (!summary) throw new DeskFailure({ kind: 'not_found', message: `No RFI ${rfi.id} in the cache.` });
    return { rfi, summary, fromCache, bankUnreachable, lastSeenUpdatedAt: r.lastSeen(rfi.id) ?? null };
  };

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
        throw new DeskFailure({ kind: 'not_found', message: 'No RFIs are cached for this environment yet.' });
      let unreachable = false;
      if (refresh) {
        try {
          const fresh = await service.refresh(id, 'refresh');
          if (fresh) return detail(r, r.get(id) ?? fresh, false, false);
        } catch (err) {
          if (!(err instanceof DeskFailure) || !isTransientRead(err)) throw err;
          unreachable = true;
        }
      }
      const cached = r.get(id);
      if (!cached) throw new DeskFailure({ kind: 'not_found', message: `There is no RFI ${id}.` });
      return detail(r, cached, true, unreachable || syncState().state === 'offline');
    },
    async sync(source, full = false) {
      await runSync(source, full);
      return { sync: syncState(), counts: countsOf(await currentRepo()) };
    },
    async refresh(rfiId, source) {
      const r = await currentRepo();
      if (!r) return null;
      let rfi: Rfi;
      try {
        rfi = await bank.getRfi(rfiId);
      } catch (err) {
        if (err instanceof DeskFailure && err.kind === 'not_found') {
          const removed = r.remove([rfiId]);
          if (removed.length > 0) {
            await r.flush();
            applied(r, source, [], removed);
          }
          throw err;
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
      if (!at) throw new DeskFailure({ kind: 'not_found', message: `There is no RFI ${id}.` });
      try {
        const changed = await r.markSeen(id, at);
        if (changed) emitChanged('seen', [], [], [id]);
      } catch (err) {
        log.error('rfis: seen marker not saved', { error: err });
        throw new DeskFailure(
          { kind: 'local', message: 'The read marker could not be saved on disk.' },
          { cause: err },
        );
      }
      return { summary: r.summary(id, now()) ?? null, counts: countsOf(r) };
    },
    async counts() {
      return { counts: countsOf(await currentRepo()), sync: syncState() };
    },
    onApplied(listener) {
      appliedListeners.add(listener);
      return () => appliedListeners.delete(listener);
    },
    async dispose() {
      disposed = true;
      poller.stop();
      offSystem();
      offSettings();
      offEvents();
      await running?.catch(() => null);
      await repo?.flush().catch((err: unknown) => log.warn('rfis: last flush failed', { error: err }));
    },
  };
  return service;
}
