import type { SettingsView } from '../../shared/ipc/channels/settings';
import type { Handlers } from '../ipc/dispatcher';
import type { EventHub } from '../infra/events';
import type { TokenVault } from '../infra/vault';
import type { ProfilesService } from '../profiles/service';

export interface VaultHandlerDeps {
  vault: Pick<TokenVault, 'status' | 'reprobe'>;
  profiles: ProfilesService;
  events: EventHub;
  view(): Promise<SettingsView>;
}

/** Token in (once, replacing only with the analyst's native confirmation), never out. */
export function vaultHandlers(
  deps: VaultHandlerDeps,
): Pick<Handlers, 'vault.status' | 'vault.setToken' | 'vault.deleteToken'> {
  const publish = async (): Promise<SettingsView> => {
    const view = await deps.view();
    deps.events.emit('settings.changed', view);
    return view;
  };
  return {
    // Looking at the status asks a keychain that did not answer again (the analyst's "Try again").
    'vault.status': async () => {
      await deps.vault.reprobe();
      return deps.vault.status();
    },
    'vault.setToken': async ({ profileId, token }) => {
      await deps.profiles.setToken(profileId, token);
      return publish();
    },
    'vault.deleteToken': async ({ profileId }) => {
      await deps.profiles.deleteToken(profileId);
      return publish();
    },
  };
}
