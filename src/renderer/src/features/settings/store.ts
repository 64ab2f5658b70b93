import { create } from 'zustand';
import type { SettingsView } from '../../../../shared/ipc/channels/settings';
import type { ChannelResult } from '../../../../shared/ipc/contract';
import { call, errorMessage } from '../../lib/desk';
import { onEvents, sharedSubscription } from '../../lib/events';
import { onSessionChange } from '../session/store';

type SandboxCredentials = ChannelResult<'session.sandboxCredentials'>;
type Credential = SandboxCredentials['current'];

/**
 * The settings screen's state. Tokens go to main once (vault.setToken) and are never read back:
 * the store knows only whether a profile has one.
 */
export interface SettingsStore {
  view: SettingsView | null;
  sandbox: SandboxCredentials | null;
  /** A running action, for disabling buttons. */
  busy: string | null;
  error: string | null;
  /** A short confirmation of the last successful action. */
  notice: string | null;
  load(): Promise<void>;
  run(label: string, action: () => Promise<SettingsView | unknown>, notice?: string): Promise<boolean>;
  setToken(profileId: string, token: string): Promise<boolean>;
  signOut(profileId: string): Promise<boolean>;
  activate(profileId: string): Promise<boolean>;
  addProfile(name: string, baseUrl: string): Promise<boolean>;
  removeProfile(profileId: string): Promise<boolean>;
  useSandboxCredential(credential: Credential): Promise<boolean>;
  setPolling(seconds: number): Promise<boolean>;
  setNotification(key: keyof SettingsView['notifications'], value: boolean): Promise<boolean>;
  dismissProblem(id: string): Promise<boolean>;
}

export const useSettings = create<SettingsStore>((set, get) => ({
  view: null,
  sandbox: null,
  busy: null,
  error: null,
  notice: null,
  async load() {
    try {
      const [view, sandbox] = await Promise.all([
        call('settings.get', undefined),
        call('session.sandboxCredentials', undefined),
      ]);
      set({ view, sandbox, error: null });
    } catch (err) {
      set({ error: errorMessage(err) });
    }
  },
  async run(label, action, notice) {
    set({ busy: label, error: null, notice: null });
    try {
      const result = await action();
      if (result && typeof result === 'object' && 'profiles' in result) set({ view: result as SettingsView });
      else await get().load();
      set({ busy: null, notice: notice ?? null });
      if (label !== 'load') {
        const sandbox = await call('session.sandboxCredentials', undefined).catch(() => null);
        if (sandbox) set({ sandbox });
      }
      return true;
    } catch (err) {
      set({ busy: null, error: errorMessage(err) });
      return false;
    }
  },
  setToken: (profileId, token) =>
    get().run('token', () => call('vault.setToken', { profileId, token }), 'Token saved.'),
  signOut: (profileId) => get().run('signout', () => call('vault.deleteToken', { profileId }), 'Signed out.'),
  activate: (profileId) =>
    get().run(
      'activate',
      () => call('settings.activateProfile', { profileId }),
      'This environment is now the default for new work.',
    ),
  addProfile: (name, baseUrl) =>
    get().run('add', () => call('settings.addProfile', { name, baseUrl }), 'Environment added.'),
  async removeProfile(profileId) {
    // Main asks the analyst in its own dialog (what the profile loses); declined, it stays.
    const ok = await get().run('remove', () => call('settings.removeProfile', { profileId }));
    if (!ok) return false;
    const kept = get().view?.profiles.some((p) => p.id === profileId) ?? false;
    set({ notice: kept ? 'The environment was kept.' : 'Environment removed.' });
    return !kept;
  },
  useSandboxCredential: (credential) =>
    get().run(
      'credential',
      () => call('session.useSandboxCredential', { credential }),
      'Sandbox credential switched.',
    ),
  setPolling: (seconds) =>
    get().run(
      'polling',
      () => call('settings.update', { pollingIntervalSeconds: seconds }),
      'Polling interval saved.',
    ),
  async setNotification(key, value) {
    // The checkbox follows the click at once; main's answer (or, on failure, a reload) settles it.
    const view = get().view;
    if (view) set({ view: { ...view, notifications: { ...view.notifications, [key]: value } } });
    const ok = await get().run('notifications', () =>
      call('settings.update', { notifications: { [key]: value } }),
    );
    if (!ok) await get().load();
    return ok;
  },
  dismissProblem: (id) => get().run('problem', () => call('settings.dismissProblem', { id })),
}));

/** Settings as main changes them; the sandbox credentials again when the session changes. */
export const settingsSubscription = sharedSubscription(() => {
  const offEvents = onEvents({ 'settings.changed': (view) => useSettings.setState({ view }) });
  const offSession = onSessionChange(() => {
    void call('session.sandboxCredentials', undefined)
      .then((sandbox) => useSettings.setState({ sandbox }))
      .catch(() => undefined);
  });
  return () => {
    offEvents();
    offSession();
  };
});
