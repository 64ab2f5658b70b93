/**
 * The on-disk RFI cache of one scope (environment + legal entity).
 *
 * Layout (dataDir/rfis/<scope>/, the files, their formats and sequence numbers in `cache-files.ts`):
 *   snapshot.json                    the last full listing, its pages as the bank sent them, and its meta
 *   shard-00.json … shard-3f.json   overrides: every RFI of one of 64 partitions (hash of the id)
 *   seen.json                        {rfiId: updated_at last seen by the analyst}
 *   meta.json                        sync cursor and flags (after a full sync: in the snapshot)
 *
 * Why a snapshot and shards: a full sync writes the bytes it receives as one file while they
 * arrive (no serialisation of 10,000 RFIs, one fsync at the end), with shards only where the cache differs from the
 * listing; a sync that changes a few RFIs rewrites only their shards (a few hundred KB with
 * 10,000 RFIs) instead of one 20+ MB file. Every file is written whole, atomically (temp + fsync + rename),
 * one write at a time, through the at-rest codec (encrypted with the data key when there is one;
 * plain files from before are read and rewritten sealed at the next flush). A file that cannot be read is moved aside (never silently dropped) and
 * the next sync refills it from the bank.
 *
 * Measured with 10,000 RFIs (13.6 MB of JSON) on the dev machine: conf (what electron-store
 * wraps) writes the whole file synchronously on every change — about 1 s per changed RFI, 22 s for
 * 20 changes, the main process blocked throughout; these shards take ~17 ms per changed RFI and
 * ~0.5 s for a full write, off the event loop. Opening the cache (every record checked) takes ~0.1–0.3 s.
 * `npm run bench rfi-sync` reports the sync and open times.
 */

import { mkdir } from 'node:fs/promises';
import type { Rfi as RfiWire } from '../../shared/api/rfis';
import { countSummaries, deadlineBand, isUnread, queryRfis, summarizeRfi } from '../../shared/rfi-view';
import type { RfiCounts, RfiFilter, RfiSort, RfiSummary } from '../../shared/rfi-view';
import type { AtRestCodec } from '../infra/at-rest';
import { createSerialQueue } from '../infra/durable-file';
import type { StateFileProblem } from '../infra/json-store';
import type { Logger } from '../infra/log';
import { cacheFiles, SHARD_COUNT, shardName, shardOf, SNAPSHOT_FILE } from './cache-files';
import type { FullListing, RepositoryMeta, SnapshotDraft } from './cache-files';

export { repositoryMetaSchema, SHARD_COUNT, shardOf } from './cache-files';
export type { FullListing, RepositoryMeta, SnapshotDraft } from './cache-files';

/** What one upsert did to an RFI. */
export interface RfiDiff {
  id: string;
  before: RfiWire | undefined;
  after: RfiWire;
}

export type RepositoryProblem = StateFileProblem;

export interface RfiRepository {
  readonly dir: string;
  readonly size: number;
  meta(): RepositoryMeta;
  get(id: string): RfiWire | undefined;
  ids(): IterableIterator<string>;
  all(): IterableIterator<RfiWire>;
  lastSeen(id: string): string | undefined;
  summary(id: string, nowMs: number): RfiSummary | undefined;
  summaries(nowMs: number): RfiSummary[];
  list(nowMs: number, filter: RfiFilter, sort?: RfiSort): RfiSummary[];
  counts(nowMs: number): RfiCounts;
  /**
   * Puts RFIs in the cache (only those whose content differs) and answers what changed, before
   * → after. Nothing is written until `flush` (one write per touched shard).
   */
  upsert(rfis: readonly RfiWire[]): RfiDiff[];
  /**
   * Drops RFIs the bank no longer lists (answers the ids dropped). With `unlessChangedSince`, an
   * RFI whose updated_at differs from the one given (it was re-read meanwhile) is kept.
   */
  remove(ids: readonly string[], unlessChangedSince?: ReadonlyMap<string, string>): string[];
  setMeta(patch: Partial<Omit<RepositoryMeta, 'version'>>): void;
  /** Records the updated_at the analyst saw (persisted at once). Answers whether it changed. */
  markSeen(id: string, updatedAt: string): Promise<boolean>;
  /**
   * Writes every touched shard and the meta file, atomically, one after the other. Given the
   * bank's whole listing (a full sync), writes it as the cache's snapshot instead, the meta
   * inside it, with shards only for the partitions where the cache differs from it.
   */
  flush(listing?: FullListing): Promise<void>;
  /**
   * Starts writing the next snapshot while a full listing still arrives (each page as it comes);
   * handed to `flush` with the listing, or aborted.
   */
  draftSnapshot(): Promise<SnapshotDraft>;
  /** Files that could not be read at open (moved aside). */
  readonly problems: RepositoryProblem[];
  /** Stops listening for the keychain (a cache replaced by another scope's, or at teardown). */
  close(): void;
}

export interface OpenRepositoryOptions {
  dir: string;
  log: Logger;
  /** Seals and opens the files (default: plain). */
  codec?: AtRestCodec;
}

/** Structural equality of JSON values (no allocation; ~10× faster than comparing stringified copies). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let n = 0;
  for (const k in ao) {
    if (!Object.prototype.hasOwnProperty.call(ao, k)) continue;
    if (ao[k] === undefined) continue;
    if (!Object.prototype.hasOwnProperty.call(bo, k) || !sameJson(ao[k], bo[k])) return false;
    n++;
  }
  let m = 0;
  for (const k in bo) if (Object.prototype.hasOwnProperty.call(bo, k) && bo[k] !== undefined) m++;
  return n === m;
}

/**
 * The partitions where the cache differs from a listing (an RFI re-read since, newer than the
 * listing's copy, or one the listing no longer has but that was kept), each with all its RFIs:
 * the shards a snapshot of that listing needs beside it.
 */
function overridesOf(byId: ReadonlyMap<string, RfiWire>, listing: FullListing): Map<number, RfiWire[]> {
  // Usually the listing was just upserted as it is: every cached RFI is its listed copy.
  if (byId.size === listing.rfis.length && listing.rfis.every((r) => byId.get(r.id) === r)) {
    return new Map();
  }
  const listed = new Map<string, RfiWire>();
  for (const r of listing.rfis) listed.set(r.id, r);
  const differs = new Set<number>();
  for (const [id, rfi] of byId) {
    const l = listed.get(id);
    if (l !== rfi && (l === undefined || !sameJson(l, rfi))) differs.add(shardOf(id));
  }
  for (const id of listed.keys()) if (!byId.has(id)) differs.add(shardOf(id));
  const out = new Map<number, RfiWire[]>([...differs].map((n) => [n, []]));
  if (out.size > 0) for (const [id, rfi] of byId) out.get(shardOf(id))?.push(rfi);
  return out;
}

export async function openRfiRepository(options: OpenRepositoryOptions): Promise<RfiRepository> {
  const { dir, log } = options;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const problems: RepositoryProblem[] = [];
  const files = cacheFiles(dir, log, {
    log,
    ...(options.codec ? { codec: options.codec } : {}),
    report: (p) => problems.push(p),
  });
  const loaded = await files.load();
  const { byId, seen } = loaded;
  const summaries = new Map<string, RfiSummary>();
  let meta = loaded.meta;
  const dirty = new Set<number>();
  let metaDirty = false;
  /** lastSyncedAt as last written to meta.json. */
  let persistedSyncAt: string | null = meta.lastSyncedAt;
  const queue = createSerialQueue();

  if (loaded.lostShard) {
    // Part of the cache is gone: the incremental cursor no longer covers it.
    meta = { ...meta, cursor: null, lastFullSyncAt: null };
    metaDirty = true;
  }
  // Plain files (from before encryption, or a run without a data key) are rewritten sealed.
  for (let n = 0; n < SHARD_COUNT; n++) if (loaded.stale.has(shardName(n))) dirty.add(n);
  if (loaded.stale.has('meta.json')) metaDirty = true;
  let seenPlain = loaded.stale.has('seen.json');
  let snapshotPlain = loaded.stale.has(SNAPSHOT_FILE);

  const summaryOf = (id: string, nowMs: number): RfiSummary | undefined => {
    const rfi = byId.get(id);
    if (!rfi) return undefined;
    let sum = summaries.get(id);
    if (!sum) {
      sum = summarizeRfi(rfi, nowMs, seen[id]);
      summaries.set(id, sum);
      return sum;
    }
    // Time-dependent and seen-dependent fields are refreshed on each read (cheap).
    sum.band = deadlineBand(sum.deadline, nowMs);
    sum.unread = isUnread(sum.updatedAt, seen[id]);
    return sum;
  };

  const allSummaries = (nowMs: number): RfiSummary[] => {
    const out: RfiSummary[] = [];
    for (const id of byId.keys()) {
      const sum = summaryOf(id, nowMs);
      if (sum) out.push(sum);
    }
    return out;
  };

  const writeSeen = () => files.writeSeen(seen);

  // The keychain answered later in the run: the cache files that waited for it are read now and
  // merged with what this run fetched meanwhile (the newer version of each RFI, the later "seen"),
  // then written whole, sealed.
  const offSealed = options.codec?.onSealed(() =>
    queue(async () => {
      const again = await files.load();
      for (const [id, rfi] of again.byId) {
        const cur = byId.get(id);
        if (cur && Date.parse(cur.updated_at) >= Date.parse(rfi.updated_at)) continue;
        byId.set(id, rfi);
        summaries.delete(id);
      }
      for (const [id, at] of Object.entries(again.seen)) {
        if (seen[id] === undefined || seen[id] < at) seen[id] = at;
      }
      if (meta.lastFullSyncAt === null && meta.cursor === null) meta = again.meta;
      for (let n = 0; n < SHARD_COUNT; n++) dirty.add(n);
      metaDirty = true;
      seenPlain = true;
      snapshotPlain = true;
    }),
  );

  const repo: RfiRepository = {
    dir,
    problems,
    close: () => offSealed?.(),
    get size() {
      return byId.size;
    },
    meta: () => ({ ...meta }),
    get: (id) => byId.get(id),
    ids: () => byId.keys(),
    all: () => byId.values(),
    lastSeen: (id) => seen[id],
    summary: summaryOf,
    summaries: allSummaries,
    list: (nowMs, filter, sort = 'deadline') => queryRfis(allSummaries(nowMs), filter, sort),
    counts: (nowMs) => countSummaries(allSummaries(nowMs)),
    upsert(rfis) {
      const diffs: RfiDiff[] = [];
      for (const rfi of rfis) {
        const before = byId.get(rfi.id);
        if (before) {
          // Never go back to an older version (a slow page read before a webhook re-read).
          const was = Date.parse(before.updated_at);
          const now = Date.parse(rfi.updated_at);
          if (!Number.isNaN(was) && !Number.isNaN(now) && now < was) continue;
          if (before.updated_at === rfi.updated_at && sameJson(before, rfi)) {
            // The same content: the new copy is kept (a full sync's snapshot then matches it by identity).
            byId.set(rfi.id, rfi);
            continue;
          }
        }
        byId.set(rfi.id, rfi);
        summaries.delete(rfi.id);
        dirty.add(shardOf(rfi.id));
        diffs.push({ id: rfi.id, before, after: rfi });
      }
      return diffs;
    },
    remove(ids, unlessChangedSince) {
      const out: string[] = [];
      for (const id of ids) {
        const cur = byId.get(id);
        if (!cur) continue;
        if (unlessChangedSince && unlessChangedSince.get(id) !== cur.updated_at) continue;
        byId.delete(id);
        summaries.delete(id);
        dirty.add(shardOf(id));
        out.push(id);
      }
      return out;
    },
    setMeta(patch) {
      const next = { ...meta, ...patch };
      // A poll that found nothing new only moves lastSyncedAt: that alone is written at most every
      // 5 minutes (one fsync'd write per poll is not worth it for an informational time).
      const onlyTime = (Object.keys(next) as Array<keyof RepositoryMeta>).every(
        (k) => k === 'lastSyncedAt' || next[k] === meta[k],
      );
      const persistedAt = persistedSyncAt ? Date.parse(persistedSyncAt) : Number.NaN;
      const nextAt = next.lastSyncedAt ? Date.parse(next.lastSyncedAt) : Number.NaN;
      const stale = Number.isNaN(persistedAt) || Number.isNaN(nextAt) || nextAt - persistedAt >= 5 * 60_000;
      meta = next;
      if (!onlyTime || stale) metaDirty = true;
    },
    markSeen(id, updatedAt) {
      return queue(async () => {
        if (seen[id] === updatedAt) return false;
        const previous = seen[id];
        seen[id] = updatedAt;
        try {
          await writeSeen();
        } catch (err) {
          if (previous === undefined) delete seen[id];
          else seen[id] = previous;
          throw err;
        }
        return true;
      });
    },
    draftSnapshot: () => files.draftSnapshot(),
    flush(listing) {
      return queue(async () => {
        const shards = [...dirty];
        dirty.clear();
        const wantMeta = metaDirty;
        metaDirty = false;
        if (listing) {
          // The meta rides in the snapshot: one atomic write, one fsync for both.
          const written = meta;
          try {
            await files.writeSnapshot(listing, overridesOf(byId, listing), written);
          } catch (err) {
            for (let n = 0; n < SHARD_COUNT; n++) dirty.add(n);
            metaDirty = true;
            throw err;
          }
          persistedSyncAt = written.lastSyncedAt;
        } else if (shards.length > 0) {
          const groups = new Map<number, RfiWire[]>(shards.map((n) => [n, []]));
          for (const [id, rfi] of byId) groups.get(shardOf(id))?.push(rfi);
          try {
            await files.writeShards(groups);
          } catch (err) {
            for (const n of shards) dirty.add(n);
            metaDirty ||= wantMeta;
            throw err;
          }
        }
        if (!listing && (wantMeta || shards.length > 0)) {
          const written = meta;
          await files.writeMeta(written);
          persistedSyncAt = written.lastSyncedAt;
        }
        if (seenPlain) {
          await writeSeen();
          seenPlain = false;
        }
        if (listing) snapshotPlain = false;
        // Not while a full sync's draft holds the file (its write replaces it, sealed).
        if (snapshotPlain && (await files.resealSnapshot())) snapshotPlain = false;
      });
    },
  };
  return repo;
}
