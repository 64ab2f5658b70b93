import { create } from 'zustand';
import { holderKey } from './holders';
import type { AssignmentView, TeamStatusView } from '../../../../shared/ipc/channels/team';
import { call, errorMessage } from '../../lib/desk';
import { onEvents, sharedSubscription } from '../../lib/events';

/**
 * The team connection as the page sees it: main's one team status (never a token) and who holds
 * each RFI, read again whenever main says holders changed. A notice from main (a claim made
 * offline that someone else won) is kept until read.
 */
interface TeamState {
  status: TeamStatusView | null;
  /** Keyed by legal entity and RFI id (`holderKey`), as the team server knows an RFI. */
  assignments: Record<string, AssignmentView>;
  notice: string | null;
  load(): Promise<void>;
  loadAssignments(): Promise<void>;
  apply(status: TeamStatusView): void;
  /** The holder of an RFI after a claim or release main answered. */
  put(view: AssignmentView): void;
  dismissNotice(): void;
}

export const useTeam = create<TeamState>((set, get) => ({
  status: null,
  assignments: {},
  notice: null,
  async load() {
    try {
      const status = await call('team.status', undefined);
      set({ status });
      if (status.analyst) await get().loadAssignments();
    } catch (err) {
      set({ notice: errorMessage(err) });
    }
  },
  async loadAssignments() {
    const list = await call('team.assignments', undefined).catch(() => [] as AssignmentView[]);
    set({ assignments: Object.fromEntries(list.map((a) => [holderKey(a.legalEntityId, a.rfiId), a])) });
  },
  apply(status) {
    const had = get().status?.analyst?.subject;
    set({ status, ...(status.analyst ? {} : { assignments: {} }) });
    if (status.analyst && status.analyst.subject !== had) void get().loadAssignments();
  },
  put(view) {
    set((s) => ({ assignments: { ...s.assignments, [holderKey(view.legalEntityId, view.rfiId)]: view } }));
  },
  dismissNotice() {
    set({ notice: null });
  },
}));

export const teamSubscription = sharedSubscription(() => {
  void useTeam.getState().load();
  return onEvents({
    'team.changed': (status) => useTeam.getState().apply(status),
    'team.assignmentsChanged': ({ notice }) => {
      if (notice) useTeam.setState({ notice });
      void useTeam.getState().loadAssignments();
    },
  });
});

/** Whether the team is in use on this workstation (a server set and someone signed in). */
export function teamActive(status: TeamStatusView | null): boolean {
  return !!status?.serverUrl && !!status.analyst;
}
