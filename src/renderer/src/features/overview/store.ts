import { create } from 'zustand';
import type { OrderView } from '../../../../shared/ipc/channels/crypto';
import type { DueSoonView } from '../../../../shared/ipc/channels/reminders';
import type { ReturnEntry } from '../../../../shared/ipc/channels/returns';
import type { RfiCountsView } from '../../../../shared/ipc/channels/rfis';
import { call, errorMessage } from '../../lib/desk';
import { coalesce, onEvents, sharedSubscription } from '../../lib/events';
import { onSessionChange } from '../session/store';

/** The bands an RFI waiting for action can be in (RFIs without a running deadline are apart). */
export const RUNNING_BANDS = ['on_track', 'at_risk', 'breached'] as const;
export type RunningBand = (typeof RUNNING_BANDS)[number];

/** RFIs awaiting action (status action_required) are what the deadline chart shows. */
export const AWAITING_STATUS = 'action_required';

/** Bank statuses of a quote still open (not confirmed and settled, expired or failed). */
export const OPEN_QUOTE_STATUSES: readonly string[] = ['in_progress', 'pending_execution'];
/** Bank statuses of a return not yet at its end. */
export const RETURN_IN_FLIGHT_STATUSES: readonly string[] = ['intent_created', 'in_progress'];

export function isOpenQuote(o: OrderView): boolean {
  return OPEN_QUOTE_STATUSES.includes(o.displayStatus);
}

/** In flight: the bank says intent_created or in_progress, or (not read yet) sent and not ended here. */
export function isReturnInFlight(e: ReturnEntry): boolean {
  if (e.status !== null) return RETURN_IN_FLIGHT_STATUSES.includes(e.status);
  return e.phase === 'sending' || e.phase === 'created' || e.phase === 'confirmed';
}

export interface OverviewState {
  counts: RfiCountsView | null;
  /** RFIs awaiting action per deadline band (plus those without a running deadline). */
  awaiting: Record<RunningBand | 'none', number> | null;
  quotes: OrderView[];
  /** Bank time − Date.now() in this window (ms), from the last crypto view. */
  offsetMs: number;
  returns: ReturnEntry[];
  /** RFIs awaiting action whose timeout is within the largest reminder threshold (main's bank time). */
  dueSoon: DueSoonView | null;
  /** Debtor (sender) names of transfers looked up on this workstation, by transaction id. */
  debtors: Record<string, string>;
  /** Per source, the last failure in words (null when it loaded). */
  errors: { rfis: string | null; quotes: string | null; returns: string | null; dueSoon: string | null };
  loaded: { rfis: boolean; quotes: boolean; returns: boolean; dueSoon: boolean };
  loadRfis(): Promise<void>;
  loadDueSoon(): Promise<void>;
  loadQuotes(): Promise<void>;
  loadReturns(): Promise<void>;
}

async function awaitingInBand(band: RunningBand | 'none'): Promise<number> {
  const r = await call('rfis.list', { status: [AWAITING_STATUS], band: [band], limit: 1 });
  return r.total;
}

export const useOverview = create<OverviewState>((set) => ({
  counts: null,
  awaiting: null,
  quotes: [],
  offsetMs: 0,
  returns: [],
  dueSoon: null,
  debtors: {},
  errors: { rfis: null, quotes: null, returns: null, dueSoon: null },
  loaded: { rfis: false, quotes: false, returns: false, dueSoon: false },
  async loadDueSoon() {
    try {
      const dueSoon = await call('reminders.dueSoon', undefined);
      set((s) => ({
        dueSoon,
        errors: { ...s.errors, dueSoon: null },
        loaded: { ...s.loaded, dueSoon: true },
      }));
    } catch (err) {
      set((s) => ({
        errors: { ...s.errors, dueSoon: errorMessage(err) },
        loaded: { ...s.loaded, dueSoon: true },
      }));
    }
  },
  async loadRfis() {
    try {
      const [{ counts }, onTrack, atRisk, breached, none] = await Promise.all([
        call('rfis.counts', undefined),
        awaitingInBand('on_track'),
        awaitingInBand('at_risk'),
        awaitingInBand('breached'),
        awaitingInBand('none'),
      ]);
      set((s) => ({
        counts,
        awaiting: { on_track: onTrack, at_risk: atRisk, breached, none },
        errors: { ...s.errors, rfis: null },
        loaded: { ...s.loaded, rfis: true },
      }));
    } catch (err) {
      set((s) => ({ errors: { ...s.errors, rfis: errorMessage(err) }, loaded: { ...s.loaded, rfis: true } }));
    }
  },
  async loadQuotes() {
    try {
      const { orders } = await call('crypto.list', undefined);
      const first = orders[0];
      const server = first ? Date.parse(first.serverNow) : NaN;
      set((s) => ({
        quotes: orders.filter(isOpenQuote),
        ...(Number.isFinite(server) ? { offsetMs: server - Date.now() } : {}),
        errors: { ...s.errors, quotes: null },
        loaded: { ...s.loaded, quotes: true },
      }));
    } catch (err) {
      set((s) => ({
        errors: { ...s.errors, quotes: errorMessage(err) },
        loaded: { ...s.loaded, quotes: true },
      }));
    }
  },
  async loadReturns() {
    try {
      const [{ entries }, recent] = await Promise.all([
        call('returns.list', undefined),
        // Names only: without them the returns still show (by amount, id secondary).
        call('returns.recent', undefined).catch(() => ({ items: [] })),
      ]);
      const debtors: Record<string, string> = {};
      for (const t of recent.items) if (t.debtorName) debtors[t.transactionId] = t.debtorName;
      set((s) => ({
        returns: entries.filter(isReturnInFlight),
        debtors,
        errors: { ...s.errors, returns: null },
        loaded: { ...s.loaded, returns: true },
      }));
    } catch (err) {
      set((s) => ({
        errors: { ...s.errors, returns: errorMessage(err) },
        loaded: { ...s.loaded, returns: true },
      }));
    }
  },
}));

/** Keeps the overview current: each source reloads (coalesced) when main reports a change. */
export const overviewSubscription = sharedSubscription(() => {
  const { loadRfis, loadQuotes, loadReturns, loadDueSoon } = useOverview.getState();
  const rfis = coalesce(loadRfis, 150);
  const dueSoon = coalesce(loadDueSoon, 150);
  const quotes = coalesce(loadQuotes, 150);
  const returns = coalesce(loadReturns, 150);
  const offEvents = onEvents({
    'rfis.changed': (c) => {
      useOverview.setState({ counts: c.counts });
      rfis();
      dueSoon();
    },
    // Snoozes and thresholds (Settings) move the list too.
    'reminders.changed': dueSoon,
    'settings.changed': dueSoon,
    'crypto.orderChanged': quotes,
    'returns.changed': returns,
  });
  // Time moves RFIs into the horizon: the list is read again every minute.
  const timer = setInterval(dueSoon, 60_000);
  const offSession = onSessionChange(() => {
    rfis();
    dueSoon();
    quotes();
    returns();
  });
  return () => {
    clearInterval(timer);
    offEvents();
    offSession();
  };
});
