/**
 * The active environment: which profile, its base URL (the embedded sandbox is started in-process
 * on 127.0.0.1 at a free port when needed), the credential the bank reports for our token, and
 * the connection state pushed as `session.changed`.
 */

import { startSandbox } from '../../sandbox';
import type { RunningSandbox, SandboxOptions } from '../../sandbox';
import type { SessionStatus } from '../../shared/ipc/channels/session';
import type { Profile, SandboxCredential } from '../../shared/ipc/channels/settings';
import { DeskFailure } from '../../shared/ipc/errors';
import type { BankClient, BankIdentity } from '../bank/client';
import { bankOrigin } from './destinations';
import type { DestinationGuard } from './destinations';
import type { EventHub } from '../infra/events';
import type { Logger } from '../infra/log';
import type { SettingsStore } from './settings';
import { sandboxProfileId } from './settings';
import type { TokenVault } from '../infra/vault';
import { backoffDelay } from '../infra/backoff';
import type { BackoffSchedule } from '../infra/backoff';

export type Environment = SessionStatus['environment'];
export type Credential = NonNullable<SessionStatus['credential']>;

export interface SessionManager {
  readonly environment: Environment;
  readonly profile: Profile;
  readonly sandbox: RunningSandbox | null;
  /** The credential as last reported by the bank (null before a successful check). */
  readonly credential: Credential | null;
  readonly lastStatus: SessionStatus | null;
  /**
   * Asks the bank who we are (GET /v1/webhook/url), publishes and answers the status. Concurrent
   * checks share one request; `fresh` starts a new one (after the token changed).
   */
  check(options?: { fresh?: boolean }): Promise<SessionStatus>;
  /** Switches the active profile (starting the embedded sandbox if needed) and re-checks. */
  activate(profileId: string): Promise<SessionStatus>;
  /** Embedded sandbox: use one of the seeded credentials (stored through the vault). */
  useSandboxCredential(credential: SandboxCredential): Promise<SessionStatus>;
  sandboxCredentialOptions(): Array<{
    id: SandboxCredential;
    legalEntityId: string;
    legalEntityName: string;
    role: string;
  }>;
  /**
   * Base URL, token and abort signal of the active environment, taken together for one request.
   * The token comes only with the origin it was entered for; the signal aborts when the
   * environment changes (profile switch, another sandbox credential). A remote origin that is
   * neither approved nor allow-listed is refused here, before anything is sent.
   */
  identity(options: { withToken: boolean }): Promise<BankIdentity>;
  /** Binds a newly stored token of the profile to the origin it is used with now. */
  bindToken(profileId: string): void;
  /** The bank refused the token (401): publish that a new token is needed, without a new request. */
  markUnauthenticated(): void;
  /**
   * What the bank client saw on one attempt: an HTTP answer (reachable) or a network failure
   * (unreachable). The one source of the status line: an unreachable bank is published at once
   * (with the time of the first failure) and re-checked on the retry schedule; a reachable bank
   * after a failure is re-checked at once.
   */
  observeReachability(reachable: boolean): void;
  /** Who acts, for the audit log. */
  who(): string;
  dispose(): Promise<void>;
}

export interface SessionDeps {
  settings: SettingsStore;
  vault: TokenVault;
  events: EventHub;
  log: Logger;
  bank: () => BankClient;
  destinations: DestinationGuard;
  sandboxOptions?: Partial<SandboxOptions>;
  /** The re-check schedule while the bank cannot be reached (default 2 s doubling to 60 s). */
  retry?: BackoffSchedule;
  /** Local wall clock (tests). */
  now?: () => number;
}

const defaultRetry: BackoffSchedule = { baseMs: 2_000, maxMs: 60_000, jitter: [0.8, 1] };

const credentialIndex: Record<SandboxCredential, { entity: number; role: 'admin' | 'viewer' }> = {
  'a-admin': { entity: 0, role: 'admin' },
  'a-viewer': { entity: 0, role: 'viewer' },
  'b-admin': { entity: 1, role: 'admin' },
};

export async function createSession(deps: SessionDeps): Promise<SessionManager> {
  const { settings, vault, events, log } = deps;
  let sandbox: RunningSandbox | null = null;
  let profile: Profile = settings.activeProfile();
  let credential: Credential | null = null;
  let lastStatus: SessionStatus | null = null;
  let generation = 0;
  /** Aborted (and replaced) whenever the environment changes: old requests stop at once. */
  let controller = new AbortController();
  const nextGeneration = (why: string): void => {
    generation++;
    const old = controller;
    controller = new AbortController();
    old.abort(
      new DeskFailure({
        kind: 'offline',
        reason: 'ENVIRONMENT_CHANGED',
        message: `The request was stopped: ${why}.`,
      }),
    );
  };
  let inflight: { gen: number; promise: Promise<SessionStatus> } | null = null;
  const now = deps.now ?? Date.now;
  const retrySchedule = deps.retry ?? defaultRetry;
  /** Since when the bank has been unreachable (first failure), the retries so far and the next one. */
  let downSince: number | null = null;
  let retries = 0;
  let retryAt: number | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let disposed = false;

  const keychainProblem = (): string | null => {
    const v = vault.status();
    return v.available
      ? null
      : (v.problem ?? 'The keychain cannot be used: tokens are kept in memory for this run.');
  };
  const clearRetry = (): void => {
    if (retryTimer) clearTimeout(retryTimer);
    retryTimer = null;
    retryAt = null;
  };
  /** Schedules the next re-check of an unreachable bank on the backoff schedule. */
  const scheduleRetry = (): void => {
    if (disposed) return;
    clearRetry();
    retries++;
    const wait = backoffDelay(retries, retrySchedule);
    retryAt = now() + wait;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void manager.check().catch((err: unknown) => log.warn('session: re-check failed', { error: err }));
    }, wait);
    retryTimer.unref?.();
  };
  const legalEntityName = (legalEntityId: string): string | null =>
    sandbox?.fixtures.legal_entities.find((le) => le.id === legalEntityId)?.name ?? null;

  const environmentOf = (p: Profile): Environment => ({
    id: p.id,
    name: p.name,
    kind: p.kind,
    baseUrl: p.kind === 'embedded-sandbox' ? (sandbox?.url ?? '') : p.baseUrl,
  });

  const sandboxToken = (choice: SandboxCredential): string => {
    if (!sandbox) throw new DeskFailure({ kind: 'local', message: 'The embedded sandbox is not running.' });
    const { entity, role } = credentialIndex[choice];
    const token = sandbox.fixtures.legal_entities[entity]?.tokens[role];
    if (!token) throw new DeskFailure({ kind: 'local', message: `The sandbox has no ${choice} credential.` });
    return token;
  };

  const ensureSandbox = async (): Promise<void> => {
    if (sandbox) return;
    sandbox = await startSandbox({
      ...deps.sandboxOptions,
      host: '127.0.0.1',
      port: deps.sandboxOptions?.port ?? 0,
    });
    log.addSecret(sandbox.controlSecret);
    log.info('session: embedded sandbox started', { url: sandbox.url });
    // Our own in-process bank: its webhook key is pinned as it starts (a new key every run).
    settings.setWebhookPublicKey(sandboxProfileId, sandbox.publicKeyPem);
    // Its seeded credential goes through the vault like any other token, bound to this run's origin.
    settings.bindToken(sandboxProfileId, bankOrigin(sandbox.url));
    await vault.set(sandboxProfileId, sandboxToken(settings.profile(sandboxProfileId).sandboxCredential));
  };

  const originFor = (p: Profile): string | null => bankOrigin(environmentOf(p).baseUrl);

  const publish = (status: SessionStatus): SessionStatus => {
    if (status.connection === 'offline') {
      downSince ??= now();
      if (!retryTimer) scheduleRetry();
    } else {
      downSince = null;
      retries = 0;
      clearRetry();
    }
    status = {
      ...status,
      since:
        status.connection === 'connected'
          ? null
          : new Date(downSince ?? Date.parse(status.checkedAt)).toISOString(),
      retryAt: retryAt === null ? null : new Date(retryAt).toISOString(),
      keychainProblem: keychainProblem(),
    };
    if (
      status.connection !== 'connected' &&
      status.connection !== 'offline' &&
      lastStatus?.connection === status.connection
    ) {
      status.since = lastStatus.since;
    }
    lastStatus = status;
    events.emit('session.changed', status);
    return status;
  };

  const runCheck = async (): Promise<SessionStatus> => {
    const gen = generation;
    const base = {
      environment: environmentOf(profile),
      checkedAt: new Date(now()).toISOString(),
      since: null,
      retryAt: null,
      keychainProblem: null,
    };
    // This check is the retry: the next one is scheduled again if it fails too.
    if (retryTimer === null) retryAt = null;
    let status: SessionStatus;
    try {
      try {
        const cfg = await deps.bank().getWebhookConfig();
        credential = {
          webhookName: cfg.webhook_name,
          legalEntityId: cfg.legal_entity_id,
          legalEntityName: legalEntityName(cfg.legal_entity_id),
          role: cfg.role,
        };
        status = { ...base, connection: 'connected', credential, problem: null };
      } catch (err) {
        // GET /v1/webhook/url exists only in sandbox and development environments (spec 4.13).
        // Elsewhere the token is checked with a cheap read; the credential stays unknown.
        if (!(err instanceof DeskFailure) || err.kind !== 'not_found') throw err;
        await deps.bank().listRfis({ page_size: '1' });
        credential = null;
        status = {
          ...base,
          connection: 'connected',
          credential: null,
          problem:
            'Connected. This bank does not report the legal entity and role of the token (no webhook configuration endpoint here).',
        };
      }
    } catch (err) {
      if (!(err instanceof DeskFailure)) throw err;
      credential = null;
      const connection =
        err.kind === 'offline'
          ? 'offline'
          : err.kind === 'unauthenticated'
            ? (await vault.has(profile.id).catch(() => false))
              ? 'unauthenticated'
              : 'no_token'
            : 'error';
      // Unreachable: the credential last reported in this environment is still who we are.
      const known =
        connection === 'offline' && lastStatus?.environment.id === profile.id ? lastStatus.credential : null;
      status = { ...base, connection, credential: known, problem: err.message };
    }
    // A check that raced a profile switch reports the old environment: do not publish it.
    if (gen !== generation) return lastStatus ?? status;
    return publish(status);
  };

  const manager: SessionManager = {
    get environment() {
      return environmentOf(profile);
    },
    get profile() {
      return profile;
    },
    get sandbox() {
      return sandbox;
    },
    get credential() {
      return credential;
    },
    get lastStatus() {
      return lastStatus;
    },
    async identity({ withToken }) {
      const p = profile;
      const signal = controller.signal;
      const baseUrl = environmentOf(p).baseUrl;
      const origin = bankOrigin(baseUrl);
      if (p.kind === 'remote') {
        if (!origin || !deps.destinations.approval(origin)) {
          throw new DeskFailure({
            kind: 'not_approved',
            reason: 'DESTINATION_NOT_APPROVED',
            message: `The bank address ${origin ?? baseUrl} has not been approved on this computer. Switch to this environment again to approve it.`,
          });
        }
      }
      if (!withToken) return { baseUrl, token: null, tokenOrigin: null, signal };
      const token = await vault.get(p.id);
      const bound = settings.profile(p.id).tokenOrigin ?? null;
      if (signal.aborted) throw signal.reason;
      if (token && bound !== null && bound !== origin) {
        // The profile's address is not the one its token was entered for (the settings file was
        // changed outside the app): the token is never sent there, and is dropped.
        log.warn('session: stored token belongs to another origin; deleting it', { profileId: p.id });
        settings.bindToken(p.id, null);
        await vault
          .delete(p.id)
          .catch((err: unknown) => log.warn('session: token not deleted', { error: err }));
        return { baseUrl, token: null, tokenOrigin: null, signal };
      }
      return { baseUrl, token, tokenOrigin: bound, signal };
    },
    bindToken(profileId) {
      const p = settings.profile(profileId);
      settings.bindToken(profileId, originFor(p));
    },
    check(options = {}) {
      // Concurrent checks of the same environment share one request.
      if (options.fresh) generation++;
      else if (inflight && inflight.gen === generation) return inflight.promise;
      const gen = generation;
      const promise = runCheck().finally(() => {
        if (inflight?.promise === promise) inflight = null;
      });
      inflight = { gen, promise };
      return promise;
    },
    async activate(profileId) {
      const next = settings.profile(profileId);
      if (next.kind === 'embedded-sandbox') await ensureSandbox();
      else {
        const origin = bankOrigin(next.baseUrl);
        if (!origin) {
          throw new DeskFailure({
            kind: 'invalid_argument',
            field: 'profileId',
            message: 'This profile has no valid bank address.',
          });
        }
        await deps.destinations.approveBankOrigin(origin, next.name);
      }
      settings.setActive(profileId);
      profile = settings.profile(profileId);
      credential = null;
      nextGeneration('the environment was switched');
      return manager.check();
    },
    async useSandboxCredential(choice) {
      if (profile.kind !== 'embedded-sandbox' || !sandbox) {
        throw new DeskFailure({
          kind: 'invalid_argument',
          field: 'credential',
          message:
            'Switching the sandbox credential works only while the embedded sandbox is the active environment.',
        });
      }
      nextGeneration('the sandbox credential was switched');
      settings.bindToken(sandboxProfileId, bankOrigin(sandbox.url));
      await vault.set(sandboxProfileId, sandboxToken(choice));
      profile = settings.setSandboxCredential(choice);
      credential = null;
      return manager.check();
    },
    sandboxCredentialOptions() {
      if (!sandbox) return [];
      const s = sandbox;
      return (Object.keys(credentialIndex) as SandboxCredential[]).flatMap((id) => {
        const { entity, role } = credentialIndex[id];
        const le = s.fixtures.legal_entities[entity];
        return le?.tokens[role] ? [{ id, legalEntityId: le.id, legalEntityName: le.name, role }] : [];
      });
    },
    markUnauthenticated() {
      credential = null;
      if (lastStatus?.connection === 'unauthenticated') return;
      publish({
        environment: environmentOf(profile),
        checkedAt: new Date(now()).toISOString(),
        connection: 'unauthenticated',
        credential: null,
        problem: 'The bank did not accept the stored token. Enter a new token in Settings.',
        since: null,
        retryAt: null,
        keychainProblem: null,
      });
    },
    observeReachability(reachable) {
      if (disposed) return;
      if (reachable) {
        // Back after a failure: confirm with a real check (who we are), at once.
        if (lastStatus?.connection === 'offline' && !inflight) {
          clearRetry();
          void manager.check().catch((err: unknown) => log.warn('session: re-check failed', { error: err }));
        }
        return;
      }
      if (lastStatus?.connection === 'offline' || inflight) return;
      publish({
        environment: environmentOf(profile),
        checkedAt: new Date(now()).toISOString(),
        connection: 'offline',
        credential: lastStatus?.environment.id === profile.id ? lastStatus.credential : null,
        problem: 'The bank could not be reached.',
        since: null,
        retryAt: null,
        keychainProblem: null,
      });
    },
    who() {
      if (!credential) return 'unknown credential';
      return `${credential.webhookName} (${credential.role}, ${credential.legalEntityId})`;
    },
    async dispose() {
      disposed = true;
      clearRetry();
      controller.abort(new DeskFailure({ kind: 'offline', message: 'The app is closing.' }));
      const s = sandbox;
      sandbox = null;
      await s?.close();
    },
  };

  if (profile.kind === 'embedded-sandbox') await ensureSandbox();
  return manager;
}
