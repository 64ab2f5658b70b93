import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BankClient } from '../../src/main/bank/client';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { ChangeDetector, newsOf } from '../../src/main/rfis/notifier';
import { openRfiRepository, sameJson, SHARD_COUNT, shardOf } from '../../src/main/rfis/repository';
import { syncRepository } from '../../src/main/rfis/sync';
import type { Rfi } from '../../src/shared/api/rfis';
import { AppFailure } from '../../src/shared/ipc/errors';
import { deriveRfiStatus, TIMEOUT_MS } from '../../src/shared/rfi-rules';
import {
  AT_RISK_MS,
  compareSummaries,
  countSummaries,
  deadlineBand,
  matchesFilter,
  queryRfis,
  summarizeRfi,
} from '../../src/shared/rfi-view';
import { tempDir } from '../support/temp-dir';

const DAY = 24 * 3600_000;
const NOW = Date.parse('2026-03-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

function question(id: string, status: string, updatedAt: number, type = 'transaction.purpose') {
  return {
    id,
    status,
    question_type: type,
    question_data: { question_text: 'Why?', comment: '', document_ids: [] },
    created_at: iso(updatedAt),
    updated_at: iso(updatedAt),
    responses: [],
  };
}

function rfi(
  id: string,
  qs: ReturnType<typeof question>[],
  opts: { status?: string; updatedAt?: number } = {},
): Rfi {
  const updated = opts.updatedAt ?? Math.max(...qs.map((q) => Date.parse(q.updated_at)));
  return {
    id,
    type: 'transaction',
    related_id: `txn_${id}`,
    legal_entity_id: 'le_a',
    description: `RFI ${id}`,
    status: opts.status ?? deriveRfiStatus(qs.map((q) => q.status)),
    created_at: iso(updated - DAY),
    updated_at: iso(updated),
    questions: qs,
  };
}

describe('deadline rules and bands', () => {
  it('the deadline is updated_at + 30 days of the earliest non-final question', () => {
    const r = rfi('r1', [
      question('q1', 'pending_review', NOW - 10 * DAY),
      question('q2', 'action_required', NOW - 20 * DAY),
      question('q3', 'approved', NOW - 29 * DAY),
    ]);
    const s = summarizeRfi(r, NOW, undefined);
    expect(s.deadline).toBe(iso(NOW - 20 * DAY + TIMEOUT_MS));
    expect(s.band).toBe('on_track'); // 10 days left
  });

  it('bands: on track at 7 days or more, at risk under 7 days, breached when passed, none without deadline', () => {
    const d = NOW + 7 * DAY;
    expect(deadlineBand(d, NOW)).toBe('on_track');
    expect(deadlineBand(d, NOW + 1)).toBe('at_risk');
    expect(deadlineBand(d - AT_RISK_MS + 1, NOW)).toBe('at_risk');
    expect(deadlineBand(NOW, NOW)).toBe('breached');
    expect(deadlineBand(NOW - 1, NOW)).toBe('breached');
    expect(deadlineBand(null, NOW)).toBe('none');
    expect(deadlineBand('not a date', NOW)).toBe('none');
    expect(deadlineBand(iso(d), NOW)).toBe('on_track');
  });

  it('a final RFI, or one whose questions are all final, has no deadline', () => {
    const closed = rfi('r2', [question('q1', 'approved', NOW - 40 * DAY)], { status: 'approved' });
    expect(summarizeRfi(closed, NOW, undefined)).toMatchObject({ deadline: null, band: 'none' });
    const allFinal = rfi('r3', [question('q1', 'closed', NOW - DAY)], { status: 'pending_review' });
    expect(summarizeRfi(allFinal, NOW, undefined)).toMatchObject({ deadline: null, band: 'none' });
  });

  it('derived statuses: counts per question status, awaiting action only for action_required RFIs, unknown kept', () => {
    const r = rfi('r4', [
      question('q1', 'action_required', NOW - DAY),
      question('q2', 'pending_review', NOW - DAY),
      question('q3', 'escalated', NOW - DAY),
    ]);
    expect(r.status).toBe('action_required');
    const s = summarizeRfi(r, NOW, undefined);
    expect(s.questionCounts).toEqual({ action_required: 1, pending_review: 1, escalated: 1 });
    expect(s.awaitingResponse).toBe(1);
    expect(s.awaitingAction).toBe(true);
    const pending = summarizeRfi(rfi('r5', [question('q1', 'pending_review', NOW)]), NOW, undefined);
    expect(pending.status).toBe('pending_review');
    expect(pending.awaitingAction).toBe(false);
    // an unknown RFI status is shown as it is, not waiting, with a running deadline
    const odd = summarizeRfi(
      rfi('r6', [question('q1', 'on_hold', NOW)], { status: 'on_hold' }),
      NOW,
      undefined,
    );
    expect(odd).toMatchObject({ status: 'on_hold', awaitingAction: false, band: 'on_track' });
  });

  it('unread until the analyst saw this updated_at; filters, deadline sort and counts', () => {
    const a = summarizeRfi(rfi('a', [question('q', 'action_required', NOW - 25 * DAY)]), NOW, undefined);
    const b = summarizeRfi(
      rfi('b', [question('q', 'action_required', NOW - 5 * DAY)]),
      NOW,
      iso(NOW - 5 * DAY),
    );
    const c = summarizeRfi(
      rfi('c', [question('q', 'approved', NOW - DAY)], { status: 'approved' }),
      NOW,
      'old',
    );
    const d = summarizeRfi(rfi('d', [question('q', 'action_required', NOW - 31 * DAY)]), NOW, undefined);
    expect([a.unread, b.unread, c.unread]).toEqual([true, false, true]);
    expect(queryRfis([a, b, c, d], {}).map((s) => s.id)).toEqual(['d', 'a', 'b', 'c']);
    expect(d.band).toBe('breached');
    expect(a.band).toBe('at_risk');
    expect(queryRfis([a, b, c, d], { status: ['approved'] }).map((s) => s.id)).toEqual(['c']);
    expect(queryRfis([a, b, c, d], { text: 'TXN_B' }).map((s) => s.id)).toEqual(['b']);
    expect(queryRfis([a, b, c, d], { unreadOnly: true, band: ['at_risk'] }).map((s) => s.id)).toEqual(['a']);
    expect(matchesFilter(a, { type: ['account'] })).toBe(false);
    expect([c, a].sort(compareSummaries('updated_desc')).map((s) => s.id)).toEqual(['c', 'a']);
    const counts = countSummaries([a, b, c, d]);
    expect(counts).toMatchObject({
      total: 4,
      unread: 3,
      awaitingAction: 3,
      byStatus: { action_required: 3, approved: 1 },
      byBand: { on_track: 1, at_risk: 1, breached: 1, none: 1 },
    });
  });
});

describe('the change detector', () => {
  const base = rfi('r1', [question('q1', 'action_required', NOW), question('q2', 'action_required', NOW)]);

  it('a new RFI is news; the same version again is not, whichever way it came', () => {
    const det = new ChangeDetector();
    const prefs = { newRfi: true, rfiStatus: true };
    const first = det.plan([{ id: 'r1', before: undefined, after: base }], prefs);
    expect(first.map((p) => p.title)).toEqual(['New RFI']);
    // reported again (by polling after the webhook, or a re-filled cache): nothing more
    expect(det.plan([{ id: 'r1', before: undefined, after: base }], prefs)).toEqual([]);
  });

  it('the analyst’s own answer (→ pending_review) is quiet; a staff decision is one notification per RFI', () => {
    const answered = rfi('r1', [
      question('q1', 'pending_review', NOW + 1),
      question('q2', 'action_required', NOW),
    ]);
    expect(newsOf({ id: 'r1', before: base, after: answered })).toEqual([]);
    const decided = rfi(
      'r1',
      [question('q1', 'closed', NOW + 2), question('q2', 'pending_review', NOW + 2)],
      { status: 'pending_review' },
    );
    const det = new ChangeDetector();
    const plans = det.plan([{ id: 'r1', before: answered, after: decided }], {
      newRfi: true,
      rfiStatus: true,
    });
    expect(plans).toHaveLength(1);
    expect(plans[0]).toMatchObject({ title: 'RFI question changed', rfiId: 'r1' });
    expect(plans[0]!.body).toContain('closed');
    expect(
      det.plan([{ id: 'r1', before: answered, after: decided }], { newRfi: true, rfiStatus: true }),
    ).toEqual([]);
  });

  it('respects the notification preferences and sums up a large batch in one notification', () => {
    const det = new ChangeDetector();
    expect(
      det.plan([{ id: 'r1', before: undefined, after: base }], { newRfi: false, rfiStatus: true }),
    ).toEqual([]);
    const many = Array.from({ length: 8 }, (_, i) => ({
      id: `m${i}`,
      before: undefined,
      after: rfi(`m${i}`, [question('q', 'action_required', NOW)]),
    }));
    const plans = new ChangeDetector().plan(many, { newRfi: true, rfiStatus: true });
    expect(plans).toHaveLength(1);
    expect(plans[0]).toMatchObject({ title: 'RFIs updated', body: '8 new RFIs', rfiId: null });
  });
});

describe('the on-disk repository', () => {
  let dir: string;
  const log = createLogger(memorySink(), 'debug');
  beforeEach(async () => {
    dir = await tempDir('td-rfirepo-');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const many = (n: number, at = NOW) =>
    Array.from({ length: n }, (_, i) =>
      rfi(`rfi_${String(i).padStart(5, '0')}`, [question(`q${i}`, 'action_required', at)]),
    );

  it('keeps RFIs across a restart in shard files written whole, with the seen markers', async () => {
    const repo = await openRfiRepository({ dir, log });
    const rfis = many(300);
    expect(repo.upsert(rfis)).toHaveLength(300);
    repo.setMeta({ cursor: rfis[0]!.updated_at, baseline: true });
    await repo.flush();
    expect(await repo.markSeen('rfi_00001', rfis[1]!.updated_at)).toBe(true);
    expect(await repo.markSeen('rfi_00001', rfis[1]!.updated_at)).toBe(false);
    const files = (await readdir(dir)).filter((f) => f.startsWith('shard-'));
    expect(files.length).toBeLessThanOrEqual(SHARD_COUNT);
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    const again = await openRfiRepository({ dir, log });
    expect(again.size).toBe(300);
    expect(again.get('rfi_00007')).toEqual(rfis[7]);
    expect(again.meta()).toMatchObject({ cursor: rfis[0]!.updated_at, baseline: true });
    expect(again.summary('rfi_00001', NOW)!.unread).toBe(false);
    expect(again.summary('rfi_00002', NOW)!.unread).toBe(true);
    expect(again.counts(NOW)).toMatchObject({ total: 300, unread: 299, awaitingAction: 300 });
  });

  it('answers only real differences and never goes back to an older version', async () => {
    const repo = await openRfiRepository({ dir, log });
    const v1 = rfi('r1', [question('q1', 'action_required', NOW)]);
    const v2 = rfi('r1', [question('q1', 'pending_review', NOW + 1000)]);
    expect(repo.upsert([v1])).toHaveLength(1);
    expect(repo.upsert([structuredClone(v1)])).toEqual([]);
    expect(repo.upsert([v2])).toEqual([{ id: 'r1', before: v1, after: v2 }]);
    expect(repo.upsert([v1])).toEqual([]);
    expect(repo.get('r1')).toEqual(v2);
    // a re-read RFI is not removed by a listing that started before it
    expect(repo.remove(['r1'], new Map([['r1', v1.updated_at]]))).toEqual([]);
    expect(repo.remove(['r1'], new Map([['r1', v2.updated_at]]))).toEqual(['r1']);
  });

  it('moves an unreadable shard aside, keeps the rest, and drops the cursor so a full sync refills it', async () => {
    const repo = await openRfiRepository({ dir, log });
    const rfis = many(200);
    repo.upsert(rfis);
    repo.setMeta({ cursor: iso(NOW), lastFullSyncAt: iso(NOW), baseline: true });
    await repo.flush();
    const victim = rfis[0]!.id;
    const shard = `shard-${shardOf(victim).toString(16).padStart(2, '0')}.json`;
    await writeFile(path.join(dir, shard), '{"version":1,"rfis":[tor');
    const again = await openRfiRepository({ dir, log });
    expect(again.get(victim)).toBeUndefined();
    expect(again.size).toBeGreaterThan(150);
    expect(again.problems).toHaveLength(1);
    expect(again.problems[0]!.movedTo).toContain('corrupt');
    expect(await readFile(again.problems[0]!.movedTo!, 'utf8')).toContain('tor');
    expect(again.meta()).toMatchObject({ cursor: null, lastFullSyncAt: null, baseline: true });
  });
});

/** A bank whose GET /v1/rfis is scripted: supports updated_since, refuses it, or ignores it. */
function fakeBank(all: () => unknown[], mode: 'supported' | 'refused' | 'ignored') {
  const calls: Array<Record<string, string | undefined>> = [];
  const bank = {
    async request({
      query,
      onText,
    }: {
      query: Record<string, string | undefined>;
      onText?: (text: string) => void;
    }) {
      const q = query;
      calls.push(q);
      if (q.updated_since && mode === 'refused') {
        throw new AppFailure({ kind: 'invalid', status: 400, message: 'updated_since: unknown parameter' });
      }
      let rows = all();
      if (q.updated_since && mode === 'supported') {
        const since = Date.parse(q.updated_since);
        rows = rows.filter((r) => Date.parse((r as Rfi).updated_at) > since);
      }
      const size = Number(q.page_size ?? '100');
      const start = q.page_token ? Number(q.page_token) : 0;
      const next = start + size < rows.length ? String(start + size) : null;
      const page = { data: rows.slice(start, start + size), next_page_token: next };
      onText?.(JSON.stringify(page)); // the body as the client received it
      return page;
    },
  };
  return { bank: bank as unknown as BankClient, calls };
}

describe('sync with GET /v1/rfis', () => {
  let dir: string;
  const log = createLogger(memorySink(), 'debug');
  beforeEach(async () => {
    dir = await tempDir('td-rfisync-');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const server = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      rfi(`s${String(i).padStart(4, '0')}`, [question('q', 'action_required', NOW - i * 120_000)]),
    );

  it('first sync is full and paged; then incremental with updated_since; removals on the periodic full sync', async () => {
    let rows = server(1200);
    const { bank, calls } = fakeBank(() => rows, 'supported');
    const repo = await openRfiRepository({ dir, log });
    const first = await syncRepository(bank, repo, { nowMs: NOW });
    expect(first).toMatchObject({ mode: 'full', fetched: 1200, pages: 3 });
    expect(calls.every((c) => c.updated_since === undefined && c.page_size === '500')).toBe(true);

    const changed = rfi('s0005', [question('q', 'pending_review', NOW + 5000)]);
    rows = [changed, ...rows.filter((r) => r.id !== 's0005').slice(0, 1100)];
    calls.length = 0;
    const second = await syncRepository(bank, repo, { nowMs: NOW + 10_000 });
    expect(second.mode).toBe('incremental');
    expect(calls[0]!.updated_since).toBeDefined();
    expect(second.diffs.map((d) => d.id)).toContain('s0005');
    expect(second.removed).toEqual([]);
    expect(repo.meta()).toMatchObject({ updatedSinceSupported: true, cursor: changed.updated_at });

    const third = await syncRepository(bank, repo, { nowMs: NOW + 7 * 3600_000 });
    expect(third.mode).toBe('full');
    expect(third.removed).toHaveLength(99);
    expect(repo.size).toBe(1101);
  });

  const shardFiles = async () => (await readdir(dir)).filter((f) => f.startsWith('shard-')).sort();
  const reopened = async () => {
    const again = await openRfiRepository({ dir, log });
    return { again, all: new Map([...again.all()].map((r) => [r.id, r])) };
  };

  it('a full sync writes the listing as one snapshot; changes after it go to shards over it; the next full sync replaces both', async () => {
    let rows = server(1200);
    const { bank } = fakeBank(() => rows, 'supported');
    const repo = await openRfiRepository({ dir, log });
    await syncRepository(bank, repo, { nowMs: NOW });
    // The meta rides in the snapshot: one file, one fsync.
    expect((await readdir(dir)).filter((f) => f.endsWith('.json')).sort()).toEqual(['snapshot.json']);
    let { again, all } = await reopened();
    expect(all).toEqual(new Map([...repo.all()].map((r) => [r.id, r])));
    expect(again.meta()).toMatchObject({ cursor: rows[0]!.updated_at, lastFullSyncAt: iso(NOW) });

    const changed = rfi('s0005', [question('q', 'pending_review', NOW + 5000)]);
    rows = [changed, ...rows.filter((r) => r.id !== 's0005')];
    expect((await syncRepository(bank, repo, { nowMs: NOW + 10_000 })).mode).toBe('incremental');
    expect(await shardFiles()).toEqual([`shard-${shardOf('s0005').toString(16).padStart(2, '0')}.json`]);
    ({ again, all } = await reopened());
    expect(again.size).toBe(1200);
    expect(again.get('s0005')).toEqual(changed);
    expect(again.meta().cursor).toBe(changed.updated_at);

    rows = rows.slice(0, 1000);
    const full = await syncRepository(bank, repo, { nowMs: NOW + 7 * 3600_000 });
    expect(full).toMatchObject({ mode: 'full', fetched: 1000 });
    expect(await shardFiles()).toEqual([]);
    ({ again, all } = await reopened());
    expect(all).toEqual(new Map(rows.map((r) => [r.id, r])));
    expect(again.meta().lastFullSyncAt).toBe(iso(NOW + 7 * 3600_000));
  });

  it('the meta is meta.json when written over the snapshot on disk, else the newer snapshot’s own', async () => {
    const rows = server(30);
    const { bank } = fakeBank(() => rows, 'supported');
    const repo = await openRfiRepository({ dir, log });
    await syncRepository(bank, repo, { nowMs: NOW });
    const snapshotMeta = repo.meta();
    // An incremental sync moves the cursor: meta.json, over snapshot 1, is the meta from then on.
    rows[0] = rfi(rows[0]!.id, [question('q', 'pending_review', NOW + 5000)]);
    expect((await syncRepository(bank, repo, { nowMs: NOW + 10 * 60_000 })).mode).toBe('incremental');
    const metaFile = path.join(dir, 'meta.json');
    expect(JSON.parse(await readFile(metaFile, 'utf8'))).toMatchObject({ snapshot: 1 });
    let { again } = await reopened();
    expect(again.meta()).toEqual(repo.meta());
    expect(again.meta().cursor).toBe(rows[0]!.updated_at);
    expect(again.meta().cursor).not.toBe(snapshotMeta.cursor);
    // The next full sync writes snapshot 2 with its meta; the meta.json left over snapshot 1 is older.
    await syncRepository(bank, repo, { nowMs: NOW + 7 * 3600_000 });
    expect(JSON.parse(await readFile(metaFile, 'utf8'))).toMatchObject({ snapshot: 1 });
    ({ again } = await reopened());
    expect(again.meta()).toEqual(repo.meta());
    expect(again.meta().lastFullSyncAt).toBe(iso(NOW + 7 * 3600_000));
    // A meta.json from before (it names no snapshot) beside a snapshot without a meta is the meta.
    const text = await readFile(path.join(dir, 'snapshot.json'), 'utf8');
    await writeFile(path.join(dir, 'snapshot.json'), text.replace(/,"meta":\{[^}]*\}/, ''));
    const older = { ...snapshotMeta, cursor: iso(NOW - DAY) };
    await writeFile(metaFile, JSON.stringify(older));
    ({ again } = await reopened());
    expect(again.meta()).toEqual(older);
    expect(again.size).toBe(30);
  });

  it('an RFI re-read after the listing was taken (newer than its copy there) stays, in a shard beside the snapshot', async () => {
    const rows = server(300);
    const { bank } = fakeBank(() => rows, 'supported');
    const repo = await openRfiRepository({ dir, log });
    await syncRepository(bank, repo, { nowMs: NOW });
    const reRead = rfi('s0003', [question('q', 'pending_review', NOW + 60_000)]);
    repo.upsert([reRead]); // a webhook's re-read, newer than what the next listing says
    await syncRepository(bank, repo, { nowMs: NOW + 7 * 3600_000 });
    expect(repo.get('s0003')).toEqual(reRead);
    expect(await shardFiles()).toEqual([`shard-${shardOf('s0003').toString(16).padStart(2, '0')}.json`]);
    const { again } = await reopened();
    expect(again.get('s0003')).toEqual(reRead);
    expect(again.size).toBe(300);
    expect(again.meta().cursor).not.toBeNull();
  });

  it('a shard over an older snapshot is ignored; one over a newer snapshot (a full write cut short) makes the next sync full', async () => {
    const rows = server(100);
    const { bank } = fakeBank(() => rows, 'supported');
    await syncRepository(bank, await openRfiRepository({ dir, log }), { nowMs: NOW });
    const ghost = rfi('ghost', [question('q', 'action_required', NOW)]);
    const at = path.join(dir, `shard-${shardOf('ghost').toString(16).padStart(2, '0')}.json`);
    // Left by the write before the snapshot (base 0): not read, the cursor stands.
    await writeFile(at, JSON.stringify({ version: 2, base: 0, rfis: [ghost] }));
    let { again } = await reopened();
    expect(again.get('ghost')).toBeUndefined();
    expect(again.size).toBe(100);
    expect(again.meta().cursor).not.toBeNull();
    // Written over snapshot 2 while snapshot 1 is on disk: that partition may be older than it was.
    await writeFile(at, JSON.stringify({ version: 2, base: 2, rfis: [ghost] }));
    ({ again } = await reopened());
    expect(again.meta()).toMatchObject({ cursor: null, lastFullSyncAt: null });
    expect((await syncRepository(bank, again, { nowMs: NOW + 1000 })).mode).toBe('full');
  });

  it('a cache of format 1 shards (before snapshots) still opens whole', async () => {
    const rows = server(40);
    await mkdir(dir, { recursive: true });
    const groups = new Map<number, Rfi[]>();
    for (const r of rows) groups.set(shardOf(r.id), [...(groups.get(shardOf(r.id)) ?? []), r]);
    for (const [n, rfis] of groups) {
      await writeFile(
        path.join(dir, `shard-${n.toString(16).padStart(2, '0')}.json`),
        JSON.stringify({ version: 1, rfis }),
      );
    }
    const { again, all } = await reopened();
    expect(all).toEqual(new Map(rows.map((r) => [r.id, r])));
    expect(again.problems).toEqual([]);
  });

  it('a record that is not a readable RFI is skipped; the others sync and its cached copy stays', async () => {
    const good = server(20);
    let rows: unknown[] = good;
    const { bank } = fakeBank(() => rows, 'supported');
    const repo = await openRfiRepository({ dir, log });
    await syncRepository(bank, repo, { nowMs: NOW });
    const broken = { ...good[3]!, questions: 'not a list' };
    rows = [...good.slice(0, 3), broken, { no: 'id' }, ...good.slice(4)];
    const out = await syncRepository(bank, repo, { nowMs: NOW + 7 * 3600_000 });
    expect(out).toMatchObject({ mode: 'full', unreadable: 2, removed: [] });
    expect(repo.size).toBe(20);
    expect(repo.get(good[3]!.id)).toEqual(good[3]);
    // The snapshot started while the listing arrived was dropped: no temp file is left.
    expect((await readdir(dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('a full listing cut short leaves the snapshot on disk as it was and no temp file; the next one is written whole', async () => {
    const rows = server(1200);
    const { bank } = fakeBank(() => rows, 'supported');
    const repo = await openRfiRepository({ dir, log });
    await syncRepository(bank, repo, { nowMs: NOW });
    const before = await readFile(path.join(dir, 'snapshot.json'), 'utf8');
    // The bank fails on the second page of the next full listing.
    const request = bank.request.bind(bank);
    let failOnce = true;
    (bank as unknown as { request: typeof bank.request }).request = (async (o: {
      query: { page_token?: string };
    }) => {
      if (o.query.page_token && failOnce) {
        failOnce = false;
        throw new AppFailure({ kind: 'offline', message: 'the bank went away' });
      }
      return request(o as never);
    }) as typeof bank.request;
    await expect(syncRepository(bank, repo, { nowMs: NOW + 7 * 3600_000, full: true })).rejects.toMatchObject(
      {
        kind: 'offline',
      },
    );
    expect(await readFile(path.join(dir, 'snapshot.json'), 'utf8')).toBe(before);
    expect((await readdir(dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    rows[7] = rfi(rows[7]!.id, [question('q', 'pending_review', NOW + 5000)]);
    await syncRepository(bank, repo, { nowMs: NOW + 8 * 3600_000, full: true });
    const { again, all } = await reopened();
    expect(again.size).toBe(1200);
    expect(all.get(rows[7]!.id)).toEqual(rows[7]);
    expect(again.meta().lastFullSyncAt).toBe(iso(NOW + 8 * 3600_000));
  });

  it('a server that refuses updated_since (400) gets full syncs from then on', async () => {
    const rows = server(50);
    const { bank, calls } = fakeBank(() => rows, 'refused');
    const repo = await openRfiRepository({ dir, log });
    await syncRepository(bank, repo, { nowMs: NOW });
    const second = await syncRepository(bank, repo, { nowMs: NOW + 1000 });
    expect(second.mode).toBe('full');
    expect(repo.meta().updatedSinceSupported).toBe(false);
    calls.length = 0;
    await syncRepository(bank, repo, { nowMs: NOW + 2000 });
    expect(calls.some((c) => c.updated_since !== undefined)).toBe(false);
  });

  it('a server that ignores updated_since (answers older RFIs too) is detected and treated as a full listing', async () => {
    let rows = server(50);
    const { bank } = fakeBank(() => rows, 'ignored');
    const repo = await openRfiRepository({ dir, log });
    await syncRepository(bank, repo, { nowMs: NOW });
    rows = rows.slice(0, 40);
    const second = await syncRepository(bank, repo, { nowMs: NOW + 1000 });
    expect(second.mode).toBe('full');
    expect(second.removed).toHaveLength(10);
    expect(repo.meta().updatedSinceSupported).toBe(false);
  });
});

describe('sameJson (the upsert’s difference check)', () => {
  it('compares JSON values structurally', () => {
    expect(sameJson({ a: [1, { b: 'x' }], c: null }, { c: null, a: [1, { b: 'x' }] })).toBe(true);
    expect(sameJson({ a: [1, { b: 'x' }] }, { a: [1, { b: 'y' }] })).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson([1, 2], { 0: 1, 1: 2 })).toBe(false);
    expect(sameJson('1', 1)).toBe(false);
    expect(sameJson(null, {})).toBe(false);
  });
});
