/**
 * Sealing in place a document blob written plain (staged files and locker copies stored while
 * the keychain did not answer), once the data key is there: safe beside readers and against kills.
 *
 * A blob's holder (the staged-file area, the locker) keeps in its sealed record whether the blob
 * is sealed, and gives every reader and the re-seal one turn per blob (`BlobTurns`). Steps:
 *
 *   1. a sealed copy is written beside the plain blob (`<blob>.resealed`, through
 *      `<blob>.resealed.part`, fsync'd), bound to the blob's own path, from the plain bytes read
 *      through one descriptor and hashed on the way; the hash must be the one recorded;
 *   2. the copy is read back: its plain bytes must hash the same (the sha256 never changes);
 *   3. in the blob's turn: the record says "sealed" (`commit`: the holder's sealed record written),
 *      then the copy is renamed over the blob and the folder fsync'd.
 *
 * A reader opens a blob in its turn (record looked up, descriptor opened) and from then on reads
 * only through that descriptor: a rename over the path afterwards leaves an open reader on the
 * plain bytes it started with, so an upload under way sends the right bytes to its end.
 *
 * A kill leaves either the plain blob with a record that says plain (a copy beside it, whole or
 * not, is deleted at the next start: `settleResealed`) or a record that says sealed with the
 * sealed copy complete beside the plain blob (the next start renames it into place). Never a
 * missing blob, nor a record that does not match what `<blob>` holds once start-up is done.
 *
 * The plain bytes are unlinked, not overwritten: the file system (journal, SSD wear levelling)
 * may keep them, which no rename can help; what the data folder shows holds none.
 */
import { createHash } from 'node:crypto';
import { readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { createKeyedQueue, syncDirectory } from './durable-file';
import type { Logger } from './log';
import { blobWriter, readerSha256 } from './sealed-blob';
import type { BlobCodec, BlobReader } from './sealed-blob';

/** One turn per blob path: a reader's open and a re-seal's swap never overlap. */
export type BlobTurns = <T>(file: string, task: () => Promise<T>) => Promise<T>;
export const createBlobTurns = (): BlobTurns => createKeyedQueue();

/** The sealed copy waiting beside a plain blob (complete once it has this name). */
export const RESEALED_SUFFIX = '.resealed';

export type ResealOutcome =
  /** Sealed in place. */
  | 'sealed'
  /** The record went (released, removed) or was sealed otherwise meanwhile: nothing changed. */
  | 'gone'
  /** The plain bytes do not hash as recorded (changed on disk): left as they are, reported. */
  | 'changed';

export interface ResealTarget {
  /** The blob's path. */
  file: string;
  /** The plain bytes' recorded sha256 (null: none recorded; the one taken now is kept). */
  sha256: string | null;
  /**
   * Records the blob as sealed, with its sha256 (the holder's sealed record written). Runs in the
   * blob's turn; false when the record is gone or no longer plain (nothing is renamed then).
   */
  commit(sha256: string): Promise<boolean>;
  /** Undoes `commit` (the rename failed): the record says plain again. */
  revert(): Promise<void>;
}

/** Seals one plain blob in place (see the steps above). `blobs` must be sealing. */
export async function resealBlob(
  blobs: BlobCodec,
  turns: BlobTurns,
  t: ResealTarget,
  log: Logger,
): Promise<ResealOutcome> {
  if (!blobs.sealing) throw new Error('resealBlob needs a sealing codec');
  const copy = `${t.file}${RESEALED_SUFFIX}`;
  let plain: BlobReader;
  try {
    plain = await turns(t.file, () => blobs.open(t.file, false));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw err;
  }
  let sha256: string;
  const writer = await blobWriter(blobs, t.file, copy);
  try {
    const hash = createHash('sha256');
    for await (const piece of plain.chunks()) {
      hash.update(piece);
      await writer.write(piece);
    }
    sha256 = hash.digest('hex');
    if (t.sha256 !== null && sha256 !== t.sha256) {
      await writer.abort();
      log.warn('at rest: a plain document changed on disk since it was stored; left as it is', {
        file: path.basename(t.file),
      });
      return 'changed';
    }
    await writer.finish();
  } catch (err) {
    await writer.abort();
    throw err;
  } finally {
    await plain.close();
  }
  try {
    if ((await readerSha256(await blobs.open(copy, true, t.file))) !== sha256) {
      throw new Error('the sealed copy does not read back as the plain bytes');
    }
    return await turns(t.file, async () => {
      if (!(await t.commit(sha256))) {
        await rm(copy, { force: true });
        return 'gone';
      }
      try {
        await rename(copy, t.file);
      } catch (err) {
        // Windows refuses to replace a file some process holds open: plain until the next try.
        await t.revert();
        throw err;
      }
      await syncDirectory(path.dirname(t.file));
      return 'sealed';
    });
  } catch (err) {
    await rm(copy, { force: true });
    throw err;
  }
}

/**
 * Start-up (or the first moment the holder's records can be read): a sealed copy left beside a
 * blob by a kill is renamed into place when the record says sealed (the kill came after the
 * commit), else deleted (the plain blob and its record stand; it is sealed again). `sealedAt`
 * answers, for a blob path, whether its record says sealed (null: no record). Answers how many
 * copies were settled.
 */
export async function settleResealed(
  dir: string,
  sealedAt: (file: string) => boolean | null,
  log: Logger,
): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let settled = 0;
  for (const name of names) {
    if (!name.endsWith(RESEALED_SUFFIX)) continue;
    const copy = path.join(dir, name);
    const file = copy.slice(0, -RESEALED_SUFFIX.length);
    if (sealedAt(file) === true) {
      await rename(copy, file);
      log.info('at rest: a document sealed in place before a stop is put into place', {
        file: path.basename(file),
      });
    } else await rm(copy, { force: true });
    settled++;
  }
  if (settled > 0) await syncDirectory(dir);
  return settled;
}

/** A holder's record of one blob, as the re-seal of all its plain blobs sees it. */
export interface BlobRecord {
  file: string;
  /** The plain bytes' recorded sha256, or null. */
  sha256: string | null;
  /** Whether the record still stands (not released or removed meanwhile). */
  live(): boolean;
  sealed(): boolean;
  /** Sets the record's form (and sha256) in memory; the holder's `persist` writes it. */
  mark(sealed: boolean, sha256?: string): void;
}

/**
 * Seals in place every plain blob of a holder's records in `dir` (a copy a kill left beside one
 * settled first), one after the other. A blob that fails is logged and left plain for the next
 * pass. Answers how many were sealed.
 */
export async function resealPlainBlobs(o: {
  blobs: BlobCodec;
  turns: BlobTurns;
  dir: string;
  records: BlobRecord[];
  persist(): Promise<void>;
  log: Logger;
}): Promise<number> {
  if (!o.blobs.sealing) return 0;
  const byPath = new Map(o.records.map((r) => [r.file, r]));
  await settleResealed(
    o.dir,
    (file) => {
      const r = byPath.get(file);
      return r?.live() ? r.sealed() : null;
    },
    o.log,
  );
  let n = 0;
  for (const r of byPath.values()) {
    if (!r.live() || r.sealed()) continue;
    try {
      const outcome = await resealBlob(
        o.blobs,
        o.turns,
        {
          file: r.file,
          sha256: r.sha256,
          async commit(sha256) {
            if (!r.live() || r.sealed()) return false;
            r.mark(true, sha256);
            await o.persist();
            return true;
          },
          async revert() {
            r.mark(false);
            await o.persist();
          },
        },
        o.log,
      );
      if (outcome === 'sealed') n++;
    } catch (err) {
      o.log.warn('at rest: a document was not sealed in place', { file: path.basename(r.file), error: err });
    }
  }
  if (n > 0)
    o.log.info('at rest: documents written plain are sealed now', { count: n, dir: path.basename(o.dir) });
  return n;
}
