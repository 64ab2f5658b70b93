/**
 * Taking over a send job from a workstation that went away holding its lease: the maker (Jonas,
 * whose workstation is played here by his own team-server calls, as far as it got) asked for
 * approval, the checker approved, his workstation leased the send job and was gone. Maria's real
 * workstation (its own bank credential, the real team server, PostgreSQL and the sandbox bank)
 * takes the expired lease, verifies at the bank first and finishes the send exactly once: when his
 * POST had reached the bank it records that response without writing; when it had not, it sends
 * the approved text with the document from the team's shared locker (the same sha256 at the bank).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { napiKeyringBackend } from '../../src/main/infra/keyring';
import type { Approval, SendJob } from '../../src/shared/team/schemas';
import { documentAround } from '../support/documents';
import { staffOf } from '../support/sandbox-staff';
import { startServices, type TestServices } from '../support/services';
import { startTeamStack, type TeamStack } from './support';
import { approveAnswer, purposeRfi, seedCheckerScene, TEAM_TEST_OPTIONS } from './workstation-support';

const LEASE_SECONDS = 2;
const keyringService = `treasury-desk-team-test/${randomBytes(6).toString('hex')}`;
const keyring = napiKeyringBackend();
let stack: TeamStack;
let maria: TestServices;
let entity: string;
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  stack = await startTeamStack({ leaseSeconds: LEASE_SECONDS });
  maria = await startServices({
    keyringService,
    team: { ...TEAM_TEST_OPTIONS, takeover: { everyMs: 250, graceMs: 1_000 } },
  });
  await maria.services.session.check();
  const le = maria.services.sandbox!.fixtures.legal_entities[0]!;
  entity = le.id;
  await seedCheckerScene(stack.server.db, maria, stack.server.url, le, [
    { kind: 'rfi_answer', rfiType: null },
  ]);
}, 120_000);

afterAll(async () => {
  await maria?.close();
  await stack?.close().catch(() => undefined);
  await keyring.delete(keyringService, 'team-refresh-token').catch(() => false);
});

/** Jonas's workstation as far as it got: asked, (Maria approved,) queued the send and leased it. */
async function jonasLeasedAndVanished(content: {
  rfiId: string;
  questionId: string;
  text: string;
  documentSha256s: string[];
}): Promise<SendJob> {
  const jonas = stack.as('jonas.weber');
  const body = {
    legalEntityId: entity,
    objectId: content.questionId,
    content: {
      kind: 'rfi_answer',
      rfiId: content.rfiId,
      rfiType: 'account',
      text: content.text,
      documentSha256s: content.documentSha256s,
    },
  };
  // Maria's RFI cache holds the new RFI before she decides (deciding looks it up there).
  await customerResponses(content.rfiId, content.questionId);
  const asked = await jonas.post<Approval>('/v1/approvals', body);
  expect(asked.status).toBe(201);
  // Maria approves on her workstation, from what the change feed told it.
  await expect
    .poll(
      async () => (await maria.services.handlers['team.approvals']({ rfiId: content.rfiId }))[0]?.mayDecide,
    )
    .toBe(true);
  // Named through her profile: her RFI cache may not hold the RFI yet (the change feed can be first).
  await approveAnswer(
    maria,
    { rfiId: content.rfiId, questionId: content.questionId },
    { approvalId: asked.body.id, contentHash: asked.body.contentHash },
  );
  const job = await jonas.post<SendJob>('/v1/send-jobs', body);
  expect(job.status).toBe(201);
  const leased = await jonas.post<SendJob>(`/v1/send-jobs/${job.body.id}/lease`, {
    workstation: 'jonas-laptop',
  });
  expect(leased.body).toMatchObject({ status: 'leased', leaseNumber: 1, leasedBy: 'jonas.weber' });
  return leased.body;
}

const jobRow = async (id: string) =>
  (
    await stack.sql.query<{
      status: string;
      lease_number: number;
      leased_by: string;
      verify_first: boolean;
      bank_reference: string | null;
    }>('SELECT status, lease_number, leased_by, verify_first, bank_reference FROM send_jobs WHERE id = $1', [
      id,
    ])
  ).rows[0];

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

describe('a send job whose workstation went away holding the lease', () => {
  it('his POST had reached the bank: Maria’s workstation verifies first, records that response and writes nothing', async () => {
    const le = maria.services.sandbox!.fixtures.legal_entities[0]!;
    const rfi = await purposeRfi(maria, 'taken over after the POST');
    const q = rfi.questions[0]!;
    const text = 'Payroll of the Hamburg branch';
    const job = await jonasLeasedAndVanished({ rfiId: rfi.id, questionId: q.id, text, documentSha256s: [] });
    // His POST reached the bank (with the job's key); then his workstation was gone, nothing recorded.
    const posted = await fetch(
      `${maria.services.sandbox!.url}/v1/rfis/${rfi.id}/questions/${q.id}/responses`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${le.tokens.admin}`,
          'content-type': 'application/json',
          'idempotency-key': job.idempotencyKey,
        },
        body: JSON.stringify({
          question_type: 'transaction.purpose',
          'transaction.purpose': { response_text: text, document_ids: [] },
        }),
      },
    );
    expect(posted.status).toBe(200);
    const responseId = ((await posted.json()) as { id: string }).id;

    // The lease expires; Maria's workstation takes it (lease 2, verify first) and finds the response.
    await expect
      .poll(async () => await jobRow(job.id), { timeout: 20_000 })
      .toEqual({
        status: 'done',
        lease_number: 2,
        leased_by: 'maria.keller',
        verify_first: true,
        bank_reference: responseId,
      });
    const entry = maria.services.rfiAnswers.outbox
      .list(rfi.id)
      .map((a) => maria.services.rfiAnswers.outbox.get(a.id)!)
      .find((e) => e.teamJob?.id === job.id);
    expect(entry).toMatchObject({ state: 'sent', responseId, attempts: 0 });
    expect(await customerResponses(rfi.id, q.id)).toHaveLength(1);
  });

  it('nothing had reached the bank: Maria’s workstation sends the approved text with the document from the shared locker, once', async () => {
    const le = maria.services.sandbox!.fixtures.legal_entities[0]!;
    const rfi = await staffOf(maria.services).createRfi({
      type: 'account',
      related_id: le.accounts[0]!.id,
      description: 'taken over before the POST',
      questions: [
        { question_type: 'identification.individual.passport', question_text: 'Passport of the director' },
      ],
    });
    const q = rfi.questions[0]!;
    // Jonas shared the passport with the team; his own copy never leaves his workstation.
    const passport = documentAround('pdf', Buffer.from(`PASSPORT ${randomUUID()}`));
    const put = await fetch(`${stack.server.url}/v1/entities/${entity}/evidence/blobs/${sha(passport)}`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${stack.as('jonas.weber').token}`,
        'content-type': 'application/pdf',
      },
      body: passport,
    });
    expect([200, 201]).toContain(put.status);
    const doc = await stack.as('jonas.weber').post(`/v1/entities/${entity}/evidence`, {
      id: randomUUID(),
      sha256: sha(passport),
      fileName: 'passport-director.pdf',
      documentType: 'passport',
      holder: { kind: 'person', name: 'Anna Keller' },
    });
    expect(doc.status).toBe(201);
    const job = await jonasLeasedAndVanished({
      rfiId: rfi.id,
      questionId: q.id,
      text: '',
      documentSha256s: [sha(passport)],
    });
    // Before the lease expires nobody else touches it.
    expect((await jobRow(job.id))?.lease_number).toBe(1);

    await expect
      .poll(async () => await jobRow(job.id), { timeout: 20_000 })
      .toMatchObject({ status: 'done', lease_number: 2, leased_by: 'maria.keller', verify_first: true });
    const responses = await customerResponses(rfi.id, q.id);
    expect(responses).toHaveLength(1);
    expect((await jobRow(job.id))?.bank_reference).toBe(responses[0]!.id);
    const docIds = Object.values(responses[0]!.response).flatMap((c) => c.document_ids);
    expect(docIds).toHaveLength(1);
    expect((await staffOf(maria.services).getDocument(docIds[0]!)).sha256).toBe(sha(passport));
  });
});
