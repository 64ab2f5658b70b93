/**
 * A durable queue of jobs (the idea of Signal Desktop's JobQueue), knowing no feature.
 *
 * The queue owns what every queue of work needs: the jobs on disk (one state file, written whole
 * through the at-rest codec before anything is reported), their order (creation time), when each
 * runs next (retry with jittered backoff, or now, or when woken), the timer and wake-ups, recovery
 * of jobs a stop interrupted, removal while a job runs, and disposal. A job kind supplies what
 * only it knows: the shape of a stored job (validated on every read), whether a job is finished,
 * what an interrupted one becomes, whether it may run now, and how to run it, answering a typed
 * result:
 *
 *   done      finished (never runs again)
 *   failed    failed for good (never runs again; kept until removed)
 *   retry     did not work this time: counts a failure and runs again after the backoff (or `afterMs`)
 *   verify    the outcome is unknown (it may have taken effect): scheduled as a retry, and the
 *             job's next run checks before doing anything again
 *   wait      not run at all (its precondition does not hold): no failure counted, runs when woken
 *
 * A result may carry a patch of the job, written in the same write as its schedule. A job also
 * writes ahead during its run (`update`), so after a crash its record says where it stopped.
 */

import { z } from 'zod';
import type { AtRestCodec } from './at-rest';
import { backoffDelay } from './backoff';
import type { BackoffSchedule } from './backoff';
import { createSerialQueue } from './durable-file';
import { stateFile } from './json-store';
import type { Logger } from './log';

/**
 * What the queue reads and writes in every job's record, whatever its kind: a kind's stored shape
 * extends this one (`queuedJobSchema.extend({...})`), so the bounds of these fields are the queue's.
 */
export const queuedJobSchema = z.object({
  id: z.string().max(64),
  /** ISO time: jobs run in this order. */
  createdAt: z.string().max(64),
  /** ISO time of the last write of the record. */
  updatedAt: z.string().max(64),
  /** Failures since the job last worked (or was retried by hand): the backoff step. */
  failures: z.number().int().nonnegative(),
  /** When the job runs next (epoch ms); null while it is not scheduled. */
  nextAttemptAt: z.number().nullable(),
});
export type QueuedJob = z.infer<typeof queuedJobSchema>;

type Patch<J> = Partial<J>;

export type JobResult<J> = (
  | { outcome: 'done' | 'failed' | 'wait' }
  | { outcome: 'retry' | 'verify'; /** Instead of the backoff (the server said when). */ afterMs?: number }
) & {
  /** Written with the schedule, in the same write. */
  patch?: Patch<J>;
  /** Called once the result is on disk (and reported). */
  afterSaved?(): void;
};

/** What a running job may do with its own record. */
export interface JobContext<J> {
  /** Write-ahead: changes the record, writes it, then reports it (`onChange`). */
  update(patch: Patch<J>): Promise<void>;
  /** Writes changes made to the record in place, reporting nothing. */
  save(): Promise<void>;
}

export interface JobKind<J extends QueuedJob> {
  /** What the file holds, as the analyst reads it, and what follows when it is unreadable. */
  label: string;
  consequence: string;
  /** The stored shape of one job: every job read is validated against it. */
  schema: z.ZodType<J>;
  /** A stored job in an older shape: what it becomes (null: nothing to change). */
  upgrade?(job: J): Patch<J> | null;
  /** A job stored mid-run (the app stopped): what it becomes (null: it was not running). */
  interrupted(job: J): Patch<J> | null;
  /** Whether the job never runs again. */
  finished(job: J): boolean;
  /** Whether the job may run now; one that may not waits for a wake-up (default: always). */
  ready?(job: J): boolean;
  run(job: J, context: JobContext<J>): Promise<JobResult<J>>;
}

export interface JobQueueOptions<J extends QueuedJob> {
  file: string;
  kind: JobKind<J>;
  log: Logger;
  /** Names the queue in log lines: "rfi-answers". */
  name: string;
  retry: BackoffSchedule;
  codec?: AtRestCodec;
  /** Told when the file could not be read and was moved aside (a new, empty queue starts). */
  onProblem?(message: string, file: string, movedTo: string | null): void;
  /** Told after every reported write of a job. */
  onChange?(job: J): void;
  /** Runs due jobs on a timer (default); tests drive `runDue` themselves when false. */
  autoRun?: boolean;
}

export interface JobQueue<J extends QueuedJob> {
  /** The jobs the last stop interrupted mid-run, as they were recovered on opening. */
  readonly resumed: readonly J[];
  /** Stores a new job (written before this resolves), reports it and runs what is due. */
  add(job: J): Promise<void>;
  get(id: string): J | undefined;
  /** Every job, in the order they run. */
  all(): J[];
  /** Changes a job's record, writes it, reports it. */
  update(job: J, patch: Patch<J>): Promise<void>;
  /** Runs a job again now, its failures forgotten (the analyst asked), with this patch. */
  runNow(job: J, patch: Patch<J>): Promise<void>;
  /** Removes a job (written before this resolves); callers decide whether a running one may go. */
  remove(id: string): Promise<J | undefined>;
  /** Removes every job matching, once a run of one of them under way has ended. */
  removeWhere(matches: (job: J) => boolean): Promise<J[]>;
  /** The id of the job running now. */
  running(): string | null;
  /** Runs what is due now (the jobs found on opening are), when the queue runs by itself. */
  start(): void;
  /** Every unfinished job is due now (back online, resumed); runs them. */
  wake(): void;
  /** Runs every due job once, one at a time; resolves when done. */
  runDue(): Promise<void>;
  /** Resolves when nothing runs. */
  idle(): Promise<void>;
  /** Stops the timer, lets a run under way end and the last write land. */
  dispose(): Promise<void>;
}

const longestTimeout = 2 ** 31 - 1;

/** The schedule a result gives a job (patch fields the queue owns). */
export function scheduleOf(
  result: JobResult<unknown>,
  failures: number,
  retry: BackoffSchedule,
  now: number,
): Pick<QueuedJob, 'failures' | 'nextAttemptAt'> {
  switch (result.outcome) {
    case 'done':
    case 'failed':
      return { failures, nextAttemptAt: null };
    case 'wait':
      return { failures, nextAttemptAt: now };
    case 'retry':
    case 'verify':
      return {
        failures: failures + 1,
        nextAttemptAt: now + (result.afterMs ?? backoffDelay(failures + 1, retry)),
      };
  }
}

export async function openJobQueue<J extends QueuedJob>(o: JobQueueOptions<J>): Promise<JobQueue<J>> {
  const { kind, log } = o;
  const store = stateFile(
    {
      label: kind.label,
      consequence: kind.consequence,
      version: 1,
      schema: z.object({ version: z.literal(1), entries: z.array(kind.schema) }),
    },
    {
      log,
      ...(o.codec ? { codec: o.codec } : {}),
      report: (p) => o.onProblem?.(p.message, p.file, p.movedTo),
    },
  );
  const serial = createSerialQueue();
  const jobs = new Map<string, J>();
  const autoRun = o.autoRun !== false;
  const ready = (j: J): boolean => !kind.finished(j) && (kind.ready?.(j) ?? true);

  const resumed: J[] = [];
  /** Takes a stored job in (restart recovery); answers whether the file should be written again. */
  const adopt = (j: J): boolean => {
    jobs.set(j.id, j);
    const upgraded = kind.upgrade?.(j) ?? null;
    if (upgraded) Object.assign(j, upgraded);
    // Restart recovery: the kind says what a job stopped mid-run becomes.
    const recovered = kind.interrupted(j);
    if (recovered) {
      Object.assign(j, recovered);
      resumed.push(j);
    }
    if (!kind.finished(j)) j.nextAttemptAt = Date.now();
    return upgraded !== null || recovered !== null;
  };
  const loaded = await store.read(o.file);
  // A plain file (a data key appeared) or one of an older version is written again.
  let rewrite = loaded?.stale ?? false;
  for (const j of loaded?.value.entries ?? []) rewrite = adopt(j) || rewrite;

  const persist = (): Promise<void> =>
    serial(() => store.write(o.file, { version: 1 as const, entries: [...jobs.values()] }));
  if (rewrite) await persist();

  const update = async (job: J, patch: Patch<J>): Promise<void> => {
    Object.assign(job, patch, { updatedAt: new Date().toISOString() });
    await persist();
    o.onChange?.(job);
  };

  const settle = async (job: J, result: JobResult<J>): Promise<void> => {
    const patch = { ...result.patch, ...scheduleOf(result, job.failures, o.retry, Date.now()) } as Patch<J>;
    const record = job as Record<string, unknown>;
    const changed = Object.entries(patch).some(([k, v]) => !Object.is(record[k], v));
    if (changed) await update(job, patch);
    result.afterSaved?.();
  };

  const runOne = async (job: J): Promise<void> => {
    let result: JobResult<J>;
    try {
      result = await kind.run(job, { update: (p) => update(job, p), save: persist });
    } catch (err) {
      log.error(`${o.name}: job failed unexpectedly`, { jobId: job.id, error: err });
      result = { outcome: 'retry' };
    }
    await settle(job, result);
  };

  // ---- runner ----
  let running: Promise<void> | null = null;
  let current: string | null = null;
  let again = false;
  let disposed = false;
  let timer: NodeJS.Timeout | null = null;

  const byCreation = (a: J, b: J): number => a.createdAt.localeCompare(b.createdAt);
  const due = (): J[] =>
    [...jobs.values()].filter((j) => ready(j) && (j.nextAttemptAt ?? 0) <= Date.now()).sort(byCreation);

  const schedule = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (disposed || !autoRun) return;
    // Jobs not ready wait for wake(), not for a timer.
    const next = [...jobs.values()]
      .filter(ready)
      .map((j) => j.nextAttemptAt ?? Date.now())
      .sort((a, b) => a - b)[0];
    if (next === undefined) return;
    timer = setTimeout(() => void kick(), Math.max(0, Math.min(next - Date.now(), longestTimeout)));
    timer.unref?.();
  };

  const runDue = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        for (const j of due()) {
          if (disposed) return;
          if (!jobs.has(j.id)) continue; // removed meanwhile
          current = j.id;
          try {
            await runOne(j);
          } finally {
            current = null;
          }
        }
      } while (again && !disposed);
    })().finally(() => {
      running = null;
      schedule();
    });
    return running;
  };
  const kick = (): Promise<void> =>
    runDue().catch((err: unknown) => log.error(`${o.name}: runner failed`, { error: err }));

  // The keychain answered later in the run: the file, if it waited for it, is read now and its
  // jobs join the queue (none was written over meanwhile: writes waited too).
  const offSealed = o.codec?.onSealed(async () => {
    const again = await store.read(o.file);
    const missing = (again?.value.entries ?? []).filter((j) => !jobs.has(j.id));
    for (const j of missing) adopt(j);
    if (missing.length === 0) return;
    await persist();
    for (const j of missing) o.onChange?.(j);
    if (autoRun) void kick();
  });

  return {
    resumed,
    async add(job) {
      jobs.set(job.id, job);
      try {
        await persist();
      } catch (err) {
        // Not on disk, not queued: a job the caller is told failed must never run later.
        jobs.delete(job.id);
        throw err;
      }
      o.onChange?.(job);
      if (autoRun) void kick();
    },
    get: (id) => jobs.get(id),
    all: () => [...jobs.values()].sort(byCreation),
    update,
    async runNow(job, patch) {
      await update(job, { ...patch, failures: 0, nextAttemptAt: Date.now() });
      if (autoRun) void kick();
    },
    async remove(id) {
      const job = jobs.get(id);
      if (!job) return undefined;
      jobs.delete(id);
      await persist();
      return job;
    },
    async removeWhere(matches) {
      const runningMatches = (): boolean => {
        const j = current === null ? undefined : jobs.get(current);
        return j !== undefined && matches(j);
      };
      while (runningMatches() && running) await running.catch(() => undefined);
      const gone = [...jobs.values()].filter(matches);
      for (const j of gone) jobs.delete(j.id);
      if (gone.length > 0) await persist();
      return gone;
    },
    running: () => current,
    start() {
      if (autoRun) void kick();
    },
    wake() {
      for (const j of jobs.values()) if (!kind.finished(j)) j.nextAttemptAt = Date.now();
      if (autoRun) void kick();
    },
    runDue,
    async idle() {
      while (running) await running;
    },
    async dispose() {
      disposed = true;
      offSealed?.();
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
      await serial(async () => undefined);
    },
  };
}
