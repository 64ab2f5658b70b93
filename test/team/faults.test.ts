import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityEntry, Approval, Change, SendJob } from '../../src/shared/team/schemas';
import { verifyChain } from '../../src/team-server/activity-chain';
import { startPostgresCluster, type PostgresCluster } from '../../src/team-server/dev/postgres-cluster';
import { ALDER, startTeamStack, type Analyst, type Answer, type TeamStack } from './support';

/**
 * Faults under load: PostgreSQL and the team server restarted in the middle of a burst of claims,
 * approvals and activity appends (workstations retrying what got no answer, as the outbox does),
 * a send lease whose holder vanished, and a workstation catching up after many changes. This file
 * has a PostgreSQL cluster of its own, so its restarts disturb no other file.
 */
const LEASE_SECONDS = 2;
let cluster: PostgresCluster;
let stack: TeamStack;
beforeAll(async () => {
  cluster = await startPostgresCluster({ database: 'faults_admin' });
  stack = await startTeamStack({ postgresUrl: cluster.url, leaseSeconds: LEASE_SECONDS });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await cluster?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Requests sent again because the first got no answer: shows the fault struck mid-burst. */
let retries = 0;

/**
 * Sends a request until it gets an answer that is not the server's failure: a refused connection,
 * a cut one or a 5xx means "no answer", and the workstation sends the same request again.
 */
async function persist<T>(what: string, send: () => Promise<Answer<T>>): Promise<Answer<T>> {
  const deadline = Date.now() + 40_000;
  for (;;) {
    const res = await send().catch(() => undefined);
    if (res && res.status < 500) return res;
    if (Date.now() > deadline) throw new Error(`${what}: no answer for 40 s`);
    retries += 1;
    await sleep(100);
  }
}

/** Runs `jobs` with `width` at a time. */
async function pool(width: number, jobs: (() => Promise<void>)[]): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < jobs.length) await jobs[next++]!();
    }),
  );
}

/** Follows the event stream like a workstation: reconnects with Last-Event-ID whenever it drops. */
function follow(as: Analyst, since: number) {
  const seqs: number[] = [];
  const ac = new AbortController();
  let last = since;
  const run = (async () => {
    while (!ac.signal.aborted) {
      try {
        const res = await fetch(`${stack.server.url}/v1/changes/stream`, {
          headers: { authorization: `Bearer ${stack.as(as).token}`, 'last-event-id': String(last) },
          signal: ac.signal,
        });
        if (!res.ok || !res.body) throw new Error(String(res.status));
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let cut: number;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const id = /^id: (\d+)$/m.exec(buffer.slice(0, cut));
            buffer = buffer.slice(cut + 2);
            if (id) {
              last = Number(id[1]);
              seqs.push(last);
            }
          }
        }
      } catch {
        // Dropped (the server or PostgreSQL went away): connect again from the last number.
      }
      if (!ac.signal.aborted) await sleep(200);
    }
  })();
  return {
    seqs,
    async until(seq: number) {
      const deadline = Date.now() + 30_000;
      while (last < seq) {
        if (Date.now() > deadline) throw new Error(`the stream stopped at ${last}, not ${seq}`);
        await sleep(50);
      }
    },
    async stop() {
      ac.abort();
      await run;
    },
  };
}

const ret = (transactionId: string) => ({
  kind: 'return' as const,
  transactionId,
  amount: '125000',
  currency: 'EUR',
  reason: 'duplicate',
});

/**
 * A burst: two makers race for each of `n` RFIs, a maker asks approval for `n` returns and a
 * checker approves each, and each approval is logged in the activity log; `fault` strikes once a
 * third of the work is done. Every request is retried until it gets a real answer.
 */
async function burst(label: string, n: number, fault: () => Promise<void>) {
  const maria = () => stack.as('maria.keller');
  const jonas = () => stack.as('jonas.weber');
  const winners = new Map<string, string[]>();
  let done = 0;
  let struck: Promise<void> | undefined;
  const tick = () => {
    done += 1;
    if (!struck && done >= n / 3) struck = fault();
  };
  const claims = Array.from({ length: n }, (_, i) => async () => {
    const rfi = `${label}_rfi_${i}`;
    const answers = await Promise.all(
      [maria, jonas].map((who) =>
        persist('claim', () => who().post(`/v1/entities/${ALDER}/rfis/${rfi}/claim`)),
      ),
    );
    for (const a of answers) expect([200, 409]).toContain(a.status);
    winners.set(
      rfi,
      answers.filter((a) => a.status === 200).map((a) => String((a.body as { holder: string }).holder)),
    );
    tick();
  });
  const approvals = Array.from({ length: n }, (_, i) => async () => {
    const tx = `${label}_tx_${i}`;
    const asked = await persist('approval request', () =>
      maria().post<Approval>('/v1/approvals', { legalEntityId: ALDER, objectId: tx, content: ret(tx) }),
    );
    expect([200, 201]).toContain(asked.status);
    const decided = await persist('approve', () =>
      jonas().post<Approval>(`/v1/approvals/${asked.body.id}/approve`, {
        contentHash: asked.body.contentHash,
      }),
    );
    // A retried approval whose first attempt landed is told it is decided already.
    if (decided.status !== 200) expect(decided.body).toMatchObject({ error: { code: 'conflict' } });
    const id = randomUUID();
    const logged = await persist('activity', () =>
      jonas().post('/v1/activity', {
        id,
        legalEntityId: ALDER,
        action: 'return.approved',
        object: { kind: 'return', id: tx },
        detail: { approval: asked.body.id },
      }),
    );
    expect([200, 201]).toContain(logged.status);
    tick();
  });
  await pool(6, [...claims, ...approvals]);
  await struck;
  return winners;
}

/** What the database holds after a burst: every object once, the feed and the chain whole. */
async function checkAfterBurst(
  label: string,
  n: number,
  winners: Map<string, string[]>,
  streamed: number[],
  mark: number,
) {
  for (const [rfi, w] of winners) expect(w, rfi).toHaveLength(1);
  const assignments = await stack.sql.query(
    'SELECT rfi_id, holder, version FROM rfi_assignments WHERE rfi_id LIKE $1 ORDER BY rfi_id',
    [`${label}_rfi_%`],
  );
  expect(assignments.rows).toHaveLength(n);
  for (const r of assignments.rows as { rfi_id: string; holder: string; version: number }[])
    expect([r.holder, r.version]).toEqual([winners.get(r.rfi_id)![0], 1]);

  const approvals = await stack.sql.query(
    'SELECT object_id, status, maker, checker FROM approvals WHERE object_id LIKE $1 ORDER BY object_id',
    [`${label}_tx_%`],
  );
  expect(approvals.rows).toHaveLength(n);
  for (const r of approvals.rows)
    expect(r).toMatchObject({ status: 'approved', maker: 'maria.keller', checker: 'jonas.weber' });

  // The feed: numbered 1..N without a gap or a double, each change once per object.
  const feed = await stack.sql.query(
    'SELECT count(*)::int AS n, count(DISTINCT seq)::int AS d, min(seq)::int AS lo, max(seq)::int AS hi FROM changes',
  );
  const f = feed.rows[0] as { n: number; d: number; lo: number; hi: number };
  expect([f.d, f.lo, f.hi]).toEqual([f.n, 1, f.n]);
  const perObject = await stack.sql.query(
    `SELECT topic, object_id, count(*)::int AS n FROM changes
     WHERE (topic = 'assignment' AND object_id LIKE $1) OR (topic = 'approval' AND object_id LIKE $2)
     GROUP BY topic, object_id`,
    [`${label}_rfi_%`, `${label}_tx_%`],
  );
  expect(perObject.rows).toHaveLength(2 * n);
  for (const r of perObject.rows as { topic: string; n: number }[])
    expect(r.n).toBe(r.topic === 'assignment' ? 1 : 2);

  // The activity log: one entry per approval, the chain verifies.
  const logged = await stack.sql.query(
    "SELECT count(*)::int AS n, count(DISTINCT object_id)::int AS d FROM activity_log WHERE action = 'return.approved' AND object_id LIKE $1",
    [`${label}_tx_%`],
  );
  expect(logged.rows).toEqual([{ n, d: n }]);
  const log = await stack
    .as('lea.fischer')
    .get<{ entries: ActivityEntry[] }>(`/v1/entities/${ALDER}/activity?since=0&limit=1000`);
  expect(verifyChain(log.body.entries)).toBeNull();

  // What a workstation streamed across the fault: every committed change after its mark, once, in order.
  const all = await stack.sql.query('SELECT seq::int AS seq FROM changes WHERE seq > $1 ORDER BY seq', [
    mark,
  ]);
  expect(streamed).toEqual((all.rows as { seq: number }[]).map((r) => r.seq));
}

async function mark(): Promise<number> {
  return (await stack.as('lea.fischer').get<{ last: number }>('/v1/changes?since=0')).body.last;
}

describe('faults during a burst of claims and approvals', () => {
  it('PostgreSQL restarted mid-burst: nothing lost, nothing doubled, the feed has no gap', async () => {
    const since = await mark();
    const stream = follow('lea.fischer', since);
    retries = 0;
    const winners = await burst('pg', 30, () => cluster.restart());
    expect(retries).toBeGreaterThan(0);
    await stream.until(await mark());
    await stream.stop();
    await checkAfterBurst('pg', 30, winners, stream.seqs, since);
  }, 90_000);

  it('the team server restarted mid-burst: nothing lost, nothing doubled, streams resume', async () => {
    const since = await mark();
    const stream = follow('lea.fischer', since);
    retries = 0;
    const winners = await burst('srv', 30, () => stack.restartServer());
    expect(retries).toBeGreaterThan(0);
    await stream.until(await mark());
    await stream.stop();
    await checkAfterBurst('srv', 30, winners, stream.seqs, since);
  }, 90_000);
});

describe('a send whose holder vanished', () => {
  it('the lease expires, another workstation takes it with verify-first, and the late holder is refused', async () => {
    const queued = await stack.as('maria.keller').post<SendJob>('/v1/send-jobs', {
      legalEntityId: ALDER,
      objectId: 'tx_vanish',
      content: ret('tx_vanish'),
    });
    expect(queued.status).toBe(201);
    const held = await stack
      .as('maria.keller')
      .post<SendJob>(`/v1/send-jobs/${queued.body.id}/lease`, { workstation: 'ws-maria' });
    expect(held.body).toMatchObject({ leaseNumber: 1, verifyFirst: false });
    // Maria's workstation dies mid-send. While her lease runs nobody else may take the job...
    expect(
      (
        await stack
          .as('jonas.weber')
          .post<{ job: SendJob | null }>('/v1/send-jobs/lease', { workstation: 'ws-jonas' })
      ).body.job,
    ).toBeNull();
    // ...and once it has run out (real time, on the database's clock), Jonas's next lease is it.
    await sleep(LEASE_SECONDS * 1000 + 300);
    const taken = await stack
      .as('jonas.weber')
      .post<{ job: SendJob | null }>('/v1/send-jobs/lease', { workstation: 'ws-jonas' });
    expect(taken.body.job).toMatchObject({
      id: queued.body.id,
      leaseNumber: 2,
      leasedBy: 'jonas.weber',
      verifyFirst: true,
      idempotencyKey: queued.body.idempotencyKey,
    });
    // Maria's workstation comes back and reports what it did under lease 1: every outcome refused.
    for (const outcome of ['sent', 'ambiguous', 'failed'])
      expect(
        (
          await stack.as('maria.keller').post(`/v1/send-jobs/${queued.body.id}/complete`, {
            leaseNumber: 1,
            outcome,
            bankReference: 'resp_late',
          })
        ).body,
      ).toMatchObject({ error: { code: 'stale_lease' } });
    const done = await stack.as('jonas.weber').post<SendJob>(`/v1/send-jobs/${queued.body.id}/complete`, {
      leaseNumber: 2,
      outcome: 'sent',
      bankReference: 'resp_verified',
    });
    expect(done.body).toMatchObject({ status: 'done', bankReference: 'resp_verified' });
    const row = await stack.sql.query(
      'SELECT status, lease_number, leased_by, bank_reference FROM send_jobs WHERE id = $1',
      [queued.body.id],
    );
    expect(row.rows).toEqual([
      { status: 'done', lease_number: 2, leased_by: 'jonas.weber', bank_reference: 'resp_verified' },
    ]);
    const changes = await stack.sql.query(
      "SELECT data->>'status' AS status, (data->>'leaseNumber')::int AS lease FROM changes WHERE topic = 'send_job' AND object_id = 'tx_vanish' ORDER BY seq",
    );
    expect(changes.rows).toEqual([
      { status: 'queued', lease: 0 },
      { status: 'leased', lease: 1 },
      { status: 'leased', lease: 2 },
      { status: 'done', lease: 2 },
    ]);
  });
});

describe('a workstation that was away', () => {
  it('catches up from its sequence number across many changes, page by page and by stream', async () => {
    const since = await mark();
    const N = 300;
    await pool(
      8,
      Array.from({ length: N }, (_, i) => async () => {
        const path = `/v1/entities/${ALDER}/rfis/away_${i}`;
        expect((await stack.as('maria.keller').post(`${path}/claim`)).status).toBe(200);
        expect((await stack.as('maria.keller').post(`${path}/release`)).status).toBe(200);
      }),
    );
    const pages: Change[][] = [];
    let cursor = since;
    for (;;) {
      const page = await stack
        .as('jonas.weber')
        .get<{ changes: Change[]; last: number }>(`/v1/changes?since=${cursor}&limit=150`);
      if (page.body.changes.length === 0) {
        expect(page.body.last).toBe(cursor);
        break;
      }
      pages.push(page.body.changes);
      cursor = page.body.last;
    }
    const seqs = pages.flat().map((c) => c.seq);
    expect(pages.length).toBeGreaterThanOrEqual(Math.ceil((2 * N) / 150));
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => since + 1 + i));
    const mine = pages.flat().filter((c) => c.objectId.startsWith('away_'));
    expect(mine).toHaveLength(2 * N);
    // Per RFI: the claim, then the release.
    const holders = new Map<string, (string | null)[]>();
    for (const c of mine)
      holders.set(c.objectId, [
        ...(holders.get(c.objectId) ?? []),
        (c.data as { holder: string | null }).holder,
      ]);
    for (const h of holders.values()) expect(h).toEqual(['maria.keller', null]);
    // The event stream from the same number delivers the same changes, in batches, once each.
    const stream = follow('jonas.weber', since);
    await stream.until(cursor);
    await stream.stop();
    expect(stream.seqs).toEqual(seqs);
  }, 60_000);
});
