import { startSandbox } from '../sandbox';
import type { RunningSandbox, SandboxOptions } from '../sandbox';
import type { SessionStatus } from '../shared/ipc/channels/session';
import type { Profile, SandboxCredential } from '../shared/ipc/channels/settings';
import { DeskFailure } from '../shared/ipc/errors';
import type { BankClient } from './bank/client';
import type { EventHub } from './events';
import type { Logger } from './log';
import type { SettingsStore } from './settings';
import { sandboxProfileId } from './settings';
import type { TokenVault } from './vault';

/**
 * The active environment: which profile, its base URL (the embedded sandbox is started in-process
 * on 127.0.0.1 at a free port when needed), the credential the bank reports for our token, and
 * the connection state pushed as `session.changed`.
 */
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
  /** The bank refused the token (401): publish that a new token is needed, without a new request. */
  markUnauthenticated(): void;
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
  sandboxOptions?: Partial<SandboxOptions>;
}

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
  let inflight: { gen: number; promise: Promise<SessionStatus> } | null = null;

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
    // Its seeded credential goes through the vault like any other token.
    await vault.set(sandboxProfileId, sandboxToken(settings.profile(sandboxProfileId).sandboxCredential));
  };

  const publish = (status: SessionStatus): SessionStatus => {
    lastStatus = status;
    events.emit('session.changed', status);
    return status;
  };

  const runCheck = async (): Promise<SessionStatus> => {
    const gen = generation;
    const base = { environment: environmentOf(profile), checkedAt: new Date().toISOString() };
    let status: SessionStatus;
    try {
      try {
        const cfg = await deps.bank().getWebhookConfig();
        credential = { webhookName: cfg.webhook_name, legalEntityId: cfg.legal_entity_id, role: cfg.role };
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
      status = { ...base, connection, credential: null, problem: err.message };
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
      settings.setActive(profileId);
      profile = settings.profile(profileId);
      credential = null;
      generation++;
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
      await vault.set(sandboxProfileId, sandboxToken(choice));
      profile = settings.setSandboxCredential(choice);
      credential = null;
      generation++;
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
        checkedAt: new Date().toISOString(),
        connection: 'unauthenticated',
        credential: null,
        problem: 'The bank did not accept the stored token. Enter a new token in Settings.',
      });
    },
    who() {
      if (!credential) return 'unknown credential';
      return `${credential.webhookName} (${credential.role}, ${credential.legalEntityId})`;
    },
    async dispose() {
      const s = sandbox;
      sandbox = null;
      await s?.close();
    },
  };

  if (profile.kind === 'embedded-sandbox') await ensureSandbox();
  return manager;
}
