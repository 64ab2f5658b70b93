/**
 * Four-eyes approval of RFI answers on the workstation: the approval rules of the analyst's legal
 * entities (read by everyone, set by an admin), the approvals of their answers (loaded when the
 * team connects, kept current by the change feed), asking for approval (maker), approving or
 * rejecting (checker), and the one send of an approved answer.
 *
 * An approval covers the exact content by its hash (the shared canonical JSON): the answer's text,
 * its RFI's type and its documents' sha256s. Asking, deciding and reporting a send's outcome are
 * sent at once and, when the team server cannot be reached, queued in a durable outbox (the
 * generic job queue, sealed at rest) and shown as pending; the server's answer decides, and what it
 * refused is dropped with a notice in words, never retried.
 *
 * Exactly one send: once the maker's workstation sees its answer approved it asks the team server
 * for the answer's send job (one per answer, one idempotency key), takes the job's lease and hands
 * the answer to the bank outbox with that key (sent with this analyst's own bank credential; no
 * bank token ever goes to the team server); the outcome is reported under the lease number.
 */
import { z } from 'zod';
import { approvalRequired } from '../../shared/team/approval-rules';
import {
  Approval,
  ApprovalContent,
  ApprovalRules,
  OpenSendJobs,
  SendJob,
  type ApprovalRule,
  type Change,
} from '../../shared/team/schemas';
import type { AtRestCodec } from '../infra/at-rest';
import { openJobQueue, queuedJobSchema } from '../infra/job-queue';
import type { JobKind, JobQueue, QueuedJob } from '../infra/job-queue';
import type { Logger } from '../infra/log';
import {
  answerKeys,
  approvalHash,
  createApprovalState,
  decidedAlready,
  sameObject,
  knownOf,
  leasableJobs,
  queuedWords,
  type ApprovalKind,
  type ApprovalState,
  type KnownApprovals,
} from './approval-state';
import { TeamApiError, TeamNotSignedIn, TeamUnreachable, teamCallFailure, type TeamHttp } from './api';
import type { SendJobRef, SendOutcome } from './send-lease';

export type { ApprovalKind, KnownApprovals } from './approval-state';
export { approvalHash, approvedFor, queuedWords } from './approval-state';
export type AnswerContent = Extract<ApprovalContent, { kind: 'rfi_answer' }>;
export type ApprovalOp = 'ask' | 'approve' | 'reject' | 'complete';

export interface ApprovalJob extends QueuedJob {
  op: ApprovalOp;
  /** What is approved: an answer, a return or an exchange mandate. */
  objectKind: ApprovalKind;
  legalEntityId: string;
  /** The approval's object: an answer's question, a return's transfer, a mandate's own id. */
  objectId: string;
  /** An answer's RFI ('' for returns and mandates). */
  rfiId: string;
  contentHash: string;
  /** ask: the content asked for (an answer, a return, a mandate). */
  content: ApprovalContent | null;
  /** approve / reject: the approval decided on; complete: the send job. */
  targetId: string | null;
  reason: string | null;
  /** complete: the lease number and the bank's response id. */
  leaseNumber: number | null;
  bankReference: string | null;
  /** complete without a response: the send ended failed or in conflict (`reason` says why). */
  ended?: 'failed' | 'conflict';
  /** Who queued it: a decision queued by one analyst is never sent in another's name. */
  subject: string;
  state: 'pending' | 'done' | 'refused';
}

const jobSchema = queuedJobSchema.extend({
  op: z.enum(['ask', 'approve', 'reject', 'complete']),
  // Outboxes written before returns and mandates were queued hold answers only.
  objectKind: z.enum(['rfi_answer', 'return', 'exchange']).default('rfi_answer'),
  legalEntityId: z.string().max(128),
  objectId: z.string().max(128),
  rfiId: z.string().max(128),
  contentHash: z.string().max(64),
  content: ApprovalContent.nullable(),
  targetId: z.string().max(64).nullable(),
  reason: z.string().max(2000).nullable(),
  leaseNumber: z.number().int().nullable(),
  bankReference: z.string().max(256).nullable(),
  ended: z.enum(['failed', 'conflict']).optional(),
  subject: z.string().max(255),
  state: z.enum(['pending', 'done', 'refused']),
}) as z.ZodType<ApprovalJob>;

export interface PersonView {
  subject: string;
  name: string;
  isYou: boolean;
}

/** One answer's approval as the analyst reads it. */
export interface ApprovalView {
  legalEntityId: string;
  rfiId: string;
  questionId: string;
  /** The server's approval (null while the request waits in the outbox). */
  approvalId: string | null;
  status: 'pending' | 'approved' | 'rejected' | 'cleared';
  contentHash: string;
  text: string;
  rfiType: string;
  documentSha256s: string[];
  maker: PersonView;
  checker: PersonView | null;
  reason: string | null;
  requestedAt: string | null;
  decidedAt: string | null;
  /** This analyst's change waiting for the team server. */
  queued: ApprovalOp | null;
  /** The analyst may approve or reject it (a checker of the entity, not its maker, still pending). */
  mayDecide: boolean;
  /** The send job of the approved content: its status, the bank's response, why it failed. */
  send: { status: SendJob['status']; bankReference: string | null; detail: string | null } | null;
  /** One truthful sentence: "Waiting for approval by a checker.", "Approved by Jonas Weber." … */
  words: string;
}

export interface EntityRulesView {
  legalEntityId: string;
  rules: ApprovalRule[];
  /** The analyst is an admin of the entity. */
  mayEdit: boolean;
}

/**
 * The rules last read per legal entity, kept on the workstation (sealed at rest) so they are known
 * at the next start even while the team server is away; only those read from the current server.
 */
export interface RulesMemory {
  read(): ReadonlyMap<string, ApprovalRule[]>;
  write(legalEntityId: string, rules: ApprovalRule[]): void;
}

export interface ApprovalsDeps {
  http: TeamHttp;
  remembered?: RulesMemory;
  log: Logger;
  file: string;
  codec?: AtRestCodec;
  onProblem?(message: string, file: string, movedTo: string | null): void;
  me(): string | null;
  /** The analyst's roles in a legal entity (from the last `/v1/me`). */
  rolesIn(legalEntityId: string): readonly string[];
  nameOf(legalEntityId: string, subject: string): string;
  onChange(legalEntityId: string, notice: string | null): void;
  /** This workstation's name for its send leases. */
  workstation: string;
  retry?: { baseMs: number; maxMs: number };
  autoRun?: boolean;
}

/**
 * What the return and mandate flows share with the answers: the approvals the book knows and its
 * durable outbox (every change sent at once, or queued while the team server is away and sent
 * when it is back, in the name of the analyst who made it).
 */
export interface SharedApprovals extends KnownApprovals {
  /** Sends now, or queues durably when the team server cannot be reached; a refusal throws `TeamApiError`. */
  change(input: ApprovalChange): Promise<void>;
  /** The analyst's newest change of an object still waiting for the team server. */
  queuedFor(legalEntityId: string, objectId: string, kind: ApprovalKind): ApprovalJob | undefined;
  /** The analyst's changes of one kind still waiting for the team server. */
  queuedOf(kind: ApprovalKind): ApprovalJob[];
}

export interface ApprovalsBook extends SharedApprovals {
  load(legalEntityIds: readonly string[]): Promise<void>;
  apply(change: Change): void;
  /** The entity's rules as last read (from the server, or remembered from an earlier run); null: never read. */
  rules(legalEntityId: string): ApprovalRule[] | null;
  rulesView(legalEntityId: string): EntityRulesView;
  setRules(legalEntityId: string, rules: ApprovalRule[]): Promise<EntityRulesView>;
  /** Whether this content needs a checker by the entity's rules (null: the rules are not known). */
  required(legalEntityId: string, content: AnswerContent): boolean | null;
  view(legalEntityId: string, questionId: string): ApprovalView | null;
  views(filter?: { legalEntityId?: string; rfiId?: string }): ApprovalView[];
  ask(legalEntityId: string, questionId: string, content: AnswerContent): Promise<ApprovalView>;
  /** The draft changed: a live approval of other content is asked again with the new content. */
  draftChanged(legalEntityId: string, questionId: string, content: AnswerContent): void;
  decide(
    approvalId: string,
    decision:
      { approve: true; contentHash: string } | { approve: false; contentHash: string; reason: string },
  ): Promise<ApprovalView>;
  /**
   * The answer's send job (one per answer, one idempotency key) leased to this workstation, for
   * approved content only; a job that is done already is answered as it is.
   */
  takeSendJob(legalEntityId: string, questionId: string): Promise<{ approval: Approval; job: SendJob }>;
  /**
   * Send jobs of approved answers that no workstation holds now (queued, or their lease expired),
   * with the approval that covers each: what this workstation may take over.
   */
  leasable(now?: number): Array<{ job: SendJob; approval: Approval }>;
  /** Leases that job to this workstation (refused `not_leasable` when another took it first). */
  leaseJob(jobId: string): Promise<SendJob>;
  /** An answer of a send job was sent, ended failed or in conflict, or its outcome is unknown. */
  sendFinished(job: SendJobRef, outcome: SendOutcome): Promise<void>;
  pendingCount(): number;
  wake(): void;
  queue: JobQueue<ApprovalJob>;
  clear(): void;
  dispose(): Promise<void>;
}

const RE_ASK_DEBOUNCE_MS = 1_500;

/** A refusal of the team server in words. */
export function approvalRefusal(err: TeamApiError, what: ApprovedThing = 'answer'): string {
  switch (err.code) {
    case 'self_approval':
      return `The team server refused: nobody approves their own ${what}. Another checker has to decide.`;
    case 'content_changed':
      return `The ${what} changed since it was read: read it again before deciding.`;
    case 'forbidden':
      return 'Your role in this legal entity does not allow this.';
    case 'not_found':
      return 'This legal entity is not part of your team.';
    default:
      return err.message;
  }
}

/** What a team approval is of, in the words its refusals use. */
export type ApprovedThing = 'answer' | 'return' | 'mandate';

/** A failed approval call (of an answer, a return or a mandate) as the typed error the renderer reads. */
export const approvalFailure =
  (what: ApprovedThing) =>
  (err: unknown): never =>
    teamCallFailure(
      err,
      {
        self_approval: 'forbidden',
        forbidden: 'forbidden',
        not_found: 'not_found',
        content_changed: 'conflict',
        conflict: 'conflict',
        approval_required: 'precondition',
      },
      (e) => approvalRefusal(e, what),
    );

/** One approval change as it is sent, or queued while the team server is away. */
export type ApprovalChange = Omit<ApprovalJob, keyof QueuedJob | 'subject' | 'state'>;
type ChangeInput = ApprovalChange;

/** An approval change of a return or a mandate: asked for (with its content) or decided (on its approval). */
export function approvalChange(
  objectKind: ApprovalKind,
  legalEntityId: string,
  objectId: string,
  c: Pick<ApprovalChange, 'op' | 'contentHash'> &
    Partial<Pick<ApprovalChange, 'content' | 'targetId' | 'reason'>>,
): ApprovalChange {
  return {
    objectKind,
    legalEntityId,
    objectId,
    rfiId: '',
    content: null,
    targetId: null,
    reason: null,
    leaseNumber: null,
    bankReference: null,
    ...c,
  };
}

/** The words of a refusal name what was approved. */
const THING: Record<ApprovalKind, ApprovedThing> = {
  rfi_answer: 'answer',
  return: 'return',
  exchange: 'mandate',
};

/** One truthful sentence for an answer's approval. */
function wordsOf(v: Omit<ApprovalView, 'words'>): string {
  const by = (p: PersonView | null): string => (p ? (p.isYou ? 'you' : p.name) : 'a checker');
  const queued = queuedWords(v.queued, v.reason);
  if (queued) return queued;
  if (v.send?.status === 'done') return `Approved by ${by(v.checker)} and sent to the bank.`;
  if (v.send?.status === 'failed')
    return `Approved by ${by(v.checker)}, but not sent: ${v.send.detail ?? 'the send failed'}`;
  switch (v.status) {
    case 'pending':
      return v.maker.isYou ? 'Waiting for approval by a checker.' : `${v.maker.name} asks for your approval.`;
    case 'approved':
      return `Approved by ${by(v.checker)}.`;
    case 'rejected':
      return `Rejected by ${by(v.checker)}: ${v.reason ?? ''}`;
    case 'cleared':
      return 'The approval was cleared: the answer changed after it was asked for.';
  }
}

/** An answer's approval as the analyst reads it: the server's, or this analyst's change still queued. */
function approvalView(
  deps: Pick<ApprovalsDeps, 'me' | 'nameOf' | 'rolesIn'>,
  state: ApprovalState,
  legalEntityId: string,
  questionId: string,
  q: ApprovalJob | undefined,
): ApprovalView | null {
  const a = state.latest(legalEntityId, questionId);
  const me = deps.me();
  const asked = q?.op === 'ask' ? q : null;
  const content = asked?.content ?? (a?.content.kind === 'rfi_answer' ? a.content : null);
  if (!content || content.kind !== 'rfi_answer') return null;
  const person = (subject: string): PersonView => ({
    subject,
    name: deps.nameOf(legalEntityId, subject),
    isYou: subject === me,
  });
  const job = state.jobs.get(legalEntityId)?.get(questionId);
  const checker = q && q.op !== 'ask' ? q.subject : (a?.checker ?? null);
  const base: Omit<ApprovalView, 'words'> = {
    legalEntityId,
    rfiId: content.rfiId,
    questionId,
    approvalId: asked ? null : (a?.id ?? null),
    status: asked ? 'pending' : (a?.status ?? 'pending'),
    contentHash: asked ? asked.contentHash : (a?.contentHash ?? ''),
    text: content.text,
    rfiType: content.rfiType,
    documentSha256s: content.documentSha256s,
    maker: person(asked ? asked.subject : (a?.maker ?? me ?? '')),
    checker: checker ? person(checker) : null,
    reason: q?.op === 'reject' ? q.reason : asked ? null : (a?.reason ?? null),
    requestedAt: asked ? asked.createdAt : (a?.requestedAt ?? null),
    decidedAt: asked ? null : (a?.decidedAt ?? null),
    queued: q?.op ?? null,
    mayDecide:
      !q && a?.status === 'pending' && a.maker !== me && deps.rolesIn(legalEntityId).includes('checker'),
    send:
      job && a && job.contentHash === a.contentHash
        ? { status: job.status, bankReference: job.bankReference, detail: job.detail }
        : null,
  };
  return { ...base, words: wordsOf(base) };
}

const entityPath = (id: string): string => `/v1/entities/${encodeURIComponent(id)}`;

/** Sends one change now; throws TeamUnreachable (queue it) or TeamApiError (refused). */
async function postChange(
  http: TeamHttp,
  state: ApprovalState,
  j: ChangeInput,
  subject: string,
): Promise<void> {
  if (j.op === 'ask') {
    const a = await http.call('POST', '/v1/approvals', Approval, {
      legalEntityId: j.legalEntityId,
      objectId: j.objectId,
      content: j.content,
    });
    // The server cleared the older live approval of this answer (its change follows on the feed).
    for (const other of state.approvals.get(j.legalEntityId)?.values() ?? [])
      if (other.id !== a.id && other.object.id === j.objectId && other.status !== 'rejected')
        state.remember({ ...other, status: 'cleared' });
    state.remember(a);
  } else if (j.op === 'approve' || j.op === 'reject') {
    const path = `/v1/approvals/${encodeURIComponent(j.targetId ?? '')}/${j.op}`;
    const body =
      j.op === 'approve' ? { contentHash: j.contentHash } : { contentHash: j.contentHash, reason: j.reason };
    try {
      state.remember(await http.call('POST', path, Approval, body));
    } catch (err) {
      const landed = err instanceof TeamApiError ? await decidedAlready(http, j, subject, err) : null;
      if (!landed) throw err;
      state.remember(landed);
    }
  } else {
    const path = `/v1/send-jobs/${encodeURIComponent(j.targetId ?? '')}/complete`;
    const body =
      j.bankReference !== null
        ? { leaseNumber: j.leaseNumber, outcome: 'sent', bankReference: j.bankReference }
        : j.ended
          ? { leaseNumber: j.leaseNumber, outcome: j.ended, detail: j.reason ?? '' }
          : { leaseNumber: j.leaseNumber, outcome: 'ambiguous' };
    state.rememberJob(await http.call('POST', path, SendJob, body));
  }
}

/**
 * The send job of approved content, leased to this workstation: created (or the same job and key
 * answered again), then leased unless this analyst holds a live lease on it already.
 */
async function leaseSendJob(deps: ApprovalsDeps, state: ApprovalState, a: Approval): Promise<SendJob> {
  const me = deps.me();
  let job = await deps.http.call('POST', '/v1/send-jobs', SendJob, {
    legalEntityId: a.legalEntityId,
    objectId: a.object.id,
    content: a.content,
  });
  state.rememberJob(job);
  if (job.status === 'done' || job.status === 'failed') return job;
  const heldByMe =
    job.status === 'leased' &&
    job.leasedBy === me &&
    job.leaseExpiresAt !== null &&
    Date.parse(job.leaseExpiresAt) > Date.now();
  if (!heldByMe)
    job = await deps.http.call('POST', `/v1/send-jobs/${encodeURIComponent(job.id)}/lease`, SendJob, {
      workstation: deps.workstation,
    });
  state.rememberJob(job);
  deps.onChange(a.legalEntityId, null);
  return job;
}

/** Approval changes as a kind of job: queued while the team server is away, dropped when refused. */
function approvalJobKind(
  deps: ApprovalsDeps,
  state: ApprovalState,
  settled: (job: ApprovalJob, notice: string | null) => void,
): JobKind<ApprovalJob> {
  return {
    label: 'Approvals waiting for the team server',
    consequence:
      'Approval requests and decisions made while the team server was away were lost; make them again.',
    schema: jobSchema,
    interrupted: () => null,
    finished: (j) => j.state !== 'pending',
    ready: (j) => deps.me() === j.subject,
    async run(job) {
      try {
        await postChange(deps.http, state, job, job.subject);
        return { outcome: 'done', patch: { state: 'done' }, afterSaved: () => settled(job, null) };
      } catch (err) {
        if (err instanceof TeamUnreachable) return { outcome: 'retry' };
        if (err instanceof TeamNotSignedIn) return { outcome: 'wait' };
        if (err instanceof TeamApiError) {
          const words = approvalRefusal(err, THING[job.objectKind]);
          return { outcome: 'failed', patch: { state: 'refused' }, afterSaved: () => settled(job, words) };
        }
        throw err;
      }
    },
  };
}

const NO_JOB = {
  objectKind: 'rfi_answer',
  content: null,
  targetId: null,
  reason: null,
  leaseNumber: null,
  bankReference: null,
} as const;

function decisionInput(
  a: Approval,
  rfiId: string,
  decision: { approve: true; contentHash: string } | { approve: false; contentHash: string; reason: string },
): ChangeInput {
  return {
    ...NO_JOB,
    op: decision.approve ? 'approve' : 'reject',
    legalEntityId: a.legalEntityId,
    objectId: a.object.id,
    rfiId,
    contentHash: decision.contentHash,
    targetId: a.id,
    reason: decision.approve ? null : decision.reason,
  };
}

function completeInput(job: SendJobRef, outcome: SendOutcome): ChangeInput {
  const ended = !outcome.sent ? outcome.ended : undefined;
  return {
    ...NO_JOB,
    ...(ended ? { ended: ended.outcome, reason: ended.reason.slice(0, 2000) } : {}),
    op: 'complete',
    legalEntityId: job.legalEntityId,
    objectId: job.objectId,
    rfiId: job.rfiId,
    contentHash: '',
    targetId: job.id,
    leaseNumber: job.leaseNumber,
    bankReference: outcome.sent ? outcome.responseId : null,
  };
}

export async function openApprovals(deps: ApprovalsDeps): Promise<ApprovalsBook> {
  const state = createApprovalState();
  const reAsk = new Map<string, ReturnType<typeof setTimeout>>();
  let disposed = false;

  const mine = (j: ApprovalJob): boolean => j.state === 'pending' && j.subject === deps.me();
  const queuedOf = (kind: ApprovalKind): ApprovalJob[] =>
    queue.all().filter((j) => mine(j) && j.op !== 'complete' && j.objectKind === kind);
  const queuedFor = (le: string, objectId: string, kind: ApprovalKind = 'rfi_answer') =>
    queuedOf(kind)
      .filter((j) => j.legalEntityId === le && j.objectId === objectId)
      .at(-1);
  const viewOf = (legalEntityId: string, questionId: string): ApprovalView | null =>
    approvalView(deps, state, legalEntityId, questionId, queuedFor(legalEntityId, questionId));

  const kind = approvalJobKind(deps, state, (job, notice) => void settled(job, notice));
  /** Rules read in this run, else those remembered from an earlier one. */
  const rulesOf = (id: string): ApprovalRule[] | null =>
    state.rules.get(id) ?? deps.remembered?.read().get(id) ?? null;
  /** Per entity, the number of the last rules read started: an older read answering later is dropped. */
  const rulesReads = new Map<string, number>();
  const keepRules = (id: string, rules: ApprovalRule[]): void => {
    rulesReads.set(id, (rulesReads.get(id) ?? 0) + 1);
    state.rules.set(id, rules);
    deps.remembered?.write(id, rules);
  };
  /**
   * The entity's rules as the server holds them now. A rules change on the feed is not taken from
   * the change's copy: after a reconnection the feed replays changes since the last one applied
   * while `load` reads the current rules, so a replayed older copy could overwrite newer rules and
   * let an answer go without its checker until the replay caught up.
   */
  const readRules = async (id: string): Promise<void> => {
    const n = (rulesReads.get(id) ?? 0) + 1;
    rulesReads.set(id, n);
    const r = await deps.http.call('GET', `${entityPath(id)}/approval-rules`, ApprovalRules);
    if (rulesReads.get(id) === n) keepRules(id, r.rules);
  };

  const settled = async (job: ApprovalJob, notice: string | null): Promise<void> => {
    await queue.remove(job.id);
    deps.onChange(job.legalEntityId, notice);
  };

  const queue: JobQueue<ApprovalJob> = await openJobQueue<ApprovalJob>({
    file: deps.file,
    kind,
    log: deps.log,
    name: 'team-approvals',
    retry: deps.retry ?? { baseMs: 2_000, maxMs: 60_000 },
    ...(deps.codec ? { codec: deps.codec } : {}),
    ...(deps.onProblem ? { onProblem: deps.onProblem } : {}),
    ...(deps.autoRun === false ? { autoRun: false } : {}),
  });

  /** Sends now, or queues it when the team server is away (a newer change of the same kind replaces one waiting). */
  const change = async (j: ChangeInput): Promise<void> => {
    const subject = deps.me();
    if (!subject) throw new TeamNotSignedIn();
    if (j.op !== 'complete') await queue.removeWhere((x) => mine(x) && x.op === j.op && sameObject(x, j));
    try {
      await postChange(deps.http, state, j, subject);
    } catch (err) {
      if (!(err instanceof TeamUnreachable)) throw err;
      const now = new Date().toISOString();
      await queue.add({
        ...j,
        id: `ta_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 10)}`,
        createdAt: now,
        updatedAt: now,
        failures: 1,
        nextAttemptAt: Date.now() + 2_000,
        subject,
        state: 'pending',
      });
    }
    deps.onChange(j.legalEntityId, null);
  };

  const book: ApprovalsBook = {
    queue,
    async load(legalEntityIds) {
      await Promise.all(
        legalEntityIds.map(async (id) => {
          const [, list, open] = await Promise.all([
            readRules(id),
            deps.http.call('GET', `${entityPath(id)}/approvals`, z.object({ approvals: z.array(Approval) })),
            deps.http.call('GET', `${entityPath(id)}/send-jobs`, OpenSendJobs),
          ]);
          state.rememberAll(id, list.approvals);
          for (const j of open.jobs) state.rememberJob(j);
          deps.onChange(id, null);
        }),
      );
    },
    apply(c) {
      if (c.topic === 'approval') {
        const a = Approval.safeParse(c.data);
        if (!a.success) return;
        state.remember(a.data);
        deps.onChange(c.legalEntityId, null);
      } else if (c.topic === 'approval_rules') {
        void readRules(c.legalEntityId)
          .then(() => deps.onChange(c.legalEntityId, null))
          .catch((err: unknown) =>
            deps.log.warn('team: the approval rules could not be read again', { error: err }),
          );
      } else if (c.topic === 'send_job') {
        const j = SendJob.safeParse(c.data);
        if (!j.success) return;
        state.rememberJob(j.data);
        deps.onChange(c.legalEntityId, null);
      }
    },
    change,
    queuedFor,
    queuedOf,
    ...knownOf(state),
    rules: rulesOf,
    rulesView: (id) => ({
      legalEntityId: id,
      rules: rulesOf(id) ?? [],
      mayEdit: deps.rolesIn(id).includes('admin'),
    }),
    async setRules(id, next) {
      const r = await deps.http.call('PUT', `${entityPath(id)}/approval-rules`, ApprovalRules, {
        rules: next,
      });
      keepRules(id, r.rules);
      deps.onChange(id, null);
      return book.rulesView(id);
    },
    required(id, content) {
      const r = rulesOf(id);
      return r ? approvalRequired(r, content) : null;
    },
    view: viewOf,
    views: (filter) =>
      answerKeys(state, queue.all().filter(mine), filter?.legalEntityId)
        .map(([le, q]) => viewOf(le, q))
        .filter((v): v is ApprovalView => v !== null && (!filter?.rfiId || v.rfiId === filter.rfiId)),
    async ask(legalEntityId, questionId, content) {
      const t = reAsk.get(`${legalEntityId}\n${questionId}`);
      if (t) clearTimeout(t);
      const hash = approvalHash(content);
      await change({
        ...NO_JOB,
        op: 'ask',
        legalEntityId,
        objectId: questionId,
        rfiId: content.rfiId,
        contentHash: hash,
        content,
      });
      return viewOf(legalEntityId, questionId) as ApprovalView;
    },
    draftChanged(legalEntityId, questionId, content) {
      const key = `${legalEntityId}\n${questionId}`;
      const q = queuedFor(legalEntityId, questionId);
      const a = state.latest(legalEntityId, questionId);
      const live = a && (a.status === 'pending' || a.status === 'approved') && a.maker === deps.me();
      const liveHash = q?.op === 'ask' ? q.contentHash : live ? a.contentHash : null;
      if (liveHash === null || liveHash === approvalHash(content)) return;
      const old = reAsk.get(key);
      if (old) clearTimeout(old);
      const timer = setTimeout(() => {
        reAsk.delete(key);
        if (disposed) return;
        void book.ask(legalEntityId, questionId, content).catch((err: unknown) => {
          deps.log.warn('team: asking again after an edit failed', { error: err });
          if (err instanceof TeamApiError) deps.onChange(legalEntityId, approvalRefusal(err));
        });
      }, RE_ASK_DEBOUNCE_MS);
      timer.unref?.();
      reAsk.set(key, timer);
    },
    async decide(approvalId, decision) {
      const a = state.find(approvalId);
      if (!a || a.content.kind !== 'rfi_answer')
        throw new TeamApiError(404, 'not_found', 'This approval is not known here.');
      await change(decisionInput(a, a.content.rfiId, decision));
      return viewOf(a.legalEntityId, a.object.id) as ApprovalView;
    },
    async takeSendJob(legalEntityId, questionId) {
      const approval = state.latest(legalEntityId, questionId);
      if (!approval || approval.status !== 'approved')
        throw new TeamApiError(409, 'approval_required', 'This answer is not approved by a checker.');
      return { approval, job: await leaseSendJob(deps, state, approval) };
    },
    leasable: (now = Date.now()) => leasableJobs(state, now),
    async leaseJob(jobId) {
      const job = await deps.http.call('POST', `/v1/send-jobs/${encodeURIComponent(jobId)}/lease`, SendJob, {
        workstation: deps.workstation,
      });
      state.rememberJob(job);
      return job;
    },
    async sendFinished(job, outcome) {
      await change(completeInput(job, outcome)).catch((err: unknown) => {
        // A lease taken over meanwhile: the next holder re-reads the bank first.
        if (err instanceof TeamApiError) deps.log.warn('team: the send outcome was refused', { error: err });
        else throw err;
      });
    },
    pendingCount: () => queue.all().filter(mine).length,
    wake: () => queue.wake(),
    clear: () => state.clear(),
    async dispose() {
      disposed = true;
      for (const t of reAsk.values()) clearTimeout(t);
      reAsk.clear();
      await queue.dispose();
    },
  };
  return book;
}
