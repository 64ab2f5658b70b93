/**
 * The durable outbox of RFI answers: the composition of the generic durable job queue
 * (infra/job-queue.ts: storage, order, retries, wake-ups, restart recovery), the answer job
 * (answer-job.ts: the bank calls of one answer, through its own profile) and the answer's state
 * machine (answer-state.ts: what each outcome makes of it).
 *
 * Every answer is written to disk (temp file, fsync, rename) before anything is sent, and again
 * before each step that talks to the bank (write-ahead), so after a crash or restart the outbox
 * knows where it stopped and no answer is submitted twice.
 *
 * Every entry belongs to the bank scope it was written for (profile, origin, legal entity) and is
 * only worked on while its profile has that scope; meanwhile it waits, shown as waiting for that
 * bank, and every bank call re-checks the scope right before it leaves. The file is written
 * through the at-rest codec (encrypted with the data key when there is one). Nothing is dropped:
 * failed and conflicting answers stay until the analyst retries or dismisses them, and their
 * drafts are kept.
 */

import { randomBytes } from 'node:crypto';
import type { AnswerView, StagedFileView } from '../../shared/ipc/channels/rfi-answers';
import { AppFailure } from '../../shared/ipc/errors';
import type { AppError } from '../../shared/ipc/errors';
import type { AtRestCodec } from '../infra/at-rest';
import { scopeAllows } from '../bank/scope';
import type { BankScope } from '../bank/scope';
import { openJobQueue } from '../infra/job-queue';
import type { UploadSource } from '../infra/sealed-blob';
import type { Logger } from '../infra/log';
import type { BusyGuard } from '../desktop/busy';
import { answerDetail, answerJob, auditLine } from './answer-job';
import type { AnswerJobDeps, OutboxAuditLine, OutboxBank, UploadedDocument } from './answer-job';
import { isFinished, retriedPatch } from './answer-state';
import type { OutboxDocument, OutboxEntry } from './answer-state';

export { findOwnResponse } from './answer-state';
export type { OutboxDocument, OutboxEntry } from './answer-state';
export type { OutboxAuditLine, OutboxBank, UploadedDocument } from './answer-job';

export interface OutboxRetry {
  baseMs: number;
  maxMs: number;
}
export const defaultOutboxRetry: OutboxRetry = { baseMs: 2000, maxMs: 5 * 60_000 };

export interface OutboxOwners {
  /** The profile's bank scope now (null: no such profile any more). */
  scope(profileId: string): BankScope | null;
  bank(profileId: string): OutboxBank;
}

export interface OutboxOptions {
  file: string;
  bank: OutboxBank;
  log: Logger;
  /** The default profile's bank scope (an answer enqueued without its owner's). Default: one scope. */
  scope?(): BankScope;
  /**
   * Every profile's bank scope now and its bank client: an entry is worked on through the profile
   * it was written for, whatever profile is active, and waits while that profile's scope differs
   * (another legal entity behind the token) or the profile is gone. Default: the one `bank`.
   */
  owners?: OutboxOwners;
  /** Seals and opens the file (default: plain). */
  codec?: AtRestCodec;
  /** Told when the file could not be read and was moved aside. */
  onProblem?(message: string, file: string, movedTo: string | null): void;
  /** The bytes of a staged file as they are sent (throws for an unknown ref). */
  fileSource(ref: string): UploadSource;
  /** Server time (upload URL expiry). */
  now(): number;
  retry?: Partial<OutboxRetry>;
  /** Told on every state change (persisted first). */
  onChange?(view: AnswerView): void;
  onProgress?(p: { answerId: string; sentBytes: number; totalBytes: number }): void;
  /** Told once an answer landed at the bank. */
  onSent?(entry: OutboxEntry): void;
  /** Told once an answer ended failed or in conflict. */
  onEnded?(entry: OutboxEntry): void;
  /** Before each bank write of an answer (see AnswerJobDeps.beforeWrite). */
  beforeWrite?(entry: OutboxEntry): Promise<void>;
  /**
   * Records each write to the bank in the audit log: every upload (`rfi.upload`) and every
   * response (`rfi.respond`), with the failure policy's outcome (pending when the bank's answer
   * was lost). Must not throw.
   */
  audit?(line: OutboxAuditLine): Promise<void>;
  /** Told once a document reached the bank (the case file keeps its name and sha256). */
  onUploaded?(doc: UploadedDocument): void;
  /** Start the timer-driven runner (tests drive `runDue` themselves when false). */
  autoRun?: boolean;
  /** Held while an answer is worked on (the updater never restarts meanwhile). */
  busy?: Pick<BusyGuard, 'run'>;
}

export interface NewAnswer {
  rfiId: string;
  questionId: string;
  questionType: string;
  text: string;
  documents: Array<Pick<OutboxDocument, 'ref' | 'name' | 'contentType' | 'documentType' | 'sizeBytes'>>;
  /** The team's send job it carries out (its idempotency key goes to the bank). */
  teamJob?: OutboxEntry['teamJob'];
  /**
   * Another workstation may have sent it already (a send job taken over after an expired lease or
   * an unknown outcome): the RFI is re-read before anything is uploaded or sent.
   */
  verifyFirst?: boolean;
}

export interface Outbox {
  /** Queues an answer for the bank scope of the profile that owns the RFI (default: the active). */
  enqueue(answer: NewAnswer, owner?: BankScope): Promise<AnswerView>;
  retry(id: string): Promise<AnswerView>;
  dismiss(id: string): Promise<OutboxEntry>;
  list(rfiId?: string): AnswerView[];
  get(id: string): OutboxEntry | undefined;
  /** Entries not yet sent, failed or in conflict for this question. */
  active(rfiId: string, questionId: string, owner?: BankScope): OutboxEntry | undefined;
  /**
   * Removes every answer of a profile (the profile was removed), after an attempt under way for one
   * of them has stopped. Answers the entries removed.
   */
  removeProfile(profileId: string): Promise<OutboxEntry[]>;
  /** Everything waiting runs now (back online, resumed). */
  wake(): void;
  /** Runs every due entry once, sequentially; resolves when done (tests). */
  runDue(): Promise<void>;
  /** Resolves when the runner is idle. */
  idle(): Promise<void>;
  lastError(): AppError | null;
  dispose(): Promise<void>;
}

const defaultScope = (): BankScope => ({ profileId: '', origin: '-', legalEntityId: null });

/** A new answer's entry, queued now for this bank scope. */
function newEntry(a: NewAnswer, scope: BankScope): OutboxEntry {
  const now = new Date().toISOString();
  return {
    id: `a_${randomBytes(12).toString('hex')}`,
    scope,
    rfiId: a.rfiId,
    questionId: a.questionId,
    questionType: a.questionType,
    text: a.text,
    documents: a.documents.map((d) => ({
      ...d,
      documentId: null,
      url: null,
      expiresAt: null,
      uploaded: false,
    })),
    state: a.verifyFirst ? 'verifying' : 'queued',
    knownResponseIds: null,
    attempts: 0,
    failures: 0,
    nextAttemptAt: Date.now(),
    lastError: null,
    conflict: null,
    responseId: null,
    ...(a.teamJob ? { teamJob: a.teamJob } : {}),
    createdAt: now,
    updatedAt: now,
  };
}

/** What the analyst sees of an answer. */
function viewOf(
  e: OutboxEntry,
  progress: { sentBytes: number; totalBytes: number } | null,
  waitingForBank: boolean,
): AnswerView {
  const finished = isFinished(e.state);
  return {
    id: e.id,
    rfiId: e.rfiId,
    questionId: e.questionId,
    questionType: e.questionType,
    state: e.state,
    text: e.text,
    files: e.documents
      .filter((d) => d.ref !== '')
      .map((d): StagedFileView => ({
        ref: d.ref,
        name: d.name,
        sizeBytes: d.sizeBytes,
        contentType: d.contentType,
        documentType: d.documentType,
      })),
    progress: e.state === 'uploading' ? progress : null,
    lastError: e.lastError,
    conflict: e.conflict,
    attempts: e.attempts,
    nextAttemptAt: e.nextAttemptAt !== null && !finished ? new Date(e.nextAttemptAt).toISOString() : null,
    responseId: e.responseId,
    bank: e.scope ?? null,
    waitingForBank: !finished && waitingForBank,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  };
}

const notFound = (): AppFailure =>
  new AppFailure({ kind: 'not_found', message: 'No such answer in the outbox.' });

export async function openOutbox(options: OutboxOptions): Promise<Outbox> {
  const activeScope = options.scope ?? defaultScope;
  const progress = new Map<string, { sentBytes: number; totalBytes: number }>();
  let lastError: AppError | null = null;

  /** The bank scope the entry's own profile has now. */
  const ownerScope = (profileId: string): BankScope | null => {
    if (options.owners) return options.owners.scope(profileId);
    const here = activeScope();
    return here.profileId === profileId ? here : null;
  };
  const mine = (e: OutboxEntry): boolean => {
    const now = e.scope ? ownerScope(e.scope.profileId) : null;
    return e.scope !== undefined && now !== null && scopeAllows(e.scope, now);
  };
  const view = (e: OutboxEntry): AnswerView => viewOf(e, progress.get(e.id) ?? null, !mine(e));

  const deps: AnswerJobDeps = {
    log: options.log,
    bank: (e) => (options.owners && e.scope ? options.owners.bank(e.scope.profileId) : options.bank),
    mine,
    activeScope,
    fileSource: options.fileSource,
    now: options.now,
    progress,
    setLastError: (err) => (lastError = err),
    ...(options.audit ? { audit: options.audit } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.onUploaded ? { onUploaded: options.onUploaded } : {}),
    ...(options.onSent ? { onSent: options.onSent } : {}),
    ...(options.onEnded ? { onEnded: options.onEnded } : {}),
    ...(options.beforeWrite ? { beforeWrite: options.beforeWrite } : {}),
    ...(options.busy ? { busy: options.busy } : {}),
  };
  const queue = await openJobQueue<OutboxEntry>({
    file: options.file,
    name: 'rfi-answers',
    log: options.log,
    retry: { ...defaultOutboxRetry, ...options.retry },
    ...(options.codec ? { codec: options.codec } : {}),
    ...(options.onProblem ? { onProblem: options.onProblem } : {}),
    onChange: (e) => options.onChange?.(view(e)),
    ...(options.autoRun === false ? { autoRun: false } : {}),
    kind: answerJob(deps),
  });

  const outbox: Outbox = {
    async enqueue(a, owner) {
      const scope = owner ?? activeScope();
      if (outbox.active(a.rfiId, a.questionId, scope)) {
        throw new AppFailure({
          kind: 'local',
          message: 'An answer to this question is already on its way. Wait for it, or dismiss it first.',
        });
      }
      const e = newEntry(a, scope);
      await queue.add(e);
      return view(e);
    },
    async retry(id) {
      const e = queue.get(id);
      if (!e) throw notFound();
      const patch = retriedPatch(e);
      if (patch) await queue.runNow(e, patch);
      return view(e);
    },
    async dismiss(id) {
      const e = queue.get(id);
      if (!e) throw notFound();
      // An answer waiting for another bank is not being sent: it may be removed (its bank may be
      // gone for good).
      const waiting = !mine(e) && queue.running() !== id;
      if (!isFinished(e.state) && !waiting) {
        throw new AppFailure({
          kind: 'local',
          message: 'This answer is still being sent; it cannot be dismissed now.',
        });
      }
      progress.delete(id);
      await queue.remove(id);
      return e;
    },
    list: (rfiId) =>
      queue
        .all()
        .filter((e) => rfiId === undefined || e.rfiId === rfiId)
        .map(view),
    get: (id) => queue.get(id),
    active(rfiId, questionId, owner) {
      const here = owner ?? activeScope();
      return queue
        .all()
        .find(
          (e) =>
            e.rfiId === rfiId &&
            e.questionId === questionId &&
            !isFinished(e.state) &&
            e.scope?.profileId === here.profileId &&
            e.scope.origin === here.origin,
        );
    },
    async removeProfile(profileId) {
      // The profile's session is gone, so an attempt under way stops at its next request: the queue
      // waits for it.
      const gone = await queue.removeWhere((e) => e.scope?.profileId === profileId);
      for (const e of gone) progress.delete(e.id);
      return gone;
    },
    wake: () => queue.wake(),
    runDue: () => queue.runDue(),
    idle: () => queue.idle(),
    lastError: () => lastError,
    dispose: () => queue.dispose(),
  };
  // A response interrupted while being sent (the app stopped): the bank may hold it. (An upload
  // interrupted is queued again: nothing to say.)
  for (const e of queue.resumed.filter((x) => x.state === 'verifying')) {
    void auditLine(deps, e, {
      operation: 'rfi.respond',
      target: e.rfiId,
      outcome: 'pending',
      detail: `interrupted while sending (the app stopped); the RFI is re-read before sending again; ${answerDetail(e)}`,
    });
  }
  queue.start();
  return outbox;
}
