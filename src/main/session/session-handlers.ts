import type { SessionStatus } from '../../shared/ipc/channels/session';
import type { Handlers } from '../ipc/dispatcher';
import type { ServiceCore } from '../core';

/** Asks the bank who we are (GET /v1/webhook/url) and reports it as the connection state. */
export function checkSession(core: ServiceCore): Promise<SessionStatus> {
  return core.session.check();
}

export function sessionHandlers(
  core: ServiceCore,
): Pick<
  Handlers,
  'session.status' | 'session.sandboxCredentials' | 'session.useSandboxCredential' | 'session.clock'
> {
  return {
    'session.status': () => core.session.check(),
    'session.sandboxCredentials': async () => {
      const options = core.session.sandboxCredentialOptions();
      return {
        available: core.session.profile.kind === 'embedded-sandbox' && core.session.sandbox !== null,
        current: core.settings.profile('sandbox').sandboxCredential,
        options,
      };
    },
    'session.useSandboxCredential': ({ credential }) => core.session.useSandboxCredential(credential),
    'session.clock': async () => ({
      serverNow: new Date(core.clock.now()).toISOString(),
      offsetMs: core.clock.offsetMs,
      uncertaintyMs: Number.isFinite(core.clock.uncertaintyMs) ? core.clock.uncertaintyMs : null,
      samples: core.clock.samples,
    }),
  };
}
