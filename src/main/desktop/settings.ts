/**
 * The desktop choices (state/desktop.json, main only): keep running in the background (default
 * on) and start at login (default off). The stored format is this module's own, versioned; the
 * IPC view is `desktopSettingsSchema`. A change of "start at login" is handed to the platform
 * (the shell calls app.setLoginItemSettings with a hidden start).
 */
import { z } from 'zod';
import type { DesktopSettingsView } from '../../shared/ipc/channels/desktop';
import type { Platform } from '../infra/platform';
import type { StoreFormat, Stores, TypedStore } from '../infra/stores';

export const storedDesktopSchema = z.object({
  version: z.literal(1),
  keepRunningInBackground: z.boolean(),
  startAtLogin: z.boolean(),
});

export const desktopFormat: StoreFormat<z.infer<typeof storedDesktopSchema>> = {
  label: 'The background and start-at-login choices',
  consequence: 'They were set back to keep running in the background and not start at login.',
  version: 1,
  schema: storedDesktopSchema,
  migrations: { 0: (raw) => raw },
  // Two booleans the shell reads at start (hidden start, login item): nothing of the customer's.
  plain: true,
};

export const desktopDefaults: DesktopSettingsView = { keepRunningInBackground: true, startAtLogin: false };

export interface DesktopSettings {
  get(): DesktopSettingsView;
  update(patch: Partial<DesktopSettingsView>): DesktopSettingsView;
  onChange(listener: (s: DesktopSettingsView) => void): () => void;
}

export async function createDesktopSettings(stores: Stores, platform: Platform): Promise<DesktopSettings> {
  const store: TypedStore<DesktopSettingsView> = await stores.open('desktop', desktopFormat, desktopDefaults);
  const listeners = new Set<(s: DesktopSettingsView) => void>();
  const get = (): DesktopSettingsView => {
    const s = store.get();
    return { keepRunningInBackground: s.keepRunningInBackground, startAtLogin: s.startAtLogin };
  };
  // The login item follows the stored choice from the first start on (an installer or an older
  // run may have left it otherwise).
  platform.setStartAtLogin?.(get().startAtLogin);
  return {
    get,
    update(patch) {
      const before = get();
      const next = { ...before, ...patch };
      store.set(next);
      if (next.startAtLogin !== before.startAtLogin) platform.setStartAtLogin?.(next.startAtLogin);
      for (const l of listeners) l(next);
      return next;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
