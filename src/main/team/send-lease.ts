/**
 * Keeping a send job's lease while its send is under way. A send can outlive one lease (large
 * documents, a slow bank): from the moment this workstation holds a lease until the send ends,
 * the lease is renewed at a third of its time, so no other workstation takes the job over while
 * it is still being sent. Before each bank write the holder checks the lease: a renewal the team
 * server refused (another workstation took the job over) stops the send there, and the answer
 * re-reads the bank instead of writing; a lease that ran out while the team server could not be
 * reached is renewed first (sending needs the team server as much as the bank).
 *
 * Lease expiries are read on this workstation's clock, as the rest of the team code reads them.
 */
import { AppFailure } from '../../shared/ipc/errors';
import type { SendJob } from '../../shared/team/schemas';
import type { Logger } from '../infra/log';
import { SEND_TAKEN_OVER } from '../rfi-answers/answer-state';
import { TeamApiError } from './api';

/** An answer's send job as the outbox carries it. */
export interface SendJobRef {
  id: string;
  leaseNumber: number;
  legalEntityId: string;
  objectId: string;
  rfiId: string;
}

/**
 * How a send ended: sent; failed or in conflict (the job ends, with the reason in words); or not
 * known (the job is queued again, and its next holder verifies at the bank first).
 */
export type SendOutcome =
  | { sent: true; responseId: string }
  | { sent: false; ended?: { outcome: 'failed' | 'conflict'; reason: string } };

/** A lease this workstation took. */
export interface HeldLease {
  id: string;
  leaseNumber: number;
  /** When it runs out (ISO), as the team server answered; null: not known here (renewed first). */
  leaseExpiresAt: string | null;
}

export interface LeaseKeeperDeps {
  renew(job: { id: string; leaseNumber: number }): Promise<SendJob>;
  log: Logger;
  /** Bounds of the wait between renewals (default 250 ms … 20 s). */
  timing?: { minMs?: number; maxMs?: number };
}

export interface LeaseKeeper {
  /** Starts renewing this lease (again: a newer lease number replaces the older). */
  hold(lease: HeldLease): void;
  /**
   * Resolves while the lease is held (renewing it first when it ran out or is not known here);
   * throws `SEND_TAKEN_OVER` when another workstation holds it now, and a retryable failure when
   * the team server cannot confirm it.
   */
  check(lease: { id: string; leaseNumber: number }): Promise<void>;
  /** The send ended (sent, failed, in conflict, or stopped): no more renewals. */
  release(jobId: string): void;
  /** Leases being renewed now (job id → lease number), for diagnostics and tests. */
  held(): Map<string, number>;
  dispose(): void;
}

interface Holding {
  leaseNumber: number;
  expiresAt: number;
  /** Why the lease is not held any more (the team server refused a renewal), in words. */
  lost: string | null;
  timer: ReturnType<typeof setTimeout> | null;
  renewing: Promise<void> | null;
}

export function createLeaseKeeper(deps: LeaseKeeperDeps): LeaseKeeper {
  const minMs = deps.timing?.minMs ?? 250;
  const maxMs = deps.timing?.maxMs ?? 20_000;
  const holdings = new Map<string, Holding>();
  let disposed = false;

  const takenOver = (why: string): AppFailure =>
    new AppFailure({
      kind: 'conflict',
      reason: SEND_TAKEN_OVER,
      message: `Another workstation took over this send (${why}); it is not sent from here.`,
    });

  const schedule = (jobId: string, h: Holding): void => {
    if (h.timer) clearTimeout(h.timer);
    h.timer = null;
    if (disposed || h.lost || holdings.get(jobId) !== h) return;
    const left = h.expiresAt - Date.now();
    const wait = Math.min(maxMs, Math.max(minMs, Math.floor(left / 3)));
    h.timer = setTimeout(() => void renew(jobId, h), wait);
    h.timer.unref?.();
  };

  const renew = (jobId: string, h: Holding): Promise<void> => {
    h.renewing ??= (async () => {
      try {
        const job = await deps.renew({ id: jobId, leaseNumber: h.leaseNumber });
        if (job.leaseExpiresAt) h.expiresAt = Date.parse(job.leaseExpiresAt);
      } catch (err) {
        if (err instanceof TeamApiError) {
          // Refused: the lease number is no longer ours (taken over, or the job ended).
          h.lost = err.message;
          deps.log.warn('team: a send lease was not renewed; the send stops here', {
            jobId,
            leaseNumber: h.leaseNumber,
            error: err,
          });
        } else {
          // The team server is away: tried again soon; the lease holds until it runs out.
          deps.log.info('team: renewing a send lease failed; trying again', { jobId, error: err });
        }
      } finally {
        h.renewing = null;
        schedule(jobId, h);
      }
    })();
    return h.renewing;
  };

  const keeper: LeaseKeeper = {
    hold(lease) {
      const old = holdings.get(lease.id);
      if (old && old.leaseNumber >= lease.leaseNumber && !old.lost) return;
      if (old?.timer) clearTimeout(old.timer);
      const h: Holding = {
        leaseNumber: lease.leaseNumber,
        expiresAt: lease.leaseExpiresAt ? Date.parse(lease.leaseExpiresAt) : 0,
        lost: null,
        timer: null,
        renewing: null,
      };
      holdings.set(lease.id, h);
      if (h.expiresAt <= Date.now()) void renew(lease.id, h);
      else schedule(lease.id, h);
    },
    async check(lease) {
      let h = holdings.get(lease.id);
      if (!h || h.leaseNumber !== lease.leaseNumber) {
        // Not held here yet (an answer resumed after a restart): its lease is renewed first.
        if (h && h.leaseNumber > lease.leaseNumber) throw takenOver('a newer lease is held here');
        keeper.hold({ ...lease, leaseExpiresAt: null });
        h = holdings.get(lease.id) as Holding;
      }
      if (h.renewing) await h.renewing;
      // Close to running out (the last renewals did not get through): renewed before writing.
      if (!h.lost && h.expiresAt - Date.now() < minMs) await renew(lease.id, h);
      if (h.lost) throw takenOver(h.lost);
      if (h.expiresAt - Date.now() < minMs)
        throw new AppFailure({
          kind: 'offline',
          message:
            'The team server could not confirm that this workstation still holds the send; it is tried again.',
        });
    },
    release(jobId) {
      const h = holdings.get(jobId);
      if (h?.timer) clearTimeout(h.timer);
      holdings.delete(jobId);
    },
    held: () => new Map([...holdings].filter(([, h]) => !h.lost).map(([id, h]) => [id, h.leaseNumber])),
    dispose() {
      disposed = true;
      for (const h of holdings.values()) if (h.timer) clearTimeout(h.timer);
      holdings.clear();
    },
  };
  return keeper;
}
