/**
 * The files of one scope's RFI cache on disk: their stored formats, which shard an RFI lives in,
 * reading them all at open (RFIs checked one by one) and writing a set of shards. The in-memory
 * model that decides what to write is `repository.ts`.
 *
 * Layout (dataDir/rfis/<scope>/):
 *   shard-00.json … shard-3f.json   the RFIs, split by a hash of the id into 64 files
 *   seen.json                        {rfiId: updated_at last seen by the analyst}
 *   meta.json                        sync cursor and flags
 */

import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { Rfi } from '../../shared/api/rfis';
import type { Rfi as RfiWire } from '../../shared/api/rfis';
import { stateFile } from '../infra/json-store';
import type { StateFile, StateFileFormat, StateFileOptions } from '../infra/json-store';
import type { Logger } from '../infra/log';

export const SHARD_COUNT = 64;
/** Shards written at once: different files, so their fsyncs overlap; each write stays atomic. */
const WRITE_CONCURRENCY = 8;
export const CACHE_FORMAT = 1;

export const repositoryMetaSchema = z.object({
  version: z.literal(CACHE_FORMAT),
  /** Highest updated_at seen from the bank (server time), the incremental cursor. */
  cursor: z.string().nullable(),
  lastSyncedAt: z.string().nullable(),
  lastFullSyncAt: z.string().nullable(),
  updatedSinceSupported: z.boolean().nullable(),
  /** A first complete sync happened: later differences are news (notifications). */
  baseline: z.boolean(),
});
export type RepositoryMeta = z.infer<typeof repositoryMetaSchema>;

export const emptyMeta = (): RepositoryMeta => ({
  version: CACHE_FORMAT,
  cursor: null,
  lastSyncedAt: null,
  lastFullSyncAt: null,
  updatedSinceSupported: null,
  baseline: false,
});

const shardFileSchema = z.object({ version: z.literal(CACHE_FORMAT), rfis: z.array(z.unknown()) });
const seenFileSchema = z.object({
  version: z.literal(CACHE_FORMAT),
  seen: z.record(z.string(), z.string()),
});
type ShardFile = z.infer<typeof shardFileSchema>;
type SeenFile = z.infer<typeof seenFileSchema>;

const cacheFile = <T>(schema: z.ZodType<T>): StateFileFormat<T> => ({
  label: 'An RFI cache file',
  consequence: 'The next sync refills it from the bank.',
  version: CACHE_FORMAT,
  schema,
});

export function shardOf(id: string): number {
  // FNV-1a, 32 bit
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % SHARD_COUNT;
}

export const shardName = (n: number) => `shard-${n.toString(16).padStart(2, '0')}.json`;

/** What a cache folder held at open. */
export interface LoadedCache {
  meta: RepositoryMeta;
  seen: Record<string, string>;
  byId: Map<string, RfiWire>;
  /** Part of the cache could not be read (a shard, or entries in one): the cursor no longer covers it. */
  lostShard: boolean;
  /** Files to write again at the next flush (plain while a data key is there, or an older format). */
  stale: Set<string>;
}

/** The state files of one cache folder, bound to its codec and problem report. */
export interface CacheFiles {
  readonly dir: string;
  load(): Promise<LoadedCache>;
  writeMeta(meta: RepositoryMeta): Promise<void>;
  writeSeen(seen: Record<string, string>): Promise<void>;
  /** Writes each shard given whole (a few at a time); rejects with the first failure. */
  writeShards(shards: ReadonlyMap<number, RfiWire[]>): Promise<void>;
}

export function cacheFiles(dir: string, log: Logger, options: StateFileOptions): CacheFiles {
  const metaFile = stateFile(cacheFile(repositoryMetaSchema), options);
  const shardFile = stateFile(cacheFile(shardFileSchema), options);
  const seenFile = stateFile(cacheFile(seenFileSchema), options);
  const stale = new Set<string>();
  const readJson = async <T>(name: string, store: StateFile<T>): Promise<T | null> => {
    const loaded = await store.read(path.join(dir, name));
    if (loaded?.stale) stale.add(name);
    return loaded?.value ?? null;
  };

  /** The RFIs of one shard that are RFIs; answers whether some were not. */
  const readShard = (name: string, shard: ShardFile, byId: Map<string, RfiWire>): boolean => {
    let bad = 0;
    for (const raw of shard.rfis) {
      const r = Rfi.safeParse(raw);
      if (r.success) byId.set(r.data.id, r.data);
      else bad++;
    }
    if (bad === 0) return true;
    log.warn('rfis: cache entries skipped (not RFIs); the next full sync refills them', { file: name, bad });
    return false;
  };

  return {
    dir,
    async load() {
      const meta = (await readJson('meta.json', metaFile)) ?? emptyMeta();
      const s: SeenFile | null = await readJson('seen.json', seenFile);
      const seen = Object.assign(Object.create(null) as Record<string, string>, s?.seen ?? {});
      const byId = new Map<string, RfiWire>();
      let lostShard = false;
      const files = new Set(await readdir(dir));
      for (let n = 0; n < SHARD_COUNT; n++) {
        const name = shardName(n);
        if (!files.has(name)) continue;
        const shard = await readJson(name, shardFile);
        if (!shard || !readShard(name, shard, byId)) lostShard = true;
      }
      return { meta, seen, byId, lostShard, stale };
    },
    writeMeta: (meta) => metaFile.write(path.join(dir, 'meta.json'), meta),
    writeSeen: (seen) => seenFile.write(path.join(dir, 'seen.json'), { version: CACHE_FORMAT, seen }),
    // One batch: every shard whole and atomic, the folder fsync'd once after the last rename
    // (64 folder fsyncs were a third of a full sync's write time).
    writeShards: (shards) =>
      shardFile.writeMany(
        [...shards].map(([n, rfis]) => ({
          file: path.join(dir, shardName(n)),
          value: { version: CACHE_FORMAT, rfis },
        })),
        WRITE_CONCURRENCY,
      ),
  };
}
