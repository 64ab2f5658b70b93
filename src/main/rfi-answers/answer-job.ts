/**
 * One RFI answer as a job of the durable job queue: its run re-reads the question, uploads the
 * documents, sends the response and, after an ambiguous failure, verifies by re-reading the RFI.
 * It does the bank calls and writes the audit lines; answer-state.ts decides what each outcome
 * makes of the answer, and the queue stores and schedules it.
 *
 * Every bank call goes through the answer's own profile and re-checks, right before it leaves,
 * that the profile still has the bank scope the answer was written for.
 */

import type { Rfi, RfiQuestion } from '../../shared/api/rfis';
import { classifyFailure } from '../../shared/failure-policy';
import type { DocumentType, UploadContentType } from '../../shared/catalogue';
import { AppFailure } from '../../shared/ipc/errors';
import type { AppError } from '../../shared/ipc/errors';
import type { RfiResponseBody } from '../bank/client';
import type { UploadSource } from '../infra/sealed-blob';
import type { JobContext, JobKind } from '../infra/job-queue';
import type { Logger } from '../infra/log';
import type { BusyGuard } from '../desktop/busy';
import type { BankScope } from '../bank/scope';
import {
  afterReRead,
  afterRunFailure,
  afterSendFailure,
  afterStop,
  conflictStep,
  entrySchema,
  isFinished,
  isNotAwaiting,
  OTHER_BANK,
  SEND_TAKEN_OVER,
  sendingPatch,
  sentStep,
  shortError,
  startPatch,
  upgradeStored,
} from './answer-state';
import type { AnswerStep, OutboxDocument, OutboxEntry } from './answer-state';

export interface OutboxBank {
  getRfi(rfiId: string): Promise<Rfi>;
  createUploadUrl(body: {
    related_id: string;
    content_type: UploadContentType;
    document_type: DocumentType;
  }): Promise<{ id: string; url: string; expires_at: string }>;
  uploadDocument(
    url: string,
    file: string | UploadSource,
    contentType: string,
    o: { onProgress?(sent: number, total: number): void },
  ): Promise<unknown>;
  submitRfiResponse(
    rfiId: string,
    questionId: string,
    body: RfiResponseBody,
    o?: { idempotencyKey?: string },
  ): Promise<{ id: string }>;
}

export interface UploadedDocument {
  /** The profile the answer went out for (the document is that bank's). */
  profileId: string;
  documentId: string;
  name: string;
  sha256: string;
  sizeBytes: number;
  contentType: string;
  documentType: string;
  rfiId: string;
  questionId: string;
  answerId: string;
  uploadedAt: string;
}

export interface OutboxAuditLine {
  operation: 'rfi.upload' | 'rfi.respond';
  target: string | null;
  outcome: 'succeeded' | 'failed' | 'pending';
  detail: string;
  /** The profile that owns the answer (absent: one queued before answers carried their owner). */
  profileId?: string | undefined;
}

export interface AnswerJobDeps {
  log: Logger;
  /** The answer's own bank client (its profile's). */
  bank(e: OutboxEntry): OutboxBank;
  /** Whether the answer's profile has the bank scope it was written for, now. */
  mine(e: OutboxEntry): boolean;
  /** The active profile's bank scope (adopted by answers stored before scoping). */
  activeScope(): BankScope;
  /** The path of a staged file (throws for an unknown ref). */
  /** The bytes of a staged file as they are sent (throws for an unknown ref). */
  fileSource(ref: string): UploadSource;
  /** Server time (upload URL expiry). */
  now(): number;
  /** Upload progress per answer (shown in its view while uploading). */
  progress: Map<string, { sentBytes: number; totalBytes: number }>;
  /** The last failure of any answer (null once one is sent). */
  setLastError(e: AppError | null): void;
  audit?(line: OutboxAuditLine): Promise<void>;
  onProgress?(p: { answerId: string; sentBytes: number; totalBytes: number }): void;
  onUploaded?(doc: UploadedDocument): void;
  onSent?(entry: OutboxEntry): void;
  /** Told once an answer ended failed or in conflict (nothing of it is at the bank). */
  onEnded?(entry: OutboxEntry): void;
  /**
   * Before each bank write of an answer (each document's upload, the response): resolves while
   * the answer may write; a team send job's lease no longer held throws `SEND_TAKEN_OVER` (the
   * answer stops and re-reads the bank), a lease that cannot be confirmed now throws to retry.
   */
  beforeWrite?(entry: OutboxEntry): Promise<void>;
  busy?: Pick<BusyGuard, 'run'>;
}

export function asAppError(err: unknown): AppError {
  if (err instanceof AppFailure) return err.toAppError();
  return { kind: 'internal', message: err instanceof Error ? err.message : 'Unexpected error' };
}

/** The audit outcome and wording of a failed write (the failure policy's pending/failed). */
function failedOutcome(de: AppError): { outcome: 'failed' | 'pending'; why: string } {
  return {
    outcome: classifyFailure(de, 'write') === 'refused' ? 'failed' : 'pending',
    why: `${de.kind}${de.reason ? ` ${de.reason}` : ''}: ${de.message}`,
  };
}

/** What an audit line says about an answer (ids and hashes, never its text or file names). */
export function answerDetail(e: OutboxEntry): string {
  const docs = e.documents
    .filter((d) => d.documentId !== null)
    .map((d) => `${d.documentId} sha256 ${d.sha256 ?? 'unknown'}`);
  return (
    `question ${e.questionId} (${e.questionType}); answer ${e.id}` +
    (e.text !== '' ? `; text ${e.text.length} characters` : '') +
    `; documents: ${docs.length > 0 ? docs.join(', ') : 'none'}`
  );
}

const uploadDetail = (e: OutboxEntry, d: OutboxDocument): string =>
  `sha256 ${d.sha256 ?? 'unknown'}; ${d.sizeBytes} bytes ${d.contentType} (${d.documentType}); ` +
  `RFI ${e.rfiId}; question ${e.questionId}; answer ${e.id}`;

function question(rfi: Rfi, e: OutboxEntry): RfiQuestion {
  const q = rfi.questions.find((x) => x.id === e.questionId);
  if (!q) {
    throw new AppFailure({ kind: 'not_found', message: `The RFI no longer has question ${e.questionId}.` });
  }
  return q;
}

/** The bank calls of one answer, each refused (nothing sent) once its profile's scope changed. */
function bankFor(deps: AnswerJobDeps, e: OutboxEntry): OutboxBank {
  const ensure = (): void => {
    if (!deps.mine(e)) {
      throw new AppFailure({
        kind: 'local',
        reason: OTHER_BANK,
        message: `Waiting for ${e.scope?.origin ?? 'its bank'}: this answer is sent only to the bank it was written for.`,
      });
    }
  };
  return {
    getRfi: (id) => (ensure(), deps.bank(e).getRfi(id)),
    createUploadUrl: (b) => (ensure(), deps.bank(e).createUploadUrl(b)),
    uploadDocument: (url, file, ct, o) => (ensure(), deps.bank(e).uploadDocument(url, file, ct, o)),
    submitRfiResponse: (rfiId, qid, body, o) => (
      ensure(),
      deps.bank(e).submitRfiResponse(rfiId, qid, body, o)
    ),
  };
}

/**
 * An audit line that never throws (a lost line is logged), recorded under the profile that owns the
 * answer: its credential and bank, not the default profile's, whatever profile is active.
 */
export async function auditLine(
  deps: AnswerJobDeps,
  e: Pick<OutboxEntry, 'scope'>,
  line: Omit<OutboxAuditLine, 'profileId'>,
): Promise<void> {
  try {
    await deps.audit?.({ ...line, profileId: e.scope?.profileId });
  } catch (err) {
    deps.log.error('rfi-answers: audit line not recorded', { operation: line.operation, error: err });
  }
}

/** A hash that answers its error instead of rejecting. */
function settle(hash: Promise<string>): Promise<{ sha256: string } | { err: unknown }> {
  return hash.then(
    (sha256) => ({ sha256 }),
    (err: unknown) => ({ err }),
  );
}

/** The sha256 a bank's answer to a PUT says it received, when it says one. */
function receiptSha256(receipt: unknown): string | null {
  const sha = (receipt as { sha256?: unknown } | null)?.sha256;
  return typeof sha === 'string' ? sha : null;
}

/**
 * One document's bytes PUT to its URL, `d.sha256` set to their sha256 whatever the outcome (its
 * audit line carries it), and the bank's receipt checked against it.
 *
 * Bytes whose sha256 is known (taken when the file was picked or staged, and the file unchanged
 * since) go out as they are: hashing them on the way out was most of what the upload cost main's
 * thread beyond curl's (SHA-256 without SHA instructions is slower than the loopback). Others are
 * hashed as they go out (the sha256 of the very bytes sent), never in a pass of their own before.
 * The bank's receipt names the sha256 of what it stored: one that differs from a known sha256 (the
 * file was changed on disk keeping its size and time, or the bytes were damaged on the way) sends
 * the bytes again, hashed as they go; one that differs from the hash of the bytes sent fails.
 */
async function putChecked(
  deps: AnswerJobDeps,
  e: OutboxEntry,
  d: OutboxDocument,
  bank: OutboxBank,
  source: UploadSource,
  onProgress: (sent: number) => void,
): Promise<void> {
  const recorded = await (source.known?.() ?? Promise.resolve(null)).catch(() => null);
  for (let known = recorded; ; known = null) {
    const hash = known === null;
    /** Sets `d.sha256` to the bytes' sha256; answers the error when they could not be read for it. */
    const settleSha = async (): Promise<unknown> => {
      const sha = known ?? source.sentSha256?.() ?? null;
      // The upload stopped before the end, or the source hashes nothing: read once more for it.
      const hashed = sha !== null ? { sha256: sha } : await settle(source.sha256());
      if ('err' in hashed) return hashed.err;
      d.sha256 = hashed.sha256;
      return null;
    };
    let receipt: unknown;
    try {
      receipt = await bank.uploadDocument(
        d.url as string,
        { ...source, open: () => source.open({ hash }) },
        d.contentType,
        { onProgress },
      );
    } catch (err) {
      await settleSha();
      throw err;
    }
    const unreadable = await settleSha();
    if (unreadable !== null) {
      throw new AppFailure({ kind: 'local', message: 'unreadable' }, { cause: unreadable });
    }
    const confirmed = receiptSha256(receipt);
    if (confirmed === null || confirmed === d.sha256) return;
    if (known === null) {
      throw new AppFailure({
        kind: 'invalid',
        message: `The bank received other bytes of ${d.name} than were sent (the bank's sha256 is ${confirmed}); the answer was not sent.`,
      });
    }
    deps.log.warn('rfi-answers: the bank received other bytes than the file had when added; sending again', {
      answerId: e.id,
    });
    await auditLine(deps, e, {
      operation: 'rfi.upload',
      target: d.documentId,
      outcome: 'pending',
      detail: `the bank received sha256 ${confirmed}, not the sha256 the file had when it was added; sent again, hashed as it goes; ${uploadDetail(e, d)}`,
    });
  }
}

/** Uploads one document (a fresh URL when it has none or it expired, and again when it expires). */
async function uploadDocument(
  deps: AnswerJobDeps,
  e: OutboxEntry,
  d: OutboxDocument,
  save: () => Promise<void>,
  report: (base: number, sent: number) => void,
): Promise<void> {
  const bank = bankFor(deps, e);
  const source = deps.fileSource(d.ref);
  for (let urlAttempt = 1; ; urlAttempt++) {
    await deps.beforeWrite?.(e);
    const expired = d.expiresAt !== null && Date.parse(d.expiresAt) - 30_000 <= deps.now();
    if (!d.url || !d.documentId || expired) {
      const u = await bank.createUploadUrl({
        related_id: e.rfiId,
        content_type: d.contentType as UploadContentType,
        document_type: d.documentType as DocumentType,
      });
      Object.assign(d, { documentId: u.id, url: u.url, expiresAt: u.expires_at, uploaded: false });
      await save();
    }
    try {
      const base = e.documents.filter((x) => x.uploaded).reduce((n, x) => n + x.sizeBytes, 0);
      await putChecked(deps, e, d, bank, source, (sent) => report(base, sent));
      await auditLine(deps, e, {
        operation: 'rfi.upload',
        target: d.documentId,
        outcome: 'succeeded',
        detail: uploadDetail(e, d),
      });
      try {
        deps.onUploaded?.({
          profileId: e.scope?.profileId ?? '',
          documentId: d.documentId as string,
          name: d.name,
          sha256: d.sha256 ?? '',
          sizeBytes: d.sizeBytes,
          contentType: d.contentType,
          documentType: d.documentType,
          rfiId: e.rfiId,
          questionId: e.questionId,
          answerId: e.id,
          uploadedAt: new Date().toISOString(),
        });
      } catch (err) {
        deps.log.warn('rfi-answers: onUploaded failed', { error: err });
      }
      return;
    } catch (err) {
      const de = asAppError(err);
      if (de.reason !== OTHER_BANK) {
        const f = failedOutcome(
          de.kind === 'local'
            ? { kind: 'local', message: 'the file could not be read; nothing was sent' }
            : de,
        );
        await auditLine(deps, e, {
          operation: 'rfi.upload',
          target: d.documentId,
          outcome: f.outcome,
          detail: `${f.why}; ${uploadDetail(e, d)}`,
        });
      }
      // The signed URL expired (or was refused): ask for a fresh one and PUT again.
      if (
        de.status === 403 &&
        (de.reason === 'UPLOAD_URL_EXPIRED' || de.reason === 'UPLOAD_URL_INVALID') &&
        urlAttempt < 3
      ) {
        deps.log.info('rfi-answers: upload URL expired; asking for a new one', { answerId: e.id });
        Object.assign(d, { url: null, expiresAt: null, documentId: null });
        await save();
        continue;
      }
      if (de.kind === 'local' && de.reason !== OTHER_BANK) {
        // The client's message names the path; the analyst gets the file's name only.
        throw new AppFailure(
          { kind: 'local', message: `${d.name} can no longer be read. Remove it and add the file again.` },
          { cause: err },
        );
      }
      throw err;
    }
  }
}

/** Uploads every document not uploaded yet, reporting progress over all of them. */
async function upload(deps: AnswerJobDeps, e: OutboxEntry, ctx: JobContext<OutboxEntry>): Promise<void> {
  const total = e.documents.reduce((n, d) => n + d.sizeBytes, 0);
  let lastEmit = 0;
  for (const d of e.documents) {
    if (d.uploaded) continue;
    await uploadDocument(deps, e, d, ctx.save, (base, sent) => {
      const p = { sentBytes: base + sent, totalBytes: total };
      deps.progress.set(e.id, p);
      const t = Date.now();
      if (t - lastEmit >= 100 || sent === d.sizeBytes) {
        lastEmit = t;
        deps.onProgress?.({ answerId: e.id, ...p });
      }
    });
    d.uploaded = true;
    await ctx.save();
  }
  deps.progress.set(e.id, { sentBytes: total, totalBytes: total });
}

/** The bank holds our response: audited first (whoever sees it sent finds it in Activity). */
async function sent(
  deps: AnswerJobDeps,
  e: OutboxEntry,
  responseId: string,
  foundOnReRead = false,
): Promise<AnswerStep> {
  const detail = `${answerDetail(e)}; response ${responseId}${foundOnReRead ? '; confirmed by re-reading the RFI' : ''}`;
  deps.progress.delete(e.id);
  deps.setLastError(null);
  // What the answer was, for the clean-up after sending; the entry itself keeps no content.
  const before: OutboxEntry = { ...e, responseId, documents: e.documents.map((d) => ({ ...d })) };
  await auditLine(deps, e, { operation: 'rfi.respond', target: e.rfiId, outcome: 'succeeded', detail });
  return {
    ...sentStep(e, responseId),
    afterSaved: () => {
      try {
        deps.onSent?.(before);
      } catch (err) {
        deps.log.warn('rfi-answers: onSent failed', { error: err });
      }
    },
  };
}

async function send(deps: AnswerJobDeps, e: OutboxEntry, ctx: JobContext<OutboxEntry>): Promise<AnswerStep> {
  const body: RfiResponseBody = {
    question_type: e.questionType,
    [e.questionType]: {
      response_text: e.text,
      document_ids: e.documents.map((d) => d.documentId).filter((x): x is string => x !== null),
    },
  };
  const bank = bankFor(deps, e);
  await deps.beforeWrite?.(e);
  await ctx.update(sendingPatch(e));
  try {
    // A team's send job: its one key on every attempt, so the bank keeps one response.
    const key = e.teamJob ? { idempotencyKey: e.teamJob.idempotencyKey } : undefined;
    const resp = await bank.submitRfiResponse(e.rfiId, e.questionId, body, key);
    return await sent(deps, e, resp.id);
  } catch (err) {
    const de = asAppError(err);
    if (de.reason === OTHER_BANK) return afterSendFailure(e, de);
    const f = failedOutcome(de);
    await auditLine(deps, e, {
      operation: 'rfi.respond',
      target: e.rfiId,
      outcome: f.outcome,
      detail: `${f.why}; ${answerDetail(e)}`,
    });
    const q = isNotAwaiting(de)
      ? ((await bank.getRfi(e.rfiId).catch(() => null))?.questions.find((x) => x.id === e.questionId) ?? null)
      : null;
    return afterSendFailure(e, de, q);
  }
}

/** Verifying: our response is at the bank (sent), the question moved on (conflict), or send again. */
async function verify(
  deps: AnswerJobDeps,
  e: OutboxEntry,
  ctx: JobContext<OutboxEntry>,
): Promise<AnswerStep> {
  const q = question(await bankFor(deps, e).getRfi(e.rfiId), e);
  const found = afterReRead(e, q);
  if (found.next === 'sent') {
    deps.log.info('rfi-answers: found our response after an ambiguous failure', {
      answerId: e.id,
      responseId: found.responseId,
    });
    return sent(deps, e, found.responseId, true);
  }
  if (found.next === 'conflict') {
    await auditLine(deps, e, {
      operation: 'rfi.respond',
      target: e.rfiId,
      outcome: 'failed',
      detail: `not found at the bank on re-reading the RFI, and the question is ${q.status} now; ${answerDetail(e)}`,
    });
    return conflictStep(q);
  }
  // Taken over before anything was uploaded here: the documents go up first.
  if (e.documents.some((d) => !d.uploaded)) {
    await ctx.update(startPatch(e, q));
    await upload(deps, e, ctx);
  }
  return send(deps, e, ctx);
}

/**
 * Another workstation holds the answer's send lease now: nothing more is written from here. The
 * bank is re-read: the response may be there already (ours, or the new holder's), the question
 * may have moved on; otherwise the answer ends here, saying who sends it.
 */
async function takenOver(deps: AnswerJobDeps, e: OutboxEntry, de: AppError): Promise<AnswerStep> {
  deps.progress.delete(e.id);
  let q: RfiQuestion;
  try {
    q = question(await bankFor(deps, e).getRfi(e.rfiId), e);
  } catch (err) {
    // Not read now: verified on the next run (which writes nothing while the lease is not held).
    return afterRunFailure({ ...e, state: 'verifying' }, asAppError(err));
  }
  const found = afterReRead(e, q);
  if (found.next === 'sent') return sent(deps, e, found.responseId, true);
  if (found.next === 'conflict') return conflictStep(q);
  deps.log.info('rfi-answers: another workstation took over the send', { answerId: e.id });
  return { outcome: 'failed', patch: { state: 'failed', lastError: shortError(de) } };
}

/** One run of an answer, from where it stopped. */
async function runAnswer(
  deps: AnswerJobDeps,
  e: OutboxEntry,
  ctx: JobContext<OutboxEntry>,
): Promise<AnswerStep> {
  try {
    if (e.state === 'verifying' || e.state === 'sending') return await verify(deps, e, ctx);
    const q = question(await bankFor(deps, e).getRfi(e.rfiId), e);
    if (q.status !== 'action_required') {
      await auditLine(deps, e, {
        operation: 'rfi.respond',
        target: e.rfiId,
        outcome: 'failed',
        detail: `not sent: the question is ${q.status}, no longer awaiting a response; ${answerDetail(e)}`,
      });
      return conflictStep(q);
    }
    await ctx.update(startPatch(e, q));
    await upload(deps, e, ctx);
    return await send(deps, e, ctx);
  } catch (err) {
    if (!(err instanceof AppFailure))
      deps.log.error('rfi-answers: unexpected failure', { answerId: e.id, error: err });
    const de = asAppError(err);
    if (de.reason === SEND_TAKEN_OVER) return takenOver(deps, e, de);
    return afterRunFailure(e, de);
  }
}

/** RFI answers as a kind of job: stored as outbox entries, run through their own profile's bank. */
export function answerJob(deps: AnswerJobDeps): JobKind<OutboxEntry> {
  const run = async (e: OutboxEntry, ctx: JobContext<OutboxEntry>): Promise<AnswerStep> => {
    const step = await runAnswer(deps, e, ctx);
    if (step.error) deps.setLastError(step.error);
    const state = step.patch?.state;
    if (deps.onEnded && (state === 'failed' || state === 'conflict')) {
      const before = step.afterSaved;
      const ended: OutboxEntry = { ...e, ...step.patch };
      return {
        ...step,
        afterSaved: () => {
          before?.();
          try {
            deps.onEnded?.(ended);
          } catch (err) {
            deps.log.warn('rfi-answers: onEnded failed', { error: err });
          }
        },
      };
    }
    return step;
  };
  return {
    label: 'The outbox of RFI answers',
    consequence: 'A new one was started.',
    schema: entrySchema,
    upgrade: (e) => upgradeStored(e, deps.activeScope),
    interrupted: afterStop,
    finished: (e) => isFinished(e.state),
    // Answers of a profile whose bank scope changed wait for a wake-up (the session changed).
    ready: deps.mine,
    // The whole answer (re-read, uploads, send) holds the busy guard: no update restart between
    // the upload of its documents and the send.
    run: (e, ctx) => (deps.busy ? deps.busy.run('an answer is being sent', () => run(e, ctx)) : run(e, ctx)),
  };
}
