/**
 * The ids of the webhook events the receiver accepted, each with its signature timestamp, kept
 * (in memory, and in a sealed file across restarts) until that timestamp leaves the tolerance: a
 * captured event replayed after a restart is still a duplicate. Bounded by `remember` ids.
 */

import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { plainCodec } from '../infra/at-rest';
import type { AtRestCodec } from '../infra/at-rest';
import { readSealed, writeSealed } from '../infra/json-store';
import type { Logger } from '../infra/log';

export interface SeenEventIdsOptions {
  /** Where the ids are kept across restarts; memory only when absent. */
  file?: string;
  codec?: AtRestCodec;
  log: Logger;
  /** Now in ms, on the bank's clock. */
  nowMs(): number;
  toleranceSeconds: number;
  /** How many ids are remembered at most. */
  remember: number;
}

export interface SeenEventIds {
  /** Reads the file once (a missing or unreadable one starts empty). */
  load(): Promise<void>;
  /** The signature timestamp (seconds) an id was last accepted or retried with. */
  get(key: string): number | undefined;
  set(key: string, t: number): void;
  /** Resolves once the file holds every id set so far (writes are batched); never rejects. */
  persist(): Promise<void>;
  /** Resolves when no write is running. */
  settled(): Promise<void>;
}

export function createSeenEventIds(options: SeenEventIdsOptions): SeenEventIds {
  const codec = options.codec ?? plainCodec;
  /** Accepted event id → its signature timestamp `t` (seconds, bank clock). */
  const ids = new Map<string, number>();
  let loaded = false;

  const prune = (): void => {
    const oldest = Math.floor(options.nowMs() / 1000) - options.toleranceSeconds;
    for (const [id, t] of ids) if (t < oldest) ids.delete(id);
    while (ids.size > options.remember) {
      const first = ids.keys().next();
      if (first.done) break;
      ids.delete(first.value);
    }
  };

  const readText = async (file: string): Promise<string | null> => {
    try {
      return (await readSealed(codec, file))?.text ?? null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        options.log.warn('webhook: seen event ids unreadable; starting empty', { error: err });
      }
      return null;
    }
  };

  const load = async (): Promise<void> => {
    if (loaded || !options.file) return;
    loaded = true;
    const text = await readText(options.file);
    if (text === null) return;
    try {
      const stored = (JSON.parse(text) as { ids?: unknown }).ids;
      if (stored && typeof stored === 'object' && !Array.isArray(stored)) {
        for (const [id, t] of Object.entries(stored as Record<string, unknown>)) {
          if (typeof t === 'number' && Number.isFinite(t)) ids.set(id, t);
        }
      }
    } catch (err) {
      options.log.warn('webhook: seen event ids unreadable; starting empty', { error: err });
    }
    prune();
  };

  // The keychain answered later in the run: a file that waited for it is read now (its ids join).
  codec.onSealed(async () => {
    if (!loaded) return;
    loaded = false;
    await load();
  });

  let wanted = 0;
  let written = 0;
  let writing: Promise<void> | null = null;
  const writeOnce = async (file: string): Promise<void> => {
    const upTo = wanted;
    try {
      prune();
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      await writeSealed(codec, file, JSON.stringify({ version: 1, ids: Object.fromEntries(ids) }));
      written = upTo;
    } finally {
      writing = null;
    }
  };

  return {
    load,
    get: (key) => ids.get(key),
    set: (key, t) => void ids.set(key, t),
    async persist() {
      const file = options.file;
      if (!file) return;
      const target = ++wanted;
      try {
        while (written < target) await (writing ??= writeOnce(file));
      } catch (err) {
        options.log.warn('webhook: seen event ids not saved', { error: err });
      }
    },
    settled: async () => {
      await writing?.catch(() => undefined);
    },
  };
}
