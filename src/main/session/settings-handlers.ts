import type { Handlers } from '../ipc/dispatcher';
import type { ServiceCore } from '../core';
import { checkBaseUrl } from './settings';

type SettingsChannels =
  | 'settings.get'
  | 'settings.update'
  | 'settings.addProfile'
  | 'settings.updateProfile'
  | 'settings.removeProfile'
  | 'settings.activateProfile'
  | 'settings.dismissProblem';

/** Profiles, polling and notification preferences. Every answer is the whole settings view. */
export function settingsHandlers(core: ServiceCore): Pick<Handlers, SettingsChannels> {
  return {
    'settings.get': () => core.settingsView(),
    'settings.update': async ({ pollingIntervalSeconds, notifications, reminders }) => {
      core.settings.update({
        ...(pollingIntervalSeconds !== undefined ? { pollingIntervalSeconds } : {}),
        ...(reminders
          ? {
              reminders: {
                ...(reminders.enabled !== undefined ? { enabled: reminders.enabled } : {}),
                ...(reminders.hours !== undefined ? { hours: reminders.hours } : {}),
              },
            }
          : {}),
        ...(notifications
          ? {
              notifications: Object.fromEntries(
                Object.entries(notifications).filter(([, v]) => v !== undefined),
              ),
            }
          : {}),
      });
      return core.settingsView();
    },
    'settings.addProfile': async ({ name, baseUrl }) => {
      const url = checkBaseUrl(baseUrl);
      // The page only proposes an address: the analyst approves it in main's own dialog (unless
      // an administrator allow-listed it), or no profile is added.
      await core.operations.audited({ operation: 'profile.add', target: new URL(url).origin }, async () => {
        await core.destinations.approveBankOrigin(new URL(url).origin, name.trim() || 'Bank');
        core.settings.addProfile({ name, baseUrl: url });
      });
      return core.settingsView();
    },
    'settings.updateProfile': async ({ profileId, name }) => {
      await core.operations.audited({ operation: 'profile.rename', target: profileId }, async () => {
        core.settings.updateProfile(profileId, { ...(name !== undefined ? { name } : {}) });
      });
      return core.settingsView();
    },
    'settings.removeProfile': async ({ profileId }) => {
      await core.operations.audited({ operation: 'profile.remove', target: profileId }, async () => {
        const wasActive = core.session.profile.id === profileId;
        core.settings.removeProfile(profileId);
        await core.vault
          .delete(profileId)
          .catch((err: unknown) => core.log.warn('settings: token not removed', { error: err }));
        if (wasActive) await core.session.activate(core.settings.get().activeProfileId);
      });
      return core.settingsView();
    },
    'settings.activateProfile': async ({ profileId }) => {
      await core.operations.audited({ operation: 'profile.activate', target: profileId }, () =>
        core.session.activate(profileId),
      );
      return core.settingsView();
    },
    'settings.dismissProblem': async ({ id }) => {
      core.stores.dismiss(id);
      return core.settingsView();
    },
  };
}
