import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SendJob } from '../../src/shared/team/schemas';
import { ALDER, startTeamStack, type TeamStack } from './support';

/** Exactly one send: one job per object, one lease holder at a time, results fenced by lease number. */
let stack: TeamStack;
beforeAll(async () => {
  stack = await startTeamStack();
});
afterAll(async () => stack?.close());

const ret = (transactionId: string) => ({
  kind: 'return' as const,
  transactionId,
  amount: '5000',
  currency: 'USD',
  reason: 'duplicate',
});

async function queue(objectId: string): Promise<SendJob> {
  const res = await stack
    .as('maria.keller')
    .post<SendJob>('/v1/send-jobs', { legalEntityId: ALDER, objectId, content: ret(objectId) });
  expect(res.status).toBe(201);
  return res.body;
}

describe('send jobs', () => {
  it('one job per object with one idempotency key, however often it is queued', async () => {
    const job = await queue('tx_once');
    const again = await stack
      .as('jonas.weber')
      .post<SendJob>('/v1/send-jobs', { legalEntityId: ALDER, objectId: 'tx_once', content: ret('tx_once') });
    expect(again.status).toBe(200);
    expect(again.body.idempotencyKey).toBe(job.idempotencyKey);
    const other = await stack.as('jonas.weber').post('/v1/send-jobs', {
      legalEntityId: ALDER,
      objectId: 'tx_once',
      content: { ...ret('tx_once'), amount: '5001' },
    });
    expect(other.body).toMatchObject({ error: { code: 'content_changed' } });
    const rows = await stack.sql.query('SELECT idempotency_key FROM send_jobs WHERE object_id = $1', [
      'tx_once',
    ]);
    expect(rows.rows).toEqual([{ idempotency_key: job.idempotencyKey }]);
  });

  it('two workstations leasing the same job at once: exactly one holds the lease', async () => {
    const job = await queue('tx_race');
    const [a, b] = await Promise.all([
      stack.as('maria.keller').post<SendJob>(`/v1/send-jobs/${job.id}/lease`, { workstation: 'ws-maria' }),
      stack.as('jonas.weber').post<SendJob>(`/v1/send-jobs/${job.id}/lease`, { workstation: 'ws-jonas' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const winner = a.status === 200 ? a.body : b.body;
    expect(winner).toMatchObject({ status: 'leased', leaseNumber: 1, verifyFirst: false });
    const row = await stack.sql.query('SELECT status, lease_number, leased_by FROM send_jobs WHERE id = $1', [
      job.id,
    ]);
    expect(row.rows).toEqual([{ status: 'leased', lease_number: 1, leased_by: winner.leasedBy }]);
    // Every analyst of the entity lists the jobs not finished, to pick one they can send.
    const open = await stack.as('lea.fischer').get<{ jobs: SendJob[] }>(`/v1/entities/${ALDER}/send-jobs`);
    expect(open.status).toBe(200);
    expect(open.body.jobs.find((j) => j.id === job.id)).toMatchObject({ status: 'leased', leaseNumber: 1 });
  });

  it('many workers taking the next job each get a different one', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 4; i += 1) ids.add((await queue(`tx_pool_${i}`)).id);
    const workers = ['maria.keller', 'jonas.weber'] as const;
    const leases = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        stack
          .as(workers[i % 2]!)
          .post<{ job: SendJob | null }>('/v1/send-jobs/lease', { workstation: `ws-${i}` }),
      ),
    );
    const got = leases
      .map((l) => l.body.job?.id)
      .filter((id): id is string => id !== undefined && ids.has(id));
    expect(new Set(got).size).toBe(got.length);
    expect(got.length).toBe(4);
  });

  it('a stale lease number cannot record a result; an expired lease is leased again with verify-first', async () => {
    const job = await queue('tx_expire');
    const first = await stack
      .as('maria.keller')
      .post<SendJob>(`/v1/send-jobs/${job.id}/lease`, { workstation: 'ws-maria' });
    expect(first.body.leaseNumber).toBe(1);
    // While the lease runs, nobody else takes it.
    expect(
      (await stack.as('jonas.weber').post(`/v1/send-jobs/${job.id}/lease`, { workstation: 'ws-jonas' }))
        .status,
    ).toBe(409);
    // Maria's workstation goes quiet past the lease's end (time moved on in the database).
    await stack.sql.query(
      "UPDATE send_jobs SET lease_expires_at = now() - interval '1 second' WHERE id = $1",
      [job.id],
    );
    const second = await stack
      .as('jonas.weber')
      .post<SendJob>(`/v1/send-jobs/${job.id}/lease`, { workstation: 'ws-jonas' });
    expect(second.body).toMatchObject({ leaseNumber: 2, leasedBy: 'jonas.weber', verifyFirst: true });
    // Maria comes back and records her result under lease 1: refused.
    const stale = await stack.as('maria.keller').post(`/v1/send-jobs/${job.id}/complete`, {
      leaseNumber: 1,
      outcome: 'sent',
      bankReference: 'resp_maria',
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ error: { code: 'stale_lease' } });
    // Jonas cannot use a lease number he does not hold either, then records under his own.
    expect(
      (
        await stack
          .as('jonas.weber')
          .post(`/v1/send-jobs/${job.id}/complete`, { leaseNumber: 1, outcome: 'sent' })
      ).status,
    ).toBe(409);
    const done = await stack.as('jonas.weber').post<SendJob>(`/v1/send-jobs/${job.id}/complete`, {
      leaseNumber: 2,
      outcome: 'sent',
      bankReference: 'resp_jonas',
    });
    expect(done.body).toMatchObject({ status: 'done', bankReference: 'resp_jonas' });
    const row = await stack.sql.query(
      'SELECT status, lease_number, bank_reference FROM send_jobs WHERE id = $1',
      [job.id],
    );
    expect(row.rows).toEqual([{ status: 'done', lease_number: 2, bank_reference: 'resp_jonas' }]);
    // A finished job is never leased again.
    expect(
      (await stack.as('maria.keller').post(`/v1/send-jobs/${job.id}/lease`, { workstation: 'ws-maria' }))
        .status,
    ).toBe(409);
  });

  it('an unknown outcome puts the job back for the next holder, who must verify at the bank first', async () => {
    const job = await queue('tx_ambiguous');
    const leased = await stack
      .as('maria.keller')
      .post<SendJob>(`/v1/send-jobs/${job.id}/lease`, { workstation: 'ws-maria' });
    const back = await stack.as('maria.keller').post<SendJob>(`/v1/send-jobs/${job.id}/complete`, {
      leaseNumber: leased.body.leaseNumber,
      outcome: 'ambiguous',
    });
    expect(back.body).toMatchObject({ status: 'queued', verifyFirst: true });
    const next = await stack
      .as('jonas.weber')
      .post<SendJob>(`/v1/send-jobs/${job.id}/lease`, { workstation: 'ws-jonas' });
    expect(next.body).toMatchObject({
      leaseNumber: 2,
      verifyFirst: true,
      idempotencyKey: job.idempotencyKey,
    });
  });

  it('a send refused before anything reached the bank is queued again as it was: no check owed, the reference it had kept, nothing logged', async () => {
    const job = await queue('tx_unsent');
    const maria = stack.as('maria.keller');
    const first = await maria.post<SendJob>(`/v1/send-jobs/${job.id}/lease`, { workstation: 'ws-maria' });
    // An unknown outcome first: queued again, verified first, naming what was being written.
    const lost = await maria.post<SendJob>(`/v1/send-jobs/${job.id}/complete`, {
      leaseNumber: first.body.leaseNumber,
      outcome: 'ambiguous',
      bankReference: 'tx_quote_1',
    });
    expect(lost.body).toMatchObject({ status: 'queued', verifyFirst: true, bankReference: 'tx_quote_1' });
    const second = await maria.post<SendJob>(`/v1/send-jobs/${job.id}/lease`, { workstation: 'ws-maria' });
    const refused = await maria.post<SendJob>(`/v1/send-jobs/${job.id}/complete`, {
      leaseNumber: second.body.leaseNumber,
      outcome: 'unsent',
      bankReference: 'ignored',
    });
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({
      status: 'queued',
      verifyFirst: true,
      bankReference: 'tx_quote_1',
      leaseExpiresAt: null,
    });
    // Leasable again at once, by anyone of the entity.
    const next = await stack
      .as('jonas.weber')
      .post<SendJob>(`/v1/send-jobs/${job.id}/lease`, { workstation: 'ws-jonas' });
    expect(next.body).toMatchObject({ status: 'leased', leaseNumber: 3, leasedBy: 'jonas.weber' });
    const log = await stack.sql.query<{ action: string }>(
      "SELECT action FROM activity_log WHERE object_id = $1 AND action LIKE 'send.%'",
      ['tx_unsent'],
    );
    expect(log.rows).toEqual([]);
  });
});
