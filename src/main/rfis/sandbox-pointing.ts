/**
 * Pointing the embedded sandbox's admin credentials at their routes: each profile's credential is
 * set (with that profile's own client and token) to its own route whenever the credential, the
 * environment or the route changes; one pointing at a time per profile. A viewer cannot: polling
 * only, and the state says why. Other banks are never pointed automatically.
 */

import { AppFailure } from '../../shared/ipc/errors';
import type { Logger } from '../infra/log';
import { bankOrigin } from '../infra/origins';
import { maskRouteUrl } from './route-mask';
import type { AutoState, WebhookMember } from './webhook-members';

export interface SandboxPointingDeps {
  /** False: never point anything (tests that point by hand). */
  enabled: boolean;
  /** The member serving a profile now (undefined: not watched any more). */
  member(profileId: string): WebhookMember | undefined;
  /** The running embedded sandbox's origin, or null. */
  sandboxOrigin(): string | null;
  routeUrl(profileId: string): string | null;
  /** A profile's pointing state changed (Settings is told when it is the default profile's). */
  onStateChange(profileId: string): void;
  log: Logger;
}

export interface SandboxPointing {
  /** Re-points a profile when its environment, credential or route changed (always with `force`). */
  maybeConfigure(m: WebhookMember, force?: boolean): Promise<void>;
  state(profileId: string): AutoState | null;
  /** Whoever serves the profile next points it again. */
  again(profileId: string): void;
  forget(profileId: string): void;
  /** The pointings running or queued. */
  inFlight(): Promise<void>[];
}

export const memberOrigin = (m: WebhookMember): string | null => bankOrigin(m.session.environment.baseUrl);

export function createSandboxPointing(deps: SandboxPointingDeps): SandboxPointing {
  const autoState = new Map<string, AutoState>();
  const autoKey = new Map<string, string>();
  const pointing = new Map<string, Promise<void>>();

  const isEmbeddedSandbox = (m: WebhookMember): boolean => {
    const o = deps.sandboxOrigin();
    return o !== null && memberOrigin(m) === o;
  };

  /** Asks the bank which credential this profile's token is, and points it when it is an admin. */
  const point = async (m: WebhookMember, url: string, set: (state: AutoState) => void): Promise<void> => {
    try {
      // This profile's own client and token: one credential is never pointed by another's.
      const current = await m.bank.getWebhookConfig();
      if (current.role !== 'admin') {
        set({
          state: 'failed',
          message: `The sandbox credential is a ${current.role}: only an admin may set the webhook URL. Polling only.`,
        });
      } else {
        if (current.webhook_url !== url) await m.bank.setWebhookUrl(url);
        set({ state: 'done', message: `Sandbox events go to ${maskRouteUrl(url)}.` });
      }
    } catch (err) {
      set({
        state: 'failed',
        message: err instanceof AppFailure ? err.message : 'The webhook URL could not be set (see the log).',
      });
      deps.log.warn('webhook: sandbox webhook URL not set', { profileId: m.profileId, error: err });
    }
  };

  const configure = async (m: WebhookMember): Promise<void> => {
    const id = m.profileId;
    const set = (state: AutoState): void => {
      // No longer served by this session (not watched any more, or watched anew): the newer
      // member's own pointing, queued behind this one, says what holds.
      if (deps.member(id)?.session !== m.session) return;
      autoState.set(id, state);
      deps.onStateChange(id);
    };
    if (!isEmbeddedSandbox(m)) {
      set({
        state: 'not_applicable',
        message: 'Only the embedded sandbox is pointed at this app automatically.',
      });
      return;
    }
    const url = deps.routeUrl(id);
    if (!url) {
      set({ state: 'failed', message: 'The receiver is not listening.' });
      return;
    }
    await point(m, url, set);
  };

  return {
    maybeConfigure(m, force = false) {
      if (!deps.enabled) return Promise.resolve();
      const st = m.session.lastStatus;
      const cred = m.session.credential ?? st?.credential ?? null;
      if (!cred && !force) return Promise.resolve();
      const k = `${m.session.environment.id}|${memberOrigin(m) ?? ''}|${cred?.webhookName ?? ''}|${deps.routeUrl(m.profileId) ?? ''}`;
      if (!force && autoKey.get(m.profileId) === k) return Promise.resolve();
      autoKey.set(m.profileId, k);
      // Whoever serves the profile when the turn comes (a rebind may have replaced `m` meanwhile);
      // nothing when it is no longer watched.
      const p = (pointing.get(m.profileId) ?? Promise.resolve()).then(() => {
        const current = deps.member(m.profileId);
        return current ? configure(current) : undefined;
      });
      pointing.set(m.profileId, p);
      return p;
    },
    state: (id) => autoState.get(id) ?? null,
    again: (id) => void autoKey.delete(id),
    forget(id) {
      autoState.delete(id);
      autoKey.delete(id);
    },
    inFlight: () => [...pointing.values()],
  };
}
