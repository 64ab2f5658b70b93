/**
 * Four-eyes approval of RFI answers through the real main services of two workstations (Maria's
 * with the embedded sandbox bank, Jonas's against the same bank over HTTP), the real team server,
 * PostgreSQL and OpenID provider: the admin's rules, the maker asking for approval of the exact
 * draft (text and document sha256s), the server refusing her own approval, the checker approving,
 * an edit clearing the approval, and the approved answer sent once as its send job (the bank holds
 * exactly one response with that document's sha256; the job is done in PostgreSQL).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTeamServer, type RunningTeamServer } from '../../src/team-server/index';
import { isSealed } from '../../src/main/infra/at-rest';
import { napiKeyringBackend } from '../../src/main/infra/keyring';
import { approvalHash } from '../../src/main/team/approvals';
import { seedTeam } from '../../src/team-server/bootstrap';
import { documentAround } from '../support/documents';
import { pdfText } from '../support/pdf-text';
import { staffOf } from '../support/sandbox-staff';
import { ipcError } from '../support/ipc';
import { startServices, type TestServices } from '../support/services';
import { startTeamStack, type TeamStack } from './support';
import { approveAnswer, joinTeam, purposeRfi, TEAM_TEST_OPTIONS } from './workstation-support';

const keyringServices = [0, 1].map(() => `treasury-desk-team-test/${randomBytes(6).toString('hex')}`);
const keyring = napiKeyringBackend();
let stack: TeamStack;
let maria: TestServices;
let jonas: TestServices;
let entity: string;
let restarted: RunningTeamServer | null = null;
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

const teamOptions = TEAM_TEST_OPTIONS;
const join = (t: TestServices, analyst: 'maria.keller' | 'jonas.weber') =>
  joinTeam(t, stack.server.url, analyst);

async function stagePdf(t: TestServices, bytes: Buffer, name: string): Promise<string> {
  const h = t.services.handlers;
  const begun = await h['files.stageDropped']({
    profileId: t.services.session.profile.id,
    op: 'begin',
    name,
    contentType: 'application/pdf',
    sizeBytes: bytes.length,
    documentType: 'passport',
  });
  await h['files.stageDropped']({
    op: 'chunk',
    stagingId: begun.stagingId!,
    offset: 0,
    data: bytes.toString('base64'),
  });
  return (await h['files.stageDropped']({ op: 'commit', stagingId: begun.stagingId! })).file!.ref;
}

const approvalRows = async (questionId: string) =>
  (
    await stack.sql.query<{ status: string; maker: string; checker: string | null; content_hash: string }>(
      `SELECT status, maker, checker, content_hash FROM approvals
        WHERE legal_entity_id = $1 AND object_id = $2 ORDER BY requested_at`,
      [entity, questionId],
    )
  ).rows;

/** Jonas's workstation (against Maria's embedded bank over HTTP), new or on its data folder again. */
async function openJonas(dataDir?: string): Promise<TestServices> {
  const le = maria.services.sandbox!.fixtures.legal_entities[0]!;
  const t = await startServices({
    keyringService: keyringServices[1]!,
    team: teamOptions,
    environment: {
      kind: 'remote',
      baseUrl: maria.services.sandbox!.url,
      name: 'Bank',
      token: le.tokens.admin,
    },
    ...(dataDir ? { dataDir } : {}),
  });
  await t.services.session.check();
  return t;
}

beforeAll(async () => {
  stack = await startTeamStack();
  maria = await startServices({ keyringService: keyringServices[0]!, team: teamOptions });
  await maria.services.session.check();
  const sandbox = maria.services.sandbox!;
  const le = sandbox.fixtures.legal_entities[0]!;
  entity = le.id;
  jonas = await openJonas();
  await seedTeam(stack.server.db, {
    entities: [{ id: le.id, name: le.name }],
    members: [
      // Maria may check too: only the server's rule stops her approving her own answer.
      {
        subject: 'maria.keller',
        name: 'Maria Keller',
        legalEntityId: le.id,
        roles: ['maker', 'checker', 'admin'],
      },
      { subject: 'jonas.weber', name: 'Jonas Weber', legalEntityId: le.id, roles: ['maker', 'checker'] },
    ],
  });
  await join(maria, 'maria.keller');
  await join(jonas, 'jonas.weber');
}, 120_000);

afterAll(async () => {
  // Jonas's workstation talks to Maria's embedded bank: it closes first.
  await jonas?.close();
  await maria?.close();
  await restarted?.close();
  await stack?.close().catch(() => undefined);
  for (const s of keyringServices) await keyring.delete(s, 'team-refresh-token').catch(() => false);
});

describe('four-eyes approval of RFI answers', () => {
  it('an admin sets the rules; every analyst reads them, only an admin changes them', async () => {
    const mine = await maria.services.handlers['team.setApprovalRules']({
      legalEntityId: entity,
      rules: [
        { kind: 'rfi_answer', rfiType: 'account' },
        { kind: 'return', above: '1000000' },
      ],
    });
    expect(mine).toMatchObject({ legalEntityId: entity, mayEdit: true, known: true });
    // Jonas's workstation hears of them on the change feed.
    await expect
      .poll(async () =>
        (await jonas.services.handlers['team.approvalRules'](undefined)).find(
          (e) => e.legalEntityId === entity,
        ),
      )
      .toMatchObject({
        legalEntityId: entity,
        mayEdit: false,
        rules: [
          { kind: 'rfi_answer', rfiType: 'account' },
          { kind: 'return', above: '1000000' },
        ],
      });
    await expect(
      jonas.services.handlers['team.setApprovalRules']({ legalEntityId: entity, rules: [] }),
    ).rejects.toMatchObject({ kind: 'forbidden', reason: 'NOT_ADMIN' });
  });

  it('the maker asks, cannot approve her own answer, the checker approves, an edit clears it, and the bank holds one response', async () => {
    const m = maria.services.handlers;
    const j = jonas.services.handlers;
    const staff = staffOf(maria.services);
    const le = maria.services.sandbox!.fixtures.legal_entities[0]!;
    const rfi = await staff.createRfi({
      type: 'account',
      related_id: le.accounts[0]!.id,
      description: 'four eyes',
      questions: [
        { question_type: 'identification.individual.passport', question_text: 'Passport of the director' },
      ],
    });
    const q = rfi.questions[0]!;
    /** The answer's approval as Maria's workstation tells her. */
    const mariaSees = () =>
      m['team.answerApproval']({
        profileId: maria.services.session.profile.id,
        rfiId: rfi.id,
        questionId: q.id,
      });
    await m['rfis.get']({ profileId: maria.services.session.profile.id, id: rfi.id, refresh: true });
    await j['rfis.get']({ profileId: jonas.services.session.profile.id, id: rfi.id, refresh: true });
    const first = documentAround('pdf', Buffer.from('PASSPORT FIRST SCAN'));
    const ref = await stagePdf(maria, first, 'passport.pdf');
    const draft = {
      profileId: maria.services.session.profile.id,
      rfiId: rfi.id,
      questionId: q.id,
      questionType: 'identification.individual.passport',
      text: '',
      files: [ref],
    };

    // The rule covers account RFIs: sent straight to the bank it is refused, nothing queued.
    await expect(m['answers.submit'](draft)).rejects.toMatchObject({
      kind: 'precondition',
      reason: 'APPROVAL_REQUIRED',
    });
    expect(maria.services.rfiAnswers.outbox.list(rfi.id)).toEqual([]);
    // Every call about the answer names the profile that owns the RFI: never a default one.
    const target = { rfiId: rfi.id, questionId: q.id };
    for (const [channel, args] of [
      ['team.answerApproval', target],
      ['team.askApproval', { ...target, questionType: draft.questionType, text: '', files: [ref] }],
      ['team.notes', { rfiId: rfi.id }],
      ['team.addNote', { rfiId: rfi.id, text: 'who has the passport?' }],
      ['team.presence', { rfiId: rfi.id, activity: 'viewing' }],
      ['team.activity', { rfiId: rfi.id }],
    ] as const)
      expect(await ipcError(maria, channel, args)).toMatchObject({
        kind: 'invalid_argument',
        field: 'profileId',
      });
    expect(
      await ipcError(maria, 'team.answerApproval', { ...target, profileId: 'no-such-profile' }),
    ).toMatchObject({ kind: 'not_found', field: 'profileId' });
    expect(await approvalRows(q.id)).toEqual([]);
    expect(await mariaSees()).toMatchObject({
      required: true,
      approval: null,
      covers: false,
    });

    const asked = await m['team.askApproval'](draft);
    const content = {
      kind: 'rfi_answer' as const,
      rfiId: rfi.id,
      rfiType: 'account',
      text: '',
      documentSha256s: [sha(first)],
    };
    expect(asked).toMatchObject({
      status: 'pending',
      contentHash: approvalHash(content),
      documentSha256s: [sha(first)],
      maker: { subject: 'maria.keller', isYou: true },
      mayDecide: false,
      words: 'Waiting for approval by a checker.',
    });
    expect(await approvalRows(q.id)).toEqual([
      { status: 'pending', maker: 'maria.keller', checker: null, content_hash: approvalHash(content) },
    ]);

    // Her own approval: refused by the team server, in words.
    await expect(
      approveAnswer(
        maria,
        { rfiId: rfi.id, questionId: q.id },
        { approvalId: asked.approvalId!, contentHash: asked.contentHash },
      ),
    ).rejects.toMatchObject({
      kind: 'forbidden',
      reason: 'SELF_APPROVAL',
      message: expect.stringContaining('nobody approves their own answer'),
    });

    // The checker sees it waiting for him, with the exact content.
    await expect
      .poll(async () => (await j['team.approvals']({ rfiId: rfi.id }))[0])
      .toMatchObject({
        approvalId: asked.approvalId,
        mayDecide: true,
        documentSha256s: [sha(first)],
        words: 'Maria Keller asks for your approval.',
      });
    const approved = await approveAnswer(
      jonas,
      { rfiId: rfi.id, questionId: q.id },
      { approvalId: asked.approvalId!, contentHash: asked.contentHash },
    );
    expect(approved).toMatchObject({ status: 'approved', checker: { subject: 'jonas.weber', isYou: true } });
    await expect
      .poll(async () => await mariaSees())
      .toMatchObject({ covers: true, approval: { status: 'approved', words: 'Approved by Jonas Weber.' } });

    // An edit after approval: another scan. The server sees the new hash, the approval is cleared.
    const second = documentAround('pdf', Buffer.from('PASSPORT SECOND SCAN'));
    const ref2 = await stagePdf(maria, second, 'passport-2.pdf');
    await m['drafts.save']({ ...draft, files: [ref2] });
    const edited = approvalHash({ ...content, documentSha256s: [sha(second)] });
    // Asked again once the analyst stops typing (1.5 s).
    await expect
      .poll(async () => (await approvalRows(q.id)).map((r) => r.status), { timeout: 10_000 })
      .toEqual(['cleared', 'pending']);
    expect((await approvalRows(q.id))[1]).toMatchObject({ content_hash: edited, maker: 'maria.keller' });
    await expect(m['answers.submit']({ ...draft, files: [ref2] })).rejects.toMatchObject({
      reason: 'APPROVAL_REQUIRED',
    });
    // A decision on what the checker read before the edit covers nothing.
    await expect(
      approveAnswer(
        jonas,
        { rfiId: rfi.id, questionId: q.id },
        { approvalId: asked.approvalId!, contentHash: asked.contentHash },
      ),
    ).rejects.toMatchObject({ kind: 'conflict' });

    await expect
      .poll(async () => (await j['team.approvals']({ rfiId: rfi.id }))[0]?.contentHash)
      .toBe(edited);
    const current = (await j['team.approvals']({ rfiId: rfi.id }))[0]!;
    await approveAnswer(
      jonas,
      { rfiId: rfi.id, questionId: q.id },
      { approvalId: current.approvalId!, contentHash: edited },
    );
    await expect.poll(async () => (await mariaSees()).covers).toBe(true);

    // Sent: one send job with one key, carried out by Maria's outbox with her own bank credential.
    const answer = await m['answers.submit']({ ...draft, files: [ref2] });
    const entry = maria.services.rfiAnswers.outbox.get(answer.id)!;
    const jobRow = (
      await stack.sql.query<{ id: string; idempotency_key: string }>(
        'SELECT id, idempotency_key FROM send_jobs WHERE legal_entity_id = $1 AND object_id = $2',
        [entity, q.id],
      )
    ).rows;
    expect(jobRow).toHaveLength(1);
    expect(entry.teamJob).toMatchObject({ id: jobRow[0]!.id, idempotencyKey: jobRow[0]!.idempotency_key });
    await expect
      .poll(() => maria.services.rfiAnswers.outbox.get(answer.id)?.state, { timeout: 20_000 })
      .toBe('sent');
    await expect
      .poll(
        async () =>
          (
            await stack.sql.query<{ status: string; bank_reference: string | null }>(
              'SELECT status, bank_reference FROM send_jobs WHERE id = $1',
              [jobRow[0]!.id],
            )
          ).rows[0],
      )
      .toEqual({
        status: 'done',
        bank_reference: maria.services.rfiAnswers.outbox.get(answer.id)!.responseId,
      });
    await expect
      .poll(async () => (await mariaSees()).approval?.words)
      .toBe('Approved by Jonas Weber and sent to the bank.');

    // Sent, the answer is frozen: asking again with other content is refused by the team server.
    const third = await stagePdf(maria, documentAround('pdf', Buffer.from('THIRD')), 'passport-3.pdf');
    await expect(m['team.askApproval']({ ...draft, files: [third] })).rejects.toMatchObject({
      kind: 'conflict',
    });
    // The bank holds exactly one response, with the second scan.
    const atBank = (
      await m['rfis.get']({ profileId: maria.services.session.profile.id, id: rfi.id, refresh: true })
    ).rfi.questions.find((x) => x.id === q.id)!;
    const customer = atBank.responses.filter((r) => r.responder_type === 'customer');
    expect(customer).toHaveLength(1);
    const docIds = Object.values(customer[0]!.response).flatMap((c) => c.document_ids);
    expect(docIds).toHaveLength(1);
    expect((await staff.getDocument(docIds[0]!)).sha256).toBe(sha(second));

    // Who drafted and asked, who approved, and the one send: in the RFI's case file and in the
    // Activity CSV, by name, from the team log.
    const out = await mkdtemp(path.join(os.tmpdir(), 'td-four-eyes-'));
    try {
      const profileId = maria.services.session.profile.id;
      maria.platform.nextSaveAnswers.push(path.join(out, 'case.pdf'));
      const exported = await m['caseFiles.export']({ rfis: [{ profileId, rfiId: rfi.id }], zip: false });
      const pdf = (await pdfText(exported.path!)).replace(/\s+/g, ' ');
      expect(pdf).toContain('From the team log');
      expect(pdf).toContain('Maria Keller: Asked a checker to approve');
      expect(pdf).toContain('Jonas Weber: Approved the answer made by Maria Keller');
      expect(pdf).toContain('Maria Keller: Sent the approved answer to the bank');
      maria.platform.nextSaveAnswers.push(path.join(out, 'activity.csv'));
      await m['audit.exportCsv'](undefined);
      const csv = await readFile(path.join(out, 'activity.csv'), 'utf8');
      const rows = csv.split('\n').filter((l) => l.includes('"approval.'));
      expect(rows.some((l) => l.includes('"approval.requested"') && l.includes('"Maria Keller"'))).toBe(true);
      expect(
        rows.some(
          (l) =>
            l.includes('"approval.approved"') &&
            l.includes('"Jonas Weber"') &&
            l.includes('Approved the answer made by Maria Keller'),
        ),
      ).toBe(true);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  it('an approved answer goes out as its send job even once the rule that wanted it was dropped', async () => {
    const m = maria.services.handlers;
    const j = jonas.services.handlers;
    const rules = (await m['team.approvalRules'](undefined)).find((e) => e.legalEntityId === entity)!.rules;
    expect(rules).toContainEqual({ kind: 'rfi_answer', rfiType: 'account' });
    const rfi = await purposeRfi(maria, 'rule dropped after approval');
    const q = rfi.questions[0]!;
    const profileId = maria.services.session.profile.id;
    const draft = {
      profileId,
      rfiId: rfi.id,
      questionId: q.id,
      questionType: 'transaction.purpose',
      text: 'Treasury of the Bremen branch',
      files: [] as string[],
    };
    await m['rfis.get']({ profileId, id: rfi.id, refresh: true });
    await j['rfis.get']({ profileId: jonas.services.session.profile.id, id: rfi.id, refresh: true });
    const asked = await m['team.askApproval'](draft);
    await expect.poll(async () => (await j['team.approvals']({ rfiId: rfi.id }))[0]?.mayDecide).toBe(true);
    await approveAnswer(
      jonas,
      { rfiId: rfi.id, questionId: q.id },
      { approvalId: asked.approvalId!, contentHash: asked.contentHash },
    );
    const sees = () => m['team.answerApproval']({ profileId, rfiId: rfi.id, questionId: q.id });
    await expect.poll(sees).toMatchObject({ covers: true });

    // The admin drops every rule: by the rules now, the answer needs no checker.
    try {
      await m['team.setApprovalRules']({ legalEntityId: entity, rules: [] });
      await expect.poll(sees).toMatchObject({ required: false, covers: true });

      // Sent as the approval's send job, not as a solo answer: one job, done with the bank's response.
      const answer = await m['answers.submit'](draft);
      await expect
        .poll(() => maria.services.rfiAnswers.outbox.get(answer.id)?.state, { timeout: 20_000 })
        .toBe('sent');
      const responseId = maria.services.rfiAnswers.outbox.get(answer.id)!.responseId;
      await expect
        .poll(
          async () =>
            (
              await stack.sql.query(
                'SELECT status, bank_reference, leased_by FROM send_jobs WHERE legal_entity_id = $1 AND object_id = $2',
                [entity, q.id],
              )
            ).rows,
        )
        .toEqual([{ status: 'done', bank_reference: responseId, leased_by: 'maria.keller' }]);
      const atBank = (await m['rfis.get']({ profileId, id: rfi.id, refresh: true })).rfi;
      expect(
        atBank.questions.find((x) => x.id === q.id)!.responses.filter((r) => r.responder_type === 'customer'),
      ).toHaveLength(1);
    } finally {
      await m['team.setApprovalRules']({ legalEntityId: entity, rules });
    }
  });

  it('asking and approving while the team server is away are queued durably, shown as pending, and sent when it is back', async () => {
    const m = maria.services.handlers;
    const j = jonas.services.handlers;
    const le = maria.services.sandbox!.fixtures.legal_entities[0]!;
    const rfi = await staffOf(maria.services).createRfi({
      type: 'account',
      related_id: le.accounts[0]!.id,
      description: 'offline four eyes',
      questions: [
        { question_type: 'identification.individual.passport', question_text: 'Passport' },
        {
          question_type: 'identification.individual.passport',
          question_text: 'Passport of the second director',
        },
      ],
    });
    const [q1, q2] = rfi.questions;
    await m['rfis.get']({ profileId: maria.services.session.profile.id, id: rfi.id, refresh: true });
    await j['rfis.get']({ profileId: jonas.services.session.profile.id, id: rfi.id, refresh: true });
    const draft = (questionId: string, ref: string) => ({
      profileId: maria.services.session.profile.id,
      rfiId: rfi.id,
      questionId,
      questionType: 'identification.individual.passport',
      text: '',
      files: [ref],
    });
    const asked = await m['team.askApproval'](
      draft(q1!.id, await stagePdf(maria, documentAround('pdf', Buffer.from('ONE')), 'one.pdf')),
    );
    await expect.poll(async () => (await j['team.approvals']({ rfiId: rfi.id })).length).toBe(1);

    const port = Number(new URL(stack.server.url).port);
    await stack.server.close();
    await expect.poll(async () => (await m['team.status'](undefined)).connection).toBe('unreachable');

    const approving = await approveAnswer(
      jonas,
      { rfiId: rfi.id, questionId: q1!.id },
      { approvalId: asked.approvalId!, contentHash: asked.contentHash },
    );
    expect(approving).toMatchObject({
      queued: 'approve',
      words: 'Approved by you (waiting for the team server).',
    });
    const asking = await m['team.askApproval'](
      draft(q2!.id, await stagePdf(maria, documentAround('pdf', Buffer.from('TWO')), 'two.pdf')),
    );
    expect(asking).toMatchObject({
      queued: 'ask',
      approvalId: null,
      words: 'Asking for approval by a checker (waiting for the team server).',
    });
    // In the durable outbox (sealed at rest), in each analyst's name.
    expect(maria.services.approvals.book.queue.all().map((x) => [x.op, x.objectId, x.subject])).toEqual([
      ['ask', q2!.id, 'maria.keller'],
    ]);
    expect(jonas.services.approvals.book.queue.all().map((x) => [x.op, x.objectId, x.subject])).toEqual([
      ['approve', q1!.id, 'jonas.weber'],
    ]);

    restarted = await startTeamServer({
      databaseUrl: stack.databaseUrl,
      auth: { issuer: inject('teamIssuer'), audience: inject('teamAudience') },
      port,
    });
    await expect
      .poll(
        async () => [
          (await approvalRows(q1!.id)).at(-1)?.status,
          (await approvalRows(q2!.id)).at(-1)?.status,
        ],
        {
          timeout: 20_000,
        },
      )
      .toEqual(['approved', 'pending']);
    expect((await approvalRows(q1!.id)).at(-1)).toMatchObject({
      maker: 'maria.keller',
      checker: 'jonas.weber',
    });
    await expect
      .poll(
        async () =>
          (
            await m['team.answerApproval']({
              profileId: maria.services.session.profile.id,
              rfiId: rfi.id,
              questionId: q1!.id,
            })
          ).approval?.words,
        {
          timeout: 10_000,
        },
      )
      .toBe('Approved by Jonas Weber.');
    // Each queued job leaves the outbox once its outcome is stored.
    await expect.poll(() => maria.services.approvals.book.queue.all()).toEqual([]);
  });

  it('a workstation started while the team server is away holds an answer a rule may cover: by the rules it last read, or, never read, until the server answers', async () => {
    const rfi = await purposeRfi(maria, 'rules while away');
    const q = rfi.questions[0]!;
    const draft = {
      rfiId: rfi.id,
      questionId: q.id,
      questionType: 'transaction.purpose',
      text: 'Payroll of the Hamburg branch',
      files: [],
    };
    const customerResponses = async () =>
      (
        await maria.services.handlers['rfis.get']({
          profileId: maria.services.session.profile.id,
          id: rfi.id,
          refresh: true,
        })
      ).rfi.questions
        .find((x) => x.id === q.id)!
        .responses.filter((r) => r.responder_type === 'customer');
    // The rules Jonas's workstation read are kept in its data folder, sealed like every store.
    const rulesFile = path.join(jonas.dataDir, 'state', 'team-rules.json');
    expect(isSealed(await readFile(rulesFile))).toBe(true);

    const dataDir = jonas.dataDir;
    await jonas.stop();
    const port = Number(new URL(stack.server.url).port);
    await (restarted ?? stack.server).close();
    restarted = null;

    // Started with the team server away: the rules last read say a checker is needed.
    jonas = await openJonas(dataDir);
    let j = jonas.services.handlers;
    await expect.poll(async () => (await j['team.status'](undefined)).connection).toBe('unreachable');
    await j['rfis.get']({ profileId: jonas.services.session.profile.id, id: rfi.id, refresh: true });
    await j['drafts.save']({ ...draft, profileId: jonas.services.session.profile.id });
    expect(
      await j['team.answerApproval']({
        profileId: jonas.services.session.profile.id,
        rfiId: rfi.id,
        questionId: q.id,
      }),
    ).toMatchObject({
      required: true,
      covers: false,
      held: null,
    });
    await expect(
      j['answers.submit']({ ...draft, profileId: jonas.services.session.profile.id }),
    ).rejects.toMatchObject({
      kind: 'precondition',
      reason: 'APPROVAL_REQUIRED',
    });
    const asking = await j['team.askApproval']({ ...draft, profileId: jonas.services.session.profile.id });
    expect(asking).toMatchObject({
      queued: 'ask',
      words: 'Asking for approval by a checker (waiting for the team server).',
    });

    // The rules never read on this workstation (their file gone): the answer waits, it is not sent solo.
    await jonas.stop();
    await rm(rulesFile);
    jonas = await openJonas(dataDir);
    j = jonas.services.handlers;
    await expect.poll(async () => (await j['team.status'](undefined)).connection).toBe('unreachable');
    await j['rfis.get']({ profileId: jonas.services.session.profile.id, id: rfi.id, refresh: true });
    const held = await j['team.answerApproval']({
      profileId: jonas.services.session.profile.id,
      rfiId: rfi.id,
      questionId: q.id,
    });
    expect(held).toMatchObject({
      required: null,
      held: expect.stringContaining('waits for the team server'),
    });
    await expect(
      j['answers.submit']({ ...draft, profileId: jonas.services.session.profile.id }),
    ).rejects.toMatchObject({
      kind: 'precondition',
      reason: 'TEAM_RULES_UNKNOWN',
      message: held.held,
    });
    expect(jonas.services.rfiAnswers.outbox.list(rfi.id)).toEqual([]);
    expect(await customerResponses()).toEqual([]);

    // The team server back: the rules are read (and kept) again, the queued request lands in Jonas's name.
    restarted = await startTeamServer({
      databaseUrl: stack.databaseUrl,
      auth: { issuer: inject('teamIssuer'), audience: inject('teamAudience') },
      port,
    });
    await expect
      .poll(
        async () =>
          await j['team.answerApproval']({
            profileId: jonas.services.session.profile.id,
            rfiId: rfi.id,
            questionId: q.id,
          }),
        {
          timeout: 20_000,
        },
      )
      .toMatchObject({ required: true, held: null, approval: { status: 'pending', queued: null } });
    expect((await approvalRows(q.id)).map((r) => [r.status, r.maker])).toEqual([['pending', 'jonas.weber']]);
    expect(isSealed(await readFile(rulesFile))).toBe(true);
    expect(await customerResponses()).toEqual([]);
  });
});
