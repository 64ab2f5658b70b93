/**
 * Four-eyes approval of returns on the workstation. When a legal entity's rule wants a checker for
 * returns above an amount, a return intent a maker created is approved by a checker and confirmed
 * at the bank with the checker's own credential (bank tokens never leave a workstation).
 *
 * What an approval covers is the return as the bank holds it: the transfer, the return amount
 * (integer minor units), the currency and the reason, read through the owning profile's client and
 * hashed over the shared canonical JSON. The maker asks for the intent the bank shows them; the
 * checker approves only when the intent their own profile reads hashes to what was asked for; the
 * confirm goes to the bank only when an approval covers the intent the bank holds at that moment,
 * so an intent cancelled and made again with another amount is not covered by the old approval.
 * The confirm is the send job of the approved content (one per transfer, one lease at a time, kept
 * while the bank confirms); a lease taken over after an unknown outcome re-reads the bank before
 * confirming again.
 *
 * The approvals are the ones the answers' approvals load and follow (one request per legal
 * entity feeds every kind). A return's confirm needs the team server and the bank at that moment.
 * Solo use, and entities without a rule over the amount, pass through unchanged, except a return
 * a checker approved as the bank holds it: that one is confirmed as its send job whatever the rules.
 */
import type { TransferView } from '../../shared/ipc/channels/returns';
import type { ReturnApprovalView } from '../../shared/ipc/channels/team-returns';
import { AppFailure } from '../../shared/ipc/errors';
import { approvalRequired } from '../../shared/team/approval-rules';
import type { Approval, ApprovalContent, ApprovalRule, SendJob } from '../../shared/team/schemas';
import type { Logger } from '../infra/log';
import { TeamApiError, type TeamHttp } from './api';
import { sendApprovalChange, standingApproval, type StandingApproval } from './approval-state';
import {
  approvalFailure,
  approvalHash,
  approvedFor,
  approvalChange,
  queuedWords,
  type SharedApprovals,
} from './approvals';
import { completeSendJob, leaseSendJob, sendUnderLease, type SendJobLeaseDeps } from './send-job-lease';

export type ReturnContent = Extract<ApprovalContent, { kind: 'return' }>;

/** A transfer as the renderer names it: the profile that owns it and its id. */
export interface TransferRef {
  profileId: string;
  transactionId: string;
}

export interface ReturnApprovalsDeps {
  http: TeamHttp;
  /** The team's approvals and send jobs as the answers' approvals load and follow them. */
  approvals: SharedApprovals;
  log: Logger;
  /** Whether a team server is set and the analyst signed in (null: solo or signed out). */
  analyst(): {
    subject: string;
    memberships: ReadonlyArray<{ legalEntityId: string; roles: readonly string[] }>;
  } | null;
  nameOf(legalEntityId: string, subject: string): string;
  /** The entity's rules as the team server last said them (null: not known yet). */
  rulesOf(legalEntityId: string): ApprovalRule[] | null;
  /** The legal entity the profile's credential belongs to (what the bank said); null when unknown. */
  entityOf(profileId: string): Promise<string | null>;
  /** A profile of this workstation reaching the legal entity (an admin credential first); null: none. */
  profileFor(legalEntityId: string): string | null;
  entityName(legalEntityId: string): string;
  /** Reads the transfer through its owning profile. */
  read(ref: TransferRef): Promise<TransferView>;
  /** Confirms the intent through its owning profile (the returns service's audited confirm). */
  confirm(ref: TransferRef): Promise<TransferView>;
  /** This workstation's name for its send leases. */
  workstation: string;
  /** The workstation's send leases: the confirm's lease is kept while the bank confirms. */
  leases: SendJobLeaseDeps['leases'];
  onChange(): void;
}

export interface ReturnApprovals {
  /** Whether the bank's intent needs a checker, its approval, and whether that covers it as it is. */
  forReturn(
    ref: TransferRef,
  ): Promise<{ required: boolean | null; approval: ReturnApprovalView | null; covers: boolean }>;
  ask(ref: TransferRef): Promise<ReturnApprovalView>;
  decide(
    ref: TransferRef & { approvalId: string; contentHash: string } & (
        { decision: 'approve' } | { decision: 'reject'; reason: string }
      ),
  ): Promise<ReturnApprovalView>;
  /** Returns of the analyst's entities with a live approval (asked by them, or waiting for them). */
  list(): ReturnApprovalView[];
  /**
   * A confirm the analyst makes: passed to `direct` when the team has no say; the approved
   * content's send job otherwise; refused before the bank is called when no approval covers the
   * intent the bank holds.
   */
  confirm(ref: TransferRef, direct: () => Promise<TransferView>): Promise<TransferView>;
}

/** The return as the bank holds it (null: no open intent with its details). */
export function returnContentOf(view: TransferView): ReturnContent | null {
  const d = view.returnDetails;
  if (!d?.amount || !d.reasonCode || !view.incoming) return null;
  return {
    kind: 'return',
    transactionId: view.transactionId,
    amount: d.amount,
    currency: view.incoming.currency,
    reason: d.reasonCode,
  };
}

const failure = approvalFailure('return');

const notMember = (): AppFailure =>
  new AppFailure({
    kind: 'forbidden',
    reason: 'NOT_A_MEMBER',
    message:
      'This transfer’s legal entity is not part of your team (or the bank has not said which it is yet).',
  });

/** A return's approval as the analyst reads it: the exact return, who asked and decided, in words. */
function returnApprovalView(
  deps: Pick<ReturnApprovalsDeps, 'analyst' | 'nameOf' | 'entityName' | 'profileFor'>,
  a: StandingApproval,
): ReturnApprovalView {
  const me = deps.analyst();
  const person = (subject: string) => ({
    subject,
    name: deps.nameOf(a.legalEntityId, subject),
    isYou: subject === me?.subject,
  });
  const c = a.content.kind === 'return' ? a.content : null;
  const maker = person(a.maker);
  const checker = a.checker ? person(a.checker) : null;
  const by = checker ? (checker.isYou ? 'you' : checker.name) : 'a checker';
  const words =
    queuedWords(a.queued, a.reason) ??
    (a.send?.status === 'done'
      ? `Approved by ${by} and confirmed at the bank.`
      : a.status === 'pending'
        ? maker.isYou
          ? 'Waiting for approval by a checker.'
          : `${maker.name} asks for your approval.`
        : a.status === 'approved'
          ? `Approved by ${by}.`
          : a.status === 'rejected'
            ? `Rejected by ${by}: ${a.reason ?? ''}`
            : 'The approval was cleared: the return changed after it was asked for.');
  const roles = me?.memberships.find((m) => m.legalEntityId === a.legalEntityId)?.roles ?? [];
  return {
    legalEntityId: a.legalEntityId,
    legalEntityName: deps.entityName(a.legalEntityId),
    transactionId: a.objectId,
    profileId: deps.profileFor(a.legalEntityId),
    approvalId: a.approvalId,
    queued: a.queued,
    status: a.status,
    contentHash: a.contentHash,
    amount: c?.amount ?? '0',
    currency: c?.currency ?? '',
    reasonCode: c?.reason ?? '',
    maker,
    checker,
    reason: a.reason,
    requestedAt: a.requestedAt,
    decidedAt: a.decidedAt,
    mayDecide: !a.queued && a.status === 'pending' && a.maker !== me?.subject && roles.includes('checker'),
    send: a.send,
    words,
  };
}

/**
 * The confirm of approved content as its send job on this workstation: leased (the same job and key
 * when asked again), the bank re-read first after an unknown outcome, the outcome reported under
 * the lease.
 */
function createReturnSendJobs(
  deps: Pick<
    ReturnApprovalsDeps,
    'http' | 'log' | 'analyst' | 'workstation' | 'read' | 'confirm' | 'onChange' | 'approvals' | 'leases'
  >,
) {
  const lease: SendJobLeaseDeps = {
    http: deps.http,
    log: deps.log,
    me: () => deps.analyst()?.subject ?? null,
    workstation: deps.workstation,
    remember: (j) => deps.approvals.rememberJob(j),
    leases: deps.leases,
  };
  const complete = async (
    job: SendJob,
    outcome: 'sent' | 'failed' | 'ambiguous',
    bankReference?: string,
  ): Promise<void> => {
    await completeSendJob(lease, job, outcome, bankReference, 'a return confirm');
    deps.onChange();
  };

  /** Confirms approved content as its send job: the bank is re-read first after an unknown outcome. */
  const confirmAsJob = async (
    ref: TransferRef,
    legalEntityId: string,
    content: ReturnContent,
  ): Promise<TransferView> => {
    let job: SendJob;
    try {
      job = await leaseSendJob(lease, { legalEntityId, objectId: content.transactionId, content }, true);
    } catch (err) {
      return failure(err);
    }
    if (job.status === 'done')
      throw new AppFailure({
        kind: 'conflict',
        reason: 'ALREADY_CONFIRMED',
        message: 'This approved return was confirmed at the bank already.',
      });
    if (job.status !== 'leased' || job.leasedBy !== deps.analyst()?.subject)
      throw new AppFailure({
        kind: 'conflict',
        reason: 'SEND_LEASED',
        message: 'Another workstation is confirming this return right now. Read it again in a moment.',
      });
    if (job.verifyFirst) {
      const now = await deps.read(ref);
      if (now.status === 'in_progress' || now.status === 'return_completed') {
        await complete(job, 'sent', ref.transactionId);
        return now;
      }
    }
    try {
      return await sendUnderLease(lease, job, {
        what: 'a return confirm',
        write: () => deps.confirm(ref),
        reference: () => ref.transactionId,
        refusedBefore: (err) =>
          err instanceof AppFailure &&
          ['precondition', 'forbidden', 'invalid', 'not_found'].includes(err.kind),
      });
    } finally {
      deps.onChange();
    }
  };
  return { confirmAsJob };
}

export function createReturnApprovals(deps: ReturnApprovalsDeps): ReturnApprovals {
  const latest = (le: string, transactionId: string): Approval | undefined =>
    deps.approvals.latest(le, transactionId, 'return');
  /** The return's approval as it stands for this analyst (their change still queued on top). */
  const viewFor = (le: string, transactionId: string): ReturnApprovalView | null => {
    const a = standingApproval(
      latest(le, transactionId),
      deps.approvals.queuedFor(le, transactionId, 'return'),
      deps.approvals.sendJob(le, transactionId),
    );
    return a ? returnApprovalView(deps, a) : null;
  };
  /** Sent now, or queued while the team server is away; a refusal in words. */
  const change = async (
    le: string,
    transactionId: string,
    c: Parameters<typeof approvalChange>[3],
  ): Promise<ReturnApprovalView> => {
    await sendApprovalChange(
      deps.approvals,
      approvalChange('return', le, transactionId, c),
      failure,
      deps.onChange,
    );
    return viewFor(le, transactionId) as ReturnApprovalView;
  };
  const { confirmAsJob } = createReturnSendJobs(deps);

  /** The transfer's legal entity (one of the analyst's team), or null when the team has no say. */
  const entityOf = async (ref: TransferRef): Promise<string | null> => {
    const me = deps.analyst();
    if (!me) return null;
    const le = await deps.entityOf(ref.profileId);
    if (!le || !me.memberships.some((m) => m.legalEntityId === le)) return null;
    return le;
  };

  const requireTeam = async (ref: TransferRef): Promise<string> => {
    if (!deps.analyst())
      return failure(
        new AppFailure({
          kind: 'unauthenticated',
          reason: 'TEAM_SIGNED_OUT',
          message: 'Sign in to the team first (Settings → Team).',
        }),
      );
    const le = await entityOf(ref);
    if (!le) throw notMember();
    return le;
  };

  const intentOf = async (ref: TransferRef): Promise<ReturnContent> => {
    const content = returnContentOf(await deps.read(ref));
    if (!content)
      throw new AppFailure({
        kind: 'precondition',
        reason: 'NO_RETURN_INTENT',
        message: 'This transfer has no return intent at the bank: create the intent first.',
      });
    return content;
  };

  return {
    async forReturn(ref) {
      const le = await entityOf(ref);
      if (!le) return { required: null, approval: null, covers: false };
      const content = returnContentOf(await deps.read(ref));
      const rules = deps.rulesOf(le);
      const required = content && rules ? approvalRequired(rules, content) : null;
      const a = latest(le, ref.transactionId);
      const covers = approvedFor(a, content);
      return { required, approval: viewFor(le, ref.transactionId), covers };
    },

    async ask(ref) {
      const le = await requireTeam(ref);
      const content = await intentOf(ref);
      return change(le, ref.transactionId, { op: 'ask', contentHash: approvalHash(content), content });
    },

    async decide(input) {
      const le = await requireTeam(input);
      const a = latest(le, input.transactionId);
      if (!a || a.id !== input.approvalId)
        throw new AppFailure({
          kind: 'conflict',
          reason: 'CONTENT_CHANGED',
          message: 'This approval is no longer the return’s current one: read it again.',
        });
      // An approval covers what the bank holds: the checker's own profile reads the intent again.
      if (input.decision === 'approve') {
        const held = approvalHash(await intentOf(input));
        if (held !== input.contentHash || held !== a.contentHash)
          throw new AppFailure({
            kind: 'conflict',
            reason: 'CONTENT_CHANGED',
            message:
              'The return intent at the bank is not the one asked for (amount, reason or transfer differ). Nothing was approved.',
          });
      }
      return change(le, input.transactionId, {
        op: input.decision,
        contentHash: input.contentHash,
        targetId: a.id,
        reason: input.decision === 'reject' ? input.reason : null,
      });
    },

    list() {
      if (!deps.analyst()) return [];
      const out: ReturnApprovalView[] = [];
      const keys = new Set([
        ...deps.approvals.approvalsOf('return').map((a) => `${a.legalEntityId}\n${a.object.id}`),
        ...deps.approvals.queuedOf('return').map((j) => `${j.legalEntityId}\n${j.objectId}`),
      ]);
      for (const key of keys) {
        const [le = '', id = ''] = key.split('\n');
        const v = viewFor(le, id);
        if (v && (v.status === 'pending' || v.status === 'approved')) out.push(v);
      }
      return out.sort((x, y) => ((x.requestedAt ?? '') < (y.requestedAt ?? '') ? 1 : -1));
    },

    async confirm(ref, direct) {
      const le = await entityOf(ref);
      if (!le) return direct();
      const rules = deps.rulesOf(le);
      const a = latest(le, ref.transactionId);
      if (!rules && a?.status !== 'approved') return direct();
      const content = returnContentOf(await deps.read(ref));
      const approved = approvedFor(a, content) && !deps.approvals.queuedFor(le, ref.transactionId, 'return');
      const required = !!content && !!rules && approvalRequired(rules, content);
      // A return a checker approved is confirmed as its send job whatever the rules say now (a rule
      // dropped since, or rules read stale): the job is what keeps it to one confirm across the
      // team's workstations, and what the team's record of who confirmed it rests on.
      if (!required && !approved) return direct();
      if (!approved || !a || !content)
        throw new AppFailure({
          kind: 'precondition',
          reason: 'APPROVAL_REQUIRED',
          message:
            a?.status === 'approved'
              ? 'The return intent at the bank is not the one a checker approved: ask for approval again. Nothing was sent to the bank.'
              : 'Your team’s rules want a checker to approve returns of this amount: ask for approval first. Nothing was sent to the bank.',
        });
      // Four eyes on the money, while the rules want them: the analyst who asked does not confirm; a
      // checker does, with their own credential.
      if (required && a.maker === deps.analyst()?.subject)
        throw new AppFailure({
          kind: 'precondition',
          reason: 'CHECKER_CONFIRMS',
          message: `${a.checker ? deps.nameOf(le, a.checker) : 'The checker'} approved this return; a checker confirms it at the bank, not the analyst who asked. Nothing was sent to the bank.`,
        });
      try {
        return await confirmAsJob(ref, le, content);
      } catch (err) {
        if (err instanceof TeamApiError) return failure(err);
        throw err;
      }
    },
  };
}
