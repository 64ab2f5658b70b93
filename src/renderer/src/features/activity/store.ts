import { create } from 'zustand';
import type { AuditEntryView } from '../../../../shared/ipc/channels/audit';
import { call, errorMessage } from '../../lib/desk';
import { onEvents, sharedSubscription } from '../../lib/events';

const pageSize = 100;

/** The audit log as the activity screen shows it: newest first, paged, live. */
export interface ActivityStore {
  entries: AuditEntryView[];
  nextBefore: string | null;
  skipped: number;
  loading: boolean;
  /** The first page has been read (the screen shows a skeleton until then). */
  loaded: boolean;
  error: string | null;
  exportNotice: string | null;
  load(): Promise<void>;
  loadMore(): Promise<void>;
  exportCsv(): Promise<void>;
}

export const useActivity = create<ActivityStore>((set, get) => ({
  entries: [],
  nextBefore: null,
  skipped: 0,
  loading: false,
  loaded: false,
  error: null,
  exportNotice: null,
  async load() {
    set({ loading: true, error: null });
    try {
      const page = await call('audit.list', { limit: pageSize });
      set({
        entries: page.entries,
        nextBefore: page.nextBefore,
        skipped: page.skipped,
        loading: false,
        loaded: true,
      });
    } catch (err) {
      set({ loading: false, error: errorMessage(err) });
    }
  },
  async loadMore() {
    const before = get().nextBefore;
    if (!before) return;
    set({ loading: true, error: null });
    try {
      const page = await call('audit.list', { limit: pageSize, before });
      set((s) => ({ entries: [...s.entries, ...page.entries], nextBefore: page.nextBefore, loading: false }));
    } catch (err) {
      set({ loading: false, error: errorMessage(err) });
    }
  },
  async exportCsv() {
    set({ exportNotice: null, error: null });
    try {
      const res = await call('audit.exportCsv', undefined);
      set({
        exportNotice: res.path ? `Exported ${res.rows} entries to ${res.path}.` : 'Export cancelled.',
      });
    } catch (err) {
      set({ error: errorMessage(err) });
    }
  },
}));

/** New audit entries appear at the top as main records them. */
export const activitySubscription = sharedSubscription(() =>
  onEvents({
    'audit.recorded': (entry) =>
      useActivity.setState((s) =>
        s.entries.some((e) => e.id === entry.id) ? s : { entries: [entry, ...s.entries] },
      ),
  }),
);
