/**
 * The send job of approved money content (a return's confirm, an exchange inside a mandate) on
 * this workstation: the job asked for (the same job and idempotency key when asked again), its
 * lease taken, kept while the bank write is under way, and the outcome reported under the lease
 * number. One helper for both money flows, so they hold and finish a send job alike.
 */
import { SendJob, type ApprovalContent } from '../../shared/team/schemas';
import type { Logger } from '../infra/log';
import type { TeamHttp } from './api';
import type { LeaseKeeper } from './send-lease';

export interface SendJobLeaseDeps {
  http: TeamHttp;
  log: Logger;
  /** The signed-in analyst's subject (null: signed out). */
  me(): string | null;
  /** This workstation's name for its send leases. */
  workstation: string;
  /** Keeps the job as the team server last answered it. */
  remember(job: SendJob): void;
  /** The workstation's send leases, renewed while their sends are under way (shared with answers). */
  leases: Pick<LeaseKeeper, 'hold' | 'check' | 'release'>;
}

const jobPath = (job: { id: string }): string => `/v1/send-jobs/${encodeURIComponent(job.id)}`;

/**
 * The object's send job, leased to this workstation unless it is finished. `keepOwnLease`: a live
 * lease this analyst holds already is kept (a confirm asked again after an unknown outcome), else
 * the lease is asked for again and the server decides.
 */
export async function leaseSendJob(
  deps: SendJobLeaseDeps,
  target: { legalEntityId: string; objectId: string; content: ApprovalContent },
  keepOwnLease: boolean,
): Promise<SendJob> {
  let job = await deps.http.call('POST', '/v1/send-jobs', SendJob, target);
  deps.remember(job);
  if (job.status === 'done' || job.status === 'failed') return job;
  const heldByMe =
    job.status === 'leased' &&
    job.leasedBy === deps.me() &&
    job.leaseExpiresAt !== null &&
    Date.parse(job.leaseExpiresAt) > Date.now();
  if (!(keepOwnLease && heldByMe))
    job = await deps.http.call('POST', `${jobPath(job)}/lease`, SendJob, { workstation: deps.workstation });
  deps.remember(job);
  return job;
}

/**
 * Reports a leased send's outcome under its lease number. A report that does not land is only
 * logged: the bank holds what it holds, and a lease taken over meanwhile re-reads the bank first.
 */
export async function completeSendJob(
  deps: SendJobLeaseDeps,
  job: SendJob,
  outcome: 'sent' | 'failed' | 'ambiguous' | 'unsent',
  bankReference: string | undefined,
  what: string,
): Promise<void> {
  try {
    deps.remember(
      await deps.http.call('POST', `${jobPath(job)}/complete`, SendJob, {
        leaseNumber: job.leaseNumber,
        outcome,
        ...(bankReference ? { bankReference } : {}),
      }),
    );
  } catch (err) {
    deps.log.warn(`team: reporting ${what} failed`, { error: err });
  }
}

/** One bank write of a leased send job, and how its outcome reads. */
export interface LeasedWrite<T> {
  /** What is sent, for the log ("a return confirm"). */
  what: string;
  /** The bank write itself. */
  write(): Promise<T>;
  /** The bank's reference for what was written (reported with the job). */
  reference(result: T): string | undefined;
  /**
   * What is being written as the bank names it (the quote's transaction), reported with an unknown
   * outcome so that the next holder reads exactly that at the bank before writing anything.
   */
  attempted?: string;
  /**
   * Whether a failed write was refused before anything changed at the bank (a guard, the bank's
   * refusal): the job is queued again as it was, so what was approved stays usable. Any other
   * failure is an unknown outcome: queued again, and its next holder reads the bank first.
   */
  refusedBefore(err: unknown): boolean;
}

/**
 * The bank write of a leased send job, under its lease: the lease is kept from here until the
 * outcome is reported (renewed while a slow bank holds the write, so no other workstation takes
 * the job over meanwhile), and checked right before the write. A lease lost (another workstation
 * took the job over) or one the team server cannot confirm stops the send before the bank is
 * called: nothing was written, so nothing is reported (a job taken over is its new holder's to
 * report; a lease not confirmed runs out and its next holder reads the bank first), and the
 * keeper's words reach the analyst.
 */
export async function sendUnderLease<T>(
  deps: SendJobLeaseDeps,
  job: SendJob,
  send: LeasedWrite<T>,
): Promise<T> {
  const lease = { id: job.id, leaseNumber: job.leaseNumber };
  deps.leases.hold({ ...lease, leaseExpiresAt: job.leaseExpiresAt });
  try {
    await deps.leases.check(lease);
    let result: T;
    try {
      result = await send.write();
    } catch (err) {
      const unsent = send.refusedBefore(err);
      await completeSendJob(
        deps,
        job,
        unsent ? 'unsent' : 'ambiguous',
        unsent ? undefined : send.attempted,
        send.what,
      );
      throw err;
    }
    await completeSendJob(deps, job, 'sent', send.reference(result), send.what);
    return result;
  } finally {
    deps.leases.release(job.id);
  }
}
