/**
 * Files an answer will upload. The renderer never names a path: the native picker (in main)
 * answers paths that are registered here under opaque refs, and dropped files arrive as bytes in
 * chunks, sealed with the data key into a staging folder under the data folder, under a name main
 * chooses (file-staging.ts). Every file is checked before it is accepted: its type by its
 * structure (PDF, PNG, JPEG: what the bank accepts), and its size against the upload limit.
 *
 * Every staged file belongs to one profile (bank + credential): the one named when it was staged,
 * else the one whose answer or draft first uses it. A file of one profile is refused in another
 * profile's answer (`file_of_another_profile`).
 */

import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { DocumentType, UploadContentType } from '../../shared/catalogue';
import type { StagedFileView } from '../../shared/ipc/channels/rfi-answers';
import { AppFailure } from '../../shared/ipc/errors';
import { cleanFileName } from '../../shared/names';
import { tooLargeWords } from '../../shared/words';
import { plainCodec } from '../infra/at-rest';
import type { AtRestCodec } from '../infra/at-rest';
import { sha256OfFile } from '../infra/file-hash';
import { checkFile } from '../infra/file-structure';
import type { Logger } from '../infra/log';
import { BlobTooLarge, blobSource, pathSource, writeBlob } from '../infra/sealed-blob';
import type { BlobReader, PickedDigest, UploadSource } from '../infra/sealed-blob';
import { checkStored, notAccepted } from './file-checks';
import { newId, openStagedRegistry, toView } from './file-registry';
import type { StagedFile } from './file-registry';
import { droppedFiles } from './file-staging';
import { stagedBlobs } from './staged-blobs';
import type { DroppedFileStart } from './file-staging';

export { CHUNK_BYTES } from './file-staging';
export { notAccepted } from './file-checks';
export { toView } from './file-registry';
export type { StagedFile } from './file-registry';
export const UPLOAD_EXTENSIONS = ['pdf', 'png', 'jpg', 'jpeg'];

/** The content type of a file from its first bytes; null when it is none the bank accepts. */
export function sniffContentType(head: Uint8Array): UploadContentType | null {
  const b = Buffer.from(head);
  if (b.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  if (b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  return null;
}

/**
 * The owner of a file staged for the evidence locker (a locker add), not for an answer: never a
 * profile id (those cannot start with a dot), so no profile's answer or draft takes the file.
 */
export const FOR_LOCKER = '.locker';

/** Bytes main already holds as a stream (a locker document), to stage as a dropped file. */
export interface AdoptedBytes {
  name: string;
  documentType: DocumentType;
  /** The profile whose answer they are for. */
  profileId: string | null;
  sizeBytes: number;
  /** The sha256 they must have (the locker's record); a copy that differs is refused. */
  sha256?: string;
  bytes: AsyncIterable<Buffer>;
}

export interface FileArea {
  readonly maxBytes: () => number;
  /** Registers files chosen in the native dialog (checked); answers accepted and refused files. */
  registerPicked(
    paths: string[],
    documentType: DocumentType,
    profileId?: string | null,
  ): Promise<{ files: StagedFileView[]; refused: Array<{ name: string; message: string }> }>;
  begin(o: DroppedFileStart): Promise<string>;
  chunk(stagingId: string, offset: number, base64: string): Promise<number>;
  commit(stagingId: string): Promise<StagedFileView>;
  abort(stagingId: string): Promise<void>;
  /** Stages bytes main already holds (a locker document), sealed and checked like a dropped file. */
  adopt(o: AdoptedBytes): Promise<StagedFileView>;
  /** The staged file of a ref; throws invalid_argument for a ref main never issued. */
  resolve(ref: string): StagedFile;
  view(ref: string): StagedFileView;
  /**
   * Refuses (`file_of_another_profile`) a ref staged for another profile than `profileId`, or for
   * the evidence locker (`FOR_LOCKER`); null: the owner is not known yet, nothing is checked.
   */
  checkOwner(ref: string, profileId: string | null): StagedFile;
  /** Binds refs not bound yet to the profile whose answer or draft uses them. */
  bind(refs: string[], profileId: string | null): Promise<void>;
  /** The bytes of a ref as the upload sends them (decrypted as they go). */
  source(ref: string): UploadSource;
  /** The bytes of a ref opened for reading (the locker copies a dropped file from it). */
  open(ref: string): Promise<BlobReader>;
  /** Forgets refs (and deletes dropped bytes) no longer needed. */
  release(refs: string[]): Promise<void>;
  /**
   * Staged bytes expire: dropped files created before `before` (ms) whose ref is not in `keep`
   * (a queued answer's) are deleted and forgotten. Answers how many.
   */
  expire(before: number, keep: ReadonlySet<string>): Promise<number>;
  /**
   * Seals in place the dropped files stored plain while there was no data key (once there is
   * one: at start, when the keychain answers later, and for a file that arrived plain across the
   * switch); safe beside an upload reading one (infra/blob-reseal.ts). Answers how many.
   */
  resealPlain(): Promise<number>;
  dispose(): Promise<void>;
}

export async function openFileArea(o: {
  dir: string;
  log: Logger;
  maxBytes: () => number;
  /** Seals the registry and the dropped bytes at rest (default: plain). */
  codec?: AtRestCodec;
  /** Told when the registry could not be read and was moved aside. */
  onProblem?: (message: string, file: string, movedTo: string | null) => void;
  /** The most bytes staged at once (dropped files kept plus files arriving); default 256 MiB. */
  quotaBytes?: number;
}): Promise<FileArea> {
  const codec = o.codec ?? plainCodec;
  const { files, stagingDir, persist } = await openStagedRegistry(o);
  const quota = o.quotaBytes ?? 256 * 1024 * 1024;
  const tooLarge = (size: number): string => tooLargeWords(size, o.maxBytes());
  const stagedBytes = (): number => {
    let sum = dropped.arrivingBytes();
    for (const f of files.values()) if (f.kind === 'dropped') sum += f.sizeBytes;
    return sum;
  };
  const overQuota = (adding: number): AppFailure | null =>
    stagedBytes() + adding > quota
      ? new AppFailure({
          kind: 'local',
          message: `Staged files would take more than ${(quota / (1024 * 1024)).toFixed(quota < 10 * 1024 * 1024 ? 1 : 0)} MiB on this computer. Send or remove answers with files first.`,
        })
      : null;
  const dropped = droppedFiles({
    stagingDir,
    blobs: () => codec.blobs,
    maxBytes: o.maxBytes,
    tooLarge,
    overQuota,
  });
  const keep = async (rec: StagedFile): Promise<StagedFileView> => {
    files.set(rec.ref, rec);
    await persist();
    // Arrived plain across the switch to sealing (its writer began before the key was there).
    if (rec.sealed !== true && codec.blobs.sealing) await area.resealPlain();
    return toView(rec);
  };
  const pick = (p: string, documentType: DocumentType, profileId: string | null) =>
    pickedFile(p, documentType, profileId, o.maxBytes, tooLarge);
  const staged = stagedBlobs({ files, stagingDir, codec, persist, log: o.log });
  const hashes = pickedHashes({ files, persist, log: o.log });
  const area: FileArea = {
    maxBytes: o.maxBytes,
    async registerPicked(paths, documentType, profileId = null) {
      const accepted: StagedFileView[] = [];
      const refused: Array<{ name: string; message: string }> = [];
      for (const p of paths) {
        const r = await pick(p, documentType, profileId);
        if ('refused' in r) refused.push(r.refused);
        else {
          files.set(r.rec.ref, r.rec);
          accepted.push(toView(r.rec));
        }
      }
      if (accepted.length > 0) await persist();
      for (const f of accepted) hashes.start(files.get(f.ref) as StagedFile);
      return { files: accepted, refused };
    },
    begin: (b) => dropped.begin(b),
    chunk: (id, offset, base64) => dropped.chunk(id, offset, base64),
    commit: async (id) => keep(await dropped.commit(id)),
    abort: (id) => dropped.abort(id),
    async adopt(a) {
      const shown = cleanFileName(a.name);
      if (a.sizeBytes === 0 || a.sizeBytes > o.maxBytes()) {
        throw new AppFailure({
          kind: 'invalid_argument',
          field: 'files',
          message: `${shown}: ${tooLarge(a.sizeBytes)}`,
        });
      }
      const full = overQuota(a.sizeBytes);
      if (full) throw full;
      const ref = newId('f');
      const final = path.join(stagingDir, `${ref}.bin`);
      let written: Awaited<ReturnType<typeof writeBlob>>;
      try {
        written = await writeBlob(codec.blobs, final, a.bytes, a.sizeBytes);
      } catch (err) {
        if (err instanceof BlobTooLarge) {
          throw new AppFailure({
            kind: 'local',
            message: `${shown} is larger than recorded; it was not added.`,
          });
        }
        throw err;
      }
      if ((a.sha256 !== undefined && written.sha256 !== a.sha256) || written.sizeBytes !== a.sizeBytes) {
        await area.release([ref]);
        throw new AppFailure({
          kind: 'local',
          message: `${shown} changed on disk since it was stored; it was not added.`,
        });
      }
      const contentType = await checkStored(codec.blobs, final, written.sealed, shown, 'files');
      return keep({
        ref,
        kind: 'dropped',
        path: final,
        name: shown,
        sizeBytes: written.sizeBytes,
        contentType,
        documentType: a.documentType,
        createdAt: new Date().toISOString(),
        sealed: written.sealed,
        sha256: written.sha256,
        profileId: a.profileId,
      });
    },
    resolve(ref) {
      const f = files.get(ref);
      if (!f) {
        throw new AppFailure({
          kind: 'invalid_argument',
          field: 'files',
          message: 'A file reference was not issued by this app (add the file again).',
        });
      }
      return f;
    },
    view: (ref) => toView(area.resolve(ref)),
    checkOwner(ref, profileId) {
      const f = area.resolve(ref);
      if (profileId !== null && f.profileId === FOR_LOCKER) {
        throw new AppFailure({
          kind: 'invalid_argument',
          field: 'files',
          reason: 'file_of_another_profile',
          message: `${f.name} was added for the evidence locker; add it again for this answer.`,
        });
      }
      if (profileId !== null && f.profileId && f.profileId !== profileId) {
        throw new AppFailure({
          kind: 'invalid_argument',
          field: 'files',
          reason: 'file_of_another_profile',
          message: `${f.name} was added for another entity’s answer; add it again for this one.`,
        });
      }
      return f;
    },
    async bind(refs, profileId) {
      if (profileId === null) return;
      let changed = false;
      for (const ref of refs) {
        const f = area.checkOwner(ref, profileId);
        if (f.profileId) continue;
        f.profileId = profileId;
        changed = true;
      }
      if (changed) await persist();
    },
    source(ref) {
      const f = area.resolve(ref);
      if (f.kind === 'picked') return pathSource(f.path, () => hashes.digest(f));
      return blobSource(() => staged.open(ref), f.sha256 ?? null);
    },
    open(ref) {
      const f = area.resolve(ref);
      if (f.kind === 'picked') return codec.blobs.open(f.path, false);
      return staged.open(ref);
    },
    async release(refs) {
      let changed = false;
      for (const ref of refs) {
        const f = files.get(ref);
        if (!f) continue;
        files.delete(ref);
        changed = true;
        if (f.kind === 'dropped') await staged.remove(f.path);
      }
      if (changed) await persist();
    },
    async expire(before, kept) {
      const old = [...files.values()]
        .filter((f) => f.kind === 'dropped' && !kept.has(f.ref) && Date.parse(f.createdAt) < before)
        .map((f) => f.ref);
      await area.release(old);
      return old.length;
    },
    resealPlain: () => staged.resealPlain(),
    async dispose() {
      await hashes.settled();
      await dropped.dispose();
      await staged.settled();
    },
  };
  // Files staged plain (no keychain before) are sealed once there is a key: now, or when the
  // keychain answers later (the registry has read its file again by then).
  if (codec.blobs.sealing) await area.resealPlain();
  codec.onSealed(() => area.resealPlain().then(() => undefined));
  return area;
}

/**
 * The sha256 of picked files, taken once each is accepted (on a worker thread when it is large),
 * while the analyst writes the answer, so that its upload need not hash it on the way out
 * (infra/sealed-blob.ts `pathSource`). Kept in the file's record with the modification time it
 * had; a file changed since has no known sha256 and is hashed as it is sent.
 */
function pickedHashes(o: { files: Map<string, StagedFile>; persist: () => Promise<void>; log: Logger }) {
  const hashing = new Map<string, Promise<PickedDigest | null>>();
  return {
    start(rec: StagedFile): void {
      const digest = (async (): Promise<PickedDigest | null> => {
        const sha256 = await sha256OfFile(rec.path);
        const after = await stat(rec.path);
        // Changed since it was picked (or while it was hashed), or released meanwhile: unknown.
        if (after.size !== rec.sizeBytes || after.mtimeMs !== rec.mtimeMs) return null;
        if (o.files.get(rec.ref) !== rec) return null;
        rec.sha256 = sha256;
        await o.persist();
        return { sha256, size: after.size, mtimeMs: after.mtimeMs };
      })().catch((err: unknown) => {
        o.log.info('rfi-answers: a picked file could not be hashed; it is hashed as it is sent', {
          error: err,
        });
        return null;
      });
      hashing.set(rec.ref, digest);
      void digest.finally(() => hashing.delete(rec.ref));
    },
    /** The sha256 taken when the file was picked (awaited while it is being taken), or null. */
    digest(f: StagedFile): Promise<PickedDigest | null> {
      const known =
        f.sha256 !== undefined && f.mtimeMs !== undefined
          ? { sha256: f.sha256, size: f.sizeBytes, mtimeMs: f.mtimeMs }
          : null;
      return hashing.get(f.ref) ?? Promise.resolve(known);
    },
    settled: async (): Promise<void> => void (await Promise.all(hashing.values())),
  };
}

/** A file the native picker answered, checked where it is (it is never copied). */
async function pickedFile(
  p: string,
  documentType: DocumentType,
  profileId: string | null,
  maxBytes: () => number,
  tooLarge: (size: number) => string,
): Promise<{ rec: StagedFile } | { refused: { name: string; message: string } }> {
  const name = cleanFileName(path.basename(p));
  try {
    if (!path.isAbsolute(p)) throw new Error('The dialog answered a relative path.');
    const s = await stat(p);
    if (!s.isFile()) throw new Error('It is not a file.');
    if (s.size === 0) throw new Error('The file is empty.');
    if (s.size > maxBytes()) throw new Error(tooLarge(s.size));
    const checked = await checkFile(p);
    if (!checked.ok) throw new Error(notAccepted(checked.reason));
    return {
      rec: {
        ref: newId('f'),
        kind: 'picked',
        path: p,
        name,
        sizeBytes: s.size,
        contentType: checked.type,
        documentType,
        createdAt: new Date().toISOString(),
        profileId,
        mtimeMs: s.mtimeMs,
      },
    };
  } catch (err) {
    return { refused: { name, message: err instanceof Error ? err.message : 'The file cannot be read.' } };
  }
}
