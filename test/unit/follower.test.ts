import { afterEach, describe, expect, it } from 'vitest';
import { createFollower } from '../../src/main/bank/follower';
import type { Follower, FollowerOptions, FollowUpdate } from '../../src/main/bank/follower';

/**
 * The transaction follower with a scripted bank: each transaction answers a list of states in
 * turn (the last one repeats). Real timers, short delays.
 */
type State = { status: string };

const disposers: Follower[] = [];
afterEach(async () => {
  for (const f of disposers.splice(0)) await f.dispose();
});

function scripted(
  script: Record<string, string[]>,
  extra: Partial<FollowerOptions<State>> = {},
): { follower: Follower; batches: Array<Array<FollowUpdate<State>>>; reads: string[]; peak: () => number } {
  const batches: Array<Array<FollowUpdate<State>>> = [];
  const reads: string[] = [];
  const count = new Map<string, number>();
  let inFlight = 0;
  let peak = 0;
  const follower = createFollower<State>({
    read: async (id) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      reads.push(id);
      await new Promise((r) => setTimeout(r, 2));
      inFlight--;
      const n = count.get(id) ?? 0;
      count.set(id, n + 1);
      const states = script[id] ?? ['pending'];
      return { status: states[Math.min(n, states.length - 1)]! };
    },
    isFinal: (s) => s.status === 'completed',
    fingerprint: (s) => s.status,
    onBatch: (b) => {
      batches.push(b);
    },
    policy: { firstDelayMs: 10, factor: 2, maxDelayMs: 40, jitter: 0 },
    flushMs: 20,
    ...extra,
  });
  disposers.push(follower);
  return { follower, batches, reads, peak: () => peak };
}

describe('transaction follower', () => {
  it('reads with backoff until the final state, delivers only changes, then stops', async () => {
    const { follower, batches, reads } = scripted({ t1: ['pending', 'pending', 'settling', 'completed'] });
    follower.follow('t1', { known: 'pending' });
    expect(follower.following()).toEqual(['t1']);
    await expect.poll(() => follower.isFollowing('t1'), { timeout: 2000 }).toBe(false);
    await expect
      .poll(() => batches.flat().map((u) => [u.value.status, u.final]))
      .toEqual([
        ['settling', false],
        ['completed', true],
      ]);
    expect(reads).toEqual(['t1', 't1', 't1', 't1']);
    await new Promise((r) => setTimeout(r, 100));
    expect(reads).toHaveLength(4);
    expect(follower.stats).toMatchObject({ reads: 4, changes: 2, errors: 0 });
  });

  it('gathers the changes of many transactions into few batches and writes nothing when nothing changed', async () => {
    const script: Record<string, string[]> = {};
    for (let i = 0; i < 40; i++) script[`c${i}`] = ['pending', 'completed'];
    for (let i = 0; i < 40; i++) script[`u${i}`] = ['pending'];
    const { follower, batches, reads } = scripted(script, { maxInFlight: 50, flushMs: 50 });
    for (const id of Object.keys(script)) follower.follow(id, { known: 'pending' });
    await expect.poll(() => batches.flat().length, { timeout: 3000 }).toBe(40);
    // Each changed transaction is delivered once, all of them in a handful of batches.
    expect(new Set(batches.flat().map((u) => u.transactionId)).size).toBe(40);
    expect(batches.flat().every((u) => u.transactionId.startsWith('c') && u.final)).toBe(true);
    expect(batches.length).toBeLessThanOrEqual(4);
    // The unchanged ones keep being read, never delivered.
    await expect.poll(() => reads.filter((id) => id === 'u0').length, { timeout: 2000 }).toBeGreaterThan(2);
    expect(batches.flat().some((u) => u.transactionId.startsWith('u'))).toBe(false);
    expect(follower.following()).toHaveLength(40);
  });

  it('keeps the number of reads in flight bounded', async () => {
    const script: Record<string, string[]> = {};
    for (let i = 0; i < 30; i++) script[`t${i}`] = ['pending', 'completed'];
    const { follower, peak, batches } = scripted(script, { maxInFlight: 3 });
    for (const id of Object.keys(script)) follower.follow(id, { known: 'pending' });
    await expect.poll(() => batches.flat().length, { timeout: 5000 }).toBe(30);
    expect(peak()).toBeLessThanOrEqual(3);
    expect(peak()).toBe(3);
  });

  it('retries failed reads with backoff (at least Retry-After), or stops when told to', async () => {
    let failures = 0;
    const seen: string[] = [];
    const follower = createFollower<State>({
      read: async (id) => {
        seen.push(id);
        if (id === 'gone') throw Object.assign(new Error('not found'), { kind: 'not_found' });
        if (failures++ < 2) throw Object.assign(new Error('busy'), { retryAfterMs: 60 });
        return { status: 'completed' };
      },
      isFinal: (s) => s.status === 'completed',
      fingerprint: (s) => s.status,
      onBatch: () => undefined,
      onError: (_id, err) => ((err as { kind?: string }).kind === 'not_found' ? 'stop' : 'retry'),
      policy: { firstDelayMs: 5, factor: 1, maxDelayMs: 5, jitter: 0 },
    });
    disposers.push(follower);
    const t0 = Date.now();
    follower.follow('busy');
    follower.follow('gone');
    await expect.poll(() => follower.following(), { timeout: 2000 }).toEqual([]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(120);
    expect(seen.filter((id) => id === 'gone')).toHaveLength(1);
    expect(seen.filter((id) => id === 'busy')).toHaveLength(3);
    expect(follower.stats.errors).toBe(3);
  });

  it('drops a transaction that is no longer active or outlived the give-up time, without reading it', async () => {
    const gaveUp: string[] = [];
    const { follower, reads } = scripted(
      {},
      {
        policy: { firstDelayMs: 30, factor: 1, maxDelayMs: 30, jitter: 0, giveUpMs: 10 },
        onGiveUp: (id) => gaveUp.push(id),
      },
    );
    let active = true;
    follower.follow('a', { active: () => active });
    active = false;
    await expect.poll(() => follower.following(), { timeout: 2000 }).toEqual([]);
    expect(reads).toEqual([]);
    expect(gaveUp).toEqual([]);
    follower.follow('b');
    await expect.poll(() => gaveUp, { timeout: 2000 }).toEqual(['b']);
    expect(reads).toEqual([]);
  });

  it('dispose aborts the reads in flight and nothing runs afterwards', async () => {
    let aborted = 0;
    let started = 0;
    const follower = createFollower<State>({
      read: (_id, signal) =>
        new Promise((_resolve, reject) => {
          started++;
          signal.addEventListener('abort', () => {
            aborted++;
            reject(new Error('aborted'));
          });
        }),
      isFinal: () => false,
      fingerprint: (s) => s.status,
      onBatch: () => undefined,
      policy: { firstDelayMs: 1, jitter: 0 },
      maxInFlight: 4,
    });
    for (let i = 0; i < 10; i++) follower.follow(`t${i}`);
    await expect.poll(() => started).toBe(4);
    await follower.dispose();
    expect(aborted).toBe(4);
    expect(follower.following()).toEqual([]);
    follower.follow('late');
    await new Promise((r) => setTimeout(r, 30));
    expect(started).toBe(4);
    expect(follower.following()).toEqual([]);
  });
});
