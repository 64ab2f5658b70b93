/**
 * The files of one scope's RFI cache on disk: their stored formats, which shard an RFI lives in,
 * reading them all at open (RFIs checked one by one) and writing a set of shards. The in-memory
 * model that decides what to write is `repository.ts`.
 *
 * Layout (dataDir/rfis/<scope>/):
 *   snapshot.json                    the bank's last full listing, its pages as they were received,
 *                                    and the meta of the sync that read it
 *   shard-00.json … shard-3f.json   overrides: every RFI of one partition (a hash of the id picks
 *                                    one of 64), replacing the snapshot's RFIs of that partition
 *   seen.json                        {rfiId: updated_at last seen by the analyst}
 *   meta.json                        sync cursor and flags, when a sync after the last full one moved them
 *
 * Snapshot and shards carry a sequence number: a full write makes snapshot n + 1, and every shard
 * written over snapshot n names n as its base. A shard is used only over the snapshot it names; a
 * shard over an older snapshot is a leftover of an earlier full write and is ignored (deleted at
 * the next full write). A shard over a NEWER snapshot than the one on disk means a full write was
 * cut short after some of its overrides replaced shards of the old snapshot: that part of the
 * cache is lost, and the next sync is a full one. Caches from before snapshots (format 1 shards,
 * no snapshot) read as shards over snapshot 0, which is no snapshot.
 *
 * A full write carries its meta (cursor, times, flags) inside the snapshot: the listing and the
 * cursor that describes it are one atomic write, one fsync (a meta.json of its own cost a second
 * durable write per full sync). Any later sync writes meta.json, naming the snapshot it was written
 * over. At open, meta.json is the meta when it names the snapshot on disk (or a newer one); when it
 * names an older one (or none: files from before the meta rode in the snapshot) and the snapshot
 * carries a meta, the snapshot's is the newer, so it is the meta. A full write cut short leaves the
 * old snapshot and the meta.json written over it: both as before.
 */

import path from 'node:path';
import { z } from 'zod';
import type { Rfi as RfiWire } from '../../shared/api/rfis';
import { readdir, rm } from 'node:fs/promises';
import { plainCodec } from '../infra/at-rest';
import { openSealedStream, readSealed, stateFile, writeSealed, writeSealedBatch } from '../infra/json-store';
import type { SealedStream, StateFile, StateFileFormat, StateFileOptions } from '../infra/json-store';
import type { Logger } from '../infra/log';
import { readRfi } from './rfi-records';

export const SHARD_COUNT = 64;
/** Shards written at once: different files, so their fsyncs overlap; each write stays atomic. */
const WRITE_CONCURRENCY = 8;
export const CACHE_FORMAT = 1;
/** Shards name the snapshot they override (format 1 had no snapshot: base 0). */
export const SHARD_FORMAT = 2;
export const SNAPSHOT_FORMAT = 1;
export const SNAPSHOT_FILE = 'snapshot.json';
/** A snapshot's text up to its pages (the pages, then its sequence number and meta, follow). */
const SNAPSHOT_HEAD = `{"version":${SNAPSHOT_FORMAT},"pages":[`;

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

/** meta.json: the meta, and the snapshot it was written over (absent in files from before: 0). */
const metaFileSchema = repositoryMetaSchema.extend({
  snapshot: z.number().int().nonnegative().optional(),
});

const shardFileSchema = z.object({
  version: z.literal(SHARD_FORMAT),
  /** The sequence number of the snapshot this shard overrides (0: none). */
  base: z.number().int().nonnegative(),
  rfis: z.array(z.unknown()),
});
/**
 * The listing's pages as the bank sent them (each record is checked when the cache opens), and the
 * meta of the sync that read them (absent in snapshots from before).
 */
const snapshotFileSchema = z.object({
  version: z.literal(SNAPSHOT_FORMAT),
  seq: z.number().int().positive(),
  meta: repositoryMetaSchema.optional(),
  pages: z.array(z.looseObject({ data: z.array(z.unknown()) })),
});
const seenFileSchema = z.object({
  version: z.literal(CACHE_FORMAT),
  seen: z.record(z.string(), z.string()),
});
type ShardFile = z.infer<typeof shardFileSchema>;
type SeenFile = z.infer<typeof seenFileSchema>;

const cacheFile = <T>(schema: z.ZodType<T>, version = CACHE_FORMAT): StateFileFormat<T> => ({
  label: 'An RFI cache file',
  consequence: 'The next sync refills it from the bank.',
  version,
  schema,
  migrations: { 1: (raw) => ({ ...raw, base: 0 }) },
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

/**
 * The next snapshot written while the listing still arrives: each page's text goes to disk as it
 * comes (sealed, into a temp file), so the full write does not wait for the listing's bytes at the
 * end; the full write then adds the meta and commits it. Aborted, nothing changes on disk.
 */
export interface SnapshotDraft {
  page(text: string): void;
  abort(): Promise<void>;
}

/**
 * The bank's whole listing as received: the RFIs read from its pages, in order, and its pages'
 * text, either held here or already written into a draft of the snapshot.
 */
export type FullListing = { rfis: readonly RfiWire[] } & (
  { pages: readonly string[]; draft?: undefined } | { draft: SnapshotDraft; pages?: undefined }
);

/** What the full write of a draft does with it (the pages are in; the rest of the file, then commit). */
interface DraftEnd extends SnapshotDraft {
  finish(rest: string): Promise<void>;
}

/** What a cache folder held at open. */
export interface LoadedCache {
  /** The sequence number of the snapshot read (0: none); new shards are written over it. */
  seq: number;
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
  /** Writes each shard given whole over the current snapshot (a few at a time); rejects with the first failure. */
  writeShards(shards: ReadonlyMap<number, RfiWire[]>): Promise<void>;
  /**
   * A full write: the listing as the next snapshot with `meta` inside it, the shards given as its
   * overrides (written first, so a snapshot on disk always has its overrides), then every other
   * shard deleted.
   */
  writeSnapshot(
    listing: FullListing,
    overrides: ReadonlyMap<number, RfiWire[]>,
    meta: RepositoryMeta,
  ): Promise<void>;
  /**
   * Writes a snapshot stored plain again, sealed, as it is (it was written before the keychain
   * answered). Not while a draft holds the file (false): the draft's write replaces it, sealed.
   */
  resealSnapshot(): Promise<boolean>;
  /** Starts the next snapshot's file, its pages written as they arrive (see `SnapshotDraft`). */
  draftSnapshot(): Promise<SnapshotDraft>;
}

export function cacheFiles(dir: string, log: Logger, options: StateFileOptions): CacheFiles {
  const metaFile = stateFile(cacheFile(metaFileSchema), options);
  const shardFile = stateFile(cacheFile(shardFileSchema, SHARD_FORMAT), options);
  const snapshotFile = stateFile(cacheFile(snapshotFileSchema, SNAPSHOT_FORMAT), options);
  const seenFile = stateFile(cacheFile(seenFileSchema), options);
  const stale = new Set<string>();
  /** The snapshot new shards override, and the shard files on disk (deleted at a full write unless rewritten). */
  let seq = 0;
  const onDisk = new Set<number>();
  /** Drafts of the next snapshot being written (a full sync under way). */
  let drafting = 0;
  const codec = options.codec;
  const shardText = (rfis: RfiWire[]): string =>
    JSON.stringify({ version: SHARD_FORMAT, base: seq, rfis } satisfies ShardFile);
  const readJson = async <T>(name: string, store: StateFile<T>): Promise<T | null> => {
    const loaded = await store.read(path.join(dir, name));
    if (loaded?.stale) stale.add(name);
    return loaded?.value ?? null;
  };

  /** The RFIs of one shard that are RFIs; answers whether some were not. */
  const readShard = (name: string, shard: ShardFile, byId: Map<string, RfiWire>): boolean => {
    let bad = 0;
    for (const raw of shard.rfis) {
      const r = readRfi(raw);
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
      const stored = await readJson('meta.json', metaFile);
      const s: SeenFile | null = await readJson('seen.json', seenFile);
      const seen = Object.assign(Object.create(null) as Record<string, string>, s?.seen ?? {});
      const byId = new Map<string, RfiWire>();
      let lostShard = false;
      const files = new Set(await readdir(dir));
      const snapshot = files.has(SNAPSHOT_FILE) ? await readJson(SNAPSHOT_FILE, snapshotFile) : null;
      // A snapshot that could not be read (moved aside): its RFIs are lost until a full sync.
      if (files.has(SNAPSHOT_FILE) && !snapshot) lostShard = true;
      seq = snapshot?.seq ?? 0;
      const meta = metaOf(stored, snapshot);
      onDisk.clear();
      const overrides = new Map<number, ShardFile | null>();
      for (let n = 0; n < SHARD_COUNT; n++) {
        const name = shardName(n);
        if (!files.has(name)) continue;
        onDisk.add(n);
        const shard = await readJson(name, shardFile);
        if (shard && shard.base < seq) continue; // a leftover of an earlier full write
        // Over a snapshot that is not there (a full write cut short, or one moved aside).
        if (shard && shard.base > seq) lostShard = true;
        overrides.set(n, shard && shard.base === seq ? shard : null);
      }
      if (snapshot) {
        const records = snapshot.pages.flatMap((p) => p.data);
        const kept = records.filter((raw) => !overrides.has(shardOf(idOf(raw))));
        if (!readShard(SNAPSHOT_FILE, { version: SHARD_FORMAT, base: seq, rfis: kept }, byId))
          lostShard = true;
      }
      for (const [n, shard] of overrides) {
        if (!shard || !readShard(shardName(n), shard, byId)) lostShard = true;
      }
      return { seq, meta, seen, byId, lostShard, stale };
    },
    writeMeta: (meta) => metaFile.write(path.join(dir, 'meta.json'), { ...meta, snapshot: seq }),
    writeSeen: (seen) => seenFile.write(path.join(dir, 'seen.json'), { version: CACHE_FORMAT, seen }),
    // One batch: every shard whole and atomic, the folder fsync'd once after the last rename
    // (64 folder fsyncs were a third of a full sync's write time).
    writeShards: async (shards) => {
      await writeSealedBatch(codec ?? plainCodec, shardEntries(shards), { concurrency: WRITE_CONCURRENCY });
      for (const n of shards.keys()) onDisk.add(n);
    },
    async writeSnapshot(listing, overrides, meta) {
      const previous = seq;
      seq = previous + 1;
      try {
        if (overrides.size > 0) {
          await writeSealedBatch(codec ?? plainCodec, shardEntries(overrides), {
            concurrency: WRITE_CONCURRENCY,
          });
        }
        // The pages as received, not serialised again: the one large write of a full sync costs
        // what writing the listing's bytes costs (JSON.stringify of 10,000 RFIs was a quarter of it).
        const rest = `],"seq":${seq},"meta":${JSON.stringify(meta)}}`;
        if (listing.draft) await (listing.draft as DraftEnd).finish(rest);
        else
          await writeSealed(
            codec ?? plainCodec,
            path.join(dir, SNAPSHOT_FILE),
            `${SNAPSHOT_HEAD}${listing.pages.join(',')}${rest}`,
          );
      } catch (err) {
        seq = previous;
        await listing.draft?.abort();
        throw err;
      }
      for (const n of overrides.keys()) onDisk.add(n);
      for (const n of [...onDisk]) {
        if (overrides.has(n)) continue;
        // A shard left behind is ignored at open (its base is older): deleting it only tidies.
        await rm(path.join(dir, shardName(n)), { force: true }).catch((err: unknown) =>
          log.warn('rfis: an old cache shard was not deleted', { file: shardName(n), error: err }),
        );
        onDisk.delete(n);
      }
    },
    resealSnapshot,
    async draftSnapshot() {
      drafting += 1;
      let out: SealedStream;
      try {
        out = await openSealedStream(codec ?? plainCodec, path.join(dir, SNAPSHOT_FILE));
      } catch (err) {
        drafting -= 1;
        throw err;
      }
      out.write(SNAPSHOT_HEAD);
      let pages = 0;
      let ended = false;
      const end = async (run: () => Promise<void>): Promise<void> => {
        if (ended) throw new Error('the snapshot draft has ended');
        ended = true;
        try {
          await run();
        } finally {
          drafting -= 1;
        }
      };
      const draft: DraftEnd = {
        page(text) {
          out.write(pages++ === 0 ? text : `,${text}`);
        },
        abort: () => (ended ? Promise.resolve() : end(() => out.abort())),
        finish: (rest) =>
          end(async () => {
            out.write(rest);
            await out.commit();
          }),
      };
      return draft;
    },
  };

  async function resealSnapshot(): Promise<boolean> {
    if (drafting > 0) return false;
    const file = path.join(dir, SNAPSHOT_FILE);
    const stored = await readSealed(codec ?? plainCodec, file);
    if (stored && !stored.sealed && codec?.encrypted) await writeSealed(codec, file, stored.text);
    return true;
  }

  function shardEntries(shards: ReadonlyMap<number, RfiWire[]>) {
    return [...shards].map(([n, rfis]) => ({
      file: path.join(dir, shardName(n)),
      plain: () => shardText(rfis),
    }));
  }
}

/** The meta at open: meta.json's unless the snapshot on disk is newer than it and carries one. */
function metaOf(
  stored: z.infer<typeof metaFileSchema> | null,
  snapshot: z.infer<typeof snapshotFileSchema> | null,
): RepositoryMeta {
  if (snapshot?.meta && (stored === null || (stored.snapshot ?? 0) < snapshot.seq)) return snapshot.meta;
  if (!stored) return emptyMeta();
  const { snapshot: _over, ...meta } = stored;
  return meta;
}

/** A record's id for its partition (a record without one is kept, to be refused by its check). */
const idOf = (raw: unknown): string => {
  const id = (raw as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : '';
};
