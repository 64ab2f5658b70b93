/**
 * A send job's lease while its send is under way, and the end of a send that did not reach the
 * bank. Maria's real workstation (her own bank credential, the real team server, PostgreSQL and
 * the sandbox bank, reached through a proxy that holds each response POST longer than two leases)
 * takes over the send job Jonas's
 * workstation leased and left:
 * - the send outlives the lease, but her workstation renews it meanwhile: Jonas's attempts to
 *   lease the job are refused throughout, PostgreSQL shows one holder whose expiry moved on, and
 *   the bank holds one response;
 * - a question the bank closed before the send: the job ends failed with the reason in words (it
 *   is not leased again), the activity log records it, and the approval says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityEntry, Approval, SendJob } from '../../src/shared/team/schemas';
import type { RunningSandbox } from '../../src/sandbox';
import { sandboxStaff } from '../support/sandbox-staff';
import type { TestServices } from '../support/services';
import { startLeaseScene, type LeaseScene } from './lease-scene';
import type { TeamStack } from './support';

const LEASE_SECONDS = 2;
/** A response POST reaches the bank this long after it left: longer than two leases. */
const POST_DELAY_MS = 4_500;
let scene: LeaseScene;
let stack: TeamStack;
let sandbox: RunningSandbox;
let maria: TestServices;
let entity: string;

beforeAll(async () => {
  scene = await startLeaseScene({
    seed: 'send-lease',
    leaseSeconds: LEASE_SECONDS,
    slow: (r) => r.method === 'POST' && /\/responses$/.test(r.path),
    delayMs: POST_DELAY_MS,
    rules: [{ kind: 'rfi_answer', rfiType: null }],
    takeover: true,
  });
  ({ stack, sandbox, maria, entity } = scene);
}, 120_000);

afterAll(async () => scene?.close());

/** A new RFI with one question, and Jonas's approved answer to it, leased by his workstation and left. */
async function jonasLeasedAndLeft(text: string) {
  const le = sandbox.fixtures.legal_entities[0]!;
  const rfi = await sandboxStaff(sandbox).createRfi({
    type: 'account',
    related_id: le.accounts[0]!.id,
    description: 'a long send',
    questions: [{ question_type: 'transaction.purpose', question_text: 'Purpose of the account' }],
  });
  const q = rfi.questions[0]!;
  const jonas = stack.as('jonas.weber');
  const body = {
    legalEntityId: entity,
    objectId: q.id,
    content: { kind: 'rfi_answer', rfiId: rfi.id, rfiType: 'account', text, documentSha256s: [] },
  };
  // Maria's RFI cache holds it before she decides (the change feed can come first).
  await customerResponses(rfi.id, q.id);
  const asked = await jonas.post<Approval>('/v1/approvals', body);
  expect(asked.status).toBe(201);
  await expect
    .poll(async () => (await maria.services.handlers['team.approvals']({ rfiId: rfi.id }))[0]?.mayDecide)
    .toBe(true);
  await maria.services.handlers['team.decideApproval']({
    profileId: maria.services.session.profile.id,
    rfiId: rfi.id,
    questionId: q.id,
    approvalId: asked.body.id,
    decision: 'approve',
    contentHash: asked.body.contentHash,
  });
  const job = await jonas.post<SendJob>('/v1/send-jobs', body);
  expect(job.status).toBe(201);
  const leased = await jonas.post<SendJob>(`/v1/send-jobs/${job.body.id}/lease`, {
    workstation: 'jonas-laptop',
  });
  expect(leased.body).toMatchObject({ status: 'leased', leaseNumber: 1, leasedBy: 'jonas.weber' });
  return { rfi, q, job: leased.body };
}

const jobRow = async (id: string) =>
  (
    await stack.sql.query<{
      status: string;
      lease_number: number;
      leased_by: string | null;
      lease_expires_at: Date | null;
      bank_reference: string | null;
      last_detail: string | null;
    }>(
      'SELECT status, lease_number, leased_by, lease_expires_at, bank_reference, last_detail FROM send_jobs WHERE id = $1',
      [id],
    )
  ).rows[0]!;

async function customerResponses(rfiId: string, questionId: string) {
  const rfi = await maria.services.handlers['rfis.get']({
    profileId: maria.services.session.profile.id,
    id: rfiId,
    refresh: true,
  });
  return rfi.rfi.questions
    .find((q) => q.id === questionId)!
    .responses.filter((r) => r.responder_type === 'customer');
}

describe('a send longer than its lease', () => {
  it('is not taken over: the holder renews the lease until the bank holds the one response', async () => {
    const { rfi, q, job } = await jonasLeasedAndLeft('Payroll of the Hamburg branch');
    // Jonas's lease runs out; Maria's workstation takes the job (lease 2) and starts its slow send.
    await expect
      .poll(async () => (await jobRow(job.id)).lease_number, { timeout: 20_000, interval: 100 })
      .toBe(2);
    const takenAt = Date.now();
    const expiries = new Set<number>();
    let refusals = 0;
    // While her send is under way, Jonas's workstation tries to lease the job again and again.
    for (;;) {
      const row = await jobRow(job.id);
      if (row.status !== 'leased') break;
      expect(row).toMatchObject({ lease_number: 2, leased_by: 'maria.keller' });
      expiries.add(row.lease_expires_at!.getTime());
      const attempt = await stack
        .as('jonas.weber')
        .post(`/v1/send-jobs/${job.id}/lease`, { workstation: 'jonas-laptop' });
      expect(attempt.status).toBe(409);
      expect(attempt.body).toMatchObject({ error: { code: 'not_leasable' } });
      refusals += 1;
      expect(Date.now() - takenAt).toBeLessThan(60_000);
      await new Promise((r) => setTimeout(r, 300));
    }
    const sendMs = Date.now() - takenAt;
    // The send outlived the lease several times over; the expiry was renewed meanwhile.
    expect(sendMs).toBeGreaterThan(LEASE_SECONDS * 1000 * 2);
    expect(refusals).toBeGreaterThan(3);
    expect(expiries.size).toBeGreaterThan(2);
    const responses = await customerResponses(rfi.id, q.id);
    expect(responses).toHaveLength(1);
    expect(await jobRow(job.id)).toMatchObject({
      status: 'done',
      lease_number: 2,
      leased_by: 'maria.keller',
      bank_reference: responses[0]!.id,
    });
    // Renewals end with the send.
    expect(maria.services.approvals.leases.held().has(job.id)).toBe(false);
    // The team log says it was sent, by whom, under which lease, with the bank's reference.
    const log = await stack
      .as('jonas.weber')
      .get<{ entries: ActivityEntry[] }>(`/v1/entities/${entity}/activity?since=0`);
    expect(log.body.entries.filter((e) => e.action === 'send.sent' && e.object?.id === q.id)).toEqual([
      expect.objectContaining({
        actor: 'maria.keller',
        detail: { rfiId: rfi.id, bankReference: responses[0]!.id, leaseNumber: '2' },
      }),
    ]);
  }, 90_000);
});

describe('a send that ends without reaching the bank', () => {
  it('a question closed at the bank: the job ends failed with why, logged for the team, and is not leased again', async () => {
    const { rfi, q, job } = await jonasLeasedAndLeft('Rent of the Munich office');
    // Before the send, the question was answered outside the team's flow and closed by the bank.
    const le = sandbox.fixtures.legal_entities[0]!;
    const other = await fetch(`${sandbox.url}/v1/rfis/${rfi.id}/questions/${q.id}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${le.tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        question_type: 'transaction.purpose',
        'transaction.purpose': { response_text: 'Answered on the bank portal', document_ids: [] },
      }),
    });
    expect(other.status).toBe(200);
    await sandboxStaff(sandbox).questionAction(rfi.id, q.id, { action: 'close' });
    // Maria's workstation takes the expired lease, re-reads the bank, finds the question closed.
    await expect
      .poll(async () => (await jobRow(job.id)).status, { timeout: 30_000, interval: 200 })
      .toBe('failed');
    const row = await jobRow(job.id);
    expect(row).toMatchObject({ lease_number: 2, leased_by: 'maria.keller', bank_reference: null });
    expect(row.last_detail).toMatch(/question is closed at the bank and no longer awaits a response/);
    expect(await customerResponses(rfi.id, q.id)).toHaveLength(1);
    // The job is finished: nobody leases it again.
    const again = await stack
      .as('jonas.weber')
      .post(`/v1/send-jobs/${job.id}/lease`, { workstation: 'jonas-laptop' });
    expect(again.status).toBe(409);
    // The team activity log records it, named by the RFI, with the reason.
    const log = await stack
      .as('jonas.weber')
      .get<{ entries: ActivityEntry[] }>(`/v1/entities/${entity}/activity?since=0`);
    const entry = log.body.entries.find((e) => e.action === 'send.conflict' && e.object?.id === q.id);
    expect(entry).toMatchObject({
      actor: 'maria.keller',
      object: { kind: 'rfi_answer', id: q.id },
      detail: { rfiId: rfi.id, leaseNumber: '2', reason: row.last_detail },
    });
    // The approval tells the maker (and everyone) why it was not sent.
    await expect
      .poll(async () => (await maria.services.handlers['team.approvals']({ rfiId: rfi.id }))[0])
      .toMatchObject({
        send: { status: 'failed', detail: row.last_detail },
        words: expect.stringMatching(/^Approved by you, but not sent: the question is closed at the bank/),
      });
    // One lease only: Maria's workstation did not lease it again after reporting.
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await jobRow(job.id)).lease_number).toBe(2);
  }, 90_000);
});
