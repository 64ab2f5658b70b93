import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openJobQueue, queuedJobSchema, scheduleOf } from '../../src/main/infra/job-queue';
import type { JobKind, JobQueue, JobQueueOptions, JobResult } from '../../src/main/infra/job-queue';
import { createLogger, memorySink } from '../../src/main/infra/log';

/**
 * The generic durable job queue with a job kind of its own (no feature): a job that "delivers" a
 * note, scripted per run. Storage, order, retry scheduling, restart recovery and disposal.
 */

const noteSchema = queuedJobSchema.extend({
  note: z.string(),
  phase: z.enum(['waiting', 'delivering', 'checking', 'delivered', 'refused']),
  runs: z.number(),
});
type Note = z.infer<typeof noteSchema>;

let dir: string;
let file: string;
/** What the next runs of each job answer (default: done). */
let script: Map<string, Array<JobResult<Note> | 'throw' | 'hang'>>;
let ran: string[];
let blocked: Array<() => void>;
let allowed: (n: Note) => boolean;
const opened: Array<JobQueue<Note>> = [];

const kind = (): JobKind<Note> => ({
  label: 'Test notes',
  consequence: 'A new one was started.',
  schema: noteSchema,
  upgrade: (n) => (n.note === n.note.trim() ? null : { note: n.note.trim() }),
  interrupted: (n) => (n.phase === 'delivering' ? { phase: 'checking' } : null),
  finished: (n) => n.phase === 'delivered' || n.phase === 'refused',
  ready: (n) => allowed(n),
  async run(n, ctx) {
    ran.push(`${n.id}:${n.phase}`);
    await ctx.update({ phase: 'delivering', runs: n.runs + 1 });
    const next = script.get(n.id)?.shift() ?? { outcome: 'done' };
    if (next === 'throw') throw new Error('boom');
    if (next === 'hang') await new Promise<void>((resolve) => blocked.push(resolve));
    if (next === 'hang') return { outcome: 'done', patch: { phase: 'delivered' } };
    const phase =
      next.outcome === 'done'
        ? 'delivered'
        : next.outcome === 'failed'
          ? 'refused'
          : next.outcome === 'verify'
            ? 'checking'
            : 'waiting';
    return { ...next, patch: { phase, ...next.patch } };
  },
});

async function open(extra: Partial<JobQueueOptions<Note>> = {}): Promise<JobQueue<Note>> {
  const q = await openJobQueue<Note>({
    file,
    kind: kind(),
    log: createLogger(memorySink(), 'debug'),
    name: 'test',
    retry: { baseMs: 1000, maxMs: 8000, jitter: [1, 1] },
    autoRun: false,
    ...extra,
  });
  opened.push(q);
  return q;
}

let seq = 0;
function note(text: string, id = `n${++seq}`): Note {
  const t = new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString();
  return {
    id,
    createdAt: t,
    updatedAt: t,
    failures: 0,
    nextAttemptAt: Date.now(),
    note: text,
    phase: 'waiting',
    runs: 0,
  };
}

async function stored(): Promise<Note[]> {
  const raw = JSON.parse(await readFile(file, 'utf8')) as { version: number; entries: Note[] };
  expect(raw.version).toBe(1);
  return raw.entries;
}

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'td-jobs-'));
  file = path.join(dir, 'jobs.json');
  script = new Map();
  ran = [];
  blocked = [];
  allowed = () => true;
  seq = 0;
});

afterEach(async () => {
  for (const b of blocked.splice(0)) b();
  for (const q of opened.splice(0)) await q.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('job queue: storage and order', () => {
  it('a job is on disk before add resolves, and reported after it is written', async () => {
    const seen: string[] = [];
    const q = await open({ onChange: (n) => seen.push(`${n.id}:${n.phase}`) });
    await q.add(note('hello'));
    expect((await stored()).map((n) => n.note)).toEqual(['hello']);
    expect(seen).toEqual(['n1:waiting']);
  });

  it('a job whose write failed is not queued: add rejects and nothing of it runs or stays', async () => {
    const q = await open();
    // The file's place is taken by a folder with something in it: the write's rename fails.
    await mkdir(path.join(file, 'taken'), { recursive: true });
    await expect(q.add(note('lost write'))).rejects.toThrow();
    expect(q.all()).toEqual([]);
    await q.runDue();
    expect(ran).toEqual([]);
    await rm(file, { recursive: true });
    await q.add(note('next'));
    expect(q.all().map((n) => n.note)).toEqual(['next']);
    expect((await stored()).map((n) => n.note)).toEqual(['next']);
  });

  it('runs due jobs one at a time in creation order, whatever order they were added in', async () => {
    const q = await open();
    const late = note('late');
    const early = note('early');
    early.createdAt = '2025-01-01T00:00:00.000Z';
    await q.add(late);
    await q.add(early);
    await q.runDue();
    expect(ran).toEqual([`${early.id}:waiting`, `${late.id}:waiting`]);
    expect(q.all().map((n) => n.phase)).toEqual(['delivered', 'delivered']);
    expect((await stored()).map((n) => [n.note, n.phase, n.nextAttemptAt])).toEqual([
      ['late', 'delivered', null],
      ['early', 'delivered', null],
    ]);
  });

  it('a job that may not run now waits for a wake-up, and is not counted as failing', async () => {
    const q = await open();
    allowed = () => false;
    await q.add(note('later'));
    await q.runDue();
    expect(ran).toEqual([]);
    allowed = () => true;
    q.wake();
    await q.runDue();
    expect(ran).toEqual(['n1:waiting']);
    expect(q.get('n1')?.failures).toBe(0);
  });
});

describe('job queue: results and retries', () => {
  it('retry counts a failure and waits the backoff; verify is scheduled the same; done forgets nothing', async () => {
    const q = await open();
    script.set('n1', [{ outcome: 'retry' }, { outcome: 'verify' }, { outcome: 'done' }]);
    await q.add(note('x'));
    const t0 = Date.now();
    await q.runDue();
    const first = q.get('n1')!;
    expect(first.failures).toBe(1);
    expect(first.nextAttemptAt! - t0).toBeGreaterThanOrEqual(1000);
    expect(first.nextAttemptAt! - Date.now()).toBeLessThanOrEqual(1000);
    // Not due yet: a run now does nothing.
    await q.runDue();
    expect(ran).toHaveLength(1);
    q.wake();
    await q.runDue();
    expect(q.get('n1')).toMatchObject({ failures: 2, phase: 'checking' });
    expect(q.get('n1')!.nextAttemptAt! - Date.now()).toBeGreaterThan(1000); // second step: 2 s
    q.wake();
    await q.runDue();
    expect(q.get('n1')).toMatchObject({ failures: 2, phase: 'delivered', nextAttemptAt: null });
    expect((await stored())[0]).toMatchObject({ phase: 'delivered', runs: 3, nextAttemptAt: null });
  });

  it('the backoff grows by step and stops at its cap; a server-given delay wins', () => {
    const retry = { baseMs: 1000, maxMs: 8000, jitter: [1, 1] as const };
    expect(scheduleOf({ outcome: 'retry' }, 0, retry, 0)).toEqual({ failures: 1, nextAttemptAt: 1000 });
    expect(scheduleOf({ outcome: 'retry' }, 2, retry, 0)).toEqual({ failures: 3, nextAttemptAt: 4000 });
    expect(scheduleOf({ outcome: 'verify' }, 9, retry, 0)).toEqual({ failures: 10, nextAttemptAt: 8000 });
    expect(scheduleOf({ outcome: 'retry', afterMs: 50 }, 3, retry, 10)).toEqual({
      failures: 4,
      nextAttemptAt: 60,
    });
    expect(scheduleOf({ outcome: 'wait' }, 3, retry, 10)).toEqual({ failures: 3, nextAttemptAt: 10 });
    expect(scheduleOf({ outcome: 'failed' }, 3, retry, 10)).toEqual({ failures: 3, nextAttemptAt: null });
  });

  it('failed stays until removed; runNow forgets the failures and runs it again', async () => {
    const q = await open();
    script.set('n1', [{ outcome: 'retry' }, { outcome: 'failed' }]);
    await q.add(note('x'));
    await q.runDue();
    q.wake();
    await q.runDue();
    expect(q.get('n1')).toMatchObject({ phase: 'refused', nextAttemptAt: null, failures: 1 });
    q.wake(); // a finished job is not woken
    await q.runDue();
    expect(ran).toHaveLength(2);
    await q.runNow(q.get('n1')!, { phase: 'waiting' });
    expect(q.get('n1')).toMatchObject({ failures: 0, phase: 'waiting' });
    await q.runDue();
    expect(q.get('n1')?.phase).toBe('delivered');
    expect((await q.remove('n1'))?.id).toBe('n1');
    expect(await stored()).toEqual([]);
  });

  it('a run that throws is logged and retried with backoff, not lost', async () => {
    const sink = memorySink();
    const q = await open({ log: createLogger(sink, 'debug') });
    script.set('n1', ['throw']);
    await q.add(note('x'));
    await q.runDue();
    expect(q.get('n1')).toMatchObject({ failures: 1, phase: 'delivering' });
    expect(sink.records.some((r) => r.message === 'test: job failed unexpectedly')).toBe(true);
    q.wake();
    await q.runDue();
    expect(q.get('n1')?.phase).toBe('delivered');
  });

  it('afterSaved is called once the result is on disk', async () => {
    let onDisk = '';
    const q = await open();
    await q.add(note('x'));
    script.set('n1', [{ outcome: 'done', afterSaved: () => (onDisk = readFileSync(file, 'utf8')) }]);
    await q.runDue();
    expect(JSON.parse(onDisk)).toMatchObject({
      entries: [{ id: 'n1', phase: 'delivered', nextAttemptAt: null }],
    });
  });
});

describe('job queue: restart recovery', () => {
  it('a job stored mid-run becomes what its kind says and runs again; older shapes are upgraded', async () => {
    const now = Date.now();
    const entries: Note[] = [
      { ...note('  padded  '), phase: 'delivering', nextAttemptAt: now + 60_000 },
      { ...note('done before'), phase: 'delivered', nextAttemptAt: null },
    ];
    await writeFile(file, JSON.stringify({ version: 1, entries }));
    const q = await open();
    expect(q.resumed.map((n) => [n.id, n.phase])).toEqual([['n1', 'checking']]);
    // Recovered and upgraded jobs are written back at once, before anything runs.
    expect((await stored()).map((n) => [n.note, n.phase])).toEqual([
      ['padded', 'checking'],
      ['done before', 'delivered'],
    ]);
    // Due at once (not at the time stored); a finished job is not run again.
    await q.runDue();
    expect(ran).toEqual(['n1:checking']);
    expect(q.get('n1')?.phase).toBe('delivered');
  });

  it('after a stop mid-run (no dispose), a second queue on the same file finds the job and finishes it', async () => {
    const first = await open();
    script.set('n1', ['hang']);
    await first.add(note('x'));
    void first.runDue();
    await expect.poll(async () => (await stored())[0]?.phase).toBe('delivering');
    // The app "stops" here: a new queue reads what the first one wrote.
    const second = await open();
    expect(second.resumed.map((n) => n.id)).toEqual(['n1']);
    await second.runDue();
    expect(second.get('n1')?.phase).toBe('delivered');
  });

  it('an unreadable file is moved aside and reported, and a new queue starts', async () => {
    await writeFile(file, '{ not json');
    const problems: Array<string | null> = [];
    const q = await open({ onProblem: (_m, _f, movedTo) => problems.push(movedTo) });
    expect(q.all()).toEqual([]);
    expect(problems).toHaveLength(1);
    expect(await readFile(problems[0]!, 'utf8')).toBe('{ not json');
    expect(await readdir(dir)).toEqual([path.basename(problems[0]!)]);
  });
});

describe('job queue: removal, timer and disposal', () => {
  it('removeWhere waits for a matching job under way, then removes it', async () => {
    const q = await open();
    script.set('n1', ['hang']);
    await q.add(note('x'));
    await q.add(note('y'));
    void q.runDue();
    await expect.poll(() => q.running()).toBe('n1');
    let removed: Note[] | null = null;
    const removing = q.removeWhere((n) => n.id === 'n1').then((r) => (removed = r));
    await new Promise((r) => setTimeout(r, 50));
    expect(removed).toBeNull();
    blocked.shift()!();
    await removing;
    expect(removed!.map((n) => n.id)).toEqual(['n1']);
    await q.idle();
    expect((await stored()).map((n) => n.id)).toEqual(['n2']);
  });

  it('runs by itself on its timer when it is due again', async () => {
    const q = await open({ autoRun: true, retry: { baseMs: 30, maxMs: 30, jitter: [1, 1] } });
    script.set('n1', [{ outcome: 'retry' }]);
    await q.add(note('x'));
    await expect.poll(() => q.get('n1')?.phase, { timeout: 5000 }).toBe('delivered');
    expect(ran).toEqual(['n1:waiting', 'n1:waiting']);
  });

  it('dispose lets a run under way end, stops the timer and runs nothing more', async () => {
    const q = await open({ autoRun: true, retry: { baseMs: 30, maxMs: 30, jitter: [1, 1] } });
    script.set('n1', ['hang']);
    script.set('n2', [{ outcome: 'retry' }]);
    await q.add(note('x'));
    await q.add(note('y'));
    await expect.poll(() => q.running()).toBe('n1');
    const disposing = q.dispose();
    blocked.shift()!();
    await disposing;
    const after = ran.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(ran.length).toBe(after);
    expect(ran).not.toContain('n2:waiting');
    expect((await stored()).find((n) => n.id === 'n1')?.phase).toBe('delivered');
  });
});
