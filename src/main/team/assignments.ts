/**
 * RFI assignment on the workstation: who holds each RFI of the analyst's legal entities (loaded
 * when the team connects, kept current by the change feed) and the analyst's claims, releases and
 * reassignments. A change is sent at once; when the team server cannot be reached it is queued
 * in a durable outbox (the generic job queue, `<dataDir>/team/outbox.json`, sealed at rest) and
 * shows as pending until the server accepts it. The server's answer decides: a claim it refuses
 * because someone else holds the RFI (`409 held_by_other`) is dropped with a notice naming the
 * holder; nothing is retried that the server refused.
 */
import { z } from 'zod';
import { MembersPage } from '../../shared/team/config';
import { Assignment, type Change } from '../../shared/team/schemas';
import type { AtRestCodec } from '../infra/at-rest';
import { openJobQueue, queuedJobSchema } from '../infra/job-queue';
import type { JobKind, JobQueue, QueuedJob } from '../infra/job-queue';
import type { Logger } from '../infra/log';
import { TeamApiError, TeamNotSignedIn, TeamUnreachable, type TeamHttp } from './api';

export type TeamAction = 'claim' | 'release' | 'reassign';

export interface TeamChangeJob extends QueuedJob {
  action: TeamAction;
  legalEntityId: string;
  rfiId: string;
  /** Reassign: the holder the analyst saw, and the new holder. */
  from: string | null;
  to: string | null;
  /** Who queued it (a change queued by one analyst is never sent in another's name). */
  subject: string;
  state: 'pending' | 'done' | 'refused';
}

const jobSchema = queuedJobSchema.extend({
  action: z.enum(['claim', 'release', 'reassign']),
  legalEntityId: z.string().max(128),
  rfiId: z.string().max(128),
  from: z.string().max(255).nullable(),
  to: z.string().max(255).nullable(),
  subject: z.string().max(255),
  state: z.enum(['pending', 'done', 'refused']),
}) as z.ZodType<TeamChangeJob>;

export interface HolderView {
  subject: string;
  name: string;
  isYou: boolean;
}

export interface AssignmentView {
  legalEntityId: string;
  rfiId: string;
  holder: HolderView | null;
  /** A change of the analyst's waiting for the team server. */
  pending: TeamAction | null;
  pendingTo: HolderView | null;
}

export interface AssignmentsDeps {
  http: TeamHttp;
  log: Logger;
  file: string;
  codec?: AtRestCodec;
  onProblem?(message: string, file: string, movedTo: string | null): void;
  /** The signed-in analyst's subject (null: signed out). */
  me(): string | null;
  /** Something the analyst should read (a queued claim the server refused). */
  notice(message: string): void;
  /** The views changed (a change arrived, a queued change went through or was refused). */
  onChange(legalEntityId: string): void;
  retry?: { baseMs: number; maxMs: number };
  autoRun?: boolean;
}

/** What a change the server refused means, in words. */
export function refusalMessage(action: TeamAction, holderName: string | null, err: TeamApiError): string {
  if (err.code === 'held_by_other')
    return holderName
      ? `${holderName} holds this RFI${action === 'claim' ? '; your claim was not made' : ''}.`
      : 'Someone else holds this RFI now.';
  if (err.code === 'forbidden') return 'Your role in this legal entity does not allow this.';
  if (err.code === 'not_found') return 'This legal entity is not part of your team.';
  return err.message;
}

export interface AssignmentsBook {
  /** Loads the holders and names of these entities (after sign-in or reconnecting). */
  load(legalEntityIds: readonly string[]): Promise<void>;
  /** A change from the feed. */
  apply(change: Change): void;
  views(legalEntityId?: string): AssignmentView[];
  view(legalEntityId: string, rfiId: string): AssignmentView;
  nameOf(legalEntityId: string, subject: string): string;
  /** Sends now; queues when the team server is away. Throws `TeamApiError` when the server refused. */
  change(
    action: TeamAction,
    legalEntityId: string,
    rfiId: string,
    reassign?: { from: string | null; to: string },
  ): Promise<AssignmentView>;
  pendingCount(): number;
  /** Runs the queued changes now (back online, signed in). */
  wake(): void;
  queue: JobQueue<TeamChangeJob>;
  /** Forgets everything held in memory (sign-out). Queued changes stay for their analyst. */
  clear(): void;
  dispose(): Promise<void>;
}

export async function openAssignments(deps: AssignmentsDeps): Promise<AssignmentsBook> {
  const holders = new Map<string, Map<string, Assignment>>();
  const names = new Map<string, Map<string, string>>();

  const remember = (a: Assignment): void => {
    const m = holders.get(a.legalEntityId) ?? new Map<string, Assignment>();
    const known = m.get(a.rfiId);
    if (!known || known.version <= a.version) m.set(a.rfiId, a);
    holders.set(a.legalEntityId, m);
  };

  const post = async (
    job: Pick<TeamChangeJob, 'action' | 'legalEntityId' | 'rfiId' | 'from' | 'to'>,
  ): Promise<Assignment> => {
    const path = `/v1/entities/${encodeURIComponent(job.legalEntityId)}/rfis/${encodeURIComponent(job.rfiId)}/${job.action}`;
    const body = job.action === 'reassign' ? { from: job.from, to: job.to } : {};
    const a = await deps.http.call('POST', path, Assignment, body);
    remember(a);
    return a;
  };

  const kind: JobKind<TeamChangeJob> = {
    label: 'Team changes waiting for the team server',
    consequence: 'Claims and releases made while the team server was away were lost; make them again.',
    schema: jobSchema,
    interrupted: () => null,
    finished: (j) => j.state !== 'pending',
    ready: (j) => deps.me() === j.subject,
    async run(job) {
      try {
        await post(job);
        return { outcome: 'done', patch: { state: 'done' }, afterSaved: () => void settled(job) };
      } catch (err) {
        if (err instanceof TeamUnreachable) return { outcome: 'retry' };
        if (err instanceof TeamNotSignedIn) return { outcome: 'wait' };
        if (err instanceof TeamApiError) {
          const holder = err.holder ? book.nameOf(job.legalEntityId, err.holder) : null;
          deps.notice(refusalMessage(job.action, holder, err));
          if (err.code === 'held_by_other' && err.holder)
            void book.load([job.legalEntityId]).catch(() => undefined);
          return { outcome: 'failed', patch: { state: 'refused' }, afterSaved: () => void settled(job) };
        }
        throw err;
      }
    },
  };

  const settled = async (job: TeamChangeJob): Promise<void> => {
    await queue.remove(job.id);
    deps.onChange(job.legalEntityId);
  };

  const queue = await openJobQueue<TeamChangeJob>({
    file: deps.file,
    kind,
    log: deps.log,
    name: 'team-outbox',
    retry: deps.retry ?? { baseMs: 2_000, maxMs: 60_000 },
    ...(deps.codec ? { codec: deps.codec } : {}),
    ...(deps.onProblem ? { onProblem: deps.onProblem } : {}),
    ...(deps.autoRun === false ? { autoRun: false } : {}),
  });

  const holderView = (legalEntityId: string, subject: string | null): HolderView | null =>
    subject ? { subject, name: book.nameOf(legalEntityId, subject), isYou: subject === deps.me() } : null;

  const pendingOf = (legalEntityId: string, rfiId: string): TeamChangeJob | undefined =>
    queue
      .all()
      .filter(
        (j) =>
          j.state === 'pending' &&
          j.legalEntityId === legalEntityId &&
          j.rfiId === rfiId &&
          j.subject === deps.me(),
      )
      .at(-1);

  const book: AssignmentsBook = {
    queue,
    async load(legalEntityIds) {
      await Promise.all(
        legalEntityIds.map(async (id) => {
          const base = `/v1/entities/${encodeURIComponent(id)}`;
          const [list, members] = await Promise.all([
            deps.http.call('GET', `${base}/assignments`, z.object({ assignments: z.array(Assignment) })),
            deps.http.call('GET', `${base}/members`, MembersPage),
          ]);
          holders.set(id, new Map(list.assignments.map((a) => [a.rfiId, a])));
          names.set(id, new Map(members.members.map((m) => [m.subject, m.name ?? m.subject])));
          deps.onChange(id);
        }),
      );
    },
    apply(change) {
      if (change.topic === 'assignment') {
        const a = Assignment.safeParse(change.data);
        if (a.success) {
          remember(a.data);
          deps.onChange(change.legalEntityId);
        }
      } else if (change.topic === 'member') {
        // A new member or new roles: names are read again when next needed.
        void book.load([change.legalEntityId]).catch(() => undefined);
      }
    },
    nameOf(legalEntityId, subject) {
      return names.get(legalEntityId)?.get(subject) ?? subject;
    },
    view(legalEntityId, rfiId) {
      const a = holders.get(legalEntityId)?.get(rfiId);
      const p = pendingOf(legalEntityId, rfiId);
      return {
        legalEntityId,
        rfiId,
        holder: holderView(legalEntityId, a?.holder ?? null),
        pending: p?.action ?? null,
        pendingTo: p ? holderView(legalEntityId, p.action === 'claim' ? p.subject : p.to) : null,
      };
    },
    views(legalEntityId) {
      const keys = new Set<string>();
      for (const [le, m] of holders)
        if (!legalEntityId || le === legalEntityId) for (const r of m.keys()) keys.add(`${le}\n${r}`);
      for (const j of queue.all())
        if (
          j.state === 'pending' &&
          j.subject === deps.me() &&
          (!legalEntityId || j.legalEntityId === legalEntityId)
        )
          keys.add(`${j.legalEntityId}\n${j.rfiId}`);
      return [...keys].sort().map((k) => {
        const [le = '', rfi = ''] = k.split('\n');
        return book.view(le, rfi);
      });
    },
    async change(action, legalEntityId, rfiId, reassign) {
      const subject = deps.me();
      if (!subject) throw new TeamNotSignedIn();
      // A newer decision on the same RFI replaces one still waiting.
      await queue.removeWhere(
        (j) =>
          j.state === 'pending' &&
          j.legalEntityId === legalEntityId &&
          j.rfiId === rfiId &&
          j.subject === subject,
      );
      const job = {
        action,
        legalEntityId,
        rfiId,
        from: reassign?.from ?? null,
        to: reassign?.to ?? null,
      };
      try {
        await post(job);
      } catch (err) {
        if (!(err instanceof TeamUnreachable)) throw err;
        const now = new Date().toISOString();
        await queue.add({
          ...job,
          id: `tc_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 10)}`,
          createdAt: now,
          updatedAt: now,
          failures: 1,
          nextAttemptAt: Date.now() + 2_000,
          subject,
          state: 'pending',
        });
      }
      deps.onChange(legalEntityId);
      return book.view(legalEntityId, rfiId);
    },
    pendingCount: () => queue.all().filter((j) => j.state === 'pending' && j.subject === deps.me()).length,
    wake: () => queue.wake(),
    clear() {
      holders.clear();
      names.clear();
    },
    dispose: () => queue.dispose(),
  };
  return book;
}
