import { create } from 'zustand';
import type { SessionStatus } from '../../../../shared/ipc/channels/session';
import { call, errorMessage, on } from '../../lib/desk';

export interface SessionStore {
  status: SessionStatus | null;
  loading: boolean;
  error: string | null;
  refresh(): Promise<void>;
  /** Starts listening for session.changed; returns the unsubscribe. */
  listen(): () => void;
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
  listen() {
    return on('session.changed', (status) => set({ status, error: null }));
  },
}));
