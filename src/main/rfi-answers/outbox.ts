/**
 * The durable outbox of RFI answers.
 *
 * Every answer is written to disk (temp file, fsync, rename) before anything is sent, and again
 * before each step that talks to the bank (write-ahead), so after a crash or restart the outbox
 * knows where it stopped. States:
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
 * Every entry belongs to the bank scope it was written for (profile, origin, legal entity) and is
 * only worked on while the active session has that scope; meanwhile it waits, shown as waiting
 * for that bank, and every bank call re-checks the scope right before it leaves. The file is
 * written through the at-rest codec (encrypted with the data key when there is one).
 *
 * A restart turns `uploading` back into `queued` (uploads are repeatable until the document is
 * used) and `sending` into `verifying` (the POST may have reached the bank), so no answer is
 * submitted twice. Nothing is dropped: failed and conflicting answers stay until the analyst
 * retries or dismisses them, and their drafts are kept.
 */

import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Rfi, RfiQuestion } from '../../shared/api/rfis';
import { classifyFailure } from '../../shared/failure-policy';
import type { DocumentType, UploadContentType } from '../../shared/catalogue';
import type { AnswerState, AnswerView, StagedFileView } from '../../shared/ipc/channels/rfi-answers';
import { DeskFailure } from '../../shared/ipc/errors';
import type { DeskError } from '../../shared/ipc/errors';
import type { AtRestCodec } from '../infra/at-rest';
import type { RfiResponseBody } from '../bank/client';
import { scopeAllows } from '../bank/scope';
import type { BankScope } from '../bank/scope';
import { createSerialQueue } from '../infra/durable-file';
import type { UploadSource } from '../infra/sealed-blob';
import { stateFile } from '../infra/json-store';
import type { Logger } from '../infra/log';
import type { BusyGuard } from '../desktop/busy';
import { backoffDelay } from '../infra/backoff';

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
  submitRfiResponse(rfiId: string, questionId: string, body: RfiResponseBody): Promise<{ id: string }>;
}

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
const entrySchema = z.object({
  id: z.string(),
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
  failures: z.number(),
  nextAttemptAt: z.number().nullable(),
  lastError: errorSchema.nullable(),
  conflict: z
    .object({
      questionStatus: z.string(),
      latestStaffResponse: z.string().nullable(),
      detectedAt: z.string(),
    })
    .nullable(),
  responseId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type OutboxEntry = z.infer<typeof entrySchema>;
export type OutboxDocument = z.infer<typeof docSchema>;
const outboxFile = z.object({ version: z.literal(1), entries: z.array(entrySchema) });

const outboxFormat = {
  label: 'The outbox of RFI answers',
  consequence: 'A new one was started.',
  version: 1,
  schema: outboxFile,
};

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

export interface UploadedDocument {
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
}

/** The audit outcome and wording of a failed write (the failure policy's pending/failed). */
function failedOutcome(de: DeskError): { outcome: 'failed' | 'pending'; why: string } {
  return {
    outcome: classifyFailure(de, 'write') === 'refused' ? 'failed' : 'pending',
    why: `${de.kind}${de.reason ? ` ${de.reason}` : ''}: ${de.message}`,
  };
}

export interface NewAnswer {
  rfiId: string;
  questionId: string;
  questionType: string;
  text: string;
  documents: Array<Pick<OutboxDocument, 'ref' | 'name' | 'contentType' | 'documentType' | 'sizeBytes'>>;
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
  lastError(): DeskError | null;
  dispose(): Promise<void>;
}

const FINISHED: ReadonlySet<AnswerState> = new Set(['sent', 'failed', 'conflict']);

function asDeskError(err: unknown): DeskError {
  if (err instanceof DeskFailure) return err.toDeskError();
  return { kind: 'internal', message: err instanceof Error ? err.message : 'Unexpected error' };
}

function shortError(e: DeskError): OutboxEntry['lastError'] {
  return { kind: e.kind, message: e.message, ...(e.reason ? { reason: e.reason } : {}) };
}

function contentOf(q: { question_type: string }, r: RfiQuestion['responses'][number]) {
  const c = r.response[q.question_type] ?? Object.values(r.response)[0];
  return { text: c?.response_text ?? '', documentIds: c?.document_ids ?? [] };
}

/** Our own response among the question's responses (after an ambiguous failure). */
export function findOwnResponse(entry: OutboxEntry, q: RfiQuestion): string | null {
  const known = new Set(entry.knownResponseIds ?? []);
  const ourDocs = entry.documents.map((d) => d.documentId).filter((d): d is string => d !== null);
  for (const r of q.responses) {
    if (r.responder_type !== 'customer' || known.has(r.id)) continue;
    const c = contentOf(q, r);
    const sameDocs =
      c.documentIds.length === ourDocs.length && ourDocs.every((d) => c.documentIds.includes(d));
    if (sameDocs && c.text === entry.text) return r.id;
  }
  return null;
}

function conflictOf(q: RfiQuestion): NonNullable<OutboxEntry['conflict']> {
  const staff = [...q.responses].reverse().find((r) => r.responder_type !== 'customer');
  return {
    questionStatus: q.status,
    latestStaffResponse: staff ? contentOf(q, staff).text || '(documents only)' : null,
    detectedAt: new Date().toISOString(),
  };
}

/**
 * What a sent answer keeps: the bank confirmed it, so its text, file names, file refs and upload
 * URLs are dropped; ids, types, sizes, status and times stay (the bank holds the answer itself).
 */
function withoutContent(e: OutboxEntry): Pick<OutboxEntry, 'text' | 'documents' | 'lastError' | 'conflict'> {
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

function hasContent(e: OutboxEntry): boolean {
  return e.text !== '' || e.documents.some((d) => d.ref !== '' || d.name !== '' || d.url !== null);
}

/** Thrown by a bank call of an entry whose bank is not the active one: nothing was sent. */
const OTHER_BANK = 'ANSWER_FOR_ANOTHER_BANK';

const defaultScope = (): BankScope => ({ profileId: '', origin: '-', legalEntityId: null });

export async function openOutbox(options: OutboxOptions): Promise<Outbox> {
  const retry = { ...defaultOutboxRetry, ...options.retry };
  const log = options.log;
  const store = stateFile(outboxFormat, {
    log,
    ...(options.codec ? { codec: options.codec } : {}),
    report: (p) => options.onProblem?.(p.message, p.file, p.movedTo),
  });
  const activeScope = options.scope ?? defaultScope;
  const serial = createSerialQueue();
  const entries = new Map<string, OutboxEntry>();
  const progress = new Map<string, { sentBytes: number; totalBytes: number }>();
  let lastError: DeskError | null = null;
  let disposed = false;

  const loaded = await store.read(options.file);
  for (const e of loaded?.value.entries ?? []) entries.set(e.id, e);
  // A plain file (from before encryption, or a run without a key) is rewritten sealed.
  let rewrite = loaded?.stale ?? false;
  // Entries from before scoping belong to the bank active when they are first opened.
  for (const e of entries.values()) {
    if (!e.scope) {
      e.scope = activeScope();
      rewrite = true;
    }
  }
  // Restart recovery: a POST that may have reached the bank is verified before anything is resent.
  const interrupted: OutboxEntry[] = [];
  for (const e of entries.values()) {
    // Sent answers from before keep no content either.
    if (e.state === 'sent' && hasContent(e)) {
      Object.assign(e, withoutContent(e));
      rewrite = true;
    }
    if (e.state === 'sending') {
      e.state = 'verifying';
      interrupted.push(e);
    }
    if (e.state === 'uploading') e.state = 'queued';
    if (!FINISHED.has(e.state)) e.nextAttemptAt = Date.now();
  }

  const persist = (): Promise<void> =>
    serial(() => store.write(options.file, { version: 1, entries: [...entries.values()] }));
  if (rewrite || interrupted.length > 0) await persist();

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

  const audit = async (line: OutboxAuditLine): Promise<void> => {
    try {
      await options.audit?.(line);
    } catch (err) {
      log.error('rfi-answers: audit line not recorded', { operation: line.operation, error: err });
    }
  };
  /** What an audit line says about an answer (ids and hashes, never its text or file names). */
  const answerDetail = (e: OutboxEntry): string => {
    const docs = e.documents
      .filter((d) => d.documentId !== null)
      .map((d) => `${d.documentId} sha256 ${d.sha256 ?? 'unknown'}`);
    return (
      `question ${e.questionId} (${e.questionType}); answer ${e.id}` +
      (e.text !== '' ? `; text ${e.text.length} characters` : '') +
      `; documents: ${docs.length > 0 ? docs.join(', ') : 'none'}`
    );
  };
  const uploadDetail = (e: OutboxEntry, d: OutboxDocument): string =>
    `sha256 ${d.sha256 ?? 'unknown'}; ${d.sizeBytes} bytes ${d.contentType} (${d.documentType}); ` +
    `RFI ${e.rfiId}; question ${e.questionId}; answer ${e.id}`;

  /**
   * The bank, for one entry: its own profile's client; every call checks, right before it leaves,
   * that the profile still has the scope the entry was written for.
   */
  const bankFor = (e: OutboxEntry): OutboxBank => {
    const ensure = (): void => {
      if (!mine(e)) {
        throw new DeskFailure({
          kind: 'local',
          reason: OTHER_BANK,
          message: `Waiting for ${e.scope?.origin ?? 'its bank'}: this answer is sent only to the bank it was written for.`,
        });
      }
    };
    const bank = (): OutboxBank =>
      options.owners && e.scope ? options.owners.bank(e.scope.profileId) : options.bank;
    return {
      getRfi: (id) => (ensure(), bank().getRfi(id)),
      createUploadUrl: (b) => (ensure(), bank().createUploadUrl(b)),
      uploadDocument: (url, file, ct, o) => (ensure(), bank().uploadDocument(url, file, ct, o)),
      submitRfiResponse: (rfiId, qid, body) => (ensure(), bank().submitRfiResponse(rfiId, qid, body)),
    };
  };

  const view = (e: OutboxEntry): AnswerView => ({
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
    progress: e.state === 'uploading' ? (progress.get(e.id) ?? null) : null,
    lastError: e.lastError,
    conflict: e.conflict,
    attempts: e.attempts,
    nextAttemptAt:
      e.nextAttemptAt !== null && !FINISHED.has(e.state) ? new Date(e.nextAttemptAt).toISOString() : null,
    responseId: e.responseId,
    bank: e.scope ?? null,
    waitingForBank: !FINISHED.has(e.state) && !mine(e),
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  });

  /** Writes the new state to disk first, then tells the UI. */
  const transition = async (e: OutboxEntry, patch: Partial<OutboxEntry>): Promise<void> => {
    Object.assign(e, patch, { updatedAt: new Date().toISOString() });
    await persist();
    options.onChange?.(view(e));
  };

  const waitAgain = async (e: OutboxEntry, err: DeskError, state: AnswerState): Promise<void> => {
    const failures = e.failures + 1;
    const delay = err.retryAfterMs ?? backoffDelay(failures, retry);
    lastError = err;
    await transition(e, { state, failures, lastError: shortError(err), nextAttemptAt: Date.now() + delay });
  };

  const fail = async (e: OutboxEntry, err: DeskError): Promise<void> => {
    lastError = err;
    await transition(e, { state: 'failed', lastError: shortError(err), nextAttemptAt: null });
  };

  const question = (rfi: Rfi, e: OutboxEntry): RfiQuestion => {
    const q = rfi.questions.find((x) => x.id === e.questionId);
    if (!q) {
      throw new DeskFailure({
        kind: 'not_found',
        message: `The RFI no longer has question ${e.questionId}.`,
      });
    }
    return q;
  };

  const markSent = async (e: OutboxEntry, responseId: string, foundOnReRead = false): Promise<void> => {
    const detail = `${answerDetail(e)}; response ${responseId}${foundOnReRead ? '; confirmed by re-reading the RFI' : ''}`;
    progress.delete(e.id);
    lastError = null;
    // What the answer was, for the clean-up after sending; the entry itself keeps no content.
    const before: OutboxEntry = { ...e, documents: e.documents.map((d) => ({ ...d })) };
    // The audit line first: whoever sees the answer sent finds it in Activity.
    await audit({ operation: 'rfi.respond', target: e.rfiId, outcome: 'succeeded', detail });
    await transition(e, {
      ...withoutContent(e),
      state: 'sent',
      responseId,
      lastError: null,
      conflict: null,
      nextAttemptAt: null,
    });
    try {
      options.onSent?.(before);
    } catch (err) {
      log.warn('rfi-answers: onSent failed', { error: err });
    }
  };

  const upload = async (e: OutboxEntry): Promise<void> => {
    const total = e.documents.reduce((n, d) => n + d.sizeBytes, 0);
    const doneBytes = (): number =>
      e.documents.filter((d) => d.uploaded).reduce((n, d) => n + d.sizeBytes, 0);
    let lastEmit = 0;
    for (const d of e.documents) {
      if (d.uploaded) continue;
      const source = options.fileSource(d.ref);
      for (let urlAttempt = 1; ; urlAttempt++) {
        const expired = d.expiresAt !== null && Date.parse(d.expiresAt) - 30_000 <= options.now();
        if (!d.url || !d.documentId || expired) {
          const u = await bankFor(e).createUploadUrl({
            related_id: e.rfiId,
            content_type: d.contentType as UploadContentType,
            document_type: d.documentType as DocumentType,
          });
          Object.assign(d, { documentId: u.id, url: u.url, expiresAt: u.expires_at, uploaded: false });
          await persist();
        }
        try {
          // Hashed while the bytes go out (a large file on another thread), not in a pass of its
          // own before: that pass made a 200 MB answer's upload ~40% slower. Whatever the upload's
          // outcome, its audit line carries the file's sha256.
          const hashing = source.sha256().then(
            (sha256) => ({ sha256 }),
            (err: unknown) => ({ err }),
          );
          const base = doneBytes();
          try {
            await bankFor(e).uploadDocument(d.url as string, source, d.contentType, {
              onProgress: (sent) => {
                const p = { sentBytes: base + sent, totalBytes: total };
                progress.set(e.id, p);
                const t = Date.now();
                if (t - lastEmit >= 100 || sent === d.sizeBytes) {
                  lastEmit = t;
                  options.onProgress?.({ answerId: e.id, ...p });
                }
              },
            });
          } finally {
            const hashed = await hashing;
            if ('sha256' in hashed) d.sha256 = hashed.sha256;
          }
          const hashed = await hashing;
          if ('err' in hashed) {
            throw new DeskFailure({ kind: 'local', message: 'unreadable' }, { cause: hashed.err });
          }
          await audit({
            operation: 'rfi.upload',
            target: d.documentId,
            outcome: 'succeeded',
            detail: uploadDetail(e, d),
          });
          try {
            options.onUploaded?.({
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
            log.warn('rfi-answers: onUploaded failed', { error: err });
          }
          break;
        } catch (err) {
          const de = asDeskError(err);
          if (de.reason !== OTHER_BANK) {
            const f = failedOutcome(
              de.kind === 'local'
                ? { kind: 'local', message: 'the file could not be read; nothing was sent' }
                : de,
            );
            await audit({
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
            log.info('rfi-answers: upload URL expired; asking for a new one', { answerId: e.id });
            Object.assign(d, { url: null, expiresAt: null, documentId: null });
            await persist();
            continue;
          }
          if (de.kind === 'local' && de.reason !== OTHER_BANK) {
            // The client's message names the path; the analyst gets the file's name only.
            throw new DeskFailure(
              {
                kind: 'local',
                message: `${d.name} can no longer be read. Remove it and add the file again.`,
              },
              { cause: err },
            );
          }
          throw err;
        }
      }
      d.uploaded = true;
      await persist();
    }
    progress.set(e.id, { sentBytes: total, totalBytes: total });
  };

  const send = async (e: OutboxEntry): Promise<void> => {
    const body: RfiResponseBody = {
      question_type: e.questionType,
      [e.questionType]: {
        response_text: e.text,
        document_ids: e.documents.map((d) => d.documentId).filter((x): x is string => x !== null),
      },
    };
    // Write-ahead: from here on, a crash means the POST may have reached the bank.
    await transition(e, { state: 'sending', attempts: e.attempts + 1 });
    try {
      const resp = await bankFor(e).submitRfiResponse(e.rfiId, e.questionId, body);
      await markSent(e, resp.id);
    } catch (err) {
      const de = asDeskError(err);
      if (de.reason === OTHER_BANK) {
        // Nothing left: the POST may have gone in an earlier attempt, so re-read before sending.
        await transition(e, { state: e.attempts > 1 ? 'verifying' : 'queued', nextAttemptAt: Date.now() });
        return;
      }
      const f = failedOutcome(de);
      await audit({
        operation: 'rfi.respond',
        target: e.rfiId,
        outcome: f.outcome,
        detail: `${f.why}; ${answerDetail(e)}`,
      });
      if (de.kind === 'precondition' && de.reason === 'QUESTION_NOT_AWAITING_RESPONSE') {
        const rfi = await bankFor(e)
          .getRfi(e.rfiId)
          .catch(() => null);
        const q = rfi?.questions.find((x) => x.id === e.questionId);
        await transition(e, {
          state: 'conflict',
          lastError: shortError(de),
          nextAttemptAt: null,
          conflict: q
            ? conflictOf(q)
            : { questionStatus: 'unknown', latestStaffResponse: null, detectedAt: new Date().toISOString() },
        });
        return;
      }
      if (de.kind === 'precondition' && de.reason === 'DOCUMENT_NOT_UPLOADED') {
        // Upload again with fresh URLs (bounded by the failure count).
        for (const d of e.documents)
          Object.assign(d, { uploaded: false, url: null, documentId: null, expiresAt: null });
        if (e.failures >= 3) return fail(e, de);
        return waitAgain(e, de, 'queued');
      }
      switch (classifyFailure(de, 'write')) {
        case 'transient':
          // 429, 401: the bank did not process the request; run it again later.
          return waitAgain(e, de, 'queued');
        case 'ambiguous':
          // Network error, timeout, 5xx, 409, or a 2xx we could not read: the bank may have
          // stored it. Re-read before sending again.
          return waitAgain(e, de, 'verifying');
        case 'refused':
          return fail(e, de);
      }
    }
  };

  const verify = async (e: OutboxEntry): Promise<void> => {
    const rfi = await bankFor(e).getRfi(e.rfiId);
    const q = question(rfi, e);
    const own = findOwnResponse(e, q);
    if (own) {
      log.info('rfi-answers: found our response after an ambiguous failure', {
        answerId: e.id,
        responseId: own,
      });
      return markSent(e, own, true);
    }
    if (q.status !== 'action_required') {
      await audit({
        operation: 'rfi.respond',
        target: e.rfiId,
        outcome: 'failed',
        detail: `not found at the bank on re-reading the RFI, and the question is ${q.status} now; ${answerDetail(e)}`,
      });
      return transition(e, { state: 'conflict', conflict: conflictOf(q), nextAttemptAt: null });
    }
    await send(e);
  };

  const processEntry = async (e: OutboxEntry): Promise<void> => {
    try {
      if (e.state === 'verifying' || e.state === 'sending') {
        await verify(e);
        return;
      }
      const rfi = await bankFor(e).getRfi(e.rfiId);
      const q = question(rfi, e);
      if (q.status !== 'action_required') {
        await audit({
          operation: 'rfi.respond',
          target: e.rfiId,
          outcome: 'failed',
          detail: `not sent: the question is ${q.status}, no longer awaiting a response; ${answerDetail(e)}`,
        });
        await transition(e, { state: 'conflict', conflict: conflictOf(q), nextAttemptAt: null });
        return;
      }
      await transition(e, {
        state: e.documents.some((d) => !d.uploaded) ? 'uploading' : e.state,
        knownResponseIds: q.responses.map((r) => r.id),
      });
      await upload(e);
      await send(e);
    } catch (err) {
      const de = asDeskError(err);
      if (!(err instanceof DeskFailure))
        log.error('rfi-answers: unexpected failure', { answerId: e.id, error: err });
      const state: AnswerState = e.state === 'verifying' || e.state === 'sending' ? 'verifying' : 'queued';
      if (de.reason === OTHER_BANK) {
        // The active bank changed under this entry: it waits for its own (no failure counted).
        await transition(e, { state, nextAttemptAt: Date.now() });
        return;
      }
      // Anything but a refusal (of the reads, the upload or the send) is waited out; while
      // verifying, only a vanished RFI or question ends the answer.
      if (classifyFailure(de, 'write') !== 'refused' || (state === 'verifying' && de.kind !== 'not_found')) {
        await waitAgain(e, de, state);
      } else {
        await fail(e, de);
      }
    }
  };
  // The whole answer (re-read, uploads, send) holds the busy guard: no update restart between the
  // upload of its documents and the send.
  const process = (e: OutboxEntry): Promise<void> =>
    options.busy ? options.busy.run('an answer is being sent', () => processEntry(e)) : processEntry(e);

  // ---- runner ----
  let running: Promise<void> | null = null;
  /** The entry the runner is working on. */
  let current: string | null = null;
  let again = false;
  let timer: NodeJS.Timeout | null = null;

  const due = (): OutboxEntry[] =>
    [...entries.values()]
      .filter((e) => !FINISHED.has(e.state) && mine(e) && (e.nextAttemptAt ?? 0) <= Date.now())
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));

  const schedule = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (disposed || options.autoRun === false) return;
    // Entries of another bank wait for wake() (the session changed), not for a timer.
    const next = [...entries.values()]
      .filter((e) => !FINISHED.has(e.state) && mine(e))
      .map((e) => e.nextAttemptAt ?? Date.now())
      .sort((a, b) => a - b)[0];
    if (next === undefined) return;
    timer = setTimeout(() => void kick(), Math.max(0, Math.min(next - Date.now(), 2 ** 31 - 1)));
    timer.unref?.();
  };

  const runDue = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        for (const e of due()) {
          if (disposed) return;
          if (!entries.has(e.id)) continue; // dismissed meanwhile
          current = e.id;
          try {
            await process(e);
          } finally {
            current = null;
          }
        }
      } while (again && !disposed);
    })().finally(() => {
      running = null;
      schedule();
    });
    return running;
  };
  const kick = (): Promise<void> =>
    runDue().catch((err: unknown) => log.error('rfi-answers: runner failed', { error: err }));

  const outbox: Outbox = {
    async enqueue(a, owner) {
      const scope = owner ?? activeScope();
      const existing = outbox.active(a.rfiId, a.questionId, scope);
      if (existing) {
        throw new DeskFailure({
          kind: 'local',
          message: 'An answer to this question is already on its way. Wait for it, or dismiss it first.',
        });
      }
      const now = new Date().toISOString();
      const e: OutboxEntry = {
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
        state: 'queued',
        knownResponseIds: null,
        attempts: 0,
        failures: 0,
        nextAttemptAt: Date.now(),
        lastError: null,
        conflict: null,
        responseId: null,
        createdAt: now,
        updatedAt: now,
      };
      entries.set(e.id, e);
      await persist();
      options.onChange?.(view(e));
      if (options.autoRun !== false) void kick();
      return view(e);
    },
    async retry(id) {
      const e = entries.get(id);
      if (!e) throw new DeskFailure({ kind: 'not_found', message: 'No such answer in the outbox.' });
      if (e.state === 'sent') return view(e);
      // A conflict is re-checked from the start (the question may await a response again).
      const state: AnswerState = e.state === 'failed' || e.state === 'conflict' ? 'queued' : e.state;
      await transition(e, { state, nextAttemptAt: Date.now(), conflict: null, failures: 0 });
      if (options.autoRun !== false) void kick();
      return view(e);
    },
    async dismiss(id) {
      const e = entries.get(id);
      if (!e) throw new DeskFailure({ kind: 'not_found', message: 'No such answer in the outbox.' });
      // An answer waiting for another bank is not being sent: it may be removed (its bank may be
      // gone for good).
      const waiting = !mine(e) && current !== id;
      if (!FINISHED.has(e.state) && !waiting) {
        throw new DeskFailure({
          kind: 'local',
          message: 'This answer is still being sent; it cannot be dismissed now.',
        });
      }
      entries.delete(id);
      progress.delete(id);
      await persist();
      return e;
    },
    list(rfiId) {
      return [...entries.values()]
        .filter((e) => rfiId === undefined || e.rfiId === rfiId)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
        .map(view);
    },
    get: (id) => entries.get(id),
    active(rfiId, questionId, owner) {
      const here = owner ?? activeScope();
      return [...entries.values()].find(
        (e) =>
          e.rfiId === rfiId &&
          e.questionId === questionId &&
          !FINISHED.has(e.state) &&
          e.scope?.profileId === here.profileId &&
          e.scope.origin === here.origin,
      );
    },
    async removeProfile(profileId) {
      // The profile's session is gone, so an attempt under way stops at its next request: wait for it.
      const theirs = (id: string | null): boolean =>
        id !== null && entries.get(id)?.scope?.profileId === profileId;
      while (theirs(current) && running) await running.catch(() => undefined);
      const gone = [...entries.values()].filter((e) => e.scope?.profileId === profileId);
      for (const e of gone) {
        entries.delete(e.id);
        progress.delete(e.id);
      }
      if (gone.length > 0) await persist();
      return gone;
    },
    wake() {
      for (const e of entries.values()) if (!FINISHED.has(e.state)) e.nextAttemptAt = Date.now();
      if (options.autoRun !== false) void kick();
    },
    runDue,
    async idle() {
      while (running) await running;
    },
    lastError: () => lastError,
    async dispose() {
      disposed = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
      await serial(async () => undefined);
    },
  };
  // A response interrupted while being sent (the app stopped): the bank may hold it.
  for (const e of interrupted) {
    void audit({
      operation: 'rfi.respond',
      target: e.rfiId,
      outcome: 'pending',
      detail: `interrupted while sending (the app stopped); the RFI is re-read before sending again; ${answerDetail(e)}`,
    });
  }
  if (options.autoRun !== false) void kick();
  return outbox;
}
