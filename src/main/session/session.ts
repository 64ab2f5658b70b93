/**
 * The active profile: the UI's default for new objects (which entity a new quote or return is
 * for) and the header's connection state. It is never the identity of a write: each object acts
 * through the session of the profile that owns it (profiles/registry.ts). This facade reads the
 * active profile's session from the registry and forwards its `session.changed` to the window.
 */

import type { RunningSandbox } from '../../sandbox';
import type { SessionStatus } from '../../shared/ipc/channels/session';
import type { Profile, SandboxCredential } from '../../shared/ipc/channels/settings';
import { AppFailure } from '../../shared/ipc/errors';
import type { BankIdentity } from '../bank/client';
import type { BankScope } from '../bank/scope';
import type { EventHub } from '../infra/events';
import type { TokenVault } from '../infra/vault';
import type { Credential, Environment, ProfileSession } from '../profiles/profile-session';
import type { ProfileRegistry } from '../profiles/registry';
import { bankOrigin } from '../infra/origins';
import type { DestinationGuard } from './destinations';
import type { SettingsStore } from './settings';
import { sandboxProfileId } from './settings';

export type { Credential, Environment } from '../profiles/profile-session';

export interface SessionManager {
  readonly environment: Environment;
  readonly profile: Profile;
  /** The active profile's own session (its bank client, clock and status). */
  readonly current: ProfileSession;
  readonly sandbox: RunningSandbox | null;
  /** The credential as last reported by the bank (null before a successful check). */
  readonly credential: Credential | null;
  readonly lastStatus: SessionStatus | null;
  /** Asks the bank who the active profile's token is, publishes and answers the status. */
  check(options?: { fresh?: boolean }): Promise<SessionStatus>;
  /** Makes another profile the default (starting the embedded sandbox if needed) and checks it. */
  activate(profileId: string): Promise<SessionStatus>;
  /** Embedded sandbox: use one of the seeded credentials (stored through the vault). */
  useSandboxCredential(credential: SandboxCredential): Promise<SessionStatus>;
  sandboxCredentialOptions(): Array<{
    id: SandboxCredential;
    legalEntityId: string;
    legalEntityName: string;
    role: string;
  }>;
  /** The active profile's identity for one request (see ProfileSession.identity). */
  identity(options: { withToken: boolean }): Promise<BankIdentity>;
  /** Binds a newly stored token of the profile to the origin it is used with now. */
  bindToken(profileId: string): void;
  markUnauthenticated(): void;
  observeReachability(reachable: boolean): void;
  /** The active profile's bank scope. */
  scope(): BankScope;
  /** Who acts, for the audit log. */
  who(): string;
  dispose(): Promise<void>;
}

export interface SessionDeps {
  settings: SettingsStore;
  vault: TokenVault;
  events: EventHub;
  destinations: DestinationGuard;
  profiles: ProfileRegistry;
}

const credentialIndex: Record<SandboxCredential, { entity: number; role: 'admin' | 'viewer' }> = {
  'a-admin': { entity: 0, role: 'admin' },
  'a-viewer': { entity: 0, role: 'viewer' },
  'b-admin': { entity: 1, role: 'admin' },
};

/** The seeded token of one sandbox credential. */
export function sandboxToken(sandbox: RunningSandbox, choice: SandboxCredential): string {
  const { entity, role } = credentialIndex[choice];
  const token = sandbox.fixtures.legal_entities[entity]?.tokens[role];
  if (!token) throw new AppFailure({ kind: 'local', message: `The sandbox has no ${choice} credential.` });
  return token;
}

export async function createSession(deps: SessionDeps): Promise<SessionManager> {
  const { settings, vault, events, profiles } = deps;
  let activeId = settings.activeProfile().id;
  let off: () => void = () => undefined;

  /** The window hears the active profile's connection state. */
  const follow = (): ProfileSession => {
    off();
    const s = profiles.get(activeId);
    off = s.events.attach((m) => {
      if (m.event === 'session.changed') events.emit('session.changed', m.payload as SessionStatus);
    });
    return s;
  };
  let current = follow();

  const manager: SessionManager = {
    get environment() {
      return current.environment;
    },
    get profile() {
      return current.profile;
    },
    get current() {
      return current;
    },
    get sandbox() {
      return profiles.sandbox;
    },
    get credential() {
      return current.credential;
    },
    get lastStatus() {
      return current.lastStatus;
    },
    identity: (o) => current.identity(o),
    bindToken(profileId) {
      const p = settings.profile(profileId);
      const base = p.kind === 'embedded-sandbox' ? (profiles.sandbox?.url ?? '') : p.baseUrl;
      settings.bindToken(profileId, bankOrigin(base));
    },
    check: (o) => current.check(o),
    async activate(profileId) {
      const next = settings.profile(profileId);
      if (next.kind === 'embedded-sandbox') await profiles.ensureSandbox();
      else {
        const origin = bankOrigin(next.baseUrl);
        if (!origin) {
          throw new AppFailure({
            kind: 'invalid_argument',
            field: 'profileId',
            message: 'This profile has no valid bank address.',
          });
        }
        await deps.destinations.approveBankOrigin(origin, next.name);
      }
      settings.setActive(profileId);
      activeId = profileId;
      current = follow();
      return current.check();
    },
    async useSandboxCredential(choice) {
      const sandbox = profiles.sandbox;
      if (current.profile.kind !== 'embedded-sandbox' || !sandbox) {
        throw new AppFailure({
          kind: 'invalid_argument',
          field: 'credential',
          message:
            'Switching the sandbox credential works only while the embedded sandbox is the active environment.',
        });
      }
      current.reset('the sandbox credential was switched');
      settings.bindToken(sandboxProfileId, bankOrigin(sandbox.url));
      await vault.set(sandboxProfileId, sandboxToken(sandbox, choice));
      settings.setSandboxCredential(choice);
      return current.check({ fresh: true });
    },
    sandboxCredentialOptions() {
      const s = profiles.sandbox;
      if (!s) return [];
      return (Object.keys(credentialIndex) as SandboxCredential[]).flatMap((id) => {
        const { entity, role } = credentialIndex[id];
        const le = s.fixtures.legal_entities[entity];
        return le?.tokens[role] ? [{ id, legalEntityId: le.id, legalEntityName: le.name, role }] : [];
      });
    },
    markUnauthenticated: () => current.markUnauthenticated(),
    observeReachability: (r) => current.observeReachability(r),
    scope: () => current.scope(),
    who: () => current.who(),
    async dispose() {
      off();
      await profiles.dispose();
    },
  };

  if (current.profile.kind === 'embedded-sandbox') await profiles.ensureSandbox();
  return manager;
}
