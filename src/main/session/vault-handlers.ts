import type { Handlers } from '../ipc/dispatcher';
import type { ServiceCore } from '../core';

/** Token in (once), never out: the answers carry only whether a token is stored. */
export function vaultHandlers(
  core: ServiceCore,
): Pick<Handlers, 'vault.status' | 'vault.setToken' | 'vault.deleteToken'> {
  return {
    'vault.status': async () => core.vault.status(),
    'vault.setToken': async ({ profileId, token }) => {
      core.settings.profile(profileId);
      await core.operations.audited({ operation: 'token.set', target: profileId }, async () => {
        // Bound to the origin the profile uses now: the token is sent there and nowhere else.
        core.session.bindToken(profileId);
        await core.vault.set(profileId, token);
      });
      if (core.session.profile.id === profileId) await core.session.check({ fresh: true });
      const view = await core.settingsView();
      core.events.emit('settings.changed', view);
      return view;
    },
    'vault.deleteToken': async ({ profileId }) => {
      core.settings.profile(profileId);
      await core.operations.audited({ operation: 'token.delete', target: profileId }, async () => {
        await core.vault.delete(profileId);
        core.settings.bindToken(profileId, null);
      });
      if (core.session.profile.id === profileId) await core.session.check({ fresh: true });
      const view = await core.settingsView();
      core.events.emit('settings.changed', view);
      return view;
    },
  };
}
