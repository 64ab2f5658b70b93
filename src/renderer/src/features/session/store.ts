import { create } from 'zustand';
import type { SessionStatus } from '../../../../shared/ipc/channels/session';
import { call, errorMessage } from '../../lib/desk';
import { onEvents, sharedSubscription } from '../../lib/events';

export interface SessionStore {
  status: SessionStatus | null;
  loading: boolean;
  error: string | null;
  refresh(): Promise<void>;
}

export const useSession = create<SessionStore>((set) => ({
  status: null,
  loading: false,
  error: null,
  async refresh() {
    set({ loading: true, error: null });
    try {
      set({ status: await call('session.status', undefined), loading: false });
    } catch (err) {
      set({ error: errorMessage(err), loading: false });
    }
  },
}));

const sessionListeners = new Set<(status: SessionStatus) => void>();

/** `session.changed`, subscribed once for the whole renderer: the store and every onSessionChange. */
export const sessionSubscription = sharedSubscription(() =>
  onEvents({
    'session.changed': (status) => {
      useSession.setState({ status, error: null });
      for (const listener of sessionListeners) listener(status);
    },
  }),
);

/**
 * Calls `listener` whenever main reports a new session (profile, credential or connection);
 * returns the unsubscribe. Feature stores reload their data through this.
 */
export function onSessionChange(listener: (status: SessionStatus) => void): () => void {
  const release = sessionSubscription.acquire();
  sessionListeners.add(listener);
  return () => {
    sessionListeners.delete(listener);
    release();
  };
}
