/**
 * The evidence locker: documents the analyst adds once and reuses to answer RFIs.
 *
 * A file enters only from a path main's native picker answered or from a file the page dropped,
 * which main staged under its own name (an opaque ref); the page never names a path. Its copy is
 * streamed into `<data>/locker/blobs/`, sealed in chunks with the data key and hashed (sha256) on
 * the way, and checked by its structure as stored (copies.ts). The list of documents
 * (`locker/index.json`) is sealed with the at-rest codec like every data file.
 *
 * Replacing a document adds a version and keeps the older ones in its history. Using a document
 * in an answer stages its exact bytes (checked against the stored sha256, sealed again in the
 * staging folder) as a file of the answer, for the profile that owns the RFI, so the normal
 * outbox uploads it with a new upload URL each time; the use is recorded with that profile (RFI
 * ids are one bank's only). Expiry warnings: expiry.ts.
 */

import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { DOCUMENT_TYPE_LABELS, documentTypesFor } from '../../shared/catalogue';
import type { DocumentType } from '../../shared/catalogue';
import type { LockerDocumentView } from '../../shared/ipc/channels/locker';
import type { StagedFileView } from '../../shared/ipc/channels/rfi-answers';
import { AppFailure } from '../../shared/ipc/errors';
import { plainCodec } from '../infra/at-rest';
import type { AtRestCodec } from '../infra/at-rest';
import { createSerialQueue } from '../infra/durable-file';
import type { EventHub } from '../infra/events';
import { stateFile } from '../infra/json-store';
import type { StateFileProblem } from '../infra/json-store';
import type { Logger } from '../infra/log';
import type { Platform } from '../infra/platform';
import { lockerCopies } from './copies';
import type { StagedBytes } from './copies';
import { checkExpiry } from './expiry';
import { expiryOf, holderName, indexFormat, sorted } from './records';
import type { FileSource, LockerDocument, NewDocument, VersionDates } from './records';

export { daysUntil } from './records';
export type { FileSource, NewDocument } from './records';

const FINAL_RFI = new Set(['approved', 'rejected', 'closed', 'timeout']);

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
  /** A staged file of a ref main issued (throws for any other), to copy in. */
  staged(ref: string): StagedBytes;
  /** Forgets a staged file once the locker holds its copy (unless an answer or draft uses it). */
  releaseStaged(ref: string): Promise<void>;
  /** Stages bytes as a file of the named profile's answer (the outbox uploads it). */
  stageForAnswer(o: {
    name: string;
    documentType: DocumentType;
    profileId: string | null;
    sizeBytes: number;
    sha256: string;
    bytes: AsyncIterable<Buffer>;
  }): Promise<StagedFileView>;
  /** The cached status of an RFI of a profile (null when unknown). */
  rfiStatus(rfiId: string, profileId: string | null): Promise<string | null>;
  /**
   * The profile that owns an RFI, as main knows it: the named profile, which must be known and
   * hold the RFI (refused, typed, otherwise). Absent: the named profile is taken as it is.
   */
  owner?(rfiId: string, profileId: string): Promise<string>;
  /** How often expiry is checked (default hourly); 0: only at start and on changes. */
  checkEveryMs?: number;
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
  replace(id: string, source: FileSource, dates: VersionDates): Promise<AddResult>;
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
  /** Stages the current version for an answer of the RFI's owning profile (named, or found). */
  attach(id: string, rfiId: string, questionId: string, profileId: string): Promise<StagedFileView>;
  /** The bytes of a document's current version, checked against its sha256 (case files). */
  read(id: string): Promise<{ name: string; bytes: Buffer }>;
  /** Gives the expiry warnings now due (once per version and threshold); answers how many. */
  checkExpiry(): Promise<number>;
  /** Stops the checks and waits for a re-seal under way (nothing is written after it). */
  dispose(): Promise<void>;
}

const newId = (prefix: string): string => `${prefix}_${randomBytes(12).toString('hex')}`;

export async function createLocker(deps: LockerDeps): Promise<Locker> {
  const dir = path.join(deps.dataDir, 'locker');
  const blobs = path.join(dir, 'blobs');
  await mkdir(blobs, { recursive: true, mode: 0o700 });
  const codec = deps.codec ?? plainCodec;
  const indexFile = path.join(dir, 'index.json');
  const store = stateFile(indexFormat, { log: deps.log, codec, report: (p) => deps.report?.(p) });
  const serial = createSerialQueue();
  const docs = new Map<string, LockerDocument>();
  const loaded = await store.read(indexFile);
  for (const d of loaded?.value.documents ?? []) docs.set(d.id, d);
  const persist = (): Promise<void> =>
    serial(() => store.write(indexFile, { version: 1, documents: [...docs.values()] }));
  if (loaded?.stale) await persist();
  // The keychain answered later in the run: an index that waited for it is read now.
  const offSealed = codec.onSealed(async () => {
    const again = await serial(() => store.read(indexFile));
    let added = 0;
    for (const d of again?.value.documents ?? []) {
      if (docs.has(d.id)) continue;
      docs.set(d.id, d);
      added++;
    }
    if (added > 0) deps.events.emit('locker.changed', { count: docs.size });
  });
  const copies = lockerCopies({ ...deps, dir: blobs, codec });
  /**
   * Copies stored plain (no keychain then) are sealed in place once there is a key: at start, when
   * the keychain answers later (after the index was read again), and after a copy arrived plain
   * across the switch. A removed document's versions are gone from `docs`: never re-sealed.
   */
  let resealing: Promise<number> = Promise.resolve(0);
  const resealPlain = (): Promise<number> => {
    resealing = resealing
      .catch(() => 0)
      .then(() =>
        copies.resealPlain(
          [...docs.values()].flatMap((d) => [d.current, ...d.history]),
          persist,
        ),
      );
    return resealing;
  };
  const offResealing = codec.onSealed(() => resealPlain().then(() => undefined));
  const changed = (): void => deps.events.emit('locker.changed', { count: docs.size });
  const view = (d: LockerDocument) => viewOf(d, deps, (v) => copies.exists(v));
  const get = (id: string): LockerDocument => {
    const d = docs.get(id);
    if (!d) throw new AppFailure({ kind: 'not_found', message: 'That document is no longer in the locker.' });
    return d;
  };
  const expiry = (): Promise<number> =>
    checkExpiry({
      documents: () => docs.values(),
      now: deps.now,
      persist,
      platform: deps.platform,
      events: deps.events,
      changed,
    });
  const expiryFailed = (err: unknown): void => deps.log.warn('locker: expiry check failed', { error: err });
  const every = deps.checkEveryMs ?? 3_600_000;
  const timer = every > 0 ? setInterval(() => void expiry().catch(expiryFailed), every) : null;
  timer?.unref?.();
  /** A document changed: written, told, and its expiry looked at. */
  const saved = async (d: LockerDocument, warn: boolean): Promise<LockerDocumentView> => {
    await persist();
    if (d.current.blob?.sealed === false && codec.blobs.sealing) await resealPlain();
    changed();
    if (warn) await expiry();
    return view(d);
  };

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
        const text = [d.holder.name, d.note, d.current.name, DOCUMENT_TYPE_LABELS[d.documentType]];
        if (query && !text.join(' ').toLowerCase().includes(query)) continue;
        out.push(v);
      }
      return out;
    },
    async add(source, meta) {
      const { version, refused } = await copies.ingest(source, meta);
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
      return { document: await saved(d, true), refused };
    },
    async replace(id, source, dates) {
      const d = get(id);
      const { version, refused } = await copies.ingest(source, dates);
      if (!version) return { document: null, refused };
      d.history.unshift(d.current);
      d.current = version;
      d.updatedAt = new Date().toISOString();
      return { document: await saved(d, true), refused };
    },
    async update(id, patch) {
      const d = get(id);
      if (patch.documentType) d.documentType = patch.documentType;
      if (patch.holder) d.holder = { kind: patch.holder.kind, name: holderName(patch.holder.name) };
      if (patch.note !== undefined) d.note = patch.note;
      d.updatedAt = new Date().toISOString();
      return saved(d, false);
    },
    async remove(id) {
      const d = docs.get(id);
      if (!d) return false;
      docs.delete(id);
      await persist();
      for (const v of [d.current, ...d.history]) await copies.remove(v);
      changed();
      return true;
    },
    async forQuestion(questionType) {
      const fits = documentTypesFor(questionType);
      const all = sorted([...docs.values()]);
      const rank = (d: LockerDocument): number => fits.indexOf(d.documentType);
      const fitting = all.filter((d) => rank(d) >= 0).sort((a, b) => rank(a) - rank(b));
      const others = all.filter((d) => rank(d) < 0);
      return { fitting: await Promise.all(fitting.map(view)), others: await Promise.all(others.map(view)) };
    },
    async attach(id, rfiId, questionId, profileId) {
      const d = get(id);
      const owner = deps.owner ? await deps.owner(rfiId, profileId) : profileId;
      const v = d.current;
      const staged = await deps.stageForAnswer({
        name: v.name,
        documentType: d.documentType,
        profileId: owner,
        sizeBytes: v.sizeBytes,
        sha256: v.sha256,
        bytes: await copies.chunks(v),
      });
      d.usedBy.push({
        rfiId,
        questionId,
        versionId: v.versionId,
        at: new Date().toISOString(),
        profileId: owner,
      });
      await saved(d, false);
      return staged;
    },
    async read(id) {
      const d = get(id);
      return { name: d.current.name, bytes: await copies.read(d.current) };
    },
    checkExpiry: expiry,
    async dispose() {
      offSealed();
      offResealing();
      if (timer) clearInterval(timer);
      await resealing.catch(() => undefined);
    },
  };
  if (codec.blobs.sealing) await resealPlain();
  // Warnings due while the app was closed are given once it starts.
  await expiry().catch(expiryFailed);
  return locker;
}

/** A version as the page sees it (how its copy is stored is main's business). */
const shown = ({ blob: _blob, ...v }: LockerDocument['current']): LockerDocumentView['current'] => v;

/** A document as the page sees it: expiry by the bank's clock, where it was used (per profile). */
async function viewOf(
  d: LockerDocument,
  deps: Pick<LockerDeps, 'now' | 'rfiStatus'>,
  exists: (v: LockerDocument['current']) => Promise<boolean>,
): Promise<LockerDocumentView> {
  const { daysLeft, expiry } = expiryOf(d.current, deps.now());
  const problem = (await exists(d.current))
    ? null
    : `${d.current.name} is missing from the locker's folder (deleted on disk). Replace it with a new copy.`;
  const seen = new Set<string>();
  const usedBy: LockerDocumentView['usedBy'] = [];
  for (const u of [...d.usedBy].reverse()) {
    const profileId = u.profileId ?? null;
    const key = `${profileId ?? ''}/${u.rfiId}/${u.questionId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const rfiStatus = await deps.rfiStatus(u.rfiId, profileId).catch(() => null);
    usedBy.push({
      rfiId: u.rfiId,
      questionId: u.questionId,
      profileId,
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
    current: shown(d.current),
    history: d.history.map(shown),
    daysLeft,
    expiry,
    problem,
    usedBy,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}
