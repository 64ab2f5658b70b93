/**
 * The send job of approved money content (a return's confirm, an exchange inside a mandate) on
 * this workstation: the job asked for (the same job and idempotency key when asked again), its
 * lease taken, and the outcome reported under the lease number. One helper for both money flows,
 * so they hold and finish a send job alike.
 */
import { SendJob, type ApprovalContent } from '../../shared/team/schemas';
import type { Logger } from '../infra/log';
import type { TeamHttp } from './api';

export interface SendJobLeaseDeps {
  http: TeamHttp;
  log: Logger;
  /** The signed-in analyst's subject (null: signed out). */
  me(): string | null;
  /** This workstation's name for its send leases. */
  workstation: string;
  /** Keeps the job as the team server last answered it. */
  remember(job: SendJob): void;
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
  outcome: 'sent' | 'failed' | 'ambiguous',
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
