import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index';
import type { RunningSandbox } from '../../src/sandbox/index';
import { documentAround } from '../support/documents';
import { staffOf } from '../support/sandbox-staff';
import { startServices, tempDir } from '../support/services';
import type { TestServices } from '../support/services';
import { writeFile } from 'node:fs/promises';

/**
 * Staged files and locker attachments belong to a profile (bank + credential) from the moment
 * they are staged: a file staged for one profile's answer is refused in another profile's
 * answer, and the locker records which profile's RFI each use answered, so two banks that use the
 * same RFI id never mix. Real sandbox(es) over HTTP, real keychain (scripts/with-keyring.sh).
 */

beforeAll(() => {
  if (process.platform === 'linux' && !process.env['DBUS_SESSION_BUS_ADDRESS']) {
    throw new Error('No session bus: run the keychain tests under scripts/with-keyring.sh.');
  }
});

let t: TestServices | null = null;
let other: RunningSandbox | null = null;
afterEach(async () => {
  await t?.close();
  await other?.close();
  t = null;
  other = null;
});

/** A passport added to the locker through main's picker. */
async function addPassport(s: TestServices, work: string, holder: string) {
  const passport = path.join(work, `passport-${randomUUID().slice(0, 8)}.pdf`);
  await writeFile(passport, documentAround('pdf', Buffer.from('PASSPORT')));
  s.platform.nextDialogAnswers.push([passport]);
  const added = await s.services.handlers['locker.add']({
    source: { from: 'picker' },
    documentType: 'passport',
    holder: { kind: 'person', name: holder },
  });
  return added.document!;
}

async function waitSent(s: TestServices, id: string): Promise<void> {
  await expect
    .poll(() => s.services.rfiAnswers.outbox.get(id)?.state, { timeout: 30_000, interval: 50 })
    .toBe('sent');
}

it("a file staged for one entity's answer is refused in another's, and goes to its own", async () => {
  const work = await tempDir();
  t = await startServices({
    dataDir: path.join(work, 'data'),
    rfiAnswers: { retry: { baseMs: 50, maxMs: 200 } },
  });
  const s = t;
  const h = s.services.handlers;
  const sandbox = s.services.sandbox!;
  const [leA, leB] = sandbox.fixtures.legal_entities;
  const idA = s.services.session.profile.id;
  s.platform.nextConfirmAnswers.push(true);
  const view = await h['settings.addProfile']({ name: 'Birch', baseUrl: sandbox.url });
  const idB = view.profiles.find((p) => p.name === 'Birch')!.id;
  await h['vault.setToken']({ profileId: idB, token: leB!.tokens.admin });
  await expect.poll(() => s.services.entityWatch.watched().has(idB), { timeout: 15_000 }).toBe(true);

  const staff = staffOf(s.services);
  const ask = (accountId: string) =>
    staff.createRfi({
      type: 'account',
      related_id: accountId,
      description: `Owner probe ${randomUUID().slice(0, 8)}`,
      questions: [{ question_type: 'transaction.supporting_documents', question_text: 'Contracts?' }],
    });
  const rfiA = await ask(leA!.accounts[0]!.id);
  const rfiB = await ask(leB!.accounts[0]!.id);
  await expect
    .poll(
      () =>
        s.services.entityWatch.owner(rfiB.id, idB).then(
          (m) => m.profileId,
          () => null,
        ),
      {
        timeout: 15_000,
      },
    )
    .toBe(idB);

  // Dropped for Birch's answer (the row's profile is named when staging begins).
  const bytes = documentAround('pdf', Buffer.from('BIRCH CONTRACT'));
  const begun = await h['files.stageDropped']({
    op: 'begin',
    name: 'birch-contract.pdf',
    contentType: 'application/pdf',
    sizeBytes: bytes.length,
    documentType: 'transaction_supporting_document',
    profileId: idB,
  });
  await h['files.stageDropped']({
    op: 'chunk',
    stagingId: begun.stagingId!,
    offset: 0,
    data: bytes.toString('base64'),
  });
  const file = (await h['files.stageDropped']({ op: 'commit', stagingId: begun.stagingId! })).file!;
  expect(s.services.rfiAnswers.files.resolve(file.ref).profileId).toBe(idB);

  const answer = (rfiId: string, questionId: string, profileId: string, files: string[]) =>
    h['answers.submit']({
      profileId,
      rfiId,
      questionId,
      questionType: 'transaction.supporting_documents',
      text: '',
      files,
    });
  // In Alder's answer: refused, typed, by name; nothing queued, nothing at the bank.
  await expect(answer(rfiA.id, rfiA.questions[0]!.id, idA, [file.ref])).rejects.toMatchObject({
    kind: 'invalid_argument',
    reason: 'file_of_another_profile',
  });
  expect(s.services.rfiAnswers.outbox.list(rfiA.id)).toEqual([]);
  // A draft of Alder's cannot take it either.
  await expect(
    h['drafts.save']({
      profileId: idA,
      rfiId: rfiA.id,
      questionId: rfiA.questions[0]!.id,
      questionType: 'transaction.supporting_documents',
      text: '',
      files: [file.ref],
    }),
  ).rejects.toMatchObject({ reason: 'file_of_another_profile' });

  // In Birch's answer it goes, and the bank shows it on Birch's RFI.
  const sent = await answer(rfiB.id, rfiB.questions[0]!.id, idB, [file.ref]);
  await waitSent(s, sent.id);
  const atBank = await s.services.entityWatch.member(idB)!.session.bank.getRfi(rfiB.id);
  const docs = atBank.questions[0]!.responses.flatMap((r) =>
    Object.values(r.response).flatMap((c) => c.document_ids),
  );
  expect(docs).toEqual([s.services.rfiAnswers.outbox.get(sent.id)!.documents[0]!.documentId]);

  // A file picked without a profile is bound by the first answer that uses it (here a draft of
  // Alder's), and refused in Birch's from then on.
  const picked = path.join(work, 'alder.pdf');
  await writeFile(picked, documentAround('pdf', Buffer.from('ALDER CONTRACT')));
  const [loose] = (
    await s.services.rfiAnswers.files.registerPicked([picked], 'transaction_supporting_document')
  ).files;
  expect(s.services.rfiAnswers.files.resolve(loose!.ref).profileId).toBeNull();
  await h['drafts.save']({
    profileId: idA,
    rfiId: rfiA.id,
    questionId: rfiA.questions[0]!.id,
    questionType: 'transaction.supporting_documents',
    text: '',
    files: [loose!.ref],
  });
  expect(s.services.rfiAnswers.files.resolve(loose!.ref).profileId).toBe(idA);
  await expect(answer(rfiB.id, rfiB.questions[0]!.id, idB, [loose!.ref])).rejects.toMatchObject({
    reason: 'file_of_another_profile',
  });

  // A locker document attached to Birch's RFI is staged for Birch, the profile the page names;
  // naming Alder for Birch's RFI (not one of Alder's) is refused, and nothing is staged.
  const doc = await addPassport(s, work, 'Ada Birch');
  await expect(
    h['locker.attach']({ id: doc.id, rfiId: rfiB.id, questionId: rfiB.questions[0]!.id, profileId: idA }),
  ).rejects.toMatchObject({ kind: 'not_found', field: 'rfiId' });
  const attached = await h['locker.attach']({
    id: doc.id,
    rfiId: rfiB.id,
    questionId: rfiB.questions[0]!.id,
    profileId: idB,
  });
  expect(s.services.rfiAnswers.files.resolve(attached.ref).profileId).toBe(idB);
  await expect(answer(rfiA.id, rfiA.questions[0]!.id, idA, [attached.ref])).rejects.toMatchObject({
    reason: 'file_of_another_profile',
  });
  const used = (await h['locker.list'](undefined)).documents.find((d) => d.id === doc.id)!.usedBy;
  expect(used).toMatchObject([{ rfiId: rfiB.id, profileId: idB }]);
}, 120_000);

it('two banks with the same RFI id: the locker keeps each use with its own profile and status', async () => {
  const work = await tempDir();
  t = await startServices({ dataDir: path.join(work, 'data') });
  const s = t;
  const h = s.services.handlers;
  const first = s.services.sandbox!;
  // A second bank seeded alike: its RFI ids are the first one's.
  other = await startSandbox({ visibilityDelayMs: { min: 0, max: 0 }, seed: first.options.seed });
  const rfiId = first.fixtures.legal_entities[0]!.rfi_ids[0]!;
  expect(other.fixtures.legal_entities[0]!.rfi_ids[0]).toBe(rfiId);

  const idA = s.services.session.profile.id;
  s.platform.nextConfirmAnswers.push(true);
  const view = await h['settings.addProfile']({ name: 'Other bank', baseUrl: other.url });
  const idC = view.profiles.find((p) => p.name === 'Other bank')!.id;
  await h['vault.setToken']({ profileId: idC, token: other.fixtures.legal_entities[0]!.tokens.admin });
  await expect.poll(() => s.services.entityWatch.watched().has(idC), { timeout: 30_000 }).toBe(true);
  const statusOf = async (profileId: string) =>
    (await s.services.entityWatch.member(profileId)!.rfis.get(rfiId, true)).rfi;
  const atA = await statusOf(idA);
  const atC = await statusOf(idC);

  const doc = await addPassport(s, work, 'Ada Alder');
  const q = atA.questions[0]!.id;
  const forA = await h['locker.attach']({ id: doc.id, rfiId, questionId: q, profileId: idA });
  const forC = await h['locker.attach']({ id: doc.id, rfiId, questionId: q, profileId: idC });
  const used = (await h['locker.list'](undefined)).documents.find((d) => d.id === doc.id)!.usedBy;
  // One use per bank, each named by its profile, its status read through that profile's own cache.
  expect(used).toHaveLength(2);
  expect(Object.fromEntries(used.map((u) => [u.profileId, u.rfiStatus]))).toEqual({
    [idA]: atA.status,
    [idC]: atC.status,
  });
  expect(used.map((u) => u.rfiId)).toEqual([rfiId, rfiId]);
  // Each staged copy is bound to the bank it was attached for, and refused in the other's answer.
  expect(s.services.rfiAnswers.files.resolve(forA.ref).profileId).toBe(idA);
  expect(s.services.rfiAnswers.files.resolve(forC.ref).profileId).toBe(idC);
  await expect(
    h['drafts.save']({
      profileId: idC,
      rfiId,
      questionId: q,
      questionType: atC.questions[0]!.question_type,
      text: '',
      files: [forA.ref],
    }),
  ).rejects.toMatchObject({ reason: 'file_of_another_profile' });
}, 120_000);
