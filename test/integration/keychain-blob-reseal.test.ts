import { createHash, randomUUID } from 'node:crypto';
import { cp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, expect, it } from 'vitest';
import { documentAround } from '../support/documents';
import { filesUnder } from '../support/files';
import { keychainRuns } from '../support/keychain-runs';
import { lockable } from '../support/lockable-keyring';
import { staffOf } from '../support/sandbox-staff';
import { stageDropped } from '../support/staging';
import { tempDir } from '../support/services';
import type { TestServices } from '../support/services';

/**
 * Document blobs (files staged for an answer, the locker's copies) written plain while the
 * keychain did not answer are sealed in place once it answers: no plain byte of them is left in
 * the data folder, their sha256 does not change, an upload reading one at that moment still sends
 * the right bytes (the bank's sha256 says so), and a kill between the re-seal's steps is finished
 * or cleaned up at the next start. The real Secret Service (scripts/with-keyring.sh), refusing
 * every call until the test unlocks it; the real embedded sandbox over HTTP.
 */

const runs = keychainRuns();
const { real, newService, start } = runs;
afterEach(() => runs.cleanup());

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** Files (relative paths) whose bytes hold `needle` in plain text. */
async function holding(dataDir: string, needle: string): Promise<string[]> {
  return [...(await filesUnder(dataDir))].filter(([, b]) => b.includes(needle)).map(([f]) => f);
}

/** A PDF of about `mib` MiB whose every MiB holds `marker` in clear. */
function documentWith(marker: string, mib = 1): Buffer {
  const block = Buffer.alloc(1024 * 1024, 0x20);
  block.write(marker, 17, 'latin1');
  return documentAround('pdf', Buffer.concat(Array.from({ length: mib }, () => block)));
}

/** Drops `bytes` as a file of an answer (the page's chunks). */
const stage = (t: TestServices, bytes: Buffer, name: string): Promise<string> =>
  stageDropped(t, bytes, { name, documentType: 'transaction_supporting_document' });

/** A fresh RFI with one document question; answers it with `refs` and waits until it is sent. */
async function send(t: TestServices, refs: string[], wait = true): Promise<string> {
  const le = t.services.sandbox!.fixtures.legal_entities[0]!;
  const rfi = await staffOf(t.services).createRfi({
    type: 'account',
    related_id: le.accounts[0]!.id,
    description: 'Documents for the re-seal',
    questions: [{ question_type: 'transaction.supporting_documents', question_text: 'Documents?' }],
  });
  const sent = await t.services.handlers['answers.submit']({
    profileId: t.services.session.profile.id,
    rfiId: rfi.id,
    questionId: rfi.questions[0]!.id,
    questionType: 'transaction.supporting_documents',
    text: '',
    files: refs,
  });
  if (wait) await sentAnswer(t, sent.id);
  return sent.id;
}

async function sentAnswer(t: TestServices, id: string): Promise<void> {
  await expect
    .poll(() => t.services.rfiAnswers.outbox.get(id)?.state, { timeout: 30_000, interval: 50 })
    .toBe('sent');
}

/** The sha256 the bank computed of each document of a sent answer, in order. */
async function atBank(t: TestServices, answerId: string): Promise<Array<string | null>> {
  const staff = staffOf(t.services);
  const docs = t.services.rfiAnswers.outbox.get(answerId)!.documents;
  return Promise.all(docs.map(async (d) => (await staff.getDocument(d.documentId!)).sha256));
}

it('files staged and locker copies written plain while the keychain was locked are sealed when it answers, and send the same bytes', async () => {
  const tag = randomUUID().slice(0, 8);
  const work = await tempDir();
  const dataDir = path.join(work, 'data');
  const service = newService();
  const keychain = lockable(real);
  const t = await start(dataDir, service, keychain.backend);
  const h = t.services.handlers;
  expect(t.services.vault.status()).toMatchObject({ backend: 'memory', dataAtRest: 'unencrypted' });

  // A dropped file, a locker document, and that document attached to an answer (staged again).
  const dropped = documentWith(`STAGED-${tag}`, 2);
  const droppedRef = await stage(t, dropped, 'statement.pdf');
  const passport = documentWith(`LOCKER-${tag}`);
  const picked = path.join(work, 'passport.pdf');
  await writeFile(picked, passport);
  t.platform.nextDialogAnswers.push([picked]);
  const doc = (
    await h['locker.add']({
      source: { from: 'picker' },
      documentType: 'passport',
      holder: { kind: 'person', name: 'Ada Lovelace' },
    })
  ).document!;
  const rfiId = t.services.sandbox!.fixtures.legal_entities[0]!.rfi_ids[0]!;
  const attached = await h['locker.attach']({
    profileId: t.services.session.profile.id,
    id: doc.id,
    rfiId,
    questionId: 'q_1',
  });
  // Plain on disk while there is no key: the staged bytes and the locker's copy.
  expect((await holding(dataDir, `STAGED-${tag}`)).map((f) => path.dirname(f))).toEqual([
    'rfi-answers/staging',
  ]);
  expect((await holding(dataDir, `LOCKER-${tag}`)).map((f) => path.dirname(f)).sort()).toEqual([
    'locker/blobs',
    'rfi-answers/staging',
  ]);

  keychain.unlock();
  expect(await h['vault.status'](undefined)).toMatchObject({ backend: 'keychain', dataAtRest: 'encrypted' });
  // Sealed in place: no plain byte of either document anywhere in the data folder, no copy left.
  expect(await holding(dataDir, tag)).toEqual([]);
  const names = [...(await filesUnder(dataDir)).keys()];
  expect(names.filter((f) => f.endsWith('.resealed') || f.endsWith('.part'))).toEqual([]);
  expect(t.services.rfiAnswers.files.resolve(droppedRef)).toMatchObject({
    sealed: true,
    sha256: sha(dropped),
  });
  expect(t.services.rfiAnswers.files.resolve(attached.ref)).toMatchObject({
    sealed: true,
    sha256: sha(passport),
  });
  expect(t.services.stores.problems()).toEqual([]);

  // The same bytes as before: the locker reads its copy (checked against its sha256), and the bank
  // receives both staged files with the sha256 of what was dropped and kept.
  expect(sha((await t.services.locker.read(doc.id)).bytes)).toBe(sha(passport));
  const answerId = await send(t, [droppedRef, attached.ref]);
  expect(await atBank(t, answerId)).toEqual([sha(dropped), sha(passport)]);

  // A restart with the keychain reads the sealed copy as it is, with nothing to report.
  await t.stop();
  const again = await start(dataDir, service);
  expect(sha((await again.services.locker.read(doc.id)).bytes)).toBe(sha(passport));
  expect(again.services.stores.problems()).toEqual([]);
}, 120_000);

it('an upload reading a staged file when the keychain answers sends the right bytes while the file is sealed under it', async () => {
  const tag = randomUUID().slice(0, 8);
  const dataDir = path.join(await tempDir(), 'data');
  const keychain = lockable(real);
  const t = await start(dataDir, newService(), keychain.backend);
  const bytes = documentWith(`UPLOADING-${tag}`, 4);
  const ref = await stage(t, bytes, 'ledger.pdf');

  // The upload is held after its first MiB has gone out (its reader open on the plain file).
  const files = t.services.rfiAnswers.files;
  const source = files.source.bind(files);
  let reach!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((r) => (reach = r));
  const gate = new Promise<void>((r) => (release = r));
  files.source = (r) => {
    const inner = source(r);
    return {
      ...inner,
      open: () =>
        Readable.from(
          (async function* held() {
            let first = true;
            for await (const piece of inner.open()) {
              yield piece as Buffer;
              if (first) {
                first = false;
                reach();
                await gate;
              }
            }
          })(),
          { objectMode: false },
        ),
    };
  };
  const answerId = await send(t, [ref], false);
  await reached;

  // Meanwhile the keychain answers: the file is sealed in place under the running upload.
  keychain.unlock();
  expect(await t.services.handlers['vault.status'](undefined)).toMatchObject({ dataAtRest: 'encrypted' });
  expect(files.resolve(ref)).toMatchObject({ sealed: true, sha256: sha(bytes) });
  expect(await holding(dataDir, tag)).toEqual([]);
  expect((await readdir(path.join(dataDir, 'rfi-answers', 'staging'))).sort()).toEqual([`${ref}.bin`]);
  // A read opened now (while the upload is still held, so the ref is still staged) reads the
  // sealed file. After the answer is sent the staged file is released, so this cannot wait.
  const again = createHash('sha256');
  for await (const piece of source(ref).open()) again.update(piece as Buffer);
  expect(again.digest('hex')).toBe(sha(bytes));

  // The upload goes on from the plain bytes it opened: the bank has exactly the dropped file.
  release();
  await sentAnswer(t, answerId);
  expect(await atBank(t, answerId)).toEqual([sha(bytes)]);
  const uploaded = t.services.rfiAnswers.outbox.get(answerId)!.documents[0]!;
  expect(uploaded.sha256).toBe(sha(bytes));
}, 120_000);

it('a kill between the steps of a re-seal is finished or cleaned up at the next start', async () => {
  const tag = randomUUID().slice(0, 8);
  const work = await tempDir();
  const dataDir = path.join(work, 'data');
  const service = newService();
  // A run without the keychain stages a file plain.
  const keychain = lockable(real);
  const first = await start(dataDir, service, keychain.backend);
  const bytes = documentWith(`KILLED-${tag}`, 2);
  const ref = await stage(first, bytes, 'contract.pdf');
  await first.stop();
  const staged = (dir: string): string => path.join(dir, 'rfi-answers', 'staging', `${ref}.bin`);
  const plain = await readFile(staged(dataDir));
  expect(plain.includes(`KILLED-${tag}`)).toBe(true);
  // The folder as that run left it (record: plain), for the second case below.
  const snapshot = path.join(work, 'snapshot');
  await cp(dataDir, snapshot, { recursive: true });

  // A run with the keychain seals it at start.
  const second = await start(dataDir, service);
  expect(second.services.rfiAnswers.files.resolve(ref)).toMatchObject({ sealed: true, sha256: sha(bytes) });
  await second.stop();
  const sealed = await readFile(staged(dataDir));
  expect(await holding(dataDir, tag)).toEqual([]);

  // Killed after the record said "sealed" and before the sealed copy was renamed into place:
  // the plain file is still there, the complete sealed copy beside it. The next start finishes.
  await writeFile(staged(dataDir), plain);
  await writeFile(`${staged(dataDir)}.resealed`, sealed);
  expect(await holding(dataDir, tag)).toEqual([`rfi-answers/staging/${ref}.bin`]);
  const third = await start(dataDir, service);
  expect(await holding(dataDir, tag)).toEqual([]);
  // (Buffer.equals: a deep toEqual of 2 MB takes vitest half a minute.)
  expect((await readFile(staged(dataDir))).equals(sealed)).toBe(true);
  expect(await readdir(path.dirname(staged(dataDir)))).toEqual([`${ref}.bin`]);
  const answerId = await send(third, [ref]);
  expect(await atBank(third, answerId)).toEqual([sha(bytes)]);
  expect(third.services.stores.problems()).toEqual([]);
  await third.stop();

  // Killed after the sealed copy was written and before the record said so: the folder as the
  // keychain-less run left it (the record says plain; records name their blob by its path, so it
  // goes back where it was), the complete copy beside the plain file and the part of a second
  // attempt. The copies are deleted, the plain file stands and is sealed again at this start,
  // its bytes unchanged. (A keychain entry of its own: the one above remembers the later folder's
  // generations and would rightly call this one rolled back; the copy is deleted unread.)
  await rm(dataDir, { recursive: true, force: true });
  await cp(snapshot, dataDir, { recursive: true });
  await writeFile(`${staged(dataDir)}.resealed`, sealed);
  await writeFile(`${staged(dataDir)}.resealed.part`, sealed.subarray(0, 1000));
  expect(await holding(dataDir, tag)).toEqual([`rfi-answers/staging/${ref}.bin`]);
  const fourth = await start(dataDir, newService());
  expect(await holding(dataDir, tag)).toEqual([]);
  expect(await readdir(path.dirname(staged(dataDir)))).toEqual([`${ref}.bin`]);
  expect(fourth.services.rfiAnswers.files.resolve(ref)).toMatchObject({ sealed: true, sha256: sha(bytes) });
  const read = createHash('sha256');
  for await (const piece of fourth.services.rfiAnswers.files.source(ref).open()) read.update(piece as Buffer);
  expect(read.digest('hex')).toBe(sha(bytes));
  expect(fourth.services.stores.problems()).toEqual([]);
}, 180_000);
