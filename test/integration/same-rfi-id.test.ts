/**
 * Two banks that use the same RFI id (two sandboxes seeded alike, each behind its own recording
 * proxy), both watched, the first one the default. Every IPC call that acts on one RFI names the
 * profile that owns it and reaches that profile's bank only:
 *   - rfis.get (a fresh read) asks only the named profile's bank, and answers its RFI and entity;
 *   - rfis.markSeen clears only that profile's unread marker;
 *   - reminders.snooze / unsnooze hold back only that profile's RFI's reminders;
 *   - an unknown profile is a typed not_found on `profileId`, a missing one an invalid argument;
 *   - a case file may hold both banks' RFI of that id, each read through its own bank;
 *   - an answer (its draft and staged files too) goes through the named profile's bank only, and
 *     a file staged for the other profile, or a question its RFI does not have, is refused.
 * Real sandboxes over HTTP, real keychain (scripts/with-keyring.sh), calls through the dispatcher
 * with the renderer's schema checks.
 */
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { questionTypeInfo } from '../../src/shared/catalogue';
import { pdfText } from '../support/pdf-text';
import { stageDropped } from '../support/staging';
import { documentAround } from '../support/documents';
import { startSandbox } from '../../src/sandbox';
import type { RunningSandbox } from '../../src/sandbox';
import { startFaultProxy } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';
import { ipc, ipcError } from '../support/ipc';
import { startServices, tempDir } from '../support/services';

beforeAll(() => {
  if (process.platform === 'linux' && !process.env['DBUS_SESSION_BUS_ADDRESS']) {
    throw new Error('No session bus: run the keychain tests under scripts/with-keyring.sh.');
  }
});

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Requests about one RFI a bank received (its reads and writes, not the list polls). */
const about = (proxy: FaultProxy, rfiId: string) =>
  proxy.seen.filter((r) => r.path.split('?')[0]!.startsWith(`/v1/rfis/${rfiId}`));

async function twoBanksOneId() {
  const bankA: RunningSandbox = await startSandbox({ visibilityDelayMs: { min: 0, max: 0 } });
  closers.push(() => bankA.close());
  // Seeded alike: the second bank's RFI ids are the first one's.
  const bankB: RunningSandbox = await startSandbox({
    visibilityDelayMs: { min: 0, max: 0 },
    seed: bankA.options.seed,
  });
  closers.push(() => bankB.close());
  const proxyA = await startFaultProxy(bankA.url);
  closers.push(() => proxyA.close());
  const proxyB = await startFaultProxy(bankB.url);
  closers.push(() => proxyB.close());

  const leA = bankA.fixtures.legal_entities[0]!;
  const leB = bankB.fixtures.legal_entities[0]!;
  const t = await startServices({
    reminders: { hours: [168, 48, 24] },
    environment: { kind: 'remote', baseUrl: proxyA.url, name: 'Alder', token: leA.tokens.admin },
    rfis: {
      poll: { intervalMs: 600_000, floorMs: 600_000, jitter: 0 },
      webhook: { autoConfigureSandbox: false },
    },
  });
  closers.push(() => t.close());
  const idA = t.services.session.profile.id;
  t.platform.nextConfirmAnswers.push(true);
  const view = await ipc(t, 'settings.addProfile', { name: 'Birch', baseUrl: proxyB.url });
  const idB = view.profiles.find((p) => p.name === 'Birch')!.id;
  await ipc(t, 'vault.setToken', { profileId: idB, token: leB.tokens.admin });
  await expect.poll(() => t.services.entityWatch.watched().has(idB), { timeout: 30_000 }).toBe(true);

  // The same RFI id at both banks, awaiting our answer with a running deadline.
  const rows = async (profileId: string) => (await ipc(t, 'rfis.list', { profileId })).items;
  await expect.poll(async () => (await rows(idB)).length, { timeout: 30_000 }).toBeGreaterThan(0);
  const inB = new Set((await rows(idB)).filter((r) => r.awaitingAction && r.deadline).map((r) => r.id));
  // (The one with the latest deadline: its last reminder is still ahead, so it can be snoozed.)
  const shared = (await rows(idA))
    .filter((r) => r.awaitingAction && r.deadline && inB.has(r.id))
    .sort((a, b) => Date.parse(b.deadline!) - Date.parse(a.deadline!))[0];
  expect(shared, 'both banks hold an RFI awaiting action under one id').toBeDefined();
  return { t, proxyA, proxyB, idA, idB, rfiId: shared!.id, rows, leA, leB };
}

it('rfis.get and rfis.markSeen reach only the named profile’s bank and cache', async () => {
  const { t, proxyA, proxyB, idA, idB, rfiId, rows } = await twoBanksOneId();
  proxyA.seen.length = 0;
  proxyB.seen.length = 0;

  const atB = await ipc(t, 'rfis.get', { profileId: idB, id: rfiId, refresh: true });
  expect(atB.fromCache).toBe(false);
  expect(atB.owner?.profileId).toBe(idB);
  expect(atB.summary.profileId).toBe(idB);
  expect(about(proxyB, rfiId).length).toBeGreaterThan(0);
  expect(about(proxyA, rfiId)).toEqual([]);

  proxyB.seen.length = 0;
  const atA = await ipc(t, 'rfis.get', { profileId: idA, id: rfiId, refresh: true });
  expect(atA.owner?.profileId).toBe(idA);
  expect(about(proxyA, rfiId).length).toBeGreaterThan(0);
  expect(about(proxyB, rfiId)).toEqual([]);

  // Both rows start unread; marking B's seen leaves A's unread.
  const unread = async (profileId: string) => (await rows(profileId)).find((r) => r.id === rfiId)!.unread;
  expect([await unread(idA), await unread(idB)]).toEqual([true, true]);
  const seen = await ipc(t, 'rfis.markSeen', { profileId: idB, id: rfiId, updatedAt: atB.rfi.updated_at });
  expect(seen.summary).toMatchObject({ id: rfiId, profileId: idB, unread: false });
  expect([await unread(idA), await unread(idB)]).toEqual([true, false]);

  // An unknown profile is refused as such; the owner must be named.
  expect(await ipcError(t, 'rfis.get', { profileId: 'no-such-profile', id: rfiId })).toMatchObject({
    kind: 'not_found',
    field: 'profileId',
  });
  expect(await ipcError(t, 'rfis.markSeen', { profileId: 'no-such-profile', id: rfiId })).toMatchObject({
    kind: 'not_found',
    field: 'profileId',
  });
  expect(await ipcError(t, 'rfis.get', { id: rfiId })).toMatchObject({ kind: 'invalid_argument' });
  expect(await ipcError(t, 'rfis.markSeen', { id: rfiId })).toMatchObject({ kind: 'invalid_argument' });
  expect([await unread(idA), await unread(idB)]).toEqual([true, false]);
}, 120_000);

it('a snooze holds back only the named profile’s RFI, and is cancelled only there', async () => {
  const { t, idA, idB, rfiId } = await twoBanksOneId();
  const snoozes = async () => (await ipc(t, 'reminders.snoozes', undefined)).snoozes;

  const made = await ipc(t, 'reminders.snooze', { profileId: idB, rfiId, choice: '1d' });
  expect(made).toMatchObject({ rfiId, profileId: idB });
  expect((await snoozes()).map((s) => [s.profileId, s.rfiId])).toEqual([[idB, rfiId]]);
  // Cancelling A's (there is none) leaves B's in place.
  expect(await ipc(t, 'reminders.unsnooze', { profileId: idA, rfiId })).toEqual({
    profileId: idA,
    rfiId,
    cancelled: false,
  });
  expect((await snoozes()).map((s) => [s.profileId, s.rfiId])).toEqual([[idB, rfiId]]);

  // A snooze of A's RFI is a second snooze, not B's replaced.
  await ipc(t, 'reminders.snooze', { profileId: idA, rfiId, choice: '3d' });
  expect((await snoozes()).map((s) => s.profileId).sort()).toEqual([idA, idB].sort());
  expect(await ipc(t, 'reminders.unsnooze', { profileId: idB, rfiId })).toMatchObject({ cancelled: true });
  expect((await snoozes()).map((s) => [s.profileId, s.rfiId])).toEqual([[idA, rfiId]]);

  expect(
    await ipcError(t, 'reminders.snooze', { profileId: 'no-such-profile', rfiId, choice: '1d' }),
  ).toMatchObject({ kind: 'not_found', field: 'profileId' });
  expect(await ipcError(t, 'reminders.unsnooze', { profileId: 'no-such-profile', rfiId })).toMatchObject({
    kind: 'not_found',
    field: 'profileId',
  });
  expect((await snoozes()).map((s) => [s.profileId, s.rfiId])).toEqual([[idA, rfiId]]);
}, 120_000);

it('one case file holds both banks’ RFI of the same id, each read through its own bank', async () => {
  const { t, proxyA, proxyB, idA, idB, rfiId, leA, leB } = await twoBanksOneId();
  const dir = await tempDir('td-same-id-case-');
  closers.push(() => rm(dir, { recursive: true, force: true }));
  proxyA.seen.length = 0;
  proxyB.seen.length = 0;
  t.platform.nextSaveAnswers.push(path.join(dir, 'both.pdf'));
  const r = await ipc(t, 'caseFiles.export', {
    rfis: [
      { profileId: idA, rfiId },
      { profileId: idB, rfiId },
    ],
    zip: true,
  });
  expect(r).toMatchObject({ path: path.join(dir, 'both.pdf'), zipPath: path.join(dir, 'both.zip'), rfis: 2 });
  // Each bank was asked about its own RFI (and only its own profile's token reached it).
  expect(about(proxyA, rfiId).length).toBeGreaterThan(0);
  expect(about(proxyB, rfiId).length).toBeGreaterThan(0);

  const zip = unzipSync(new Uint8Array(await readFile(r.zipPath!)));
  const manifest = JSON.parse(new TextDecoder().decode(zip['manifest.json'])) as {
    rfis: Array<{ rfiId: string; legalEntity: string; environment: string }>;
  };
  expect(manifest.rfis).toEqual([
    expect.objectContaining({ rfiId, legalEntity: leA.name, environment: 'Alder' }),
    expect.objectContaining({ rfiId, legalEntity: leB.name, environment: 'Birch' }),
  ]);
  const text = (await pdfText(r.path!)).replace(/\s+/g, ' ');
  expect(text).toContain('Case file: 2 RFIs');
  expect(text.split(`RFI ${rfiId} `).length - 1).toBeGreaterThanOrEqual(2);
  expect(text).toMatch(/read by .+ from Alder/);
  expect(text).toMatch(/read by .+ from Birch/);

  // The owner must be named and known; an RFI the named profile does not have is refused.
  expect(await ipcError(t, 'caseFiles.export', { rfiIds: [rfiId], zip: false })).toMatchObject({
    kind: 'invalid_argument',
  });
  expect(
    await ipcError(t, 'caseFiles.export', { rfis: [{ profileId: 'no-such-profile', rfiId }], zip: false }),
  ).toMatchObject({ kind: 'not_found', field: 'profileId' });
}, 120_000);

it('an answer goes only to the named profile’s bank; another profile’s file or a question its RFI lacks is refused', async () => {
  const { t, proxyA, proxyB, idA, idB, rfiId } = await twoBanksOneId();
  const detail = await ipc(t, 'rfis.get', { profileId: idB, id: rfiId });
  const q = detail.rfi.questions.find(
    (x) => x.status === 'action_required' && questionTypeInfo(x.question_type).expects !== 'documents',
  );
  expect(q, 'the RFI has a question that takes a text').toBeDefined();
  const content = { rfiId, questionId: q!.id, questionType: q!.question_type, text: 'Freight for Birch.' };

  // No owner, an unknown one, or a question this RFI does not have: refused, nothing queued.
  expect(await ipcError(t, 'answers.submit', { ...content, files: [] })).toMatchObject({
    kind: 'invalid_argument',
  });
  expect(
    await ipcError(t, 'answers.submit', { ...content, profileId: 'no-such-profile', files: [] }),
  ).toMatchObject({ kind: 'not_found', field: 'profileId' });
  expect(
    await ipcError(t, 'drafts.save', { ...content, profileId: idB, questionId: 'q_not_there', files: [] }),
  ).toMatchObject({ kind: 'not_found', field: 'questionId' });
  expect(
    await ipcError(t, 'files.pick', { documentType: 'other', profileId: 'no-such-profile' }),
  ).toMatchObject({ kind: 'not_found', field: 'profileId' });
  expect(
    await ipcError(t, 'files.stageDropped', {
      op: 'begin',
      name: 'a.pdf',
      contentType: 'application/pdf',
      sizeBytes: 10,
      documentType: 'other',
      profileId: 'no-such-profile',
    }),
  ).toMatchObject({ kind: 'not_found', field: 'profileId' });

  // A file staged for Alder's answer is refused in Birch's answer of the same RFI id.
  const pdf = documentAround('pdf', Buffer.from('ALDER ONLY'));
  const forA = await stageDropped(t, pdf, { name: 'alder.pdf', profileId: idA });
  expect(
    await ipcError(t, 'answers.submit', { ...content, text: '', profileId: idB, files: [forA] }),
  ).toMatchObject({ kind: 'invalid_argument', reason: 'file_of_another_profile' });
  // A file dropped into the evidence locker is no answer's.
  const forLocker = await ipc(t, 'files.stageDropped', {
    op: 'beginForLocker',
    name: 'locker.pdf',
    contentType: 'application/pdf',
    sizeBytes: pdf.length,
    documentType: 'other',
  });
  await ipc(t, 'files.stageDropped', {
    op: 'chunk',
    stagingId: forLocker.stagingId,
    offset: 0,
    data: pdf.toString('base64'),
  });
  const lockerRef = (await ipc(t, 'files.stageDropped', { op: 'commit', stagingId: forLocker.stagingId }))
    .file!.ref;
  expect(
    await ipcError(t, 'drafts.save', { ...content, text: '', profileId: idB, files: [lockerRef] }),
  ).toMatchObject({ kind: 'invalid_argument', reason: 'file_of_another_profile' });
  expect(t.services.rfiAnswers.outbox.list()).toEqual([]);

  // Birch's answer goes to Birch's bank only, although Alder is the default profile.
  proxyA.seen.length = 0;
  proxyB.seen.length = 0;
  const a = await ipc(t, 'answers.submit', { ...content, profileId: idB, files: [] });
  expect(a.bank?.profileId).toBe(idB);
  await expect
    .poll(() => t.services.rfiAnswers.outbox.get(a.id)?.state, { timeout: 30_000, interval: 50 })
    .toBe('sent');
  expect(about(proxyB, rfiId).some((r) => r.method === 'POST')).toBe(true);
  expect(about(proxyA, rfiId)).toEqual([]);
  expect((await ipc(t, 'drafts.get', { profileId: idA, rfiId })).drafts).toEqual([]);
}, 120_000);
