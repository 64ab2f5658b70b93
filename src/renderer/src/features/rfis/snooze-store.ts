import { create } from 'zustand';
import type { SnoozeView } from '../../../../shared/ipc/channels/reminders';
import type { SnoozeChoice } from '../../../../shared/reminder-rules';
import { call } from '../../lib/desk';
import { onEvents, sharedSubscription } from '../../lib/events';
import { onSessionChange } from '../session/store';

/**
 * The RFIs whose deadline reminders are snoozed, by RFI id. Main decides every instant (on the
 * owning entity's bank clock); the page only picks a choice and shows what main answers.
 */
export interface SnoozeState {
  byId: Readonly<Record<string, SnoozeView>>;
  loaded: boolean;
  load(): Promise<void>;
  snooze(rfiId: string, choice: SnoozeChoice): Promise<SnoozeView>;
  cancel(rfiId: string): Promise<void>;
}

const index = (list: readonly SnoozeView[]): Record<string, SnoozeView> =>
  Object.fromEntries(list.map((s) => [s.rfiId, s]));

export const useSnoozes = create<SnoozeState>((set) => ({
  byId: {},
  loaded: false,
  async load() {
    const { snoozes } = await call('reminders.snoozes', undefined);
    set({ byId: index(snoozes), loaded: true });
  },
  async snooze(rfiId, choice) {
    const view = await call('reminders.snooze', { rfiId, choice });
    set((s) => ({ byId: { ...s.byId, [rfiId]: view } }));
    return view;
  },
  async cancel(rfiId) {
    await call('reminders.unsnooze', { rfiId });
    set((s) => {
      const next = { ...s.byId };
      delete next[rfiId];
      return { byId: next };
    });
  },
}));

/** Loads the snoozes once for every screen showing them, and follows main's changes. */
export const snoozeSubscription = sharedSubscription(() => {
  void useSnoozes
    .getState()
    .load()
    .catch(() => undefined);
  const offEvents = onEvents({
    'reminders.changed': ({ snoozes }) => useSnoozes.setState({ byId: index(snoozes), loaded: true }),
  });
  const offSession = onSessionChange(() => {
    void useSnoozes
      .getState()
      .load()
      .catch(() => undefined);
  });
  return () => {
    offEvents();
    offSession();
  };
});
