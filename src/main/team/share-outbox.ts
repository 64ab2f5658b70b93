/**
 * The durable outbox of what the analyst shares with the team: notes and documents shared to the
 * team's evidence locker. Each is sent at once; when the team server cannot be reached it waits
 * here (the generic job queue, `<dataDir>/team/share-outbox.json`, sealed at rest) and shows as
 * pending until the server took it. Each carries the id the workstation gave it (a UUID), so a
 * retry after a lost answer lands once; each is sent only in the name of the analyst who made it.
 * What the server refuses is dropped with a notice, never retried.
 */
import { z } from 'zod';
import type { AtRestCodec } from '../infra/at-rest';
import { openJobQueue, queuedJobSchema } from '../infra/job-queue';
import type { JobKind, JobQueue, QueuedJob } from '../infra/job-queue';
import type { Logger } from '../infra/log';
import { TeamApiError, TeamNotSignedIn, TeamUnreachable } from './api';

export interface NoteJob extends QueuedJob {
  what: 'note';
  legalEntityId: string;
  objectKind: 'rfi' | 'return' | 'exchange';
  objectId: string;
  text: string;
  subject: string;
}

export interface ShareJob extends QueuedJob {
  what: 'share';
  legalEntityId: string;
  /** The local locker document shared (its bytes are read again when the share is sent). */
  lockerId: string;
  sha256: string;
  fileName: string;
  documentType: string;
  holderKind: 'person' | 'company';
  holderName: string;
  issuedOn: string | null;
  expiresOn: string | null;
  sizeBytes: number;
  subject: string;
}

export type ShareOutboxJob = NoteJob | ShareJob;

const base = queuedJobSchema.extend({
  legalEntityId: z.string().max(128),
  subject: z.string().max(255),
});
const jobSchema = z.discriminatedUnion('what', [
  base.extend({
    what: z.literal('note'),
    objectKind: z.enum(['rfi', 'return', 'exchange']),
    objectId: z.string().max(128),
    text: z.string().max(10_000),
  }),
  base.extend({
    what: z.literal('share'),
    lockerId: z.string().max(64),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    fileName: z.string().max(255),
    documentType: z.string().max(64),
    holderKind: z.enum(['person', 'company']),
    holderName: z.string().max(200),
    issuedOn: z.string().max(10).nullable(),
    expiresOn: z.string().max(10).nullable(),
    sizeBytes: z.number().int().nonnegative(),
  }),
]) as z.ZodType<ShareOutboxJob>;

export interface ShareOutboxDeps {
  file: string;
  log: Logger;
  codec?: AtRestCodec;
  onProblem?(message: string, file: string, movedTo: string | null): void;
  /** The signed-in analyst (null: signed out): a job waits for the analyst who made it. */
  me(): string | null;
  /** Sends one job; throws `TeamUnreachable` (retry), `TeamNotSignedIn` (wait) or `TeamApiError`. */
  send(job: ShareOutboxJob): Promise<void>;
  /** Something the analyst should read: a queued note or share the server refused. */
  notice(job: ShareOutboxJob, message: string): void;
  /** A job was added, went through or was refused. */
  onChange(job: ShareOutboxJob): void;
  retry?: { baseMs: number; maxMs: number };
  autoRun?: boolean;
}

export interface ShareOutbox {
  /** Sends now; queues when the team server cannot be reached. Answers whether it is pending. */
  submit(job: ShareOutboxJob): Promise<{ pending: boolean }>;
  /** The analyst's jobs still waiting. */
  pending(): ShareOutboxJob[];
  wake(): void;
  queue: JobQueue<ShareOutboxJob>;
  dispose(): Promise<void>;
}

export async function openShareOutbox(deps: ShareOutboxDeps): Promise<ShareOutbox> {
  const settled = async (job: ShareOutboxJob): Promise<void> => {
    await queue.remove(job.id);
    deps.onChange(job);
  };
  const kind: JobKind<ShareOutboxJob> = {
    label: 'Notes and shared documents waiting for the team server',
    consequence:
      'Notes written and documents shared while the team server was away were lost; write or share them again.',
    schema: jobSchema,
    interrupted: () => null,
    finished: () => false,
    ready: (j) => deps.me() === j.subject,
    async run(job) {
      try {
        await deps.send(job);
        return { outcome: 'done', afterSaved: () => void settled(job) };
      } catch (err) {
        if (err instanceof TeamUnreachable) return { outcome: 'retry' };
        if (err instanceof TeamNotSignedIn) return { outcome: 'wait' };
        if (err instanceof TeamApiError) {
          deps.notice(job, err.message);
          return { outcome: 'failed', afterSaved: () => void settled(job) };
        }
        throw err;
      }
    },
  };
  const queue = await openJobQueue<ShareOutboxJob>({
    file: deps.file,
    kind,
    log: deps.log,
    name: 'team-share-outbox',
    retry: deps.retry ?? { baseMs: 2_000, maxMs: 60_000 },
    ...(deps.codec ? { codec: deps.codec } : {}),
    ...(deps.onProblem ? { onProblem: deps.onProblem } : {}),
    ...(deps.autoRun === false ? { autoRun: false } : {}),
  });
  return {
    queue,
    async submit(job) {
      try {
        await deps.send(job);
        return { pending: false };
      } catch (err) {
        if (!(err instanceof TeamUnreachable)) throw err;
        await queue.add({ ...job, failures: 1, nextAttemptAt: Date.now() + 2_000 });
        deps.onChange(job);
        return { pending: true };
      }
    },
    pending: () => queue.all().filter((j) => j.subject === deps.me()),
    wake: () => queue.wake(),
    dispose: () => queue.dispose(),
  };
}
