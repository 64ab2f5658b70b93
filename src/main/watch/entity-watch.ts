/**
 * The entity watch: every profile with a stored token is watched at the same time, the default
 * profile as one of them (watched whatever its token). Each member has its own session from the
 * profile registry (its own bank client and token), its own RFI service (its own cache folder,
 * keyed by environment, origin and legal entity as always; its own poller with its own floor and
 * jitter), its own clock and its own webhook route, all bound to that profile id for the member's
 * whole life: making another profile the default changes which profile new objects default to,
 * never the identity behind a member. The queue, the counts and the badge are the union of the
 * members; each row carries its profile and its entity's name. Members only read (apart from the
 * embedded sandbox's webhook URL, see rfis/webhooks.ts): a write goes through the session of the
 * profile that owns its object.
 *
 * Each (bank origin, legal entity) is watched once: a profile is first identified (who the bank
 * says its token is), and when several profiles hold credentials for the same entity only one is
 * watched (the default profile, else an admin credential, else the first in the settings); the
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
import type { Stores } from '../infra/stores';
import { createReminders } from './reminders';
import { createWatchSet, roleOf } from './watch-set';
import type { Watcher, WatchSet, WatchSetDeps } from './watch-set';

export type { RfiMember } from './watch-set';
import type { Reminders } from './reminders';
import { scopeOrigin } from '../bank/scope';
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
  owner(rfiId: string, profileId: string): Promise<WatchedEntity>;
  /** The member a profile reads through (null: not watched). */
  member(profileId: string): WatchedEntity | null;
  /**
   * The member a named profile reads through; an unknown profile, or one not watched, is refused
   * as a typed not_found on `profileId`.
   */
  watchedMember(profileId: string): WatchedEntity;
  list(args: WatchListArgs): Promise<WatchListResult>;
  /** One RFI read through the profile that owns it (named by the caller: RFI ids are one bank's only). */
  get(profileId: string, id: string, refresh: boolean): Promise<RfiDetailView>;
  markSeen(
    profileId: string,
    id: string,
    updatedAt?: string,
  ): Promise<{ summary: RfiSummaryView | null; counts: RfiCountsView }>;
  counts(): Promise<{ counts: RfiCountsView; sync: RfiSyncStateView }>;
  sync(full: boolean): Promise<{ sync: RfiSyncStateView; counts: RfiCountsView }>;
  /** Watched profiles other than the default one (tests, diagnostics). */
  watched(): ReadonlyMap<string, { session: ProfileSession; rfis: RfiService }>;
  /** The default profile's member (null only while a new default is being watched). */
  defaultMember(): WatchedEntity | null;
  /** Watches the default profile now if it is not watched yet (after it changed). */
  watchDefault(): Promise<void>;
  /** Deadline reminders over every member now (also after each change and once a minute). */
  checkReminders(): Promise<number>;
  /** Snoozes and the "due soon" list (also when notifications are off for a test run). */
  reminders(): Promise<Reminders>;
  /** Starts and stops watchers to match the profiles with a token (also run on every change). */
  reconcile(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * The watch set's dependencies (its `rfiService` builds every member's RFI service alike, the
 * default profile's included: the root wires the case-file journal, related names and options in
 * once), and the entity watch's own.
 */
export interface EntityWatchDeps extends WatchSetDeps {
  platform: Platform;
  stores: Stores;
  /** Told of reminders shown and snoozes set or cancelled, per RFI (the case file lists them). */
  onReminderSeen?(profileId: string, rfiId: string, detail: string): void;
  /**
   * Reminders: {} follows Settings (on/off, thresholds); `hours` overrides the thresholds (tests);
   * false shows none whatever Settings say (tests and the harness).
   */
  reminders: { hours?: readonly number[] } | false;
  /** Routes for every watched profile's webhook events (absent: polling only). */
  webhooks?: Pick<WebhookService, 'watch' | 'profile'>;
}

/** The app badge: the sum of every member's awaiting-action count. */
function badgeOf(platform: Platform, log: Logger): (key: string, count: number | null) => void {
  const badges = new Map<string, number>();
  let lastBadge = -1;
  return (key, count) => {
    if (count === null) badges.delete(key);
    else badges.set(key, count);
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
}

/**
 * Starts the entity watch: the default profile's member is built before this answers (its queue
 * is there at once), every other profile is identified and watched in the background.
 */
export async function startEntityWatch(deps: EntityWatchDeps): Promise<EntityWatch> {
  const entityWatch = entityWatchOf(deps, badgeOf(deps.platform, deps.log));
  await entityWatch.watchDefault();
  void entityWatch.reconcile();
  return entityWatch;
}

function entityWatchOf(
  deps: EntityWatchDeps,
  setBadge: (key: string, count: number | null) => void,
): EntityWatch {
  const { settings, vault, session, events, log } = deps;
  let disposed = false;

  const memberOf = (profileId: string, w: Watcher): WatchedEntity => ({
    profileId,
    session: w.session,
    rfis: w.rfis,
    now: () => w.clock.now(),
    entityName: () => w.session.entityName(),
    status: () => connectionOf(w.session),
  });
  /** Every member, the default profile's first. */
  const members = (): WatchedEntity[] => {
    const defaultId = session.profile.id;
    const first = watchers.get(defaultId);
    const out = first ? [memberOf(defaultId, first)] : [];
    for (const [profileId, w] of watchers) if (profileId !== defaultId) out.push(memberOf(profileId, w));
    return out;
  };
  const defaultMember = (): WatchedEntity | null => {
    const w = watchers.get(session.profile.id);
    return w ? memberOf(session.profile.id, w) : null;
  };
  /** The header's sync state: the default profile's. */
  const defaultSync = (): RfiSyncStateView => defaultMember()?.rfis.syncState() ?? notWatchedYet();

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
        entityName: () => (watchers.size > 1 ? m.entityName() : null),
        displayName: m.entityName,
        scope: () => scopeOrigin(m.session.environment),
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
    // Another default profile is watched at once (the others are identified in the background).
    void watchSet
      .watchDefault()
      .catch((err: unknown) => log.warn('desk: the default profile is not watched yet', { error: err }))
      .then(reconcile);
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

  const holds = async (m: WatchedEntity, id: string): Promise<boolean> => {
    try {
      await m.rfis.get(id, false);
      return true;
    } catch (err) {
      if (err instanceof AppFailure && err.kind === 'not_found') return false;
      throw err;
    }
  };

  /** The member a profile reads through (a duplicate of a watched entity: the one watching it). */
  const member = (profileId: string): WatchedEntity | null => {
    const by = parked.get(profileId)?.watchedBy ?? profileId;
    return members().find((x) => x.profileId === by) ?? null;
  };
  /**
   * The member a named profile reads through: an unknown profile is refused as such (typed, field
   * profileId), and so is a profile that is not watched (no token yet).
   */
  const namedMember = (profileId: string): WatchedEntity => {
    const profile = settings.profile(profileId); // throws not_found (field profileId) when unknown
    const m = member(profileId);
    if (m) return m;
    throw new AppFailure({
      kind: 'not_found',
      field: 'profileId',
      message: `${profile.name} is not watched (no credential is stored for it): its RFIs cannot be read.`,
    });
  };
  /**
   * The profile an RFI belongs to, named by the caller (the row it acts on says it): a watched
   * profile whose cache holds the RFI. Never guessed from the caches: RFI ids are one bank's only.
   */
  const owner = async (id: string, profileId: string): Promise<WatchedEntity> => {
    const m = namedMember(profileId);
    if (await holds(m, id)) return m;
    throw new AppFailure({
      kind: 'not_found',
      message: `The RFI ${id} is not one of ${m.entityName()}’s RFIs.`,
    });
  };

  const entityWatch: EntityWatch = {
    owner,
    member,
    watchedMember: namedMember,
    checkReminders,
    reminders: () => reminders,
    watched: () => new Map([...watchers].filter(([id]) => id !== session.profile.id)),
    defaultMember,
    watchDefault: () => watchSet.watchDefault(),
    reconcile,
    list: (args) => consolidatedList(deps, members(), parked, args, defaultSync),
    async get(profileId, id, refresh) {
      // Only the named profile's cache and bank: another bank's RFI of the same id is never read.
      const owner = namedMember(profileId);
      const detail = await owner.rfis.get(id, refresh);
      const entityName = owner.entityName();
      return {
        ...detail,
        summary: {
          ...detail.summary,
          profileId: owner.profileId,
          entityName,
          legalEntityId: owner.session.scope().legalEntityId,
        },
        owner: { profileId: owner.profileId, entityName },
      };
    },
    async markSeen(profileId, id, updatedAt) {
      const owner = namedMember(profileId);
      const r = await owner.rfis.markSeen(id, updatedAt);
      return {
        summary: r.summary
          ? {
              ...r.summary,
              profileId: owner.profileId,
              entityName: owner.entityName(),
              legalEntityId: owner.session.scope().legalEntityId,
            }
          : null,
        counts: await consolidatedCounts(),
      };
    },
    async counts() {
      return { counts: await consolidatedCounts(), sync: defaultSync() };
    },
    async sync(full) {
      // One entity failing does not stop the others: each syncs on its own.
      const all = members();
      const results = await Promise.allSettled(all.map((m) => m.rfis.sync('sync', full)));
      const first = results[0];
      if (first?.status === 'rejected' && all.length === 1) throw first.reason;
      await checkReminders();
      return { sync: defaultSync(), counts: await consolidatedCounts() };
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
  deps: Pick<EntityWatchDeps, 'settings' | 'session' | 'webhooks'>,
  members: WatchedEntity[],
  parked: WatchSet['parked'],
  args: WatchListArgs,
  defaultSync: () => RfiSyncStateView,
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
    const legalEntityId = m.session.scope().legalEntityId;
    for (const row of r.items) rows.push({ ...row, profileId: m.profileId, entityName: name, legalEntityId });
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
    sync: sync ?? defaultSync(),
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

/** The sync state shown while a new default profile's member is being built. */
function notWatchedYet(): RfiSyncStateView {
  return {
    state: 'idle',
    lastSyncedAt: null,
    lastError: null,
    lastMode: null,
    updatedSinceSupported: null,
    polling: 'stopped',
    pollIntervalSeconds: 0,
  };
}
