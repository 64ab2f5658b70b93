import { create } from 'zustand';
import type {
  WatchedEntityView,
  RfiCountsView,
  RfiSummaryView,
  RfiSyncStateView,
} from '../../../../shared/ipc/channels/rfis';
import type { DeadlineBand, RfiSort } from '../../../../shared/rfi-view';
import { call, errorMessage } from '../../lib/desk';
import { bankClockSubscription, bankNow, useBankClock } from '../../lib/bank-clock';
import { coalesce, onEvents, sharedSubscription } from '../../lib/events';

/** An RFI as the page names it: its id and the profile that owns it (ids are one bank's only). */
export interface RfiRef {
  id: string;
  profileId?: string | undefined;
}

/** A queue row's key: the owning profile and the RFI id (two banks may use the same RFI id). */
export const rowKey = (r: RfiRef): string => (r.profileId ? `${r.profileId}/${r.id}` : r.id);

export interface QueueFilter {
  status: string;
  type: string;
  text: string;
  unreadOnly: boolean;
  /** Deadline band ('' = all); set by the overview's deadline chart. */
  band: '' | DeadlineBand;
  /** RFIs opened (created) in the week starting this local Monday, 'YYYY-MM-DD' ('' = any week). */
  week: string;
  /** One legal entity's rows: the profile that watches it ('' = every entity). */
  entity: string;
  /** With a team: the analyst's own RFIs or those nobody holds ('' = all). */
  holder: '' | 'mine' | 'unassigned';
}

export interface QueueState {
  rows: RfiSummaryView[];
  counts: RfiCountsView | null;
  sync: RfiSyncStateView | null;
  /** Every watched profile's entity and how its watch goes (the consolidated desk). */
  entities: WatchedEntityView[];
  /** Every row is here (the first page may arrive before the rest). */
  loaded: boolean;
  /** Rows in the cache (known from the first page on). */
  total: number | null;
  loading: boolean;
  error: string | null;
  filter: QueueFilter;
  sort: RfiSort;
  /** The bank's clock for deadline bands (ticks every 30 s): the bands main computes use it too. */
  now: number;
  /** Id of the highlighted row (j/k). */
  activeId: string | null;
  load(): Promise<void>;
  syncNow(): Promise<void>;
  setFilter(patch: Partial<QueueFilter>): void;
  setSort(sort: RfiSort): void;
  setActive(id: string | null): void;
}

const FIRST_PAGE = 200;

export const initialFilter: QueueFilter = {
  status: '',
  type: '',
  text: '',
  unreadOnly: false,
  band: '',
  week: '',
  entity: '',
  holder: '',
};

/** The whole queue comes over once (compact rows); filtering and sorting run here, per keystroke. */
export const useQueue = create<QueueState>((set, get) => ({
  rows: [],
  counts: null,
  sync: null,
  entities: [],
  loaded: false,
  total: null,
  loading: false,
  error: null,
  filter: initialFilter,
  sort: 'deadline',
  now: bankNow(),
  activeId: null,
  async load() {
    if (get().loading) return;
    set({ loading: true });
    try {
      if (!get().loaded) {
        // First paint fast: the most urgent rows first, then the whole queue.
        const first = await call('rfis.list', { limit: FIRST_PAGE });
        set({
          rows: first.items,
          counts: first.counts,
          sync: first.sync,
          entities: first.entities ?? [],
          total: first.total,
          error: null,
        });
        if (first.total <= first.items.length) {
          set({ loaded: true, now: bankNow() });
          return;
        }
      }
      const r = await call('rfis.list', undefined);
      set({
        rows: r.items,
        counts: r.counts,
        sync: r.sync,
        entities: r.entities ?? [],
        total: r.total,
        loaded: true,
        error: null,
        now: bankNow(),
      });
    } catch (err) {
      set({ error: errorMessage(err), loaded: true });
    } finally {
      set({ loading: false });
    }
  },
  async syncNow() {
    try {
      const r = await call('rfis.sync', undefined);
      set({ sync: r.sync, counts: r.counts });
      await get().load();
    } catch (err) {
      set({ error: errorMessage(err) });
    }
  },
  setFilter(patch) {
    set({ filter: { ...get().filter, ...patch } });
  },
  setSort(sort) {
    set({ sort });
  },
  setActive(id) {
    set({ activeId: id });
  },
}));

/** Keeps the queue current: reload on rfis.changed (coalesced), tick the deadline clock. */
export const queueSubscription = sharedSubscription(() => {
  const reload = coalesce(() => useQueue.getState().load(), 150);
  const offEvents = onEvents({
    'rfis.changed': (c) => {
      useQueue.setState({ counts: c.counts });
      reload();
    },
    'rfis.syncState': (s) => useQueue.setState({ sync: s }),
  });
  const tick = setInterval(() => useQueue.setState({ now: bankNow() }), 30_000);
  // A new estimate of the bank's clock moves every band at once (not at the next tick).
  const releaseClock = bankClockSubscription.acquire();
  const offClock = useBankClock.subscribe(() => useQueue.setState({ now: bankNow() }));
  return () => {
    offEvents();
    clearInterval(tick);
    offClock();
    releaseClock();
  };
});

/**
 * The week a `week` filter names ('YYYY-MM-DD', the local Monday the overview's weekly chart uses):
 * its bounds [start, end) in ms and a short label ("2 Nov"); null when it is not a date.
 */
export function weekRange(week: string): { start: number; end: number; label: string } | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(week);
  if (!m) return null;
  const first = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (Number.isNaN(first.getTime()) || first.getDate() !== Number(m[3])) return null;
  const next = new Date(first);
  next.setDate(first.getDate() + 7);
  return {
    start: first.getTime(),
    end: next.getTime(),
    label: first.toLocaleDateString(undefined, { day: 'numeric', month: 'short' }),
  };
}
