/**
 * The state machine of one RFI answer, as pure functions: what an answer becomes after each thing
 * that can happen to it (the bank's answers, a failure, a restart, the analyst's retry). They
 * decide; the answer job (answer-job.ts) does the bank calls and the job queue writes the result.
 *
 *   queued ──► uploading ──► sending ──► sent
 *     ▲  │         │            │
 *     │  │         │            ├─ ambiguous failure (network error, timeout, 5xx, 409) ─► verifying
 *     │  │         │            ├─ 422 QUESTION_NOT_AWAITING_RESPONSE ─► conflict
 *     │  │         │            └─ other refusal ─► failed
 *     │  │         └─ 403 UPLOAD_URL_EXPIRED ─► fresh upload URL, PUT again
 *     │  └─ the question is no longer action_required (checked before any upload) ─► conflict
 *     └─ transient failure (429, 401) or a failed read: retry with backoff
 *   (which failure is which: shared/failure-policy)
 *   verifying: re-reads the RFI. Our response is there (a new customer response with our text and
 *   document ids) ─► sent; the question still awaits a response ─► sending again; else ─► conflict.
 *
 * A restart turns `uploading` back into `queued` (uploads are repeatable until the document is
 * used) and `sending` into `verifying` (the POST may have reached the bank), so no answer is
 * submitted twice.
 */

import { z } from 'zod';
import type { RfiQuestion } from '../../shared/api/rfis';
import type { AnswerState } from '../../shared/ipc/channels/rfi-answers';
import { classifyFailure } from '../../shared/failure-policy';
import type { AppError } from '../../shared/ipc/errors';
import type { BankScope } from '../bank/scope';
import { queuedJobSchema, type JobResult } from '../infra/job-queue';

const docSchema = z.object({
  ref: z.string(),
  name: z.string(),
  contentType: z.string(),
  documentType: z.string(),
  sizeBytes: z.number(),
  documentId: z.string().nullable(),
  url: z.string().nullable(),
  expiresAt: z.string().nullable(),
  uploaded: z.boolean(),
  /** sha256 (hex) of the bytes last sent for this document (absent before the first upload). */
  sha256: z.string().nullable().optional(),
});
const errorSchema = z.object({ kind: z.string(), message: z.string(), reason: z.string().optional() });
const scopeSchema = z.object({
  profileId: z.string(),
  origin: z.string(),
  legalEntityId: z.string().nullable(),
});
export const entrySchema = queuedJobSchema.extend({
  /** The bank this answer is for (absent in files from before scoping: the active one adopts it). */
  scope: scopeSchema.optional(),
  rfiId: z.string(),
  questionId: z.string(),
  questionType: z.string(),
  text: z.string(),
  documents: z.array(docSchema),
  state: z.enum(['queued', 'uploading', 'sending', 'verifying', 'sent', 'failed', 'conflict']),
  /** Response ids on the question before our first POST: a new customer one is a candidate for ours. */
  knownResponseIds: z.array(z.string()).nullable(),
  attempts: z.number(),
  lastError: errorSchema.nullable(),
  conflict: z
    .object({
      questionStatus: z.string(),
      latestStaffResponse: z.string().nullable(),
      detectedAt: z.string(),
    })
    .nullable(),
  responseId: z.string().nullable(),
  /**
   * A team's send job this answer carries out (four-eyes approved): the bank sees the job's
   * idempotency key on every attempt, and the outcome is reported under the lease number.
   */
  teamJob: z
    .object({
      id: z.string().max(64),
      legalEntityId: z.string().max(128),
      leaseNumber: z.number().int(),
      idempotencyKey: z.string().max(255),
    })
    .optional(),
});
export type OutboxEntry = z.infer<typeof entrySchema>;
export type OutboxDocument = z.infer<typeof docSchema>;
type Conflict = NonNullable<OutboxEntry['conflict']>;

/**
 * What happens next to an answer: the job queue's result (its patch is the answer's new state),
 * with the error the outbox reports as its last one, if any.
 */
export type AnswerStep = JobResult<OutboxEntry> & { error?: AppError };

/** Thrown by a bank call of an entry whose bank is not its profile's any more: nothing was sent. */
export const OTHER_BANK = 'ANSWER_FOR_ANOTHER_BANK';
/** A write stopped: another workstation holds the answer's team send lease now. */
export const SEND_TAKEN_OVER = 'SEND_TAKEN_OVER';

const FINISHED: ReadonlySet<AnswerState> = new Set(['sent', 'failed', 'conflict']);

export const isFinished = (state: AnswerState): boolean => FINISHED.has(state);

export function shortError(e: AppError): OutboxEntry['lastError'] {
  return { kind: e.kind, message: e.message, ...(e.reason ? { reason: e.reason } : {}) };
}

function contentOf(q: { question_type: string }, r: RfiQuestion['responses'][number]) {
  const c = r.response[q.question_type] ?? Object.values(r.response)[0];
  return { text: c?.response_text ?? '', documentIds: c?.document_ids ?? [] };
}

/**
 * Our own response among the question's responses (after an ambiguous failure). An answer taken
 * over from another workstation's send job has uploaded nothing yet: the other workstation's
 * response carries its own document ids, so the same text with as many documents is ours.
 */
export function findOwnResponse(entry: OutboxEntry, q: RfiQuestion): string | null {
  const known = new Set(entry.knownResponseIds ?? []);
  const ourDocs = entry.documents.map((d) => d.documentId).filter((d): d is string => d !== null);
  const takenOver = entry.teamJob !== undefined && entry.documents.every((d) => d.documentId === null);
  for (const r of q.responses) {
    if (r.responder_type !== 'customer' || known.has(r.id)) continue;
    const c = contentOf(q, r);
    const sameDocs = takenOver
      ? c.documentIds.length === entry.documents.length
      : c.documentIds.length === ourDocs.length && ourDocs.every((d) => c.documentIds.includes(d));
    if (sameDocs && c.text === entry.text) return r.id;
  }
  return null;
}

/** What changed on the question, as the conflict shows it. */
export function conflictOf(q: RfiQuestion, now: Date = new Date()): Conflict {
  const staff = [...q.responses].reverse().find((r) => r.responder_type !== 'customer');
  return {
    questionStatus: q.status,
    latestStaffResponse: staff ? contentOf(q, staff).text || '(documents only)' : null,
    detectedAt: now.toISOString(),
  };
}

/**
 * What a sent answer keeps: the bank confirmed it, so its text, file names, file refs and upload
 * URLs are dropped; ids, types, sizes, status and times stay (the bank holds the answer itself).
 */
export function withoutContent(
  e: OutboxEntry,
): Pick<OutboxEntry, 'text' | 'documents' | 'lastError' | 'conflict'> {
  return {
    text: '',
    documents: e.documents.map((d) => ({
      ref: '',
      name: '',
      contentType: d.contentType,
      documentType: d.documentType,
      sizeBytes: d.sizeBytes,
      documentId: d.documentId,
      url: null,
      expiresAt: null,
      uploaded: true,
      sha256: d.sha256 ?? null,
    })),
    lastError: null,
    conflict: null,
  };
}

export function hasContent(e: OutboxEntry): boolean {
  return e.text !== '' || e.documents.some((d) => d.ref !== '' || d.name !== '' || d.url !== null);
}

/**
 * A stored answer in an older shape: one from before scoping belongs to the bank active when it is
 * first opened; a sent one from before keeps no content either. Null: nothing to change.
 */
export function upgradeStored(e: OutboxEntry, activeScope: () => BankScope): Partial<OutboxEntry> | null {
  const patch: Partial<OutboxEntry> = {};
  if (!e.scope) patch.scope = activeScope();
  if (e.state === 'sent' && hasContent(e)) Object.assign(patch, withoutContent(e));
  return Object.keys(patch).length > 0 ? patch : null;
}

/** An answer stored mid-run (the app stopped): what it becomes. Null: it was not under way. */
export function afterStop(e: OutboxEntry): Partial<OutboxEntry> | null {
  // The POST may have reached the bank: verified before anything is resent.
  if (e.state === 'sending') return { state: 'verifying' };
  // Uploads are repeatable until the document is used.
  if (e.state === 'uploading') return { state: 'queued' };
  return null;
}

/** The question no longer awaits a response: the answer is in conflict (nothing more is sent). */
export function conflictStep(q: RfiQuestion, patch: Partial<OutboxEntry> = {}): AnswerStep {
  return { outcome: 'failed', patch: { ...patch, state: 'conflict', conflict: conflictOf(q) } };
}

/** The question read before any upload still awaits a response: the answer starts on its way. */
export function startPatch(e: OutboxEntry, q: RfiQuestion): Partial<OutboxEntry> {
  return {
    state: e.documents.some((d) => !d.uploaded) ? 'uploading' : e.state,
    knownResponseIds: q.responses.map((r) => r.id),
  };
}

/** Written ahead of the POST: from here on, a crash means it may have reached the bank. */
export function sendingPatch(e: OutboxEntry): Partial<OutboxEntry> {
  return { state: 'sending', attempts: e.attempts + 1 };
}

/** The bank holds our response: the answer is sent and keeps no content. */
export function sentStep(e: OutboxEntry, responseId: string): AnswerStep {
  return {
    outcome: 'done',
    patch: { ...withoutContent(e), state: 'sent', responseId, lastError: null, conflict: null },
  };
}

const retryLater = (
  state: 'queued' | 'verifying',
  de: AppError,
  patch: Partial<OutboxEntry> = {},
): AnswerStep => ({
  outcome: state === 'verifying' ? 'verify' : 'retry',
  ...(de.retryAfterMs !== undefined ? { afterMs: de.retryAfterMs } : {}),
  patch: { ...patch, state, lastError: shortError(de) },
  error: de,
});

const failed = (de: AppError, patch: Partial<OutboxEntry> = {}): AnswerStep => ({
  outcome: 'failed',
  patch: { ...patch, state: 'failed', lastError: shortError(de) },
  error: de,
});

/** A refusal of the POST that means the question moved on: the RFI is re-read to show what changed. */
export const isNotAwaiting = (de: AppError): boolean =>
  de.kind === 'precondition' && de.reason === 'QUESTION_NOT_AWAITING_RESPONSE';

/**
 * The POST failed. `q` is the question re-read after a "not awaiting" refusal (null when it could
 * not be read).
 */
export function afterSendFailure(e: OutboxEntry, de: AppError, q: RfiQuestion | null = null): AnswerStep {
  if (de.reason === OTHER_BANK) {
    // Nothing left: the POST may have gone in an earlier attempt, so re-read before sending.
    return { outcome: 'wait', patch: { state: e.attempts > 1 ? 'verifying' : 'queued' } };
  }
  if (isNotAwaiting(de)) {
    const unknown: Conflict = {
      questionStatus: 'unknown',
      latestStaffResponse: null,
      detectedAt: new Date().toISOString(),
    };
    return q
      ? conflictStep(q, { lastError: shortError(de) })
      : { outcome: 'failed', patch: { state: 'conflict', lastError: shortError(de), conflict: unknown } };
  }
  if (de.kind === 'precondition' && de.reason === 'DOCUMENT_NOT_UPLOADED') {
    // Upload again with fresh URLs (bounded by the failure count).
    const documents = e.documents.map((d) => ({
      ...d,
      uploaded: false,
      url: null,
      documentId: null,
      expiresAt: null,
    }));
    return e.failures >= 3 ? failed(de, { documents }) : retryLater('queued', de, { documents });
  }
  switch (classifyFailure(de, 'write')) {
    case 'transient':
      // 429, 401: the bank did not process the request; run it again later.
      return retryLater('queued', de);
    case 'ambiguous':
      // Network error, timeout, 5xx, 409, or a 2xx we could not read: the bank may have stored
      // it. Re-read before sending again.
      return retryLater('verifying', de);
    case 'refused':
      return failed(de);
  }
}

/** Verifying: what the re-read question says about our earlier POST. */
export function afterReRead(
  e: OutboxEntry,
  q: RfiQuestion,
): { next: 'sent'; responseId: string } | { next: 'conflict' } | { next: 'send' } {
  const own = findOwnResponse(e, q);
  if (own) return { next: 'sent', responseId: own };
  if (q.status !== 'action_required') return { next: 'conflict' };
  return { next: 'send' };
}

/** Anything else failed during a run (a read, an upload, the bank changed). */
export function afterRunFailure(e: OutboxEntry, de: AppError): AnswerStep {
  const state = e.state === 'verifying' || e.state === 'sending' ? 'verifying' : 'queued';
  // The profile's bank changed under this entry: it waits for its own (no failure counted).
  if (de.reason === OTHER_BANK) return { outcome: 'wait', patch: { state } };
  // Anything but a refusal (of the reads, the upload or the send) is waited out; while
  // verifying, only a vanished RFI or question ends the answer.
  if (classifyFailure(de, 'write') !== 'refused' || (state === 'verifying' && de.kind !== 'not_found')) {
    return retryLater(state, de);
  }
  return failed(de);
}

/**
 * The analyst retries: a failed or conflicting answer is checked again from the start (the question
 * may await a response again). Null: a sent answer stays as it is.
 */
export function retriedPatch(e: OutboxEntry): Partial<OutboxEntry> | null {
  if (e.state === 'sent') return null;
  return { state: e.state === 'failed' || e.state === 'conflict' ? 'queued' : e.state, conflict: null };
}
