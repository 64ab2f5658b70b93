/**
 * The locker's copies of documents (`<data>/locker/blobs/`): a file enters from a path main's
 * native picker answered or from a staged file (a ref main issued), is streamed into a blob sealed
 * in chunks with the data key (infra/sealed-blob.ts) while it is hashed (sha256), and is checked by
 * its structure as stored. Nothing is ever held whole in memory, and no plain copy is written while
 * a data key exists. Every problem names the file, never its path.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppFailure } from '../../shared/ipc/errors';
import { cleanFileName } from '../../shared/names';
import { tooLargeWords } from '../../shared/words';
import type { AtRestCodec } from '../infra/at-rest';
import { createBlobTurns, resealPlainBlobs } from '../infra/blob-reseal';
import { checkStructure } from '../infra/file-structure';
import type { Logger } from '../infra/log';
import type { Platform } from '../infra/platform';
import { BlobTooLarge, writeBlob } from '../infra/sealed-blob';
import type { BlobReader } from '../infra/sealed-blob';
import { notAccepted } from '../rfi-answers/file-checks';
import type { FileSource, Version, VersionDates } from './records';

/** A staged file as the locker reads it (a ref main issued; anything else throws). */
export interface StagedBytes {
  name: string;
  sizeBytes: number;
  open(): Promise<BlobReader>;
}

export interface LockerCopiesDeps {
  dir: string;
  codec: AtRestCodec;
  log: Logger;
  platform: Platform;
  maxBytes(): number;
  staged(ref: string): StagedBytes;
  releaseStaged(ref: string): Promise<void>;
}

export interface LockerCopies {
  /** Reads, checks, hashes and stores one file; refusals name the file only. */
  ingest(
    source: FileSource,
    dates: VersionDates,
  ): Promise<{ version: Version | null; refused: Array<{ name: string; message: string }> }>;
  /** The plain bytes of a version, a chunk at a time (the sha256 is checked by whoever copies them). */
  chunks(v: Version): Promise<AsyncIterable<Buffer>>;
  /** The whole bytes of a version, checked against its sha256. */
  read(v: Version): Promise<Buffer>;
  exists(v: Version): Promise<boolean>;
  remove(v: Version): Promise<void>;
  /**
   * Seals in place the copies stored plain while there was no data key (infra/blob-reseal.ts):
   * `versions` are every version the index holds, `persist` writes the index. Answers how many.
   */
  resealPlain(versions: Version[], persist: () => Promise<void>): Promise<number>;
}

/** Refused, by the file's name (never its path). */
class Refusal extends Error {}

const newId = (prefix: string): string => `${prefix}_${randomBytes(12).toString('hex')}`;
const unreadable = 'The file cannot be read (it was moved, deleted or is not readable).';

export function lockerCopies(deps: LockerCopiesDeps): LockerCopies {
  const blobPath = (v: Pick<Version, 'versionId' | 'blob'>): string =>
    path.join(deps.dir, v.blob ? `${v.versionId}.bin` : `${v.versionId}.sealed`);
  const missing = (v: Version): AppFailure =>
    new AppFailure({
      kind: 'local',
      message: `${v.name} is missing from the locker's folder (deleted on disk). Replace it with a new copy.`,
    });
  const damaged = (v: Version): AppFailure =>
    new AppFailure({
      kind: 'local',
      message: `${v.name} in the locker cannot be opened (damaged, or sealed with another key). Replace it with a new copy.`,
    });
  const tooLarge = (size: number): string => tooLargeWords(size, deps.maxBytes());
  // One turn per copy: a reader's open and a re-seal's swap never overlap.
  const turns = createBlobTurns();

  /** The bytes to copy in, by the file's name; refusals before anything is written. */
  const sourceOf = async (
    source: FileSource,
  ): Promise<{
    name: string;
    bytes: () => Promise<AsyncIterable<Buffer>>;
    done?: () => Promise<void>;
  } | null> => {
    if (source.from === 'staged') {
      // A ref main issued for a dropped (or picked) file; anything else is refused here.
      const staged = deps.staged(source.ref);
      return {
        name: cleanFileName(staged.name),
        bytes: async () => readerChunks(await staged.open()),
        done: () => deps.releaseStaged(source.ref),
      };
    }
    const [picked] = await deps.platform.showOpenFileDialog({
      title: 'Add a document to the locker',
      extensions: ['pdf', 'png', 'jpg', 'jpeg'],
      multiple: false,
    });
    if (!picked) return null;
    return {
      name: cleanFileName(path.basename(picked)),
      bytes: async () => {
        if (!path.isAbsolute(picked)) throw new Refusal('The file could not be found.');
        let size: number;
        try {
          const s = await stat(picked);
          if (!s.isFile()) throw new Refusal('It is not a file.');
          size = s.size;
        } catch (err) {
          if (err instanceof Refusal) throw err;
          throw new Refusal(unreadable);
        }
        if (size === 0) throw new Refusal('The file is empty.');
        if (size > deps.maxBytes()) throw new Refusal(tooLarge(size));
        return readOrRefuse(picked);
      },
    };
  };

  const store = async (name: string, bytes: AsyncIterable<Buffer>, dates: VersionDates): Promise<Version> => {
    const versionId = newId('lv');
    const file = blobPath({ versionId, blob: { sealed: true } });
    let written: Awaited<ReturnType<typeof writeBlob>>;
    try {
      written = await writeBlob(deps.codec.blobs, file, bytes, deps.maxBytes());
    } catch (err) {
      if (err instanceof BlobTooLarge) throw new Refusal(tooLarge(err.received));
      throw err;
    }
    if (written.sizeBytes === 0) {
      await rm(file, { force: true });
      throw new Refusal('The file is empty.');
    }
    const stored = await deps.codec.blobs.open(file, written.sealed);
    const checked = await checkStructure(stored.size, stored.readAt).finally(() => stored.close());
    if (!checked.ok) {
      await rm(file, { force: true });
      throw new Refusal(notAccepted(checked.reason));
    }
    return {
      versionId,
      name,
      contentType: checked.type,
      sizeBytes: written.sizeBytes,
      sha256: written.sha256,
      addedAt: new Date().toISOString(),
      issuedOn: dates.issuedOn ?? null,
      expiresOn: dates.expiresOn ?? null,
      blob: { sealed: written.sealed },
    };
  };

  const copies: LockerCopies = {
    async ingest(source, dates) {
      if (dates.issuedOn && dates.expiresOn && dates.expiresOn < dates.issuedOn) {
        throw new AppFailure({
          kind: 'invalid_argument',
          field: 'expiresOn',
          message: 'The expiry date is before the issue date.',
        });
      }
      const src = await sourceOf(source);
      if (!src) return { version: null, refused: [] };
      try {
        const version = await store(src.name, await src.bytes(), dates);
        await src
          .done?.()
          .catch((err: unknown) => deps.log.warn('locker: staged copy not released', { error: err }));
        return { version, refused: [] };
      } catch (err) {
        if (err instanceof Refusal)
          return { version: null, refused: [{ name: src.name, message: err.message }] };
        deps.log.error('locker: file not stored', { error: err });
        return {
          version: null,
          refused: [{ name: src.name, message: 'The file could not be stored in the locker.' }],
        };
      }
    },
    async chunks(v) {
      if (!v.blob) {
        const whole = await copies.read(v);
        return (async function* one() {
          yield whole;
        })();
      }
      let reader: BlobReader;
      try {
        // Opened in the copy's turn, sealed or plain as the record says at that moment.
        reader = await turns(blobPath(v), () => deps.codec.blobs.open(blobPath(v), v.blob?.sealed === true));
      } catch (err) {
        throw (err as NodeJS.ErrnoException).code === 'ENOENT' ? missing(v) : damaged(v);
      }
      return (async function* copy() {
        try {
          yield* reader.chunks();
        } catch {
          throw damaged(v);
        } finally {
          await reader.close();
        }
      })();
    },
    async read(v) {
      let bytes: Buffer;
      if (v.blob) {
        const parts: Buffer[] = [];
        for await (const p of await copies.chunks(v)) parts.push(p);
        bytes = Buffer.concat(parts);
      } else {
        let stored: string;
        try {
          stored = await readFile(blobPath(v), 'utf8');
        } catch {
          throw missing(v);
        }
        try {
          bytes = Buffer.from(deps.codec.open(stored, blobPath(v)).text, 'base64');
        } catch {
          throw damaged(v);
        }
      }
      if (createHash('sha256').update(bytes).digest('hex') !== v.sha256) {
        throw new AppFailure({
          kind: 'local',
          message: `${v.name} in the locker changed on disk since it was added. Replace it with a new copy.`,
        });
      }
      return bytes;
    },
    async exists(v) {
      return stat(blobPath(v)).then(
        () => true,
        () => false,
      );
    },
    async remove(v) {
      await turns(blobPath(v), () => rm(blobPath(v), { force: true }));
    },
    resealPlain: (versions, persist) =>
      resealPlainBlobs({
        blobs: deps.codec.blobs,
        turns,
        dir: deps.dir,
        persist,
        log: deps.log,
        records: versions.flatMap((v) => {
          const blob = v.blob;
          if (!blob) return [];
          return [
            {
              file: blobPath(v),
              sha256: v.sha256,
              // A removed document's versions are not passed at all.
              live: () => true,
              sealed: () => blob.sealed,
              mark: (sealed: boolean) => {
                blob.sealed = sealed;
              },
            },
          ];
        }),
      }),
  };
  return copies;
}

/** A picked file's bytes; a read that fails (moved, deleted, unreadable) is a refusal. */
async function* readOrRefuse(file: string): AsyncGenerator<Buffer> {
  try {
    for await (const piece of createReadStream(file, { highWaterMark: 1024 * 1024 })) yield piece as Buffer;
  } catch {
    throw new Refusal(unreadable);
  }
}

async function* readerChunks(reader: BlobReader): AsyncGenerator<Buffer> {
  try {
    yield* reader.chunks();
  } finally {
    await reader.close();
  }
}
