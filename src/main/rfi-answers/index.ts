import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_MAX_UPLOAD_BYTES, UPLOAD_CONTENT_TYPES } from '../../shared/catalogue';
import type { DocumentType } from '../../shared/catalogue';
import type { AnswerView, DraftView } from '../../shared/ipc/channels/rfi-answers';
import type { AppError } from '../../shared/ipc/errors';
import { plainCodec } from '../infra/at-rest';
import type { AtRestCodec } from '../infra/at-rest';
import { bankKey } from '../bank/scope';
import type { BankScope } from '../bank/scope';
import type { EventHub } from '../infra/events';
import type { StateFileProblem } from '../infra/json-store';
import { BackgroundWork } from '../infra/lifecycle';
import type { Logger } from '../infra/log';
import type { BusyGuard } from '../desktop/busy';
import type { Platform } from '../infra/platform';
import { openDraftStore } from './drafts';
import type { DraftRecord, DraftStore } from './drafts';
import { checkAnswer, draftViewOf, newAnswerOf } from './answer-input';
import type { DraftInput } from './answer-input';
import { CHUNK_BYTES, UPLOAD_EXTENSIONS, openFileArea } from './files';
import type { FileArea } from './files';
import { openOutbox } from './outbox';
import type { OutboxOwners } from './outbox';
import type {
  Outbox,
  OutboxAuditLine,
  OutboxBank,
  OutboxEntry,
  OutboxRetry,
  UploadedDocument,
} from './outbox';

export type { Outbox, OutboxBank, OutboxEntry, UploadedDocument } from './outbox';
export { sniffContentType } from './files';
export type { DraftInput } from './answer-input';

export interface RfiAnswersOptions {
  /** Outbox retry backoff. */
  retry?: Partial<OutboxRetry>;
  /** Upload size limit (default: the embedded sandbox's, else the bank's documented 25 MB). */
  maxUploadBytes?: number;
  /** The most bytes staged at once (default 256 MiB): a page cannot fill the disk. */
  stagingQuotaBytes?: number;
  /** Staged bytes no queued answer uses are deleted after this long (default a day). */
  stagedTtlMs?: number;
}

export interface RfiAnswersDeps {
  dataDir: string;
  bank: OutboxBank;
  log: Logger;
  events: EventHub;
  platform: Platform;
  serverNow(): number;
  /** The embedded sandbox's limit, when it runs. */
  sandboxMaxUploadBytes(): number | null;
  options?: RfiAnswersOptions;
  /** Told when an answer landed (the owner's RFI cache may refresh that RFI). */
  onSent?(rfiId: string, owner: BankScope | null): void;
  /** The active session's bank scope: answers are sent only to the bank they were written for. */
  scope?(): BankScope;
  /** Every profile's scope and bank client: an answer goes out through the profile that owns its RFI. */
  owners?: OutboxOwners;
  /** Seals and opens drafts and the outbox at rest (default: plain). */
  codec?: AtRestCodec;
  /** Tells the analyst about a file moved aside (absolute paths). */
  report?(problem: StateFileProblem): void;
  /** Records every upload and response in the audit log (must not throw). */
  audit?(line: OutboxAuditLine): Promise<void>;
  /** Told once a document reached the bank. */
  onUploaded?(doc: UploadedDocument): void;
  /** Held while an answer is worked on (see desktop/busy.ts). */
  busy?: Pick<BusyGuard, 'run'>;
}

export interface RfiAnswers {
  drafts: DraftStore;
  files: FileArea;
  outbox: Outbox;
  getDrafts(rfiId: string, owner?: BankScope): Promise<DraftView[]>;
  saveDraft(d: DraftInput): Promise<DraftView>;
  discardDraft(rfiId: string, questionId: string, owner?: BankScope): Promise<void>;
  submit(d: DraftInput): Promise<AnswerView>;
  /** Files from the native picker, staged for (and bound to) the named profile's answer. */
  pick(
    documentType: DocumentType,
    multiple: boolean,
    profileId: string,
  ): ReturnType<FileArea['registerPicked']>;
  limits(): { contentTypes: string[]; extensions: string[]; maxBytes: number; chunkBytes: number };
  /** Forgets staged files that no draft and no unfinished answer uses (deleting dropped bytes). */
  releaseUnused(refs: string[]): Promise<void>;
  /** Tells when an answer landed (its owner's RFI cache may re-read the RFI). */
  onSent(listener: (rfiId: string, owner: BankScope | null, entry: OutboxEntry) => void): () => void;
  /** Tells when an answer ended failed or in conflict (nothing of it is at the bank). */
  onEnded(listener: (entry: OutboxEntry) => void): () => void;
  /**
   * Adds a check run before each bank write of an answer (a team send job's lease, see
   * AnswerJobDeps.beforeWrite): a check that throws stops the write.
   */
  guardWrites(check: (entry: OutboxEntry) => Promise<void>): () => void;
  /** What removing a profile would lose: its unsent answers and its drafts. */
  queuedFor(profileId: string): { answers: number };
  /** Deletes a profile's answers, drafts and their staged copies (the profile is being removed). */
  removeProfile(profileId: string): Promise<{ answers: number; drafts: number }>;
  /** Removes a sent, failed or conflicting answer and deletes its staged copies no longer used. */
  dismiss(answerId: string): Promise<void>;
  status(): {
    counts: Record<string, number>;
    lastError: { kind: string; message: string; reason?: string } | null;
  };
  dispose(): Promise<void>;
}

export async function createRfiAnswers(deps: RfiAnswersDeps): Promise<RfiAnswers> {
  const dir = path.join(deps.dataDir, 'rfi-answers');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const maxBytes = (): number =>
    deps.options?.maxUploadBytes ?? deps.sandboxMaxUploadBytes() ?? DEFAULT_MAX_UPLOAD_BYTES;
  const codec = deps.codec ?? plainCodec;
  const report = (message: string, file: string, movedTo: string | null): void =>
    deps.report?.({ file, movedTo, message });
  const files = await openFileArea({
    dir,
    log: deps.log,
    maxBytes,
    codec,
    onProblem: report,
    ...(deps.options?.stagingQuotaBytes ? { quotaBytes: deps.options.stagingQuotaBytes } : {}),
  });
  const scope = deps.scope;
  const drafts = await openDraftStore({
    dir: path.join(dir, 'drafts'),
    log: deps.log,
    codec,
    onProblem: report,
    ...(scope ? { scope: () => bankKey(scope()) } : {}),
  });

  /** Staged copies of these refs that no draft and no unfinished answer uses any more are deleted. */
  const releaseUnused = async (refs: string[]): Promise<void> => {
    if (refs.length === 0) return;
    const inUse = await drafts.referencedFiles();
    for (const e of outbox.list()) {
      if (e.state !== 'sent') for (const f of e.files) inUse.add(f.ref);
    }
    await files.release(refs.filter((r) => !inUse.has(r)));
  };

  const draftView = (rfiId: string, questionId: string, d: DraftRecord): DraftView =>
    draftViewOf(files, rfiId, questionId, d);

  const sentListeners = new Set<(rfiId: string, owner: BankScope | null, entry: OutboxEntry) => void>();
  const endedListeners = new Set<(entry: OutboxEntry) => void>();
  const writeChecks = new Set<(entry: OutboxEntry) => Promise<void>>();
  const background = new BackgroundWork();
  const outbox = await openOutbox({
    file: path.join(dir, 'outbox.json'),
    bank: deps.bank,
    log: deps.log,
    codec,
    onProblem: report,
    ...(scope ? { scope } : {}),
    ...(deps.owners ? { owners: deps.owners } : {}),
    fileSource: (ref) => files.source(ref),
    ...(deps.audit ? { audit: deps.audit } : {}),
    ...(deps.onUploaded ? { onUploaded: deps.onUploaded } : {}),
    now: deps.serverNow,
    ...(deps.busy ? { busy: deps.busy } : {}),
    ...(deps.options?.retry ? { retry: deps.options.retry } : {}),
    onChange: (v) => deps.events.emit('answers.changed', v),
    onEnded: (e) => {
      for (const l of endedListeners) l(e);
    },
    beforeWrite: async (e) => {
      for (const check of writeChecks) await check(e);
    },
    onProgress: (p) => deps.events.emit('answers.progress', p),
    onSent: (e: OutboxEntry) => {
      // The answer landed: its draft is done, and staged copies are no longer needed (unless a
      // draft edited since still lists the same file).
      background.track(
        (async () => {
          const key = e.scope ? bankKey(e.scope) : undefined;
          const d = await drafts.getOne(e.rfiId, e.questionId, key);
          const same = d && d.text === e.text && d.files.join() === e.documents.map((x) => x.ref).join();
          if (same) await drafts.discard(e.rfiId, e.questionId, key);
          await releaseUnused(e.documents.map((x) => x.ref));
        })().catch((err: unknown) => deps.log.warn('rfi-answers: cleanup after send failed', { error: err })),
      );
      deps.onSent?.(e.rfiId, e.scope ?? null);
      for (const l of sentListeners) l(e.rfiId, e.scope ?? null, e);
    },
  });

  const offSystem = deps.platform.onSystemEvent((ev) => {
    if (ev === 'online' || ev === 'resume' || ev === 'unlock-screen') outbox.wake();
  });
  // Another bank (or legal entity) became active: answers waiting for it may go now, and views
  // of answers waiting for another bank change.
  let lastScope = scope ? JSON.stringify(scope()) : '';
  const offEvents = deps.events.attach((m) => {
    if (m.event !== 'session.changed' || !scope) return;
    const now = JSON.stringify(scope());
    if (now === lastScope) return;
    lastScope = now;
    for (const a of outbox.list()) if (a.state !== 'sent') deps.events.emit('answers.changed', a);
    outbox.wake();
  });
  const unsubscribe = (): void => {
    offSystem();
    offEvents();
  };

  /** The profile an answer or draft goes out as: its owner's, else the default profile's. */
  const ownerOf = (d: DraftInput): string | null => d.owner?.profileId ?? scope?.().profileId ?? null;
  const check = (d: DraftInput, forSubmit: boolean): void =>
    checkAnswer(d, forSubmit, files, maxBytes, ownerOf(d));

  const api: RfiAnswers = {
    drafts,
    files,
    outbox,
    async getDrafts(rfiId, owner) {
      const all = await drafts.get(rfiId, owner ? bankKey(owner) : undefined);
      return Object.entries(all).map(([qid, d]) => draftView(rfiId, qid, d));
    },
    async saveDraft(d) {
      check(d, false);
      await files.bind(d.files, ownerOf(d));
      const rec = await drafts.save(
        d.rfiId,
        d.questionId,
        { questionType: d.questionType, text: d.text, files: d.files },
        d.owner ? bankKey(d.owner) : undefined,
      );
      return draftView(d.rfiId, d.questionId, rec);
    },
    async discardDraft(rfiId, questionId, owner) {
      const old = await drafts.discard(rfiId, questionId, owner ? bankKey(owner) : undefined);
      if (!old) return;
      const inUse = new Set(
        outbox.list().flatMap((a) => (a.state === 'sent' ? [] : a.files.map((f) => f.ref))),
      );
      await files.release(old.files.filter((r) => !inUse.has(r)));
    },
    async submit(d) {
      check(d, true);
      await files.bind(d.files, ownerOf(d));
      await drafts.save(
        d.rfiId,
        d.questionId,
        { questionType: d.questionType, text: d.text, files: d.files },
        d.owner ? bankKey(d.owner) : undefined,
      );
      return outbox.enqueue(newAnswerOf(d, files), d.owner);
    },
    releaseUnused,
    onSent(listener) {
      sentListeners.add(listener);
      return () => sentListeners.delete(listener);
    },
    onEnded: (listener) => (endedListeners.add(listener), () => void endedListeners.delete(listener)),
    guardWrites: (check) => (writeChecks.add(check), () => void writeChecks.delete(check)),
    queuedFor: (profileId) => ({
      answers: outbox.list().filter((a) => a.bank?.profileId === profileId && a.state !== 'sent').length,
    }),
    async removeProfile(profileId) {
      const answers = await outbox.removeProfile(profileId);
      const removed = await drafts.removeProfile(profileId);
      await releaseUnused([...answers.flatMap((e) => e.documents.map((d) => d.ref)), ...removed.files]);
      return { answers: answers.filter((e) => e.state !== 'sent').length, drafts: removed.drafts };
    },
    async dismiss(answerId) {
      const e = await outbox.dismiss(answerId);
      await releaseUnused(e.documents.map((d) => d.ref));
    },
    async pick(documentType, multiple, profileId) {
      const paths = await deps.platform.showOpenFileDialog({
        title: 'Choose documents for the answer',
        extensions: UPLOAD_EXTENSIONS,
        multiple,
      });
      return files.registerPicked(paths, documentType, profileId);
    },
    limits: () => ({
      contentTypes: [...UPLOAD_CONTENT_TYPES],
      extensions: UPLOAD_EXTENSIONS,
      maxBytes: maxBytes(),
      chunkBytes: CHUNK_BYTES,
    }),
    status() {
      const counts: Record<string, number> = {};
      for (const a of outbox.list()) counts[a.state] = (counts[a.state] ?? 0) + 1;
      const e: AppError | null = outbox.lastError();
      return {
        counts,
        lastError: e ? { kind: e.kind, message: e.message, ...(e.reason ? { reason: e.reason } : {}) } : null,
      };
    },
    async dispose() {
      unsubscribe();
      clearInterval(expiryTimer);
      await outbox.dispose();
      await background.settled();
      await files.dispose();
    },
  };
  // Staged bytes expire: a day after they were added, unless a queued answer still uses them.
  const ttl = deps.options?.stagedTtlMs ?? 24 * 3600_000;
  const expireStaged = async (): Promise<void> => {
    const queued = new Set<string>();
    for (const e of outbox.list()) if (e.state !== 'sent') for (const f of e.files) queued.add(f.ref);
    const n = await files.expire(Date.now() - ttl, queued);
    if (n > 0) deps.log.info('rfi answers: expired staged files deleted', { count: n });
  };
  const expireFailed = (err: unknown): void =>
    deps.log.warn('rfi answers: staged expiry failed', { error: err });
  await expireStaged().catch(expireFailed);
  const expiryTimer = setInterval(() => void expireStaged().catch(expireFailed), Math.min(ttl, 3600_000));
  expiryTimer.unref?.();
  return api;
}
