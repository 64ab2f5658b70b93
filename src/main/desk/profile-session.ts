/**
 * A watched profile's own session: its bank client (that profile's base URL and that profile's
 * token, bound to the origin it was entered for, never another profile's), who the bank says the
 * token is, and the connection state. It never changes which profile is active and sends only
 * reads — and, for the embedded sandbox, the webhook service's PUT /v1/webhook/url pointing this
 * credential at this profile's own receiver route. Writes (answers, returns, quotes) go through
 * the active session of the profile that owns the object.
 */

import type { SessionStatus } from '../../shared/ipc/channels/session';
import type { Profile } from '../../shared/ipc/channels/settings';
import { DeskFailure } from '../../shared/ipc/errors';
import { BankClient } from '../bank/client';
import type { RetryPolicy } from '../bank/client';
import type { ServerClock } from '../bank/clock';
import type { EventHub } from '../infra/events';
import type { Logger } from '../infra/log';
import type { TokenVault } from '../infra/vault';
import type { RfiSession } from '../rfis/service';
import { bankOrigin } from '../session/destinations';
import type { DestinationGuard } from '../session/destinations';
import type { SettingsStore } from '../session/settings';

export interface ProfileSession extends RfiSession {
  readonly profileId: string;
  readonly bank: BankClient;
  /** The legal entity's name (the bank's, else the profile's name). */
  entityName(): string;
  dispose(): void;
}

export interface ProfileSessionDeps {
  profileId: string;
  settings: SettingsStore;
  vault: TokenVault;
  destinations: DestinationGuard;
  clock: ServerClock;
  log: Logger;
  /** The profile's private hub: `session.changed` of this profile goes here only. */
  events: EventHub;
  /** The running embedded sandbox's URL (its profile's base URL), null when it is not running. */
  sandboxUrl(): string | null;
  /** Names of legal entities main knows (the embedded sandbox's fixtures). */
  legalEntityName(legalEntityId: string): string | null;
  bankRetry?: Partial<RetryPolicy>;
  bankTimeoutMs?: number;
}

export function createProfileSession(deps: ProfileSessionDeps): ProfileSession {
  const { profileId, settings, vault, destinations, log } = deps;
  const controller = new AbortController();
  let credential: SessionStatus['credential'] = null;
  let lastStatus: SessionStatus | null = null;
  let inflight: Promise<SessionStatus> | null = null;

  const profile = (): Profile => settings.profile(profileId);
  const environment = (): SessionStatus['environment'] => {
    const p = profile();
    return {
      id: p.id,
      name: p.name,
      kind: p.kind,
      baseUrl: p.kind === 'embedded-sandbox' ? (deps.sandboxUrl() ?? '') : p.baseUrl,
    };
  };

  const bank = new BankClient({
    // This profile's address and this profile's token only.
    identity: async ({ withToken }) => {
      const p = profile();
      const baseUrl = environment().baseUrl;
      const origin = bankOrigin(baseUrl);
      const signal = controller.signal;
      if (p.kind === 'remote' && (!origin || !destinations.approval(origin))) {
        throw new DeskFailure({
          kind: 'not_approved',
          reason: 'DESTINATION_NOT_APPROVED',
          message: `The bank address ${origin ?? baseUrl} has not been approved on this computer.`,
        });
      }
      if (!withToken) return { baseUrl, token: null, tokenOrigin: null, signal };
      const token = await vault.get(p.id);
      const bound = settings.profile(p.id).tokenOrigin ?? null;
      // A token is sent only to the origin it was entered for (the session deletes a mismatch).
      if (!token || bound === null || bound !== origin) {
        return { baseUrl, token: null, tokenOrigin: null, signal };
      }
      return { baseUrl, token, tokenOrigin: bound, signal };
    },
    log,
    clock: deps.clock,
    ...(deps.bankRetry ? { retry: deps.bankRetry } : {}),
    ...(deps.bankTimeoutMs ? { timeoutMs: deps.bankTimeoutMs } : {}),
    onUnauthenticated: () => {
      if (lastStatus?.connection === 'unauthenticated') return;
      void session.check().catch(() => undefined);
    },
  });

  const entityName = (): string =>
    credential?.legalEntityName ?? lastStatus?.credential?.legalEntityName ?? profile().name;

  const runCheck = async (): Promise<SessionStatus> => {
    const base = {
      environment: environment(),
      checkedAt: new Date().toISOString(),
      since: null,
      retryAt: null,
      keychainProblem: null,
    };
    let status: SessionStatus;
    try {
      const cfg = await bank.getWebhookConfig();
      credential = {
        webhookName: cfg.webhook_name,
        legalEntityId: cfg.legal_entity_id,
        legalEntityName: deps.legalEntityName(cfg.legal_entity_id),
        role: cfg.role,
      };
      status = { ...base, connection: 'connected', credential, problem: null };
    } catch (err) {
      if (!(err instanceof DeskFailure)) throw err;
      if (err.kind === 'not_found') {
        // A bank without GET /v1/webhook/url: a cheap read checks the token.
        try {
          await bank.listRfis({ page_size: '1' });
          status = { ...base, connection: 'connected', credential: null, problem: null };
        } catch (inner) {
          if (!(inner instanceof DeskFailure)) throw inner;
          status = failed(base, inner);
        }
      } else status = failed(base, err);
    }
    lastStatus = status;
    deps.events.emit('session.changed', status);
    return status;
  };

  const failed = (base: Omit<SessionStatus, 'connection' | 'credential' | 'problem'>, err: DeskFailure) => {
    const connection: SessionStatus['connection'] =
      err.kind === 'offline' ? 'offline' : err.kind === 'unauthenticated' ? 'unauthenticated' : 'error';
    // Unreachable: the credential last reported is still who we are (the cache stays scoped).
    const known = connection === 'offline' ? (lastStatus?.credential ?? null) : null;
    if (connection !== 'offline') credential = null;
    return { ...base, connection, credential: known, problem: err.message } satisfies SessionStatus;
  };

  const session: ProfileSession = {
    profileId,
    bank,
    get environment() {
      return environment();
    },
    get credential() {
      return credential;
    },
    get lastStatus() {
      return lastStatus;
    },
    check() {
      inflight ??= runCheck().finally(() => {
        inflight = null;
      });
      return inflight;
    },
    entityName,
    dispose() {
      controller.abort(new DeskFailure({ kind: 'offline', message: 'This profile is no longer watched.' }));
    },
  };
  return session;
}
