/**
 * Which profiles the entity watch watches: the default profile always, and every other profile
 * with a token for an approved bank address, identified first (who the bank says its token is).
 * Each (bank origin, legal entity) is watched by one profile only (the default profile, else an
 * admin credential, else the first in the settings), with its own RFI service, clock and webhook
 * route, all built from the registry's session for that profile id; the others are parked, listed
 * with the entity that covers them. A watcher is bound to its profile for its whole life: changing
 * the default profile only changes which profile is watched for sure (and wins its entity), never
 * the identity behind a watcher. `reconcile` brings the set in line after every change (settings,
 * tokens, sessions), one run at a time.
 */

import type { PushMessage } from '../../shared/ipc/bridge';
import type { RfiChangedView } from '../../shared/ipc/channels/rfis';
import { countSummaries } from '../../shared/rfi-view';
import type { ServerClock } from '../bank/clock';
import type { EventHub } from '../infra/events';
import { bankOrigin } from '../infra/origins';
import type { RfiService } from '../rfis/service';
import type { ProfileSession } from '../profiles/profile-session';
import type { BankClient } from '../bank/client';
import type { Logger } from '../infra/log';
import type { TokenVault } from '../infra/vault';
import type { RfiSession } from '../rfis/service';
import type { WebhookService } from '../rfis/webhooks';
import type { DestinationGuard } from '../session/destinations';
import type { SessionManager } from '../session/session';
import type { SettingsStore } from '../session/settings';
import type { ProfileRegistry } from '../profiles/registry';

/** What differs between the RFI services of the entity watch's members. */
export interface RfiMember {
  /** The profile the service acts for (what it records is kept under this owner). */
  profileId: string;
  session: RfiSession;
  bank: BankClient;
  clock: ServerClock;
  events: EventHub;
  badge(count: number): void;
  entityName(): string | null;
}

export interface Watcher {
  session: ProfileSession;
  clock: ServerClock;
  rfis: RfiService;
  hub: EventHub;
  off: () => void;
}

/** A profile's session before (or instead of) a watch: identified, not polling. */
export interface Probe {
  session: ProfileSession;
  clock: ServerClock;
  hub: EventHub;
}

export interface WatchSetDeps {
  settings: SettingsStore;
  vault: TokenVault;
  destinations: DestinationGuard;
  session: SessionManager;
  /** Every profile's own session: a watched profile reads through its own. */
  profiles: ProfileRegistry;
  /** Builds a watched profile's RFI service (the default profile's alike). */
  rfiService(member: RfiMember): Promise<RfiService>;
  events: EventHub;
  log: Logger;
  /** Routes for every watched profile's webhook events (absent: polling only). */
  webhooks?: Pick<WebhookService, 'watch'>;
}

export interface WatchSetHooks {
  /** A watched profile's badge count (null: it is no longer watched). */
  setBadge(key: string, count: number | null): void;
  /** Something in the queue moved (rows, or the entity list). */
  changed(payload: RfiChangedView): void;
  disposed(): boolean;
}

export interface WatchSet {
  /** Watched profiles, the default profile's included. */
  readonly watchers: ReadonlyMap<string, Watcher>;
  /** Profiles not watched because another profile watches the same entity. */
  readonly parked: ReadonlyMap<string, Probe & { watchedBy: string }>;
  /** Starts and stops watchers to match the profiles with a token. */
  reconcile(): Promise<void>;
  /** Watches the default profile now if it is not watched yet (at start, and when it changes). */
  watchDefault(): Promise<void>;
  /** Lets a reconcile under way end, then stops every watcher. */
  dispose(): Promise<void>;
}

/** Which (bank origin, legal entity) a session's credential is: null while unknown. */
export function entityKey(s: {
  environment: { baseUrl: string };
  credential: { legalEntityId: string } | null;
  lastStatus: { credential: { legalEntityId: string } | null } | null;
}): string | null {
  const le = s.credential?.legalEntityId ?? s.lastStatus?.credential?.legalEntityId ?? null;
  const origin = bankOrigin(s.environment.baseUrl);
  return le && origin ? `${origin}|${le}` : null;
}

export function roleOf(s: ProfileSession): string | null {
  return s.credential?.role ?? s.lastStatus?.credential?.role ?? null;
}

/** An event that only says "look again" (the entity list moved, not a row). */
export function emptyChange(source: RfiChangedView['source']): RfiChangedView {
  return {
    source,
    created: [],
    updated: [],
    statusChanged: [],
    removed: [],
    seen: [],
    truncated: false,
    counts: countSummaries([]),
  };
}

export function createWatchSet(deps: WatchSetDeps, hooks: WatchSetHooks): WatchSet {
  const { settings, vault, destinations, session, events, log } = deps;
  const watchers = new Map<string, Watcher>();

  /** The default profile first (watched whatever its token: its queue says why it cannot sync). */
  const wanted = async (): Promise<string[]> => {
    const activeId = session.profile.id;
    const out: string[] = [activeId];
    for (const p of settings.get().profiles) {
      if (p.id === activeId) continue;
      if (!p.tokenOrigin) continue;
      if (p.kind === 'embedded-sandbox') {
        const url = session.sandbox?.url;
        if (!url || bankOrigin(url) !== p.tokenOrigin) continue;
      } else {
        const origin = bankOrigin(p.baseUrl);
        if (!origin || origin !== p.tokenOrigin || !destinations.approval(origin)) continue;
      }
      // A token is bound to its origin just before the keychain stores it; the vault's change
      // event (below) brings the entity watch back here once it is stored.
      if (!(await vault.has(p.id).catch(() => false))) continue;
      out.push(p.id);
    }
    return out;
  };

  const probe = (profileId: string): Probe => {
    const ps = deps.profiles.get(profileId);
    return { session: ps, clock: ps.clock, hub: ps.events };
  };

  const startWatcher = async (profileId: string, p: Probe): Promise<Watcher> => {
    const { hub, clock, session: ps } = p;
    const rfis = await deps.rfiService({
      profileId,
      session: ps,
      bank: ps.bank,
      clock: ps.clock,
      events: hub,
      badge: (n) => hooks.setBadge(profileId, n),
      // Named once several entities are watched (then every notification says whose RFI it is).
      entityName: () => (watchers.size > 1 ? ps.entityName() : null),
    });
    let lastState = '';
    const off = hub.attach((m: PushMessage) => {
      if (m.event === 'rfis.changed') hooks.changed(m.payload as RfiChangedView);
      else if (m.event === 'rfis.openRequested') {
        // The RFI is this member's: the page opens it through this profile (ids are one bank's only).
        const { rfiId } = m.payload as { rfiId: string };
        events.emit('rfis.openRequested', { rfiId, profileId });
      } else if (m.event === 'rfis.syncState' || m.event === 'session.changed') {
        // The header's sync state is the default profile's (its session.changed reaches the
        // window through the session facade).
        if (m.event === 'rfis.syncState' && profileId === session.profile.id) {
          events.emit('rfis.syncState', m.payload as never);
        }
        // The entity's own state moved (an outage, a revoked token): the queue's entity list
        // follows. Every poll passes through 'syncing'; only a different outcome is news.
        const sync = rfis.syncState();
        const key = `${ps.lastStatus?.connection ?? ''}|${sync.state === 'syncing' ? 'idle' : sync.state}|${sync.lastError ?? ''}`;
        if (m.event === 'session.changed') identityMoved(profileId, ps);
        if (key === lastState) return;
        lastState = key;
        hooks.changed(emptyChange('sync'));
      }
    });
    return { session: ps, clock, rfis, hub, off };
  };

  /** One start per profile at a time (reconcile and watchDefault may ask together). */
  const starting = new Map<string, Promise<void>>();
  const startOnce = (profileId: string, p: Probe): Promise<void> => {
    if (watchers.has(profileId)) return Promise.resolve();
    let run = starting.get(profileId);
    if (!run) {
      run = (async () => {
        parked.delete(profileId);
        identities.set(profileId, identityOf(p.session));
        watchers.set(profileId, await startWatcher(profileId, p));
      })().finally(() => starting.delete(profileId));
      starting.set(profileId, run);
    }
    return run;
  };

  /** Stops polling the profile; its session is kept (a duplicate stays identified) or disposed. */
  const stopWatcher = async (profileId: string, keepSession = false): Promise<Probe | null> => {
    const w = watchers.get(profileId);
    if (!w) return null;
    watchers.delete(profileId);
    hooks.setBadge(profileId, null);
    w.off();
    await w.rfis.dispose();
    if (keepSession) return { session: w.session, clock: w.clock, hub: w.hub };
    return null;
  };

  /** Profiles with a token not watched because another profile watches the same entity. */
  const parked = new Map<string, Probe & { watchedBy: string }>();
  const dropParked = (id: string): void => {
    parked.delete(id);
  };

  /** A watcher learned (or changed) who it is: it may now be a duplicate, and its route re-points. */
  const identities = new Map<string, string | null>();
  const identityOf = (ps: ProfileSession): string => `${entityKey(ps) ?? ''}|${roleOf(ps) ?? ''}`;
  const identityMoved = (profileId: string, ps: ProfileSession): void => {
    const k = identityOf(ps);
    if (identities.get(profileId) === k) return;
    identities.set(profileId, k);
    void reconcile();
  };

  const tellWebhooks = (): void => {
    try {
      deps.webhooks?.watch(
        [...watchers.entries()].map(([profileId, w]) => ({
          profileId,
          session: w.session,
          bank: w.session.bank,
          clock: w.clock,
          rfis: w.rfis,
        })),
      );
    } catch (err) {
      log.warn('desk: webhook routes not updated', { error: err });
    }
  };

  let reconciling: Promise<void> = Promise.resolve();
  const reconcile = (): Promise<void> => {
    reconciling = reconciling
      .then(async () => {
        if (hooks.disposed()) return;
        const wantList = await wanted();
        const want = new Set(wantList);
        let moved = false;
        for (const id of [...watchers.keys()]) {
          // The default profile of now is never stopped (it may have become default meanwhile).
          if (!want.has(id) && id !== session.profile.id) {
            await stopWatcher(id);
            identities.delete(id);
            moved = true;
          }
        }
        for (const id of [...parked.keys()]) {
          if (!want.has(id)) {
            dropParked(id);
            moved = true;
          }
        }
        // Who is each profile? A new one is identified before it polls (so a duplicate never
        // lists its entity's RFIs a second time); a parked one is asked again.
        const sessions = new Map<string, Probe>();
        for (const id of wantList) {
          if (hooks.disposed()) return;
          const w = watchers.get(id);
          if (w) {
            sessions.set(id, w);
            continue;
          }
          const p = parked.get(id) ?? probe(id);
          // The default profile is watched whoever it is (the first check of its session runs
          // in the background; its entity wins once known).
          if (id !== session.profile.id) await p.session.check().catch(() => undefined);
          sessions.set(id, p);
        }
        // One member per (origin, legal entity): the active profile, else an admin, else the first.
        const activeKey = entityKey(session);
        const winner = new Map<string, string>();
        if (activeKey) winner.set(activeKey, session.profile.id);
        const rank = (id: string): number => (roleOf(sessions.get(id)!.session) === 'admin' ? 0 : 1);
        for (const id of [...wantList].sort((a, b) => rank(a) - rank(b))) {
          const k = entityKey(sessions.get(id)!.session);
          if (k && !winner.has(k)) winner.set(k, id);
        }
        for (const id of wantList) {
          if (hooks.disposed()) return;
          const p = sessions.get(id)!;
          const k = entityKey(p.session);
          const by = k ? winner.get(k) : id;
          if (by === undefined || by === id) {
            if (watchers.has(id)) continue;
            await startOnce(id, p);
            moved = true;
          } else {
            const kept = watchers.has(id) ? await stopWatcher(id, true) : null;
            if (kept) moved = true;
            const prev = parked.get(id);
            if (prev?.watchedBy !== by) moved = true;
            parked.set(id, { ...(kept ?? p), watchedBy: by });
          }
        }
        tellWebhooks();
        if (moved) hooks.changed(emptyChange('load'));
      })
      .catch((err: unknown) => log.warn('desk: watchers not reconciled', { error: err }));
    return reconciling;
  };

  const watchDefault = async (): Promise<void> => {
    const id = session.profile.id;
    if (hooks.disposed() || watchers.has(id)) return;
    await startOnce(id, parked.get(id) ?? probe(id));
    tellWebhooks();
    hooks.changed(emptyChange('load'));
  };

  return {
    watchers,
    parked,
    reconcile,
    watchDefault,
    async dispose() {
      await reconciling.catch(() => undefined);
      await Promise.all([...starting.values()].map((r) => r.catch(() => undefined)));
      for (const id of [...watchers.keys()]) await stopWatcher(id);
      for (const id of [...parked.keys()]) dropParked(id);
    },
  };
}
