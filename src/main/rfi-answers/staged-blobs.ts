/**
 * The bytes of dropped files in the staging folder, as readers and the re-seal share them: a
 * reader opens a file in its turn, sealed or plain as its record says at that moment, and reads
 * through that descriptor; files stored plain while there was no data key are sealed in place
 * once there is one (infra/blob-reseal.ts), one pass at a time.
 */
import { rm } from 'node:fs/promises';
import { AppFailure } from '../../shared/ipc/errors';
import type { AtRestCodec } from '../infra/at-rest';
import { createBlobTurns, resealPlainBlobs } from '../infra/blob-reseal';
import type { Logger } from '../infra/log';
import type { BlobReader } from '../infra/sealed-blob';
import type { StagedFile } from './file-registry';

export interface StagedBlobs {
  /** A dropped file's bytes, opened in its turn. */
  open(ref: string): Promise<BlobReader>;
  /** Deletes a dropped file's bytes in its turn. */
  remove(file: string): Promise<void>;
  /** Seals every plain dropped file in place; a call during a pass makes it go round once more. */
  resealPlain(): Promise<number>;
  /** Waits for a pass under way. */
  settled(): Promise<void>;
}

export function stagedBlobs(o: {
  files: Map<string, StagedFile>;
  stagingDir: string;
  codec: AtRestCodec;
  persist(): Promise<void>;
  log: Logger;
}): StagedBlobs {
  const turns = createBlobTurns();
  let resealing: Promise<number> | null = null;
  let again = false;
  const pass = (): Promise<number> =>
    resealPlainBlobs({
      blobs: o.codec.blobs,
      turns,
      dir: o.stagingDir,
      persist: o.persist,
      log: o.log,
      records: [...o.files.values()]
        .filter((f) => f.kind === 'dropped')
        .map((f) => ({
          file: f.path,
          sha256: f.sha256 ?? null,
          live: () => o.files.get(f.ref) === f,
          sealed: () => f.sealed === true,
          mark(sealed: boolean, sha256?: string) {
            f.sealed = sealed;
            if (sha256 !== undefined) f.sha256 = sha256;
          },
        })),
    });
  const passes = async (): Promise<number> => {
    let n = 0;
    do {
      again = false;
      n += await pass();
    } while (again);
    return n;
  };
  return {
    open: (ref) => {
      const path = o.files.get(ref)?.path;
      if (path === undefined) return Promise.reject(gone());
      return turns(path, async () => {
        const f = o.files.get(ref);
        if (!f) throw gone();
        return o.codec.blobs.open(f.path, f.sealed === true);
      });
    },
    remove: (file) => turns(file, () => rm(file, { force: true })),
    resealPlain() {
      if (resealing) {
        again = true;
        return resealing;
      }
      resealing = passes().finally(() => {
        resealing = null;
      });
      return resealing;
    },
    async settled() {
      await resealing?.catch(() => undefined);
    },
  };
}

const gone = (): AppFailure =>
  new AppFailure({ kind: 'local', message: 'The staged file is no longer kept.' });
