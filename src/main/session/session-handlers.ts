import type { Handlers } from '../ipc/dispatcher';
import type { ServerClock } from '../bank/clock';
import type { SessionManager } from './session';
import type { SettingsStore } from './settings';
import type { TokenVault } from '../infra/vault';

export interface SessionHandlerDeps {
  /** The default profile's session (the header's connection state). */
  session: SessionManager;
  settings: Pick<SettingsStore, 'profile'>;
  /** The default profile's bank clock. */
  clock: ServerClock;
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
    'session.clock': async () => ({
      serverNow: new Date(core.clock.now()).toISOString(),
      offsetMs: core.clock.offsetMs,
      uncertaintyMs: Number.isFinite(core.clock.uncertaintyMs) ? core.clock.uncertaintyMs : null,
      samples: core.clock.samples,
    }),
  };
}
