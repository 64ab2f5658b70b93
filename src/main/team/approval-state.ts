/**
 * What the workstation knows of the team's approvals (of answers, returns and exchange mandates),
 * their rules and send jobs: one store, loaded once per legal entity by the answers' approvals
 * and kept current by the change feed, that every approval flow reads by kind.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../shared/team/canonical';
import { Approval, type ApprovalContent, type ApprovalRule, type SendJob } from '../../shared/team/schemas';
import type { TeamApiError, TeamHttp } from './api';

/** The hash the team server gives this content (sha256 of its canonical JSON). */
export function approvalHash(content: ApprovalContent): string {
  return createHash('sha256').update(canonicalJson(content)).digest('hex');
}

/**
 * Whether an approval stands approved for exactly this content (by its hash): what an approval
 * covers. Any edit gives another hash, so it covers nothing any more.
 */
export function approvedFor(
  a: { status: string; contentHash: string } | null | undefined,
  content: ApprovalContent | null,
): boolean {
  return !!a && content !== null && a.status === 'approved' && a.contentHash === approvalHash(content);
}

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
    /**
     * An entity's approvals as a list read from the server says them. The list may have been read
     * before a change this workstation already holds (its own request landing, a decision on the
     * feed): what is held is kept, and a decision is never taken back to 'pending'.
     */
    rememberAll(legalEntityId: string, read: readonly Approval[]): void {
      const held = approvals.get(legalEntityId) ?? new Map<string, Approval>();
      const merged = new Map(held);
      for (const a of read) {
        const mine = held.get(a.id);
        merged.set(a.id, mine && mine.status !== 'pending' && a.status === 'pending' ? mine : a);
      }
      approvals.set(legalEntityId, merged);
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

/** The analyst's own change of an approval still waiting in the outbox (the fields a view reads). */
export interface QueuedApprovalChange {
  op: 'ask' | 'approve' | 'reject' | 'complete';
  objectKind: ApprovalKind;
  legalEntityId: string;
  objectId: string;
  contentHash: string;
  content: ApprovalContent | null;
  reason: string | null;
  createdAt: string;
  subject: string;
}

/** An approval as it stands for this analyst: the server's, with their own queued change on top. */
export interface StandingApproval {
  legalEntityId: string;
  objectId: string;
  /** The server's approval (null while the request waits in the outbox). */
  approvalId: string | null;
  status: Approval['status'];
  contentHash: string;
  content: ApprovalContent;
  maker: string;
  checker: string | null;
  reason: string | null;
  requestedAt: string | null;
  decidedAt: string | null;
  queued: 'ask' | 'approve' | 'reject' | null;
  /** The send job's state when it is of this content. */
  send: { status: SendJob['status']; bankReference: string | null } | null;
}

/**
 * What the analyst sees of an object's approval: a request queued offline stands as pending in
 * their name; a decision queued offline shows who decided (them) and its reason; else the server's.
 */
export function standingApproval(
  a: Approval | undefined,
  q: QueuedApprovalChange | undefined,
  job: SendJob | undefined,
): StandingApproval | null {
  const op = q && q.op !== 'complete' ? q.op : null;
  if (op === 'ask' && q?.content)
    return {
      legalEntityId: q.legalEntityId,
      objectId: q.objectId,
      approvalId: null,
      status: 'pending',
      contentHash: q.contentHash,
      content: q.content,
      maker: q.subject,
      checker: null,
      reason: null,
      requestedAt: q.createdAt,
      decidedAt: null,
      queued: 'ask',
      send: null,
    };
  if (!a) return null;
  const decided = op === 'approve' || op === 'reject' ? q : undefined;
  return {
    legalEntityId: a.legalEntityId,
    objectId: a.object.id,
    approvalId: a.id,
    status: a.status,
    contentHash: a.contentHash,
    content: a.content,
    maker: a.maker,
    checker: decided ? decided.subject : a.checker,
    reason: decided ? (op === 'reject' ? decided.reason : null) : a.reason,
    requestedAt: a.requestedAt,
    decidedAt: decided ? null : a.decidedAt,
    queued: decided ? (op as 'approve' | 'reject') : null,
    send:
      job && job.contentHash === a.contentHash
        ? { status: job.status, bankReference: job.bankReference }
        : null,
  };
}

/** The read side of the store, as the return and mandate flows use it. */
export function knownOf(state: ApprovalState): KnownApprovals {
  return {
    latest: state.latest,
    approvalsOf: (kind) =>
      [...state.approvals.values()].flatMap((m) => [...m.values()].filter((a) => a.object.kind === kind)),
    sendJob: (le, objectId) => state.jobs.get(le)?.get(objectId),
    remember: state.remember,
    rememberJob: state.rememberJob,
  };
}

/** The analyst's own change still waiting for the team server, in words (null: nothing waits). */
export function queuedWords(
  op: QueuedApprovalChange['op'] | null | undefined,
  reason: string | null,
): string | null {
  const waiting = ' (waiting for the team server)';
  if (op === 'ask') return `Asking for approval by a checker${waiting}.`;
  if (op === 'approve') return `Approved by you${waiting}.`;
  if (op === 'reject') return `Rejected by you${waiting}: ${reason ?? ''}`;
  return null;
}

/** The answers (entity and question) with an approval or a queued change, in a stable order. */
export function answerKeys(
  state: ApprovalState,
  queued: QueuedApprovalChange[],
  legalEntityId?: string,
): Array<[string, string]> {
  const keys = new Set<string>();
  for (const [le, m] of state.approvals)
    if (!legalEntityId || le === legalEntityId)
      for (const a of m.values()) if (a.object.kind === 'rfi_answer') keys.add(`${le}\n${a.object.id}`);
  for (const j of queued)
    if (
      j.op !== 'complete' &&
      j.objectKind === 'rfi_answer' &&
      (!legalEntityId || j.legalEntityId === legalEntityId)
    )
      keys.add(`${j.legalEntityId}\n${j.objectId}`);
  return [...keys].sort().map((k) => {
    const [le = '', q = ''] = k.split('\n');
    return [le, q];
  });
}

/** Send jobs of approved answers nobody holds now (queued, or the lease expired), with their approval. */
export function leasableJobs(state: ApprovalState, now: number): Array<{ job: SendJob; approval: Approval }> {
  const out: Array<{ job: SendJob; approval: Approval }> = [];
  for (const [le, m] of state.jobs)
    for (const job of m.values()) {
      const free =
        job.status === 'queued' ||
        (job.status === 'leased' && job.leaseExpiresAt !== null && Date.parse(job.leaseExpiresAt) <= now);
      if (!free || job.object.kind !== 'rfi_answer') continue;
      const approval = [...(state.approvals.get(le)?.values() ?? [])].find(
        (a) => a.object.id === job.object.id && a.status === 'approved' && a.contentHash === job.contentHash,
      );
      if (approval?.content.kind === 'rfi_answer') out.push({ job, approval });
    }
  return out;
}

/** Two changes of the same object (kind, legal entity, id). */
export const sameObject = (
  x: Pick<QueuedApprovalChange, 'objectKind' | 'legalEntityId' | 'objectId'>,
  y: Pick<QueuedApprovalChange, 'objectKind' | 'legalEntityId' | 'objectId'>,
): boolean =>
  x.objectKind === y.objectKind && x.legalEntityId === y.legalEntityId && x.objectId === y.objectId;

/**
 * A decision sent again after its answer was lost is refused as already decided: when the
 * approval stands decided by this analyst as asked, the decision landed (once) and is done.
 */
export async function decidedAlready(
  http: TeamHttp,
  j: Pick<QueuedApprovalChange, 'op' | 'contentHash'> & { targetId: string | null },
  subject: string,
  err: TeamApiError,
): Promise<Approval | null> {
  if (err.code !== 'conflict' || !j.targetId) return null;
  const now = await http.call('GET', `/v1/approvals/${encodeURIComponent(j.targetId)}`, Approval);
  const status = j.op === 'approve' ? 'approved' : 'rejected';
  return now.status === status && now.checker === subject && now.contentHash === j.contentHash ? now : null;
}

/**
 * One approval change of a return or a mandate: sent now, or queued while the team server is away
 * (the store decides); a refusal is thrown in words, and the page is told what changed.
 */
export async function sendApprovalChange<C>(
  approvals: { change(c: C): Promise<void> },
  change: C,
  refused: (err: unknown) => never,
  onChange: () => void,
): Promise<void> {
  try {
    await approvals.change(change);
  } catch (err) {
    refused(err);
  }
  onChange();
}
