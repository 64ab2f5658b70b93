/**
 * The evidence locker: documents the analyst adds once and reuses to answer RFIs.
 *
 * A file enters only from a path main's native picker answered or from a file the page dropped,
 * which main staged under its own name (an opaque ref); the page never names a path. On entry
 * the file is read once, checked (PDF, PNG or JPEG by its first bytes; not empty; within the
 * bank's size limit), hashed (sha256) and copied into `<data>/locker/blobs/` sealed with the
 * at-rest codec (AES-256-GCM with the keychain-held data key; plain without a keychain, as the
 * other stores). The list of documents (`locker/index.json`) is sealed the same way. Every
 * problem names the file, never its path.
 *
 * Replacing a document adds a version and keeps the older ones in its history. Using a document
 * in an answer stages its exact bytes (checked against the stored sha256) as a file of the answer,
 * so the normal outbox uploads it with a new upload URL each time. The locker warns 30 and 7 days
 * before a document expires (by the bank's clock estimate): once per document version and
 * threshold, in the app and by a native notification; which warnings were given is kept in the
 * index, so a restart does not repeat them.
 */

import { cleanFileName, cleanName } from '../../shared/names';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import {
  DOCUMENT_TYPES,
  DOCUMENT_TYPE_LABELS,
  EXPIRY_WARNING_DAYS,
  UPLOAD_CONTENT_TYPES,
  documentTypesFor,
} from '../../shared/catalogue';
import type { DocumentType } from '../../shared/catalogue';
import type { LockerDocumentView } from '../../shared/ipc/channels/locker';
import type { StagedFileView } from '../../shared/ipc/channels/rfi-answers';
import { DeskFailure } from '../../shared/ipc/errors';
import { plainCodec } from '../infra/at-rest';
import type { AtRestCodec } from '../infra/at-rest';
import { createSerialQueue } from '../infra/durable-file';
import type { EventHub } from '../infra/events';
import { stateFile, writeSealed } from '../infra/json-store';
import type { StateFileProblem } from '../infra/json-store';
import type { Logger } from '../infra/log';
import type { Platform } from '../infra/platform';
import { notAccepted } from '../rfi-answers/files';
import { checkBytes } from '../infra/file-structure';

const DAY_MS = 86_400_000;
const FINAL_RFI = new Set(['approved', 'rejected', 'closed', 'timeout']);

const versionSchema = z.object({
  versionId: z.string(),
  name: z.string(),
  contentType: z.enum(UPLOAD_CONTENT_TYPES),
  sizeBytes: z.number().int(),
  sha256: z.string(),
  addedAt: z.string(),
  issuedOn: z.string().nullable(),
  expiresOn: z.string().nullable(),
});
type Version = z.infer<typeof versionSchema>;
const documentSchema = z.object({
  id: z.string(),
  documentType: z.enum(DOCUMENT_TYPES),
  holder: z.object({ kind: z.enum(['person', 'company']), name: z.string() }),
  note: z.string(),
  current: versionSchema,
  history: z.array(versionSchema),
  usedBy: z.array(
    z.object({ rfiId: z.string(), questionId: z.string(), versionId: z.string(), at: z.string() }),
  ),
  /** `<versionId>:<threshold days>` of every expiry warning given. */
  warned: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});
type LockerDocument = z.infer<typeof documentSchema>;
const indexFormat = {
  label: 'The evidence locker',
  consequence: 'Its documents are no longer listed; add them again.',
  version: 1,
  schema: z.object({ version: z.literal(1), documents: z.array(documentSchema) }),
};

export interface LockerDeps {
  dataDir: string;
  log: Logger;
  events: EventHub;
  platform: Platform;
  /** The bank's time (ms) as the app estimates it: expiry is counted by it. */
  now(): number;
  /** The bank's upload size limit. */
  maxBytes(): number;
  codec?: AtRestCodec;
  report?(problem: StateFileProblem): void;
  /** The path and display name of a staged file of a ref main issued (throws for any other). */
  staged(ref: string): { path: string; name: string };
  /** Forgets a staged file once the locker holds its copy (unless an answer or draft uses it). */
  releaseStaged(ref: string): Promise<void>;
  /** Stages bytes as a file of an answer (the outbox uploads it). */
  stageForAnswer(o: { name: string; documentType: DocumentType; bytes: Buffer }): Promise<StagedFileView>;
  /** The cached status of an RFI (null when unknown). */
  rfiStatus(rfiId: string): Promise<string | null>;
  /** How often expiry is checked (default hourly); 0: only at start and on changes. */
  checkEveryMs?: number;
}

export type FileSource = { from: 'picker' } | { from: 'staged'; ref: string };

export interface NewDocument {
  documentType: DocumentType;
  holder: { kind: 'person' | 'company'; name: string };
  note?: string | undefined;
  issuedOn?: string | null | undefined;
  expiresOn?: string | null | undefined;
}

export interface ListFilter {
  documentType?: DocumentType | undefined;
  holder?: string | undefined;
  expiry?: LockerDocumentView['expiry'] | undefined;
  query?: string | undefined;
}

export interface AddResult {
  document: LockerDocumentView | null;
  refused: Array<{ name: string; message: string }>;
}

export interface Locker {
  list(filter?: ListFilter): Promise<LockerDocumentView[]>;
  add(source: FileSource, doc: NewDocument): Promise<AddResult>;
  replace(
    id: string,
    source: FileSource,
    dates: { issuedOn?: string | null | undefined; expiresOn?: string | null | undefined },
  ): Promise<AddResult>;
  update(
    id: string,
    patch: {
      documentType?: DocumentType | undefined;
      holder?: NewDocument['holder'] | undefined;
      note?: string | undefined;
    },
  ): Promise<LockerDocumentView>;
  remove(id: string): Promise<boolean>;
  forQuestion(questionType: string): Promise<{ fitting: LockerDocumentView[]; others: LockerDocumentView[] }>;
  attach(id: string, rfiId: string, questionId: string): Promise<StagedFileView>;
  /** The bytes of a document's current version, checked against its sha256 (case files). */
  read(id: string): Promise<{ name: string; bytes: Buffer }>;
  /** Gives the expiry warnings now due (once per version and threshold); answers how many. */
  checkExpiry(): Promise<number>;
  dispose(): void;
}

const newId = (prefix: string): string => `${prefix}_${randomBytes(12).toString('hex')}`;

const displayName = cleanFileName;

/** A holder's name as kept: NFC, no bidi, format or control characters; never empty. */
function holderName(name: string): string {
  const clean = cleanName(name, 200);
  if (!clean) {
    throw new DeskFailure({
      kind: 'invalid_argument',
      field: 'holder.name',
      message: 'The holder’s name has no visible characters.',
    });
  }
  return clean;
}

/** Whole days from the bank's today to a YYYY-MM-DD date (the document is valid through it). */
export function daysUntil(date: string, nowMs: number): number {
  const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
  return Math.round((Date.parse(`${date}T00:00:00Z`) - today) / DAY_MS);
}

function expiryOf(
  v: Version,
  nowMs: number,
): { daysLeft: number | null; expiry: LockerDocumentView['expiry'] } {
  if (!v.expiresOn) return { daysLeft: null, expiry: 'none' };
  const daysLeft = daysUntil(v.expiresOn, nowMs);
  const soonest = Math.max(...EXPIRY_WARNING_DAYS);
  return { daysLeft, expiry: daysLeft < 0 ? 'expired' : daysLeft <= soonest ? 'soon' : 'valid' };
}

/** Refused, by the file's name (never its path). */
class Refusal extends Error {}

export async function createLocker(deps: LockerDeps): Promise<Locker> {
  const dir = path.join(deps.dataDir, 'locker');
  const blobs = path.join(dir, 'blobs');
  await mkdir(blobs, { recursive: true, mode: 0o700 });
  const codec = deps.codec ?? plainCodec;
  const indexFile = path.join(dir, 'index.json');
  const store = stateFile(indexFormat, {
    log: deps.log,
    codec,
    report: (p) => deps.report?.(p),
  });
  const serial = createSerialQueue();
  const docs = new Map<string, LockerDocument>();
  const loaded = await store.read(indexFile);
  for (const d of loaded?.value.documents ?? []) docs.set(d.id, d);
  const persist = (): Promise<void> =>
    serial(() => store.write(indexFile, { version: 1, documents: [...docs.values()] }));
  if (loaded?.stale) await persist();

  const blobPath = (versionId: string): string => path.join(blobs, `${versionId}.sealed`);
  const changed = (): void => deps.events.emit('locker.changed', { count: docs.size });

  const view = async (d: LockerDocument): Promise<LockerDocumentView> => {
    const { daysLeft, expiry } = expiryOf(d.current, deps.now());
    let problem: string | null = null;
    try {
      await stat(blobPath(d.current.versionId));
    } catch {
      problem = `${d.current.name} is missing from the locker's folder (deleted on disk). Replace it with a new copy.`;
    }
    const seen = new Set<string>();
    const usedBy: LockerDocumentView['usedBy'] = [];
    for (const u of [...d.usedBy].reverse()) {
      const key = `${u.rfiId}/${u.questionId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const rfiStatus = await deps.rfiStatus(u.rfiId).catch(() => null);
      usedBy.push({
        rfiId: u.rfiId,
        questionId: u.questionId,
        at: u.at,
        rfiStatus,
        open: rfiStatus !== null && !FINAL_RFI.has(rfiStatus),
      });
    }
    return {
      id: d.id,
      documentType: d.documentType,
      holder: d.holder,
      note: d.note,
      current: d.current,
      history: d.history,
      daysLeft,
      expiry,
      problem,
      usedBy,
      createdAt: d.createdAt,
      updatedAt: d.updatedAt,
    };
  };

  const sorted = (list: LockerDocument[]): LockerDocument[] =>
    list.sort((a, b) => {
      const ea = a.current.expiresOn ?? '9999-12-31';
      const eb = b.current.expiresOn ?? '9999-12-31';
      return ea.localeCompare(eb) || a.holder.name.localeCompare(b.holder.name);
    });

  const get = (id: string): LockerDocument => {
    const d = docs.get(id);
    if (!d)
      throw new DeskFailure({ kind: 'not_found', message: 'That document is no longer in the locker.' });
    return d;
  };

  /** Reads, checks, hashes and stores one file; refusals name the file only. */
  const ingest = async (
    source: FileSource,
    dates: { issuedOn?: string | null | undefined; expiresOn?: string | null | undefined },
  ): Promise<{ version: Version | null; refused: AddResult['refused'] }> => {
    let filePath: string;
    let name: string;
    if (source.from === 'picker') {
      const [picked] = await deps.platform.showOpenFileDialog({
        title: 'Add a document to the locker',
        extensions: ['pdf', 'png', 'jpg', 'jpeg'],
        multiple: false,
      });
      if (!picked) return { version: null, refused: [] };
      filePath = picked;
      name = displayName(path.basename(picked));
    } else {
      // A ref main issued for a dropped (or picked) file; anything else is refused here.
      const staged = deps.staged(source.ref);
      filePath = staged.path;
      name = displayName(staged.name);
    }
    const issuedOn = dates.issuedOn ?? null;
    const expiresOn = dates.expiresOn ?? null;
    if (issuedOn && expiresOn && expiresOn < issuedOn) {
      throw new DeskFailure({
        kind: 'invalid_argument',
        field: 'expiresOn',
        message: 'The expiry date is before the issue date.',
      });
    }
    try {
      if (!path.isAbsolute(filePath)) throw new Refusal('The file could not be found.');
      let size: number;
      try {
        const s = await stat(filePath);
        if (!s.isFile()) throw new Refusal('It is not a file.');
        size = s.size;
      } catch (err) {
        if (err instanceof Refusal) throw err;
        throw new Refusal('The file cannot be read (it was moved, deleted or is not readable).');
      }
      if (size === 0) throw new Refusal('The file is empty.');
      if (size > deps.maxBytes()) {
        throw new Refusal(`The file is ${size} bytes; the bank accepts at most ${deps.maxBytes()} bytes.`);
      }
      let bytes: Buffer;
      try {
        bytes = await readFile(filePath);
      } catch {
        throw new Refusal('The file cannot be read (it was moved, deleted or is not readable).');
      }
      if (bytes.length > deps.maxBytes()) {
        throw new Refusal(
          `The file is ${bytes.length} bytes; the bank accepts at most ${deps.maxBytes()} bytes.`,
        );
      }
      const checked = await checkBytes(bytes);
      if (!checked.ok) throw new Refusal(notAccepted(checked.reason));
      const contentType = checked.type;
      const version: Version = {
        versionId: newId('lv'),
        name,
        contentType,
        sizeBytes: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        addedAt: new Date().toISOString(),
        issuedOn,
        expiresOn,
      };
      await writeSealed(codec, blobPath(version.versionId), bytes.toString('base64'));
      if (source.from === 'staged') {
        await deps
          .releaseStaged(source.ref)
          .catch((err: unknown) => deps.log.warn('locker: staged copy not released', { error: err }));
      }
      return { version, refused: [] };
    } catch (err) {
      if (err instanceof Refusal) return { version: null, refused: [{ name, message: err.message }] };
      deps.log.error('locker: file not stored', { error: err });
      return { version: null, refused: [{ name, message: 'The file could not be stored in the locker.' }] };
    }
  };

  const readVersion = async (v: Version): Promise<Buffer> => {
    let stored: string;
    try {
      stored = await readFile(blobPath(v.versionId), 'utf8');
    } catch {
      throw new DeskFailure({
        kind: 'local',
        message: `${v.name} is missing from the locker's folder (deleted on disk). Replace it with a new copy.`,
      });
    }
    let bytes: Buffer;
    try {
      bytes = Buffer.from(codec.open(stored, blobPath(v.versionId)).text, 'base64');
    } catch {
      throw new DeskFailure({
        kind: 'local',
        message: `${v.name} in the locker cannot be opened (damaged, or sealed with another key). Replace it with a new copy.`,
      });
    }
    if (createHash('sha256').update(bytes).digest('hex') !== v.sha256) {
      throw new DeskFailure({
        kind: 'local',
        message: `${v.name} in the locker changed on disk since it was added. Replace it with a new copy.`,
      });
    }
    return bytes;
  };

  const checkExpiry = async (): Promise<number> => {
    const now = deps.now();
    const due: Array<{ d: LockerDocument; daysLeft: number; threshold: number }> = [];
    for (const d of docs.values()) {
      const { daysLeft } = expiryOf(d.current, now);
      if (daysLeft === null) continue;
      const crossed = EXPIRY_WARNING_DAYS.filter((t) => daysLeft <= t);
      const fresh = crossed.filter((t) => !d.warned.includes(`${d.current.versionId}:${t}`));
      if (fresh.length === 0) continue;
      // Every threshold crossed is marked at once: one warning, the most urgent one.
      for (const t of fresh) d.warned.push(`${d.current.versionId}:${t}`);
      due.push({ d, daysLeft, threshold: Math.min(...crossed) });
    }
    if (due.length === 0) return 0;
    // Written before anything is shown: a restart never repeats a warning.
    await persist();
    // One check, one notification: several documents due at once are one summary.
    const summary = (count: number): { title: string; body: string } => ({
      title: `${count} locker documents have expired or expire soon`,
      body: 'Open the evidence locker to replace them with newer versions.',
    });
    if (due.length > 1) {
      deps.platform.notify({
        ...summary(due.length),
        source: 'locker.expiry',
        object: due.map(({ d }) => d.id).join(','),
        coalesce: summary,
      });
    }
    for (const { d, daysLeft, threshold } of due) {
      const what = `${DOCUMENT_TYPE_LABELS[d.documentType]} of ${d.holder.name} (${d.current.name})`;
      const when =
        daysLeft < 0
          ? `expired on ${d.current.expiresOn}`
          : daysLeft === 0
            ? `expires today`
            : `expires in ${daysLeft} day${daysLeft === 1 ? '' : 's'}, on ${d.current.expiresOn}`;
      if (due.length === 1) {
        deps.platform.notify({
          title: daysLeft < 0 ? 'A locker document has expired' : 'A locker document expires soon',
          body: `${what} ${when}. Replace it with a newer version.`,
          source: 'locker.expiry',
          object: d.id,
          coalesce: summary,
        });
      }
      deps.events.emit('locker.expiryWarning', {
        id: d.id,
        name: d.current.name,
        holder: d.holder.name,
        daysLeft,
        threshold,
      });
    }
    changed();
    return due.length;
  };

  const every = deps.checkEveryMs ?? 3_600_000;
  const timer =
    every > 0
      ? setInterval(() => {
          void checkExpiry().catch((err: unknown) =>
            deps.log.warn('locker: expiry check failed', { error: err }),
          );
        }, every)
      : null;
  timer?.unref?.();

  const locker: Locker = {
    async list(filter = {}) {
      const holder = filter.holder?.trim().toLowerCase();
      const query = filter.query?.trim().toLowerCase();
      const out: LockerDocumentView[] = [];
      for (const d of sorted([...docs.values()])) {
        if (filter.documentType && d.documentType !== filter.documentType) continue;
        if (holder && !d.holder.name.toLowerCase().includes(holder)) continue;
        const v = await view(d);
        if (filter.expiry && v.expiry !== filter.expiry) continue;
        if (query) {
          const text = [d.holder.name, d.note, d.current.name, DOCUMENT_TYPE_LABELS[d.documentType]]
            .join(' ')
            .toLowerCase();
          if (!text.includes(query)) continue;
        }
        out.push(v);
      }
      return out;
    },
    async add(source, meta) {
      const { version, refused } = await ingest(source, meta);
      if (!version) return { document: null, refused };
      const at = new Date().toISOString();
      const d: LockerDocument = {
        id: newId('ld'),
        documentType: meta.documentType,
        holder: { kind: meta.holder.kind, name: holderName(meta.holder.name) },
        note: meta.note ?? '',
        current: version,
        history: [],
        usedBy: [],
        warned: [],
        createdAt: at,
        updatedAt: at,
      };
      docs.set(d.id, d);
      await persist();
      changed();
      await checkExpiry();
      return { document: await view(d), refused };
    },
    async replace(id, source, dates) {
      const d = get(id);
      const { version, refused } = await ingest(source, dates);
      if (!version) return { document: null, refused };
      d.history.unshift(d.current);
      d.current = version;
      d.updatedAt = new Date().toISOString();
      await persist();
      changed();
      await checkExpiry();
      return { document: await view(d), refused };
    },
    async update(id, patch) {
      const d = get(id);
      if (patch.documentType) d.documentType = patch.documentType;
      if (patch.holder) d.holder = { kind: patch.holder.kind, name: holderName(patch.holder.name) };
      if (patch.note !== undefined) d.note = patch.note;
      d.updatedAt = new Date().toISOString();
      await persist();
      changed();
      return view(d);
    },
    async remove(id) {
      const d = docs.get(id);
      if (!d) return false;
      docs.delete(id);
      await persist();
      for (const v of [d.current, ...d.history]) await rm(blobPath(v.versionId), { force: true });
      changed();
      return true;
    },
    async forQuestion(questionType) {
      const fits = documentTypesFor(questionType);
      const all = sorted([...docs.values()]);
      const rank = (d: LockerDocument): number => fits.indexOf(d.documentType);
      const fitting = all.filter((d) => rank(d) >= 0).sort((a, b) => rank(a) - rank(b));
      const others = all.filter((d) => rank(d) < 0);
      return {
        fitting: await Promise.all(fitting.map(view)),
        others: await Promise.all(others.map(view)),
      };
    },
    async attach(id, rfiId, questionId) {
      const d = get(id);
      const bytes = await readVersion(d.current);
      const staged = await deps.stageForAnswer({ name: d.current.name, documentType: d.documentType, bytes });
      d.usedBy.push({ rfiId, questionId, versionId: d.current.versionId, at: new Date().toISOString() });
      await persist();
      changed();
      return staged;
    },
    async read(id) {
      const d = get(id);
      return { name: d.current.name, bytes: await readVersion(d.current) };
    },
    checkExpiry,
    dispose() {
      if (timer) clearInterval(timer);
    },
  };
  // Warnings due while the app was closed are given once it starts.
  await checkExpiry().catch((err: unknown) => deps.log.warn('locker: expiry check failed', { error: err }));
  return locker;
}
