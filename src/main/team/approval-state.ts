/**
 * What the workstation knows of the team's approvals (of answers, returns and exchange mandates),
 * their rules and send jobs: one store, loaded once per legal entity by the answers' approvals
 * and kept current by the change feed, that every approval flow reads by kind.
 */
import type { Approval, ApprovalContent, ApprovalRule, SendJob } from '../../shared/team/schemas';

/** What an approval is of: an RFI answer, a return, an exchange mandate. */
export type ApprovalKind = ApprovalContent['kind'];

/**
 * The team's approvals of every kind as this workstation knows them: loaded once per legal entity
 * (one `GET /v1/entities/:id/approvals` feeds answers, returns and mandates alike) and kept current
 * by the change feed; what the return and mandate flows read instead of loading their own copy.
 */
export interface KnownApprovals {
  /** An object's live approval (pending or approved), else its newest. */
  latest(legalEntityId: string, objectId: string, kind: ApprovalKind): Approval | undefined;
  /** Every approval of one kind the workstation knows. */
  approvalsOf(kind: ApprovalKind): Approval[];
  /** The object's send job as the team server last said it. */
  sendJob(legalEntityId: string, objectId: string): SendJob | undefined;
  remember(approval: Approval): void;
  rememberJob(job: SendJob): void;
}

/** What the workstation knows of the team's approvals, rules and send jobs (kept current by the feed). */
export function createApprovalState() {
  /** entity → approval id → approval. */
  const approvals = new Map<string, Map<string, Approval>>();
  const rules = new Map<string, ApprovalRule[]>();
  /** entity → object id → its send job. */
  const jobs = new Map<string, Map<string, SendJob>>();
  return {
    approvals,
    rules,
    jobs,
    remember(a: Approval): void {
      const m = approvals.get(a.legalEntityId) ?? new Map<string, Approval>();
      m.set(a.id, a);
      approvals.set(a.legalEntityId, m);
    },
    rememberJob(j: SendJob): void {
      const m = jobs.get(j.legalEntityId) ?? new Map<string, SendJob>();
      m.set(j.object.id, j);
      jobs.set(j.legalEntityId, m);
    },
    /** An object's live approval (pending or approved), else its newest: one rule for every kind. */
    latest(legalEntityId: string, objectId: string, kind: ApprovalKind = 'rfi_answer'): Approval | undefined {
      const all = [...(approvals.get(legalEntityId)?.values() ?? [])].filter(
        (a) => a.object.kind === kind && a.object.id === objectId,
      );
      const live = all.find((a) => a.status === 'pending' || a.status === 'approved');
      return live ?? all.sort((a, b) => (a.requestedAt < b.requestedAt ? 1 : -1))[0];
    },
    find(approvalId: string): Approval | undefined {
      for (const m of approvals.values()) {
        const a = m.get(approvalId);
        if (a) return a;
      }
      return undefined;
    },
    clear(): void {
      approvals.clear();
      rules.clear();
      jobs.clear();
    },
  };
}
export type ApprovalState = ReturnType<typeof createApprovalState>;
