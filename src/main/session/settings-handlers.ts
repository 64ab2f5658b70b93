import type { SettingsView } from '../../shared/ipc/channels/settings';
import type { Handlers } from '../ipc/dispatcher';
import type { Stores } from '../infra/stores';
import type { ProfilesService } from '../profiles/service';
import type { SettingsStore } from './settings';

type SettingsChannels =
  | 'settings.get'
  | 'settings.update'
  | 'settings.addProfile'
  | 'settings.updateProfile'
  | 'settings.removeProfile'
  | 'settings.activateProfile'
  | 'settings.approveProfileAddress'
  | 'settings.dismissProblem';

export interface SettingsHandlerDeps {
  settings: SettingsStore;
  profiles: ProfilesService;
  stores: Pick<Stores, 'dismiss'>;
  /** The settings screen's view (never a token). */
  view(): Promise<SettingsView>;
}

/** Profiles, polling and notification preferences. Every answer is the whole settings view. */
export function settingsHandlers(deps: SettingsHandlerDeps): Pick<Handlers, SettingsChannels> {
  const { settings, profiles, view } = deps;
  return {
    'settings.get': () => view(),
    'settings.update': async ({ pollingIntervalSeconds, notifications, reminders }) => {
      settings.update({
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
      return view();
    },
    'settings.addProfile': async (args) => {
      await profiles.add(args);
      return view();
    },
    'settings.updateProfile': async ({ profileId, name }) => {
      await profiles.rename(profileId, name);
      return view();
    },
    'settings.removeProfile': async ({ profileId }) => {
      // Declined in main's dialog: nothing changes (the view still lists the profile).
      await profiles.remove(profileId);
      return view();
    },
    'settings.activateProfile': async ({ profileId }) => {
      await profiles.activate(profileId);
      return view();
    },
    'settings.approveProfileAddress': async ({ profileId }) => {
      await profiles.approveAddress(profileId);
      return view();
    },
    'settings.dismissProblem': async ({ id }) => {
      deps.stores.dismiss(id);
      return view();
    },
  };
}
