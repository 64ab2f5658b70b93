/**
 * A money send's bank write under its lease (`sendUnderLease`), with the real lease keeper and a
 * scripted team server: a lease taken over or not confirmable stops the write before the bank is
 * called and reports nothing (nothing was written); a write that ran reports sent, failed (refused
 * before sending) or ambiguous under its lease number; the lease is let go in every case.
 */
import { describe, expect, it } from 'vitest';
import { AppFailure } from '../../src/shared/ipc/errors';
import type { SendJob } from '../../src/shared/team/schemas';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { TeamApiError, TeamUnreachable, type TeamHttp } from '../../src/main/team/api';
import { sendUnderLease, type SendJobLeaseDeps } from '../../src/main/team/send-job-lease';
import { createLeaseKeeper } from '../../src/main/team/send-lease';
import { SEND_TAKEN_OVER } from '../../src/main/rfi-answers/answer-state';

const job = (expiresInMs: number): SendJob => ({
  id: 'job-1',
  legalEntityId: 'le-1',
  object: { kind: 'return', id: 'tx-1' },
  contentHash: 'a'.repeat(64),
  idempotencyKey: 'key-1',
  status: 'leased',
  leaseNumber: 3,
  leasedBy: 'jonas.weber',
  leaseExpiresAt: new Date(Date.now() + expiresInMs).toISOString(),
  verifyFirst: false,
  bankReference: null,
  detail: null,
  createdBy: 'maria.keller',
});

/** A team server that answers `complete` as asked and `renew` as the scenario says. */
function scenario(renew: () => Promise<SendJob>) {
  const log = createLogger(memorySink());
  const completed: unknown[] = [];
  const http = {
    call: (_method: string, path: string, _schema: unknown, body?: unknown) => {
      completed.push({ path, body });
      return Promise.resolve({ ...job(60_000), status: 'done' });
    },
  } as unknown as TeamHttp;
  const leases = createLeaseKeeper({ renew, log, timing: { minMs: 50 } });
  const deps: SendJobLeaseDeps = {
    http,
    log,
    me: () => 'jonas.weber',
    workstation: 'jonas-laptop',
    remember: () => undefined,
    leases,
  };
  const writes: string[] = [];
  const send = (write: () => Promise<string>, refusedBefore = false, leased = job(60_000)) =>
    sendUnderLease(deps, leased, {
      what: 'a return confirm',
      write: async () => {
        writes.push('write');
        return write();
      },
      reference: (r) => r,
      attempted: 'tx-1',
      refusedBefore: () => refusedBefore,
    });
  return { deps, leases, completed, writes, send };
}

describe('a money send under its lease', () => {
  it('stops before the bank when another workstation took the job over, and reports nothing', async () => {
    const s = scenario(() =>
      Promise.reject(
        new TeamApiError(409, 'stale_lease', 'lease 3 is no longer held (the job is leased, lease 4)'),
      ),
    );
    // The lease ran out here before the write: the keeper renews it first, and is refused.
    const expired = job(-1_000);
    const sending = s.send(() => Promise.resolve('tx-1'), false, expired);
    await expect(sending).rejects.toMatchObject({
      kind: 'conflict',
      reason: SEND_TAKEN_OVER,
      message: expect.stringMatching(/^Another workstation took over this send \(lease 3 is no longer held/),
    });
    expect(s.writes).toEqual([]);
    expect(s.completed).toEqual([]);
    expect(s.leases.held().has(expired.id)).toBe(false);
  });

  it('stops before the bank when the team server cannot confirm the lease, and reports nothing', async () => {
    const s = scenario(() => Promise.reject(new TeamUnreachable('connect ECONNREFUSED')));
    const expired = job(-1_000);
    const sending = s.send(() => Promise.resolve('tx-1'), false, expired);
    await expect(sending).rejects.toMatchObject({ kind: 'offline' });
    expect(s.writes).toEqual([]);
    expect(s.completed).toEqual([]);
    expect(s.leases.held().has(expired.id)).toBe(false);
  });

  it('reports a write that ran under its lease number: sent, refused before anything changed (queued again as it was), or not known (naming what was being written)', async () => {
    const s = scenario(() => Promise.resolve(job(60_000)));
    await expect(s.send(() => Promise.resolve('tx-1'))).resolves.toBe('tx-1');
    const refused = new AppFailure({ kind: 'precondition', message: 'the quote expired' });
    await expect(s.send(() => Promise.reject(refused), true)).rejects.toBe(refused);
    const lost = new Error('socket hang up');
    await expect(s.send(() => Promise.reject(lost))).rejects.toBe(lost);
    expect(s.writes).toHaveLength(3);
    expect(s.completed).toEqual([
      {
        path: '/v1/send-jobs/job-1/complete',
        body: { leaseNumber: 3, outcome: 'sent', bankReference: 'tx-1' },
      },
      { path: '/v1/send-jobs/job-1/complete', body: { leaseNumber: 3, outcome: 'unsent' } },
      {
        path: '/v1/send-jobs/job-1/complete',
        body: { leaseNumber: 3, outcome: 'ambiguous', bankReference: 'tx-1' },
      },
    ]);
    expect(s.leases.held().size).toBe(0);
  });
});
