import { create } from 'zustand';
import type { SharedEntityView } from '../../../../shared/ipc/channels/team-share';
import { call, errorMessage } from '../../lib/desk';
import { onEvents, sharedSubscription } from '../../lib/events';

/**
 * The team's shared evidence locker as the page sees it: each legal entity's current shared
 * documents (read from main, read again when main says they changed) and a notice main sent
 * (a share queued offline that the team server refused). Notes, presence and team activity are
 * read per RFI or screen by their components, which listen to the same `team.shared` event.
 */
interface SharedState {
  entities: SharedEntityView[];
  loaded: boolean;
  problem: string | null;
  notice: string | null;
  load(): Promise<void>;
  dismissNotice(): void;
}

export const useShared = create<SharedState>((set) => ({
  entities: [],
  loaded: false,
  problem: null,
  notice: null,
  async load() {
    try {
      const { entities } = await call('team.sharedEvidence', undefined);
      set({ entities, loaded: true, problem: null });
    } catch (err) {
      set({ loaded: true, problem: errorMessage(err) });
    }
  },
  dismissNotice() {
    set({ notice: null });
  },
}));

export const sharedEvidenceSubscription = sharedSubscription(() => {
  void useShared.getState().load();
  return onEvents({
    'team.shared': ({ topic, notice }) => {
      if (notice && topic === 'evidence') useShared.setState({ notice });
      if (topic === 'evidence') void useShared.getState().load();
    },
    'team.changed': () => void useShared.getState().load(),
  });
});
