import { create } from 'zustand';
import type { SnoozeView } from '../../../../shared/ipc/channels/reminders';
import type { SnoozeChoice } from '../../../../shared/reminder-rules';
import { call } from '../../lib/desk';
import { onEvents, sharedSubscription } from '../../lib/events';
import { onSessionChange } from '../session/store';

/**
 * The RFIs whose deadline reminders are snoozed, by owning profile and RFI id (`snoozeKey`): RFI
 * ids are one bank's only, so another bank's RFI of the same id is never shown as snoozed. Main
 * decides every instant (on the owning entity's bank clock); the page only picks a choice and
 * shows what main answers.
 */
export interface SnoozeState {
  byKey: Readonly<Record<string, SnoozeView>>;
  loaded: boolean;
  load(): Promise<void>;
  snooze(profileId: string, rfiId: string, choice: SnoozeChoice): Promise<SnoozeView>;
  cancel(profileId: string, rfiId: string): Promise<void>;
}

/** Where a snooze is kept: its profile and RFI (a snooze of an unwatched bank has no profile). */
export const snoozeKey = (profileId: string | null | undefined, rfiId: string): string =>
  `${profileId ?? ''} ${rfiId}`;

const index = (list: readonly SnoozeView[]): Record<string, SnoozeView> =>
  Object.fromEntries(list.map((s) => [snoozeKey(s.profileId, s.rfiId), s]));

export const useSnoozes = create<SnoozeState>((set) => ({
  byKey: {},
  loaded: false,
  async load() {
    const { snoozes } = await call('reminders.snoozes', undefined);
    set({ byKey: index(snoozes), loaded: true });
  },
  async snooze(profileId, rfiId, choice) {
    const view = await call('reminders.snooze', { profileId, rfiId, choice });
    set((s) => ({ byKey: { ...s.byKey, [snoozeKey(profileId, rfiId)]: view } }));
    return view;
  },
  async cancel(profileId, rfiId) {
    await call('reminders.unsnooze', { profileId, rfiId });
    set((s) => {
      const next = { ...s.byKey };
      delete next[snoozeKey(profileId, rfiId)];
      return { byKey: next };
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
    'reminders.changed': ({ snoozes }) => useSnoozes.setState({ byKey: index(snoozes), loaded: true }),
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
