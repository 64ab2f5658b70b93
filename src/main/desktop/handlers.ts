import type { Handlers } from '../ipc/dispatcher';
import type { DesktopSettings } from './settings';

/** desktop.settings / desktop.updateSettings: the background and start-at-login choices. */
export function desktopHandlers(
  desktop: DesktopSettings,
): Pick<Handlers, 'desktop.settings' | 'desktop.updateSettings'> {
  return {
    'desktop.settings': async () => desktop.get(),
    'desktop.updateSettings': async (patch) => {
      const clean: { keepRunningInBackground?: boolean; startAtLogin?: boolean } = {};
      if (patch.keepRunningInBackground !== undefined)
        clean.keepRunningInBackground = patch.keepRunningInBackground;
      if (patch.startAtLogin !== undefined) clean.startAtLogin = patch.startAtLogin;
      return desktop.update(clean);
    },
  };
}
