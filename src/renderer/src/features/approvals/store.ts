import { create } from 'zustand';
import type { ApprovalView, EntityRulesView } from '../../../../shared/ipc/channels/team-approvals';
import { call } from '../../lib/desk';
import { onEvents, sharedSubscription } from '../../lib/events';

/**
 * Approvals as the page sees them: the rules of the analyst's legal entities and every answer's
 * approval (main's words), read again whenever main says approvals or the team changed. A notice
 * from main (a queued request the server refused) is kept until read. `version` counts changes, so
 * a question's own view reads main again.
 */
interface ApprovalsState {
  rules: EntityRulesView[];
  approvals: ApprovalView[];
  notice: string | null;
  version: number;
  load(): Promise<void>;
  dismissNotice(): void;
}

export const useApprovals = create<ApprovalsState>((set) => ({
  rules: [],
  approvals: [],
  notice: null,
  version: 0,
  async load() {
    const [rules, approvals] = await Promise.all([
      call('team.approvalRules', undefined).catch(() => [] as EntityRulesView[]),
      call('team.approvals', undefined).catch(() => [] as ApprovalView[]),
    ]);
    set((s) => ({ rules, approvals, version: s.version + 1 }));
  },
  dismissNotice() {
    set({ notice: null });
  },
}));

export const approvalsSubscription = sharedSubscription(() => {
  void useApprovals.getState().load();
  return onEvents({
    'team.approvalsChanged': ({ notice }) => {
      if (notice) useApprovals.setState({ notice });
      void useApprovals.getState().load();
    },
    'team.changed': () => void useApprovals.getState().load(),
  });
});

/** Answers waiting for this analyst's decision (a checker who is not their maker). */
export function waitingForMe(list: readonly ApprovalView[]): ApprovalView[] {
  return list.filter((a) => a.mayDecide);
}
