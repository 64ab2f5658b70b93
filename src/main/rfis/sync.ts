/**
 * One sync of the cache with GET /v1/rfis.
 *
 * - incremental: `updated_since` = the highest updated_at in the cache minus an overlap (the
 *   extension is "strictly after"; the overlap covers records committed late with an earlier
 *   stamp; re-read RFIs that did not change are no difference). Used once the server has shown it
 *   supports the extension.
 * - full: every page; RFIs the bank no longer lists are dropped. Used the first time, when the
 *   server refuses `updated_since` (400) or ignores it (answers older RFIs too), when part of the
 *   cache was lost, and every `fullEveryMs` to reconcile deletions.
 */

import { z } from 'zod';
import type { Rfi } from '../../shared/api/rfis';
import { AppFailure } from '../../shared/ipc/errors';
import { followPages } from '../bank/client';
import type { BankClient } from '../bank/client';
import type { RfiDiff, RfiRepository, SnapshotDraft } from './repository';
import { readRfi } from './rfi-records';

export const CURSOR_OVERLAP_MS = 60_000;
export const PAGE_SIZE = 500;

export interface SyncOutcome {
  mode: 'full' | 'incremental';
  diffs: RfiDiff[];
  removed: string[];
  fetched: number;
  pages: number;
  /** Records of the bank's answer that are not RFIs we can read (kept out; the cached copy stays). */
  unreadable: number;
}

/**
 * A page is checked record by record, not as a whole: one malformed RFI from a bank that differs
 * must not keep the 9,999 others out of the queue.
 */
const LenientPage = z.looseObject({
  data: z.array(z.unknown()),
  next_page_token: z.string().nullable().optional(),
});

interface Fetched {
  rfis: Rfi[];
  /** Each page's body as the bank sent it (held here unless it went into a snapshot draft). */
  texts: string[];
  pages: number;
  /** Ids of records that could not be read (still listed: never dropped as "gone"). */
  unreadableIds: string[];
  unreadable: number;
}

export interface SyncOptions {
  full?: boolean;
  /** Force a full sync when the last one is older than this (default 6 h). */
  fullEveryMs?: number;
  nowMs: number;
  signal?: AbortSignal;
}

function maxUpdatedAt(current: string | null, rfis: Iterable<Rfi>): string | null {
  let best = current ? Date.parse(current) : Number.NEGATIVE_INFINITY;
  let bestStr = current;
  for (const r of rfis) {
    const t = Date.parse(r.updated_at);
    if (!Number.isNaN(t) && t > best) {
      best = t;
      bestStr = r.updated_at;
    }
  }
  return bestStr;
}

async function fetchAll(
  bank: BankClient,
  query: { updated_since?: string },
  signal: AbortSignal | undefined,
  draft?: SnapshotDraft,
): Promise<Fetched> {
  const rfis: Rfi[] = [];
  const texts: string[] = [];
  const unreadableIds: string[] = [];
  let unreadable = 0;
  let pages = 0;
  const listing = followPages((pageToken) =>
    bank.request({
      method: 'GET',
      path: '/v1/rfis',
      query: { ...query, page_size: String(PAGE_SIZE), ...(pageToken ? { page_token: pageToken } : {}) },
      schema: LenientPage,
      // Into the snapshot's file as it arrives (the full write then only adds the meta), or held.
      onText: (text: string) => (draft ? draft.page(text) : texts.push(text)),
      ...(signal ? { signal } : {}),
    }),
  );
  for await (const page of listing) {
    pages++;
    // Records are checked one by one: a malformed RFI is counted, not a reason to drop the page.
    for (const raw of page.data) {
      const r = readRfi(raw);
      if (r.success) {
        rfis.push(r.data);
        continue;
      }
      unreadable++;
      const id = (raw as { id?: unknown } | null)?.id;
      if (typeof id === 'string') unreadableIds.push(id);
    }
  }
  return { rfis, texts: draft ? [] : texts, pages, unreadableIds, unreadable };
}

export async function syncRepository(
  bank: BankClient,
  repo: RfiRepository,
  options: SyncOptions,
): Promise<SyncOutcome> {
  const meta = repo.meta();
  // What the cache held before the listing: only those may be dropped as "no longer listed".
  const before = new Map<string, string>();
  for (const r of repo.all()) before.set(r.id, r.updated_at);
  const fullEvery = options.fullEveryMs ?? 6 * 3600_000;
  const lastFull = meta.lastFullSyncAt ? Date.parse(meta.lastFullSyncAt) : Number.NaN;
  const incremental =
    !options.full &&
    meta.updatedSinceSupported !== false &&
    meta.cursor !== null &&
    repo.size > 0 &&
    !Number.isNaN(lastFull) &&
    options.nowMs - lastFull < fullEvery;

  if (incremental && meta.cursor) {
    const since = new Date(Date.parse(meta.cursor) - CURSOR_OVERLAP_MS).toISOString();
    let got: Fetched | null = null;
    try {
      got = await fetchAll(bank, { updated_since: since }, options.signal);
    } catch (err) {
      // A server without the extension may refuse the unknown parameter: fall back to full.
      if (!(err instanceof AppFailure && (err.kind === 'invalid' || err.kind === 'invalid_argument')))
        throw err;
      repo.setMeta({ updatedSinceSupported: false });
    }
    if (got) {
      const sinceMs = Date.parse(since);
      const ignored = got.rfis.some((r) => {
        const t = Date.parse(r.updated_at);
        return !Number.isNaN(t) && t <= sinceMs;
      });
      if (!ignored) {
        const diffs = repo.upsert(got.rfis);
        repo.setMeta({
          cursor: maxUpdatedAt(meta.cursor, got.rfis),
          lastSyncedAt: new Date(options.nowMs).toISOString(),
          updatedSinceSupported: true,
        });
        await repo.flush();
        return {
          mode: 'incremental',
          diffs,
          removed: [],
          fetched: got.rfis.length,
          pages: got.pages,
          unreadable: got.unreadable,
        };
      }
      // The server ignored updated_since and answered everything: that is a full listing.
      repo.setMeta({ updatedSinceSupported: false });
      return finishFull(repo, got, options.nowMs, before);
    }
  }
  // A full listing is written into the next snapshot page by page while it arrives.
  const draft = await repo.draftSnapshot().catch(() => undefined);
  let got: Fetched;
  try {
    got = await fetchAll(bank, {}, options.signal, draft);
  } catch (err) {
    await draft?.abort();
    throw err;
  }
  return finishFull(repo, got, options.nowMs, before, draft);
}

/** The ids the cache held before a full listing that the listing does not name. */
function unlisted(got: Fetched, before: ReadonlyMap<string, string>): string[] {
  const listed = new Set(got.unreadableIds);
  for (const r of got.rfis) listed.add(r.id);
  const out: string[] = [];
  for (const id of before.keys()) if (!listed.has(id)) out.push(id);
  return out;
}

async function finishFull(
  repo: RfiRepository,
  got: Fetched,
  nowMs: number,
  before: ReadonlyMap<string, string>,
  draft?: SnapshotDraft,
): Promise<SyncOutcome> {
  const diffs = repo.upsert(got.rfis);
  const removed = before.size > 0 ? repo.remove(unlisted(got, before), before) : [];
  const now = new Date(nowMs).toISOString();
  repo.setMeta({
    cursor: maxUpdatedAt(null, got.rfis),
    lastSyncedAt: now,
    lastFullSyncAt: now,
  });
  // Every page read whole and every record an RFI: the pages as received become the cache's
  // snapshot (one file). Otherwise (a record we cannot read, whose cached copy stays; a client
  // that does not hand the text over) the changed shards are written as after any sync.
  const whole = got.unreadable === 0 && (draft !== undefined || got.texts.length === got.pages);
  if (!whole) await draft?.abort();
  await repo.flush(
    !whole ? undefined : draft ? { draft, rfis: got.rfis } : { pages: got.texts, rfis: got.rfis },
  );
  return {
    mode: 'full',
    diffs,
    removed,
    fetched: got.rfis.length,
    pages: got.pages,
    unreadable: got.unreadable,
  };
}
