import type { Handlers } from '../ipc/dispatcher';
import type { SessionManager } from './session';
import type { SettingsStore } from './settings';
import type { TokenVault } from '../infra/vault';

export interface SessionHandlerDeps {
  /** The default profile's session (the header's connection state). */
  session: SessionManager;
  settings: Pick<SettingsStore, 'profile'>;
  /** Asked again on the analyst's "Try again": a keychain that answers now takes the tokens. */
  vault?: Pick<TokenVault, 'reprobe'>;
}

/** Asks the bank who the default profile's token is and answers the connection state; the sandbox credential; the bank clock. */
export function sessionHandlers(
  core: SessionHandlerDeps,
): Pick<
  Handlers,
  'session.status' | 'session.sandboxCredentials' | 'session.useSandboxCredential' | 'session.clock'
> {
  return {
    'session.status': async () => {
      await core.vault?.reprobe();
      return core.session.check();
    },
    'session.sandboxCredentials': async () => {
      const options = core.session.sandboxCredentialOptions();
      return {
        available: core.session.profile.kind === 'embedded-sandbox' && core.session.sandbox !== null,
        current: core.settings.profile('sandbox').sandboxCredential,
        options,
      };
    },
    'session.useSandboxCredential': ({ credential }) => core.session.useSandboxCredential(credential),
    'session.clock': async () => {
      // The header's bank time: the default profile's clock, looked up at each call.
      const clock = core.session.current.clock;
      return {
        serverNow: new Date(clock.now()).toISOString(),
        offsetMs: clock.offsetMs,
        uncertaintyMs: Number.isFinite(clock.uncertaintyMs) ? clock.uncertaintyMs : null,
        samples: clock.samples,
      };
    },
  };
}
