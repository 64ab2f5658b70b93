/**
 * The profile registry: one session per profile id (its bank client, token bound to its origin,
 * clock estimate and connection state), made on first use and kept whatever profile is active.
 * Every bank call for an object goes through the session of the profile that owns the object.
 * The embedded sandbox runs here too (its profile's base URL), started once when first needed.
 */

import { startSandbox } from '../../sandbox';
import type { RunningSandbox, SandboxOptions } from '../../sandbox';
import type { SessionStatus } from '../../shared/ipc/channels/session';
import { createEventHub } from '../infra/events';
import type { Logger } from '../infra/log';
import type { TokenVault } from '../infra/vault';
import { bankOrigin } from '../infra/origins';
import type { DestinationGuard } from '../session/destinations';
import type { SettingsStore } from '../session/settings';
import { sandboxProfileId } from '../session/settings';
import { createProfileSession } from './profile-session';
import type { ProfileSession, SessionTuning } from './profile-session';

export interface ProfileRegistry {
  /** The profile's session (made on first use); throws not_found for a profile that does not exist. */
  get(profileId: string): ProfileSession;
  /** The session if one was made. */
  peek(profileId: string): ProfileSession | null;
  /** Every session made so far. */
  sessions(): ProfileSession[];
  /** Ends the profile's session (its requests stop); the next get makes a new one. */
  forget(profileId: string): void;
  /** The embedded sandbox, when it runs. */
  readonly sandbox: RunningSandbox | null;
  /** Starts the embedded sandbox if it is not running, and stores its seeded credential. */
  ensureSandbox(): Promise<RunningSandbox>;
  /** Told of every profile's published connection state (an owner's bank came back, say). */
  onStatus(listener: (profileId: string, status: SessionStatus) => void): () => void;
  /** The legal entity's name as the bank gives it (the embedded sandbox's fixtures). */
  legalEntityName(profileId: string, legalEntityId: string): string | null;
  dispose(): Promise<void>;
}

export interface ProfileRegistryDeps {
  settings: SettingsStore;
  vault: TokenVault;
  destinations: DestinationGuard;
  log: Logger;
  sandboxOptions?: Partial<SandboxOptions>;
  /** The seeded token of the sandbox credential the sandbox profile uses. */
  sandboxToken(sandbox: RunningSandbox): string;
  tuning?: SessionTuning;
}

export function createProfileRegistry(deps: ProfileRegistryDeps): ProfileRegistry {
  const { settings, vault, log } = deps;
  const sessions = new Map<string, ProfileSession>();
  let sandbox: RunningSandbox | null = null;
  let starting: Promise<RunningSandbox> | null = null;

  /**
   * The bank's name of a legal entity: the embedded sandbox's fixtures know every entity it holds,
   * whichever address a profile reaches it by. A bank that names none (its webhook configuration
   * carries the entity's id only) leaves it to the profile's own name (ProfileSession.entityName).
   */
  const legalEntityName = (_profileId: string, legalEntityId: string): string | null =>
    sandbox?.fixtures.legal_entities.find((le) => le.id === legalEntityId)?.name ?? null;

  const listeners = new Set<(profileId: string, status: SessionStatus) => void>();
  const make = (profileId: string): ProfileSession => {
    const s = build(profileId);
    s.events.attach((m) => {
      if (m.event !== 'session.changed') return;
      for (const l of listeners) l(profileId, m.payload as SessionStatus);
    });
    return s;
  };
  const build = (profileId: string): ProfileSession =>
    createProfileSession({
      profileId,
      settings,
      vault,
      destinations: deps.destinations,
      log,
      events: createEventHub(log),
      sandboxUrl: () => sandbox?.url ?? null,
      legalEntityName,
      ...(deps.tuning ? { tuning: deps.tuning } : {}),
    });

  const registry: ProfileRegistry = {
    get(profileId) {
      let s = sessions.get(profileId);
      if (!s) {
        settings.profile(profileId); // not_found for an unknown profile
        s = make(profileId);
        sessions.set(profileId, s);
      }
      return s;
    },
    peek: (profileId) => sessions.get(profileId) ?? null,
    sessions: () => [...sessions.values()],
    forget(profileId) {
      sessions.get(profileId)?.dispose();
      sessions.delete(profileId);
    },
    get sandbox() {
      return sandbox;
    },
    ensureSandbox() {
      if (sandbox) return Promise.resolve(sandbox);
      starting ??= (async () => {
        const s = await startSandbox({
          ...deps.sandboxOptions,
          host: '127.0.0.1',
          port: deps.sandboxOptions?.port ?? 0,
        });
        log.addSecret(s.controlSecret);
        log.info('session: embedded sandbox started', { url: s.url });
        // Our own in-process bank: its webhook key is pinned as it starts (a new key every run).
        settings.setWebhookPublicKey(sandboxProfileId, s.publicKeyPem);
        // Its seeded credential goes through the vault like any other token, bound to this run's origin.
        settings.bindToken(sandboxProfileId, bankOrigin(s.url));
        await vault.set(sandboxProfileId, deps.sandboxToken(s));
        sandbox = s;
        return s;
      })().finally(() => {
        starting = null;
      });
      return starting;
    },
    legalEntityName,
    onStatus(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async dispose() {
      listeners.clear();
      for (const s of sessions.values()) s.dispose();
      sessions.clear();
      const s = sandbox;
      sandbox = null;
      await s?.close();
    },
  };
  return registry;
}
