/**
 * The generation index: the last generation written of every sealed file in the data folder, so
 * an older sealed copy put back in place (a rollback) is refused by the at-rest codec.
 *
 * The index is itself a sealed file (`<data>/at-rest-index.json`, bound to its own path) whose
 * content carries a sequence number; that number is also kept in the OS keychain beside the data
 * key (account `treasury-desk:at-rest-generation`). Putting back an older index (to make older
 * copies of the other files pass) shows as an index sequence below the keychain's, and is
 * reported. The keychain's number may lag the file's (a crash between the two writes): ahead is
 * fine, since only the data key can seal an index.
 *
 * Writes are coalesced: after a burst of sealed writes the index is written once more, then the
 * keychain told; dispose flushes.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { AtRestError, createAtRestCodec, isSealed } from './at-rest';
import type { DataKey, GenerationLedger } from './at-rest';
import { writeFileDurable } from './durable-file';
import type { KeyringBackend } from './keyring';
import type { Logger } from './log';

export const GENERATION_ACCOUNT = 'treasury-desk:at-rest-generation';
export const INDEX_FILE = 'at-rest-index.json';

const indexSchema = z.object({
  version: z.literal(1),
  seq: z.number().int().nonnegative(),
  files: z.record(z.string(), z.number().int().nonnegative()),
});

export interface GenerationIndex extends GenerationLedger {
  /** Writes the index (and the keychain's number) if anything changed; resolves when done. */
  flush(): Promise<void>;
}

export interface GenerationProblem {
  file: string;
  message: string;
}

/** Whether this data folder has ever sealed a file (the index is there). */
export async function hasSealedBefore(dataDir: string): Promise<boolean> {
  try {
    return isSealed(await readFile(path.join(dataDir, INDEX_FILE), 'utf8'));
  } catch {
    return false;
  }
}

export async function openGenerationIndex(o: {
  dataDir: string;
  key: DataKey;
  backend: KeyringBackend;
  service: string;
  log: Logger;
  report(problem: GenerationProblem): void;
}): Promise<GenerationIndex> {
  const file = path.join(o.dataDir, INDEX_FILE);
  const codec = createAtRestCodec(o.key, { root: o.dataDir });
  const files = new Map<string, number>();
  let seq = 0;
  let pinned = 0;
  try {
    const v = await o.backend.get(o.service, GENERATION_ACCOUNT);
    pinned = v !== null && /^\d{1,15}$/.test(v) ? Number(v) : 0;
  } catch (err) {
    o.log.warn('generations: keychain counter not readable', { error: err });
  }
  let stored: string | null = null;
  try {
    stored = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (stored !== null) {
    try {
      const { text, sealed } = codec.open(stored, file);
      if (!sealed) throw new AtRestError('the index is not sealed');
      const idx = indexSchema.parse(JSON.parse(text));
      seq = idx.seq;
      for (const [k, g] of Object.entries(idx.files)) files.set(k, g);
    } catch (err) {
      const why = err instanceof Error ? err.message : 'unreadable';
      o.report({
        file: INDEX_FILE,
        message: `The index of sealed files could not be read (${why.slice(0, 200)}). Older copies of sealed files put back in place can no longer be told apart until each is written again.`,
      });
    }
  }
  if (pinned > seq) {
    o.report({
      file: INDEX_FILE,
      message: `The index of sealed files is older than the one this computer last wrote (sequence ${seq}, the keychain says ${pinned}): it was rolled back. Sealed files may be older copies put back in place; check recent drafts, queued answers and locker documents.`,
    });
    seq = pinned;
  }
  let dirty = false;
  let running: Promise<void> | null = null;

  const writeOnce = async (): Promise<void> => {
    dirty = false;
    seq += 1;
    const content = JSON.stringify({ version: 1, seq, files: Object.fromEntries(files) });
    await writeFileDurable(file, codec.seal(content, file));
    codec.written(file);
    try {
      await o.backend.set(o.service, GENERATION_ACCOUNT, String(seq));
    } catch (err) {
      o.log.warn('generations: keychain counter not written', { error: err });
    }
  };
  const schedule = (): Promise<void> => {
    dirty = true;
    running ??= (async () => {
      try {
        while (dirty) await writeOnce();
      } catch (err) {
        o.log.error('generations: index not written', { error: err });
      } finally {
        running = null;
      }
    })();
    return running;
  };

  return {
    current: (name) => files.get(name) ?? 0,
    advance(name, gen) {
      if ((files.get(name) ?? 0) >= gen) return;
      files.set(name, gen);
      void schedule();
    },
    async flush() {
      while (running) await running;
      if (dirty) await schedule();
    },
  };
}
