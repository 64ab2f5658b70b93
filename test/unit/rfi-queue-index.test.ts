import { describe, expect, it } from 'vitest';
import { indexRfis, rfiSearchText } from '../../src/shared/rfi-queue-index';
import { queryRfis, searchNeedle } from '../../src/shared/rfi-view';
import type { DeadlineBand, RfiFilter, RfiSort, RfiSummary } from '../../src/shared/rfi-view';

/** A small deterministic generator (mulberry32), so a failure replays. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STATUSES = ['action_required', 'pending_review', 'approved', 'rejected', 'Odd_Status'];
const TYPES = ['transaction_inquiry', 'kyc_refresh', 'document_request'];
const BANDS: DeadlineBand[] = ['on_track', 'at_risk', 'breached', 'none'];
const WORDS = ['Bulk', 'invoice', 'ΟΔΟΣ', 'straße', 'Harbour', 'freight', '9', '99', 'ltd'];

function rows(n: number, random: () => number): RfiSummary[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  // Few distinct times, so ties (broken on id) are common.
  const time = (): string => new Date(Date.UTC(2026, 10, 1 + Math.floor(random() * 20))).toISOString();
  return Array.from({ length: n }, (_, i) => {
    const deadline = random() < 0.3 ? null : time();
    return {
      id: `rfi_${Math.floor(random() * 1e6).toString(16)}${i}`,
      type: pick(TYPES),
      status: pick(STATUSES),
      relatedId: `txn_${pick(WORDS)}_${i % 13}`,
      description: `${pick(WORDS)} ${pick(WORDS)} ${i}`,
      createdAt: time(),
      updatedAt: time(),
      deadline,
      band: deadline === null ? 'none' : pick(BANDS.slice(0, 3)),
      questionCounts: {},
      questionTotal: 0,
      awaitingResponse: 0,
      unread: random() < 0.4,
      awaitingAction: false,
    };
  });
}

function randomFilter(random: () => number): RfiFilter {
  const some = <T>(xs: readonly T[]): T[] => xs.filter(() => random() < 0.3);
  return {
    ...(random() < 0.4 ? { status: some(STATUSES) } : {}),
    ...(random() < 0.3 ? { type: some(TYPES) } : {}),
    ...(random() < 0.3 ? { band: some(BANDS) } : {}),
    ...(random() < 0.3 ? { unreadOnly: true } : {}),
    ...(random() < 0.6
      ? { text: ` ${WORDS[Math.floor(random() * WORDS.length)]?.slice(0, 1 + Math.floor(random() * 4))} ` }
      : {}),
  };
}

const SORTS: RfiSort[] = ['deadline', 'updated_desc', 'created_desc'];

describe('indexRfis: the queue precomputed once per data change', () => {
  const random = rng(42);
  const data = rows(600, random);

  it('keeps each sort order as queryRfis sorts it, computed once', () => {
    const index = indexRfis(data);
    for (const sort of SORTS) {
      expect(index.sorted(sort)).toEqual(queryRfis(data, {}, sort));
      expect(index.sorted(sort)).toBe(index.sorted(sort));
    }
    expect(index.rows).toBe(data);
  });

  it('warms one step at a time (each missing order, then the search texts), then says it is done', () => {
    const index = indexRfis(data);
    index.sorted('deadline');
    let steps = 0;
    while (index.warm()) steps++;
    expect(steps).toBe(3);
    expect(index.warm()).toBe(false);
    expect(index.sorted('created_desc')).toEqual(queryRfis(data, {}, 'created_desc'));
  });

  it('answers what queryRfis answers for any filter and sort, in any sequence of queries', () => {
    const index = indexRfis(data);
    for (let i = 0; i < 300; i++) {
      const f = randomFilter(random);
      const sort = SORTS[Math.floor(random() * SORTS.length)] as RfiSort;
      expect(index.query(f, sort)).toEqual(queryRfis(data, f, sort));
      if (i === 100) while (index.warm());
    }
  });

  it('narrows while the analyst types on, and widens again on backspace, with the same answers', () => {
    const index = indexRfis(data);
    const base: RfiFilter = { status: ['action_required', 'pending_review'] };
    const typed = ['b', 'bu', 'bul', 'bulk', 'bulk ', 'bulk 9', 'bulk 99', 'bulk 9', 'bulk', '', 'ha', 'HAR'];
    for (const sort of SORTS) {
      for (const text of typed) {
        const f = { ...base, text };
        expect(index.query(f, sort)).toEqual(queryRfis(data, f, sort));
      }
      // A change of a non-text filter between keystrokes starts from every row again.
      expect(index.query({ text: 'bulk' }, sort)).toEqual(queryRfis(data, { text: 'bulk' }, sort));
      expect(index.query({ text: 'bulk 9', unreadOnly: true }, sort)).toEqual(
        queryRfis(data, { text: 'bulk 9', unreadOnly: true }, sort),
      );
    }
  });

  it('keeps the answers without a text: a status clicked again is the same answer, a search starts from it', () => {
    const index = indexRfis(data);
    const f: RfiFilter = { status: ['approved'] };
    const first = index.query(f, 'updated_desc');
    expect(first).toEqual(queryRfis(data, f, 'updated_desc'));
    expect(index.query({ status: ['rejected'] }, 'updated_desc')).toEqual(
      queryRfis(data, { status: ['rejected'] }, 'updated_desc'),
    );
    expect(index.query({ ...f }, 'updated_desc')).toBe(first);
    expect(index.query({ ...f, text: 'in' }, 'updated_desc')).toEqual(
      queryRfis(data, { ...f, text: 'in' }, 'updated_desc'),
    );
    expect(index.query(f, 'created_desc')).toEqual(queryRfis(data, f, 'created_desc'));
  });

  it('applies an extra condition of the caller, and a new condition starts from every row', () => {
    const index = indexRfis(data);
    const even = (s: RfiSummary): boolean => s.description.endsWith('0') || s.description.endsWith('2');
    const odd = (s: RfiSummary): boolean => !even(s);
    const f = { text: 'in' };
    expect(index.query(f, 'deadline', even)).toEqual(queryRfis(data, f, 'deadline').filter(even));
    expect(index.query({ text: 'inv' }, 'deadline', odd)).toEqual(
      queryRfis(data, { text: 'inv' }, 'deadline').filter(odd),
    );
    expect(index.query({}, 'created_desc', odd)).toEqual(queryRfis(data, {}, 'created_desc').filter(odd));
  });

  it('matches the text within one field, never across two', () => {
    const [first] = rows(1, rng(7));
    if (!first) throw new Error('no row');
    const row: RfiSummary = { ...first, id: 'rfi_end', relatedId: 'start_txn', description: 'x' };
    const index = indexRfis([row]);
    expect(rfiSearchText(row).split('\n')).toHaveLength(5);
    expect(index.query({ text: 'end' }, 'deadline')).toEqual([row]);
    expect(index.query({ text: 'endstart' }, 'deadline')).toEqual([]);
    expect(index.query({ text: 'end\nstart' }, 'deadline')).toEqual([]);
    expect(searchNeedle('  MiXed ')).toBe('mixed');
  });
});
