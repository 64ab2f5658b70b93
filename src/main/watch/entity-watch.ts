/**
 * The entity watch: every profile with a stored token is watched at the same time. The
 * active profile's RFI service is one member; every other profile with a token gets its own
 * session (its own bank client and token), its own RFI service (its own cache folder, keyed by
 * environment, origin and legal entity as always; its own poller with its own floor and jitter)
 * and its own clock. The queue, the counts and the badge are the union of the members; each row
 * carries its profile and its entity's name. Watched profiles only read (apart from the embedded
 * sandbox's webhook URL, see rfis/webhooks.ts): a write goes through the active session, and the RFI detail says which profile owns an RFI so the analyst acts as it.
 *
 * Each (bank origin, legal entity) is watched once: a profile is first identified (who the bank
 * says its token is), and when several profiles hold credentials for the same entity only one is
 * watched (the active profile, else an admin credential, else the first in the settings); the
 * others are listed with the entity that covers them. Every member gets its own webhook route
 * (the webhook service is told the watched set after each change).
 */

import type {
  WatchedEntityView,
  RfiChangedView,
  RfiCountsView,
  RfiDetailView,
  RfiSummaryView,
  RfiSyncStateView,
} from '../../shared/ipc/channels/rfis';
import { AppFailure } from '../../shared/ipc/errors';
import { compareSummaries, countSummaries, matchesFilter } from '../../shared/rfi-view';
import type { RfiFilter, RfiSort } from '../../shared/rfi-view';
import type { ServerClock } from '../bank/clock';
import type { Stores } from '../infra/stores';
import { createReminders } from './reminders';
import { createWatchSet, roleOf } from './watch-set';
import type { WatchSet, WatchSetDeps } from './watch-set';

export type { RfiMember } from './watch-set';
import type { Reminders } from './reminders';
import { scopeOrigin } from '../bank/scope';
import type { EventHub } from '../infra/events';
import type { Logger } from '../infra/log';
import type { Platform } from '../infra/platform';
import type { ListResult, RfiService } from '../rfis/service';
import type { WebhookService } from '../rfis/webhooks';
import type { ProfileSession } from '../profiles/profile-session';

export interface WatchListArgs extends RfiFilter {
  profileId?: string;
  sort?: RfiSort;
  offset?: number;
  limit?: number;
}

export interface WatchListResult extends ListResult {
  entities: WatchedEntityView[];
}

/** One profile the entity watch watches: its own session (bank client, clock, name) and RFI service. */
export interface WatchedEntity {
  profileId: string;
  session: ProfileSession;
  rfis: RfiService;
  now: () => number;
  entityName: () => string;
  status: () => { connection: WatchedEntityView['connection']; problem: string | null };
}

export interface EntityWatch {
  /**
   * The profile that owns an RFI (named by the caller, or the one whose cache holds it): every
   * write and read for the RFI goes through its session, whatever profile is active.
   */
  owner(rfiId: string, profileId?: string): Promise<WatchedEntity>;
  /** The member a profile reads through (null: not watched). */
  member(profileId: string): WatchedEntity | null;
  list(args: WatchListArgs): Promise<WatchListResult>;
  get(id: string, refresh: boolean): Promise<RfiDetailView>;
  markSeen(
    id: string,
    updatedAt?: string,
  ): Promise<{ summary: RfiSummaryView | null; counts: RfiCountsView }>;
  counts(): Promise<{ counts: RfiCountsView; sync: RfiSyncStateView }>;
  sync(full: boolean): Promise<{ sync: RfiSyncStateView; counts: RfiCountsView }>;
  /** Watched profiles other than the active one (tests, diagnostics). */
  watched(): ReadonlyMap<string, { session: ProfileSession; rfis: RfiService }>;
  /** Deadline reminders over every member now (also after each change and once a minute). */
  checkReminders(): Promise<number>;
  /** Snoozes and the "due soon" list (also when notifications are off for a test run). */
  reminders(): Promise<Reminders>;
  /** Starts and stops watchers to match the profiles with a token (also run on every change). */
  reconcile(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * The watch set's dependencies (its `rfiService` builds the active profile's and every watched
 * one's RFI service alike: the root wires the case-file journal, related names and options in
 * once), and the entity watch's own.
 */
export interface EntityWatchDeps extends WatchSetDeps {
  /** The active profile's RFI service (built with `hub` below as its event hub). */
  primary(): RfiService;
  platform: Platform;
  /** The active profile's bank clock (reminders follow each entity's bank time). */
  clock: ServerClock;
  stores: Stores;
  /** Told of reminders shown and snoozes set or cancelled, per RFI (the case file lists them). */
  onReminderSeen?(rfiId: string, detail: string): void;
  /**
   * Reminders: {} follows Settings (on/off, thresholds); `hours` overrides the thresholds (tests);
   * false shows none whatever Settings say (tests and the harness).
   */
  reminders: { hours?: readonly number[] } | false;
  /** Routes for every watched profile's webhook events (absent: polling only). */
  webhooks?: Pick<WebhookService, 'watch' | 'profile'>;
}

const ACTIVE = '\u0000active';

export interface EntityWatchBuilder {
  /** The event hub the active profile's RFI service emits through (its rfis.* go via the entity watch). */
  hub: EventHub;
  /** The active profile's badge count goes here; the app badge shows the sum. */
  badge(count: number): void;
  /** Whether the started entityWatch watches profiles besides the active one (false before it starts). */
  watchingOthers(): boolean;
  start(deps: EntityWatchDeps): EntityWatch;
}

/** Built in two steps: the hub and badge first (the active RFI service needs them), then the entity watch. */
export function entityWatchBuilder(main: EventHub, platform: Platform, log: Logger): EntityWatchBuilder {
  const badges = new Map<string, number>();
  let lastBadge = -1;
  const publishBadge = (): void => {
    let sum = 0;
    for (const n of badges.values()) sum += n;
    if (sum === lastBadge) return;
    lastBadge = sum;
    try {
      platform.setBadgeCount(sum);
    } catch (err) {
      log.warn('desk: badge not set', { error: err });
    }
  };
  const setBadge = (key: string, count: number | null): void => {
    if (count === null) badges.delete(key);
    else badges.set(key, count);
    publishBadge();
  };
  let entityWatch: (Pick<EntityWatch, 'watched'> & { changed(payload: RfiChangedView): void }) | null = null;

  const hub: EventHub = {
    emit(event, payload) {
      if (event === 'rfis.changed' && entityWatch) {
        entityWatch.changed(payload as RfiChangedView);
        return;
      }
      main.emit(event, payload);
    },
    attach: (listener) => main.attach(listener),
  };

  return {
    hub,
    badge: (count) => setBadge(ACTIVE, count),
    watchingOthers: () => (entityWatch?.watched().size ?? 0) > 0,
    start(deps) {
      const d = startEntityWatch(deps, setBadge);
      entityWatch = d;
      return d;
    },
  };
}

function startEntityWatch(
  deps: EntityWatchDeps,
  setBadge: (key: string, count: number | null) => void,
): EntityWatch & { changed(payload: RfiChangedView): void } {
  const { settings, vault, session, events, log } = deps;
  let disposed = false;

  const members = (): WatchedEntity[] => [
    {
      profileId: session.profile.id,
      session: session.current,
      rfis: deps.primary(),
      now: () => deps.clock.now(),
      entityName: () => session.current.entityName(),
      status: () => connectionOf(session),
    },
    ...[...watchers.entries()].map(([profileId, w]) => ({
      profileId,
      session: w.session,
      rfis: w.rfis,
      now: () => w.clock.now(),
      entityName: () => w.session.entityName(),
      status: () => connectionOf(w.session),
    })),
  ];

  const consolidatedCounts = async (): Promise<RfiCountsView> => {
    const all: RfiCountsView[] = [];
    for (const m of members()) all.push((await m.rfis.counts()).counts);
    return sumCounts(all);
  };

  let changedChain: Promise<void> = Promise.resolve();
  const changed = (payload: RfiChangedView): void => {
    // In order, each with the counts over every entity.
    changedChain = changedChain
      .then(async () => {
        const counts = await consolidatedCounts();
        if (!disposed) events.emit('rfis.changed', { ...payload, counts });
        if (payload.updated.length > 0 || payload.removed.length > 0) void checkReminders();
      })
      .catch((err: unknown) => log.warn('desk: change not published', { error: err }));
  };

  const watchSet = createWatchSet(deps, { setBadge, changed, disposed: () => disposed });
  const { watchers, parked, reconcile } = watchSet;

  const reminders = createReminders({
    stores: deps.stores,
    platform: deps.platform,
    events,
    log,
    ...(deps.onReminderSeen ? { onSeen: deps.onReminderSeen } : {}),
    // Read at every check: a change in Settings applies without a restart.
    thresholds: () => {
      const r = settings.get().reminders;
      const override = deps.reminders ? deps.reminders.hours : undefined;
      return override ? { enabled: true, hours: override } : r;
    },
    members: () =>
      members().map((m) => ({
        profileId: m.profileId,
        rows: async () => (await m.rfis.list({})).items,
        now: m.now,
        entityName: () => (watchers.size > 0 ? m.entityName() : null),
        displayName: m.entityName,
        scope: () =>
          scopeOrigin(
            m.profileId === session.profile.id
              ? session.environment
              : (watchers.get(m.profileId)?.session.environment ?? session.environment),
          ),
      })),
  });
  const checkReminders = async (): Promise<number> => {
    if (disposed || deps.reminders === false) return 0;
    return (await reminders).check();
  };
  const reminderTimer = setInterval(() => void checkReminders(), 60_000);
  reminderTimer.unref?.();

  let lastThresholds = JSON.stringify(settings.get().reminders);
  const offSettings = settings.onChange((next) => {
    void reconcile();
    const t = JSON.stringify(next.reminders);
    if (t === lastThresholds) return;
    lastThresholds = t;
    // New thresholds apply now; snooze ends shown to the page follow them.
    void checkReminders();
    void reminders
      .then(async (r) => {
        const snoozes = await r.snoozes();
        if (!disposed) events.emit('reminders.changed', { snoozes });
      })
      .catch((err: unknown) => log.warn('desk: reminder change not published', { error: err }));
  });
  // A token stored or removed (the keychain has answered): watch or stop watching its profile.
  const offVault = vault.onChange(() => void reconcile());
  const offEvents = events.attach((m) => {
    if (m.event !== 'session.changed') return;
    void reconcile();
  });
  void reconcile();

  /** The member whose cache holds the RFI (the active profile first). */
  /** The member whose cache holds the RFI (the active profile first). */
  const ownerOf = async (id: string): Promise<WatchedEntity | null> => {
    for (const m of members()) {
      if (await holds(m, id)) return m;
    }
    return null;
  };
  const holds = async (m: WatchedEntity, id: string): Promise<boolean> => {
    try {
      await m.rfis.get(id, false);
      return true;
    } catch (err) {
      if (err instanceof AppFailure && err.kind === 'not_found') return false;
      throw err;
    }
  };

  /**
   * The profile an RFI belongs to. Named by the caller (the row it acts on says it), it must be a
   * watched profile whose cache holds the RFI; not named, the one profile that holds it.
   */
  /** The member a profile reads through (a duplicate of a watched entity: the one watching it). */
  const member = (profileId: string): WatchedEntity | null => {
    const by = parked.get(profileId)?.watchedBy ?? profileId;
    return members().find((x) => x.profileId === by) ?? null;
  };
  const owner = async (id: string, profileId?: string): Promise<WatchedEntity> => {
    const all = members();
    if (profileId !== undefined) {
      const m = member(profileId);
      if (m && (await holds(m, id))) return m;
      throw new AppFailure({
        kind: 'not_found',
        message: `The RFI ${id} is not one of ${m ? m.entityName() : 'this profile'}’s RFIs.`,
      });
    }
    const found: WatchedEntity[] = [];
    for (const m of all) if (await holds(m, id)) found.push(m);
    if (found.length === 1) return found[0]!;
    if (found.length === 0) throw new AppFailure({ kind: 'not_found', message: `There is no RFI ${id}.` });
    throw new AppFailure({
      kind: 'invalid_argument',
      field: 'profileId',
      message: `Several entities have an RFI ${id} (${found.map((m) => m.entityName()).join(', ')}): say which.`,
    });
  };

  const entityWatch: EntityWatch & { changed(payload: RfiChangedView): void } = {
    changed,
    owner,
    member,
    checkReminders,
    reminders: () => reminders,
    watched: () => watchers,
    reconcile,
    list: (args) => consolidatedList(deps, members(), parked, args),
    async get(id, refresh) {
      const owner = await ownerOf(id);
      if (!owner) return deps.primary().get(id, refresh);
      const detail = await owner.rfis.get(id, refresh);
      const entityName = owner.entityName();
      return {
        ...detail,
        summary: { ...detail.summary, profileId: owner.profileId, entityName },
        owner: { profileId: owner.profileId, entityName },
      };
    },
    async markSeen(id, updatedAt) {
      const owner = (await ownerOf(id)) ?? members()[0];
      if (!owner) throw new AppFailure({ kind: 'not_found', message: `There is no RFI ${id}.` });
      const r = await owner.rfis.markSeen(id, updatedAt);
      return {
        summary: r.summary
          ? { ...r.summary, profileId: owner.profileId, entityName: owner.entityName() }
          : null,
        counts: await consolidatedCounts(),
      };
    },
    async counts() {
      return { counts: await consolidatedCounts(), sync: deps.primary().syncState() };
    },
    async sync(full) {
      // One entity failing does not stop the others: each syncs on its own.
      const all = members();
      const results = await Promise.allSettled(all.map((m) => m.rfis.sync('sync', full)));
      const first = results[0];
      if (first?.status === 'rejected' && all.length === 1) throw first.reason;
      await checkReminders();
      return { sync: deps.primary().syncState(), counts: await consolidatedCounts() };
    },
    async dispose() {
      disposed = true;
      clearInterval(reminderTimer);
      offSettings();
      offVault();
      offEvents();
      await reminders.then((r) => r.settled()).catch(() => undefined);
      await watchSet.dispose();
    },
  };
  return entityWatch;
}

/** The queue over every member: rows with their owner, counts, and the entities watched. */
async function consolidatedList(
  deps: Pick<EntityWatchDeps, 'settings' | 'session' | 'webhooks' | 'primary'>,
  members: WatchedEntity[],
  parked: WatchSet['parked'],
  args: WatchListArgs,
): Promise<WatchListResult> {
  const sort = args.sort ?? 'deadline';
  const rows: RfiSummaryView[] = [];
  const entities: WatchedEntityView[] = [];
  const activeId = deps.session.profile.id;
  let sync: RfiSyncStateView | null = null;
  for (const m of members) {
    const r = await m.rfis.list({ sort });
    sync ??= r.sync;
    const name = m.entityName();
    for (const row of r.items) rows.push({ ...row, profileId: m.profileId, entityName: name });
    const st = m.status();
    const hooks = deps.webhooks?.profile(m.profileId) ?? null;
    entities.push({
      profileId: m.profileId,
      name,
      profileName: deps.settings.profile(m.profileId).name,
      active: m.profileId === activeId,
      connection: st.connection,
      problem: st.problem ?? r.sync.lastError,
      sync: r.sync.state,
      lastSyncedAt: r.sync.lastSyncedAt,
      total: r.total,
      sharedWith: [...parked.entries()]
        .filter(([, p]) => p.watchedBy === m.profileId)
        .map(([profileId, p]) => ({
          profileId,
          profileName: deps.settings.profile(profileId).name,
          role: roleOf(p.session),
        })),
      events: hooks
        ? { mode: hooks.mode, reason: hooks.reason }
        : { mode: 'polling', reason: 'Webhooks are off in this app.' },
    });
  }
  const counts = countSummaries(rows);
  const filtered = rows.filter(
    (r) => (!args.profileId || r.profileId === args.profileId) && matchesFilter(r, args),
  );
  if (entities.length > 1) filtered.sort(compareSummaries(sort));
  const offset = args.offset ?? 0;
  const items =
    args.limit !== undefined || offset > 0
      ? filtered.slice(offset, offset + (args.limit ?? filtered.length))
      : filtered;
  return {
    items,
    total: filtered.length,
    counts,
    sync: sync ?? deps.primary().syncState(),
    entities,
  };
}

/** Counts of several entities added up. */
export function sumCounts(all: readonly RfiCountsView[]): RfiCountsView {
  const out = countSummaries([]);
  for (const c of all) {
    out.total += c.total;
    out.unread += c.unread;
    out.awaitingAction += c.awaitingAction;
    for (const [k, v] of Object.entries(c.byStatus)) out.byStatus[k] = (out.byStatus[k] ?? 0) + v;
    for (const [k, v] of Object.entries(c.byType)) out.byType[k] = (out.byType[k] ?? 0) + v;
    out.byBand.on_track += c.byBand.on_track;
    out.byBand.at_risk += c.byBand.at_risk;
    out.byBand.breached += c.byBand.breached;
    out.byBand.none += c.byBand.none;
  }
  return out;
}

/** A session's connection and problem as the entity watch's entity list shows them. */
function connectionOf(s: {
  lastStatus: { connection: WatchedEntityView['connection']; problem: string | null } | null;
}): {
  connection: WatchedEntityView['connection'];
  problem: string | null;
} {
  return { connection: s.lastStatus?.connection ?? null, problem: s.lastStatus?.problem ?? null };
}
