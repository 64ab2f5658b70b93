/**
 * One profile's session: its bank client (that profile's base URL and that profile's token, bound
 * to the origin it was entered for, never another profile's), its server clock, who the bank says
 * the token is, and its connection state with the re-check schedule while the bank is away. Every
 * profile has exactly one, whatever is active: the registry (registry.ts) keeps them.
 */

import type { SessionStatus } from '../../shared/ipc/channels/session';
import type { Profile } from '../../shared/ipc/channels/settings';
import { AppFailure } from '../../shared/ipc/errors';
import { BankClient } from '../bank/client';
import type { BankIdentity, RetryPolicy } from '../bank/client';
import { createServerClock } from '../bank/clock';
import type { ServerClock } from '../bank/clock';
import { scopeOrigin } from '../bank/scope';
import type { BankScope } from '../bank/scope';
import { backoffDelay } from '../infra/backoff';
import type { BackoffSchedule } from '../infra/backoff';
import type { EventHub } from '../infra/events';
import type { Logger } from '../infra/log';
import type { TokenVault } from '../infra/vault';
import { bankOrigin } from '../infra/origins';
import type { DestinationGuard } from '../session/destinations';
import type { SettingsStore } from '../session/settings';
import { cleanName } from '../../shared/names';

export type Environment = SessionStatus['environment'];
export type Credential = NonNullable<SessionStatus['credential']>;

export interface ProfileSession {
  readonly profileId: string;
  readonly profile: Profile;
  readonly environment: Environment;
  /** This profile's bank client: every call for an object this profile owns goes through it. */
  readonly bank: BankClient;
  /** This profile's bank clock (each bank has its own offset). */
  readonly clock: ServerClock;
  /** This profile's private event hub: its `session.changed` (and its RFI service's events). */
  readonly events: EventHub;
  /** The credential as last reported by the bank (null before a successful check). */
  readonly credential: Credential | null;
  readonly lastStatus: SessionStatus | null;
  /**
   * Asks the bank who we are (GET /v1/webhook/url), publishes and answers the status. Concurrent
   * checks share one request; `fresh` starts a new one (after the token changed).
   */
  check(options?: { fresh?: boolean }): Promise<SessionStatus>;
  /**
   * Base URL, token and abort signal, taken together for one request. The token comes only with
   * the origin it was entered for; a remote origin that is neither approved nor allow-listed is
   * refused here, before anything is sent.
   */
  identity(options: { withToken: boolean }): Promise<BankIdentity>;
  /** The bank refused the token (401): publish that a new token is needed, without a new request. */
  markUnauthenticated(): void;
  /** What the bank client saw on one attempt: reachable (an HTTP answer) or not. */
  observeReachability(reachable: boolean): void;
  /** The legal entity's name: the bank's, else the last the bank gave, else the profile's name. */
  entityName(): string;
  /** The bank scope queued work of this profile belongs to. */
  scope(): BankScope;
  /** Who acts, for the audit log. */
  who(): string;
  /** The profile's token or credential changed: requests in flight stop, the credential is asked again. */
  reset(why: string): void;
  dispose(): void;
}

export interface ProfileSessionDeps {
  profileId: string;
  settings: SettingsStore;
  vault: TokenVault;
  destinations: DestinationGuard;
  log: Logger;
  events: EventHub;
  /** The running embedded sandbox's URL (its profile's base URL), null when it is not running. */
  sandboxUrl(): string | null;
  /** Names of legal entities as the bank gives them (null: not known). */
  legalEntityName(profileId: string, legalEntityId: string): string | null;
  /** How every profile's client and re-checks behave (the same for each profile). */
  tuning?: SessionTuning;
}

/** How every profile's session behaves: the same for each profile, set once by the root. */
export interface SessionTuning {
  /** Wraps the new client (the busy guard on uploads, sends and money confirmations). */
  decorate?(bank: BankClient): BankClient;
  bankRetry?: Partial<RetryPolicy>;
  bankTimeoutMs?: number;
  localNow?: () => number;
  /** The re-check schedule while the bank cannot be reached (default 2 s doubling to 60 s). */
  retry?: BackoffSchedule;
  /** Local wall clock (tests). */
  now?: () => number;
}

const defaultRetry: BackoffSchedule = { baseMs: 2_000, maxMs: 60_000, jitter: [0.8, 1] };

function environmentOf(p: Profile, sandboxUrl: string | null): Environment {
  return {
    id: p.id,
    name: p.name,
    kind: p.kind,
    baseUrl: p.kind === 'embedded-sandbox' ? (sandboxUrl ?? '') : p.baseUrl,
  };
}

export function createProfileSession(deps: ProfileSessionDeps): ProfileSession {
  const { profileId, settings, vault, log } = deps;
  const tuning = deps.tuning ?? {};
  const now = tuning.now ?? Date.now;
  const clock = createServerClock(tuning.localNow ? { localNow: tuning.localNow } : {});
  const state = createStatusState(deps, tuning.retry ?? defaultRetry, now);
  let controller = new AbortController();
  let generation = 0;
  let inflight: { gen: number; promise: Promise<SessionStatus> } | null = null;
  /** The last name the bank gave this profile's entity: a signed-out entity keeps its name. */
  let knownName: string | null = null;

  const profile = (): Profile => settings.profile(profileId);
  const environment = (): Environment => environmentOf(profile(), deps.sandboxUrl());

  const identity = async ({ withToken }: { withToken: boolean }): Promise<BankIdentity> => {
    const p = profile();
    const signal = controller.signal;
    const baseUrl = environment().baseUrl;
    const origin = bankOrigin(baseUrl);
    if (p.kind === 'remote' && (!origin || !deps.destinations.approval(origin))) {
      throw new AppFailure({
        kind: 'not_approved',
        reason: 'DESTINATION_NOT_APPROVED',
        message: `The bank address ${origin ?? baseUrl} has not been approved on this computer. Approve it in Settings.`,
      });
    }
    if (!withToken) return { baseUrl, token: null, tokenOrigin: null, signal };
    const token = await vault.get(p.id);
    const bound = settings.profile(p.id).tokenOrigin ?? null;
    if (signal.aborted) throw signal.reason;
    if (token && bound !== null && bound !== origin) {
      // The profile's address is not the one its token was entered for (the settings file was
      // changed outside the app): the token is never sent there, and is dropped.
      log.warn('session: stored token belongs to another origin; deleting it', { profileId });
      settings.bindToken(p.id, null);
      await vault
        .delete(p.id)
        .catch((err: unknown) => log.warn('session: token not deleted', { error: err }));
      return { baseUrl, token: null, tokenOrigin: null, signal };
    }
    return { baseUrl, token, tokenOrigin: bound, signal };
  };

  const bankClient = new BankClient({
    identity,
    log,
    clock,
    ...(tuning.bankRetry ? { retry: tuning.bankRetry } : {}),
    ...(tuning.bankTimeoutMs ? { timeoutMs: tuning.bankTimeoutMs } : {}),
    onUnauthenticated: () => session.markUnauthenticated(),
    onReachability: (reachable) => session.observeReachability(reachable),
    // Plain http for a document is accepted only from the embedded sandbox this process started.
    embeddedOrigin: () => {
      const url = deps.sandboxUrl();
      return url ? new URL(url).origin : null;
    },
  });
  const bank = tuning.decorate ? tuning.decorate(bankClient) : bankClient;

  const runCheck = async (): Promise<SessionStatus> => {
    const gen = generation;
    const base = state.base(environment());
    let status: SessionStatus;
    try {
      status = await askWhoWeAre(bank, base, (leId) => deps.legalEntityName(profileId, leId));
    } catch (err) {
      if (!(err instanceof AppFailure)) throw err;
      const connection =
        err.kind === 'offline'
          ? 'offline'
          : err.kind === 'unauthenticated'
            ? (await vault.has(profileId).catch(() => false))
              ? 'unauthenticated'
              : 'no_token'
            : 'error';
      // Unreachable: the credential last reported is still who we are (the cache stays scoped).
      const known = connection === 'offline' ? (state.last?.credential ?? null) : null;
      status = { ...base, connection, credential: known, problem: err.message };
    }
    // A check that raced a token change reports the old credential: do not publish it.
    if (gen !== generation) return state.last ?? status;
    return state.publish(status, () => void session.check().catch(() => undefined));
  };

  const session: ProfileSession = {
    profileId,
    bank,
    clock,
    events: deps.events,
    get profile() {
      return profile();
    },
    get environment() {
      return environment();
    },
    // Who the token is, as the bank last said: still known while the bank is unreachable (being
    // offline changes no role), forgotten when the token is refused, removed or changed.
    get credential() {
      const c = state.last?.connection;
      return c === 'connected' || c === 'offline' ? (state.last?.credential ?? null) : null;
    },
    get lastStatus() {
      return state.last;
    },
    identity,
    check(options = {}) {
      // Concurrent checks share one request.
      if (options.fresh) generation++;
      else if (inflight && inflight.gen === generation) return inflight.promise;
      const gen = generation;
      const promise = runCheck().finally(() => {
        if (inflight?.promise === promise) inflight = null;
      });
      inflight = { gen, promise };
      return promise;
    },
    markUnauthenticated() {
      if (state.last?.connection === 'unauthenticated') return;
      state.publish({
        ...state.base(environment()),
        connection: 'unauthenticated',
        credential: null,
        problem: 'The bank did not accept the stored token. Enter a new token in Settings.',
      });
    },
    observeReachability(reachable) {
      if (state.disposed) return;
      if (reachable) {
        // Back after a failure: confirm with a real check (who we are), at once.
        if (state.last?.connection === 'offline' && !inflight) {
          state.clearRetry();
          void session.check().catch((err: unknown) => log.warn('session: re-check failed', { error: err }));
        }
        return;
      }
      if (state.last?.connection === 'offline' || inflight) return;
      state.publish(
        {
          ...state.base(environment()),
          connection: 'offline',
          credential: state.last?.credential ?? null,
          problem: 'The bank could not be reached.',
        },
        () => void session.check().catch(() => undefined),
      );
    },
    entityName() {
      const name = state.last?.credential?.legalEntityName ?? null;
      if (name) knownName = name;
      return name ?? knownName ?? profile().name;
    },
    scope() {
      return {
        profileId,
        origin: scopeOrigin(environment()),
        legalEntityId: state.last?.credential?.legalEntityId ?? null,
      };
    },
    who() {
      const c = state.last?.credential;
      if (!c) return 'unknown credential';
      return `${c.webhookName} (${c.role}, ${c.legalEntityId})`;
    },
    reset(why) {
      generation++;
      const old = controller;
      controller = new AbortController();
      old.abort(
        new AppFailure({
          kind: 'offline',
          reason: 'ENVIRONMENT_CHANGED',
          message: `The request was stopped: ${why}.`,
        }),
      );
      state.forget();
    },
    dispose() {
      state.dispose();
      controller.abort(new AppFailure({ kind: 'offline', message: 'This profile is no longer in use.' }));
    },
  };
  return session;
}

/** GET /v1/webhook/url says who the token is; a bank without it is checked with a cheap read. */
async function askWhoWeAre(
  bank: BankClient,
  base: Omit<SessionStatus, 'connection' | 'credential' | 'problem'>,
  legalEntityName: (legalEntityId: string) => string | null,
): Promise<SessionStatus> {
  try {
    const cfg = await bank.getWebhookConfig();
    const credential: Credential = {
      webhookName: cfg.webhook_name,
      legalEntityId: cfg.legal_entity_id,
      // The bank's own word first (its webhook configuration), else what the embedded sandbox's
      // fixtures say; a bank that names none leaves the profile's name (entityName()).
      // The embedded sandbox's fixtures name its entities; any other bank by its own words, cleaned
      // like every name shown (no bidi overrides or control characters).
      legalEntityName:
        legalEntityName(cfg.legal_entity_id) ?? (cleanName(cfg.legal_entity_name ?? '') || null),
      role: cfg.role,
    };
    return { ...base, connection: 'connected', credential, problem: null };
  } catch (err) {
    // GET /v1/webhook/url exists only in sandbox and development environments (spec 4.13).
    if (!(err instanceof AppFailure) || err.kind !== 'not_found') throw err;
    await bank.listRfis({ page_size: '1' });
    return {
      ...base,
      connection: 'connected',
      credential: null,
      problem:
        'Connected. This bank does not report the legal entity and role of the token (no webhook configuration endpoint here).',
    };
  }
}

/** The published status and the re-check schedule while the bank is unreachable. */
function createStatusState(deps: ProfileSessionDeps, schedule: BackoffSchedule, now: () => number) {
  let downSince: number | null = null;
  let retries = 0;
  let retryAt: number | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  const keychainProblem = (): string | null => {
    const v = deps.vault.status();
    return v.available
      ? null
      : (v.problem ?? 'The keychain cannot be used: tokens are kept in memory for this run.');
  };
  const st = {
    last: null as SessionStatus | null,
    disposed: false,
    base(environment: Environment) {
      // A check run by the retry timer is the retry: the next one is scheduled if it fails too.
      if (retryTimer === null) retryAt = null;
      return {
        environment,
        checkedAt: new Date(now()).toISOString(),
        since: null,
        retryAt: null,
        keychainProblem: null,
      };
    },
    clearRetry() {
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = null;
      retryAt = null;
    },
    publish(status: SessionStatus, recheck?: () => void): SessionStatus {
      if (status.connection === 'offline') {
        downSince ??= now();
        if (!retryTimer && recheck && !st.disposed) {
          retries++;
          const wait = backoffDelay(retries, schedule);
          retryAt = now() + wait;
          retryTimer = setTimeout(() => {
            retryTimer = null;
            recheck();
          }, wait);
          retryTimer.unref?.();
        }
      } else {
        downSince = null;
        retries = 0;
        st.clearRetry();
      }
      const out: SessionStatus = {
        ...status,
        since:
          status.connection === 'connected'
            ? null
            : new Date(downSince ?? Date.parse(status.checkedAt)).toISOString(),
        retryAt: retryAt === null ? null : new Date(retryAt).toISOString(),
        keychainProblem: keychainProblem(),
      };
      if (
        out.connection !== 'connected' &&
        out.connection !== 'offline' &&
        st.last?.connection === out.connection
      ) {
        out.since = st.last.since;
      }
      st.last = out;
      deps.events.emit('session.changed', out);
      return out;
    },
    forget() {
      st.last = null;
    },
    dispose() {
      st.disposed = true;
      st.clearRetry();
    },
  };
  return st;
}
