/**
 * The team connection of this workstation: the team server's address (approved in main's native
 * dialog like a bank address; https, or http on this machine for development), the analyst's
 * sign-in (OpenID Connect in the system browser; refresh token in the keychain, access token in
 * memory), the change feed and RFI assignment. With no team server configured nothing here runs
 * and nothing is sent anywhere: solo use is as before.
 *
 * One status says where the team connection stands (`solo`, `signed-out`, `connecting`,
 * `connected`, `unreachable` since when and retrying when); it is the team's only, and never
 * speaks for the bank.
 */
import { AppFailure } from '../../shared/ipc/errors';
import { TeamConfig } from '../../shared/team/config';
import { Me, type Change } from '../../shared/team/schemas';
import type { TeamStatusView } from '../../shared/ipc/channels/team';
import { bankOrigin } from '../infra/origins';
import type { AtRestCodec } from '../infra/at-rest';
import type { Logger } from '../infra/log';
import type { TypedStore } from '../infra/stores';
import { createTeamHttp, TeamNotSignedIn, teamCallFailure, withinDeadline, type TeamHttp } from './api';
import {
  openAssignments,
  refusalMessage,
  type AssignmentsBook,
  type AssignmentView,
  type TeamAction,
} from './assignments';
import type { TeamCredential } from './credential';
import { createChangeFeed, type ChangeFeed, type FeedState } from './feed';
import { createTeamOidc, type TeamOidc } from './oidc';
import { createTokenKeeper } from './tokens';
import { teamStateDefaults, type StoredTeam } from './stored';

export interface TeamDeps {
  store: TypedStore<StoredTeam>;
  credential: TeamCredential;
  log: Logger;
  /** Asks the analyst natively to approve the team server's origin (unless already approved). */
  approveOrigin(origin: string): Promise<unknown>;
  /** Opens a URL in the system browser (the sign-in page). */
  openExternal(url: string): Promise<void> | void;
  /**
   * The legal entity of the profile that owns an RFI (the bank says it); null when unknown. The
   * named profile must be known and hold the RFI (a typed refusal otherwise).
   */
  legalEntityOf(rfiId: string, profileId: string): Promise<string | null>;
  outboxFile: string;
  codec?: AtRestCodec;
  onProblem?(message: string, file: string, movedTo: string | null): void;
  onStatus(view: TeamStatusView): void;
  onAssignments(notice: string | null): void;
  /** Tests: the OpenID client (default: openid-client against the server's issuer). */
  oidc?(config: TeamConfig): TeamOidc;
  feedRetry?: { baseMs: number; maxMs: number };
  outboxRetry?: { baseMs: number; maxMs: number };
  signInTimeoutMs?: number;
}

export interface TeamListener {
  change?(change: Change): void;
  presence?(data: unknown): void;
  connected?(): void;
  signedOut?(): void;
}

/** Timing a caller may tune (tests: short backoffs). */
export type TeamOptions = Pick<TeamDeps, 'feedRetry' | 'outboxRetry' | 'signInTimeoutMs'> & {
  /** Taking over free send jobs: how often leases are looked at, how long a queued job is left alone. */
  takeover?: { everyMs?: number; graceMs?: number };
  /** Renewing a held send lease: the bounds of the wait between renewals (a third of the lease). */
  leaseRenewal?: { minMs?: number; maxMs?: number };
};

/** A team feature beside assignment, following the same sign-in and change feed. */
export interface TeamPart {
  load(legalEntityIds: readonly string[]): Promise<void>;
  apply(change: Change): void;
  wake(): void;
  clear(): void;
}

export interface TeamService {
  status(): TeamStatusView;
  /** Sets (or with null, removes) the team server; a new address is approved natively first. */
  setServer(url: string | null): Promise<TeamStatusView>;
  signIn(): Promise<TeamStatusView>;
  signOut(): Promise<TeamStatusView>;
  assignments(): AssignmentView[];
  change(
    action: TeamAction,
    rfiId: string,
    profileId: string,
    reassign?: { from: string | null; to: string },
  ): Promise<AssignmentView>;
  /** Back online, resumed: reconnect and send what waits now. */
  wake(): void;
  /** Starts following the team when a sign-in is stored (at start). */
  start(): Promise<void>;
  /** The last change number applied and stored (diagnostics and tests). */
  feedPosition(): number;
  /** Internal for tests: the feed and the outbox. */
  readonly book: AssignmentsBook;
  /** The team server as main calls it (team features beside assignment use it). */
  readonly http: TeamHttp;
  /** Adds a team feature (approvals…): loaded with the holders, fed every change, woken and cleared alike. */
  attach(part: TeamPart): void;
  /** The signed-in analyst's subject (null: signed out). */
  me(): string | null;
  /** Follows what the feed brings beside assignments: changes, presence, (re)connection, sign-out. */
  follow(listener: TeamListener): void;
  dispose(): Promise<void>;
}

/** A team server address: https, or http only to this machine; answered as its origin. */
export function checkTeamServerUrl(raw: string): string {
  const origin = bankOrigin(raw.trim());
  if (!origin)
    throw new AppFailure({
      kind: 'invalid_argument',
      field: 'url',
      message:
        'The team server address must be an https address (plain http only to 127.0.0.1 / localhost), without a user name or password.',
    });
  return origin;
}

type ConnectionState = FeedState | { state: 'connecting' } | { state: 'signing-in' };

const ROLES = new Set<string>(['maker', 'checker', 'admin', 'viewer']);

/** The one team status the header and Settings read. */
function statusView(
  s: StoredTeam,
  feedState: ConnectionState,
  pendingChanges: number,
  problem: string | null,
): TeamStatusView {
  const analyst = s.analyst
    ? {
        subject: s.analyst.subject,
        name: s.analyst.name ?? s.analyst.subject,
        memberships: s.analyst.memberships.map((m) => ({
          legalEntityId: m.legalEntityId,
          legalEntityName: m.legalEntityName,
          roles: m.roles.filter((r): r is 'maker' | 'checker' | 'admin' | 'viewer' => ROLES.has(r)),
        })),
      }
    : null;
  const base = { serverUrl: s.serverUrl, analyst, pendingChanges, problem };
  if (!s.serverUrl) return { ...base, connection: 'solo', since: null, retryAt: null };
  if (feedState.state === 'unreachable')
    return { ...base, connection: 'unreachable', since: feedState.since, retryAt: feedState.retryAt };
  return { ...base, connection: feedState.state, since: null, retryAt: null };
}

/** A failed team call as the typed error the renderer reads (a holder named by name). */
function teamFailure(err: unknown, nameOf: (subject: string) => string, action: TeamAction): never {
  return teamCallFailure(
    err,
    { held_by_other: 'conflict', conflict: 'conflict', forbidden: 'forbidden', not_found: 'not_found' },
    (refusal) => refusalMessage(action, refusal.holder ? nameOf(refusal.holder) : null, refusal),
  );
}

/** The RFI's legal entity, when it is one of the analyst's team. */
function memberEntity(analyst: StoredTeam['analyst'], legalEntityId: string | null): string {
  if (!legalEntityId)
    throw new AppFailure({
      kind: 'precondition',
      reason: 'LEGAL_ENTITY_UNKNOWN',
      message:
        'The bank has not yet said which legal entity this RFI belongs to. Try again once it is connected.',
    });
  if (!analyst?.memberships.some((m) => m.legalEntityId === legalEntityId))
    throw new AppFailure({
      kind: 'forbidden',
      reason: 'NOT_A_MEMBER',
      message: 'This RFI’s legal entity is not part of your team.',
    });
  return legalEntityId;
}

/** What the team server says about signing in (no token needed). */
async function fetchTeamConfig(origin: string): Promise<TeamConfig> {
  try {
    return await withinDeadline(
      15_000,
      async (signal) => {
        const res = await fetch(new URL('/v1/config', origin), { signal, redirect: 'error' });
        return TeamConfig.parse(await res.json());
      },
      () => new Error('no answer in 15 s'),
    );
  } catch (err) {
    throw new AppFailure(
      {
        kind: 'offline',
        reason: 'TEAM_UNREACHABLE',
        message: `No team server answered at ${origin}. Check the address and try again.`,
      },
      { cause: err },
    );
  }
}

/**
 * Everything that follows the team connection beside the service itself: the parts (assignment,
 * approvals…: loaded after sign-in, fed every change, woken on reconnection, cleared at sign-out)
 * and the listeners (the shared locker, notes, presence and activity). A failing listener does not
 * stop the others.
 */
function teamFollowers(log: Logger) {
  const parts: TeamPart[] = [];
  const listeners: TeamListener[] = [];
  const tell = (f: (l: TeamListener) => void): void => {
    for (const l of listeners)
      try {
        f(l);
      } catch (err) {
        log.warn('team: a listener failed', { error: err });
      }
  };
  return {
    attach: (part: TeamPart): void => void parts.push(part),
    follow: (listener: TeamListener): void => void listeners.push(listener),
    load: async (ids: string[]): Promise<void> => {
      await Promise.all(parts.map((p) => p.load(ids)));
    },
    apply(change: Change): void {
      for (const p of parts) p.apply(change);
      tell((l) => l.change?.(change));
    },
    presence: (data: unknown): void => tell((l) => l.presence?.(data)),
    wake(): void {
      for (const p of parts) p.wake();
    },
    connected(): void {
      for (const p of parts) p.wake();
      tell((l) => l.connected?.());
    },
    signedOut(): void {
      for (const p of parts) p.clear();
      tell((l) => l.signedOut?.());
    },
  };
}

/** Caches and feed position forgotten: the next analyst starts from the whole current state. */
function forgetPosition(store: TeamDeps['store'], followers: { signedOut(): void }): void {
  store.update((s) => ({ ...s, lastSeq: 0, keptFor: null }));
  followers.signedOut();
}

export async function createTeamService(deps: TeamDeps): Promise<TeamService> {
  const { store, credential, log } = deps;
  let oidcClient: { config: TeamConfig; client: TeamOidc } | null = null;
  let feedState: ConnectionState = { state: 'signed-out' };
  let problem: string | null = null;
  let feed: ChangeFeed | null = null;
  /** The sign-in waiting for the browser: ended when the app closes. */
  const closing = new AbortController();
  const followers = teamFollowers(log);

  const oidcOf = (config: TeamConfig): TeamOidc => {
    if (!oidcClient || JSON.stringify(oidcClient.config) !== JSON.stringify(config))
      oidcClient = { config, client: (deps.oidc ?? createTeamOidc)(config) };
    return oidcClient.client;
  };

  const view = (): TeamStatusView => statusView(store.get(), feedState, book.pendingCount(), problem);
  const publish = (): void => deps.onStatus(view());

  // Signed out or expired: caches and feed position kept for this analyst (`clean` forgets them).
  const forgetSignIn = async (why: string | null, clean = false): Promise<void> => {
    tokens.forget();
    await feed?.stop();
    feed = null;
    await credential.delete();
    store.update((s) => ({ ...s, analyst: null, keptFor: s.analyst?.subject ?? s.keptFor }));
    if (clean) forgetPosition(store, followers);
    feedState = { state: 'signed-out' };
    problem = why;
  };

  const tokens = createTokenKeeper({
    config: () => store.get().config,
    credential,
    log,
    oidc: oidcOf,
    onExpired: async () => {
      log.info('team: the sign-in expired; signing in again is needed');
      await forgetSignIn('Your team sign-in expired. Sign in again.');
      publish();
    },
  });

  const http: TeamHttp = createTeamHttp({
    baseUrl: () => store.get().serverUrl,
    accessToken: tokens.accessToken,
  });

  const book = await openAssignments({
    http,
    log,
    file: deps.outboxFile,
    ...(deps.codec ? { codec: deps.codec } : {}),
    ...(deps.onProblem ? { onProblem: deps.onProblem } : {}),
    me: () => store.get().analyst?.subject ?? null,
    notice: (message) => deps.onAssignments(message),
    onChange: () => {
      deps.onAssignments(null);
      publish();
    },
    ...(deps.outboxRetry ? { retry: deps.outboxRetry } : {}),
  });

  // Assignment first, then what attaches itself (approvals…).
  followers.attach(book);

  const applyChange = (change: Change): void => {
    followers.apply(change);
    // Stored before the next change is applied: a restart resumes after this one.
    store.update((s) => ({ ...s, lastSeq: Math.max(s.lastSeq, change.seq) }));
  };

  /** After a (re)connection: who the analyst is now, the holders of their entities. */
  const refreshMe = async (): Promise<void> => {
    const me = await http.call('GET', '/v1/me', Me);
    store.update((s) => ({
      ...s,
      analyst: { subject: me.subject, name: me.name, memberships: me.memberships },
    }));
    await followers.load(me.memberships.map((m) => m.legalEntityId));
  };

  const follow = (): void => {
    if (feed) return feed.wake();
    feedState = { state: 'connecting' };
    feed = createChangeFeed({
      http,
      log,
      lastSeq: () => store.get().lastSeq,
      apply: applyChange,
      onPresence: followers.presence,
      ...(deps.feedRetry ? { retry: deps.feedRetry } : {}),
      onState: (s) => {
        const wasConnected = feedState.state === 'connected';
        feedState = s;
        if (s.state === 'signed-out') {
          feed = null;
          problem = 'Your team sign-in expired. Sign in again.';
        }
        if (s.state === 'connected') {
          problem = null;
          if (!wasConnected) {
            void refreshMe()
              .then(publish)
              .catch((err: unknown) => log.warn('team: who am I failed', { error: err }));
            followers.connected();
          }
        }
        publish();
      },
    });
    feed.start();
  };

  const service: TeamService = {
    book,
    http,
    me: () => store.get().analyst?.subject ?? null,
    follow: followers.follow,
    status: view,
    feedPosition: () => store.get().lastSeq,
    async setServer(raw) {
      if (raw === null) {
        await forgetSignIn(null, true);
        store.set(teamStateDefaults);
        publish();
        return view();
      }
      const origin = checkTeamServerUrl(raw);
      await deps.approveOrigin(origin);
      const config = await fetchTeamConfig(origin);
      const current = store.get();
      if (current.serverUrl !== origin) {
        await forgetSignIn(null, true);
        store.set({ ...teamStateDefaults, serverUrl: origin, config });
      } else store.update((s) => ({ ...s, config }));
      log.info('team: team server set', { origin });
      publish();
      return view();
    },
    async signIn() {
      const { serverUrl, config } = store.get();
      if (!serverUrl || !config)
        throw new AppFailure({
          kind: 'invalid_argument',
          field: 'url',
          message: 'Set the team server address first.',
        });
      feedState = { state: 'signing-in' };
      publish();
      try {
        const signedIn = await oidcOf(config).signIn(deps.openExternal, {
          timeoutMs: deps.signInTimeoutMs ?? 5 * 60_000,
          signal: closing.signal,
        });
        await tokens.signedIn(signedIn);
        const me = await http.call('GET', '/v1/me', Me);
        // Another analyst than the one whose caches these are: nothing of theirs carries over.
        if ((store.get().keptFor ?? me.subject) !== me.subject) forgetPosition(store, followers);
        store.update((s) => ({
          ...s,
          analyst: { subject: me.subject, name: me.name, memberships: me.memberships },
        }));
        problem = null;
        await followers.load(me.memberships.map((m) => m.legalEntityId));
        log.info('team: signed in', { subject: me.subject });
      } catch (err) {
        feedState = { state: 'signed-out' };
        publish();
        if (err instanceof AppFailure) throw err;
        return teamFailure(err, (x) => x, 'claim');
      }
      follow();
      publish();
      return view();
    },
    async signOut() {
      await forgetSignIn(null);
      log.info('team: signed out');
      publish();
      return view();
    },
    assignments: () => (store.get().analyst ? book.views() : []),
    async change(action, rfiId, profileId, reassign) {
      const analyst = store.get().analyst;
      if (!store.get().serverUrl || !analyst) teamFailure(new TeamNotSignedIn(), (x) => x, action);
      const legalEntityId = memberEntity(analyst, await deps.legalEntityOf(rfiId, profileId));
      try {
        return await book.change(action, legalEntityId, rfiId, reassign);
      } catch (err) {
        return teamFailure(err, (sub) => book.nameOf(legalEntityId, sub), action);
      }
    },
    attach: followers.attach,
    wake() {
      feed?.wake();
      followers.wake();
    },
    async start() {
      const s = store.get();
      if (!s.serverUrl || !s.config || !s.analyst) return;
      if (!(await credential.get())) {
        store.update((x) => ({ ...x, analyst: null }));
        return;
      }
      follow();
      publish();
    },
    async dispose() {
      closing.abort();
      await feed?.stop();
      feed = null;
      await book.dispose();
    },
  };
  return service;
}
