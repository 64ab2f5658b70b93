import { createHash } from 'node:crypto';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { staffOf } from '../support/sandbox-staff';
import { startServices, tempDir } from '../support/services';
import type { TestServices } from '../support/services';
import { pdfDocument, pngImage } from '../support/documents';

/**
 * The evidence locker in the real services over the embedded sandbox: documents added through
 * the native picker (the headless platform answers it), checked, hashed and sealed; reused in
 * answers through the normal outbox (the sandbox's stored sha256 is the judge); expiry warnings
 * once per document and threshold, also across a restart; bad files refused by name.
 */

let t: TestServices;
let dir: string;
const MAX = 300_000;

const pdfBytes = (fill: number, size = 20_000): Buffer => pdfDocument(size, fill);
const pngBytes = (): Buffer => pngImage(5_000);
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** YYYY-MM-DD, `days` after the bank's today. */
function bankDay(days: number): string {
  const now = t.services.clock.now();
  return new Date(Math.floor(now / 86_400_000) * 86_400_000 + days * 86_400_000).toISOString().slice(0, 10);
}

async function start(dataDir?: string): Promise<void> {
  t = await startServices({
    ...(dataDir ? { dataDir } : {}),
    rfiAnswers: { retry: { baseMs: 50, maxMs: 200 }, maxUploadBytes: MAX },
    rfis: { autoStart: false },
  });
}

async function addPicked(
  file: string,
  meta: Partial<Parameters<TestServices['services']['locker']['add']>[1]> = {},
) {
  t.platform.nextDialogAnswers.push([file]);
  return t.services.handlers['locker.add']({
    source: { from: 'picker' },
    documentType: 'passport',
    holder: { kind: 'person', name: 'Ada Lovelace' },
    ...meta,
  });
}

async function waitSent(id: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const s = t.services.rfiAnswers.outbox.get(id)?.state;
    if (s === 'sent') return;
    if (s === 'failed' || s === 'conflict') throw new Error(`answer ${id} ${s}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  const e = t.services.rfiAnswers.outbox.get(id);
  throw new Error(`answer ${id} not sent (${e?.state ?? 'gone'}: ${e?.lastError?.message ?? 'no error'})`);
}

beforeEach(async () => {
  dir = await tempDir('td-locker-');
  await start(path.join(dir, 'data'));
});

afterEach(async () => {
  await t.stop();
  await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

describe('evidence locker', () => {
  it('adds two documents, answers a document question with one of them: the bank holds the same sha256', async () => {
    const passport = path.join(dir, 'ada-passport.pdf');
    const extract = path.join(dir, 'registry-extract.png');
    await writeFile(passport, pdfBytes(0x41));
    await writeFile(extract, pngBytes());
    const a = await addPicked(passport, {
      issuedOn: '2020-01-10',
      expiresOn: bankDay(400),
      note: 'scan of 2020',
    });
    const b = await addPicked(extract, {
      documentType: 'business_registry_extract',
      holder: { kind: 'company', name: 'Lovelace Analytical Engines Ltd' },
    });
    expect(a.refused).toEqual([]);
    expect(a.document).toMatchObject({
      documentType: 'passport',
      holder: { kind: 'person', name: 'Ada Lovelace' },
      note: 'scan of 2020',
      expiry: 'valid',
      problem: null,
      current: { name: 'ada-passport.pdf', contentType: 'application/pdf', sha256: sha(pdfBytes(0x41)) },
    });
    expect(b.document?.current).toMatchObject({ contentType: 'image/png', sha256: sha(pngBytes()) });
    // The original files may go: the locker holds its own copies.
    await rm(passport);

    // Filters: type, holder, expiry, words.
    const list = (f?: object) =>
      t.services.handlers['locker.list'](f as never).then((r) => r.documents.map((d) => d.id));
    expect(await list()).toHaveLength(2);
    expect(await list({ documentType: 'business_registry_extract' })).toEqual([b.document!.id]);
    expect(await list({ holder: 'lovelace analytical' })).toEqual([b.document!.id]);
    expect(await list({ expiry: 'none' })).toEqual([b.document!.id]);
    expect(await list({ query: 'scan of' })).toEqual([a.document!.id]);

    // A passport question offers the passport first.
    const staff = staffOf(t.services);
    const le = t.services.sandbox!.fixtures.legal_entities[0]!;
    const rfi = await staff.createRfi({
      type: 'account',
      related_id: le.accounts[0]!.id,
      description: 'locker',
      questions: [
        { question_type: 'identification.individual.passport', question_text: 'Passport of the director' },
        { question_type: 'identification.individual.passport', question_text: 'Passport again' },
      ],
    });
    const offer = await t.services.handlers['locker.forQuestion']({
      questionType: 'identification.individual.passport',
    });
    expect(offer.fitting.map((d) => d.id)).toEqual([a.document!.id]);
    expect(offer.others.map((d) => d.id)).toEqual([b.document!.id]);

    const sent: string[] = [];
    for (const q of rfi.questions) {
      const file = await t.services.handlers['locker.attach']({
        profileId: t.services.session.profile.id,
        id: a.document!.id,
        rfiId: rfi.id,
        questionId: q.id,
      });
      expect(file).toMatchObject({
        name: 'ada-passport.pdf',
        contentType: 'application/pdf',
        documentType: 'passport',
      });
      const answer = await t.services.handlers['answers.submit']({
        profileId: t.services.session.profile.id,
        rfiId: rfi.id,
        questionId: q.id,
        questionType: 'identification.individual.passport',
        text: '',
        files: [file.ref],
      });
      await waitSent(answer.id);
      sent.push(answer.id);
    }
    // Each use uploaded the exact bytes under a new document id (a new upload URL each time).
    const docIds = sent.map((id) => t.services.rfiAnswers.outbox.get(id)!.documents[0]!.documentId!);
    expect(new Set(docIds).size).toBe(2);
    for (const id of docIds) expect((await staff.getDocument(id)).sha256).toBe(a.document!.current.sha256);
    // The locker lists the RFI that used it (still open: pending review).
    await t.services.rfis.sync('sync', true);
    const used = (await t.services.handlers['locker.list']({ holder: 'Ada' })).documents[0]!.usedBy;
    expect(used.map((u) => [u.rfiId, u.open])).toEqual([
      [rfi.id, true],
      [rfi.id, true],
    ]);
    // Sealed at rest when the keychain holds a data key: no plain PDF bytes in the locker folder.
    if (t.services.vault.status().dataAtRest === 'encrypted') {
      const blobs = path.join(t.dataDir, 'locker', 'blobs');
      for (const f of await readdir(blobs))
        expect(await readFile(path.join(blobs, f), 'latin1')).not.toContain('%PDF');
      expect(await readFile(path.join(t.dataDir, 'locker', 'index.json'), 'utf8')).not.toContain(
        'Ada Lovelace',
      );
    }
  });

  it('refuses a file that is not PDF/PNG/JPEG, too large, empty or unreadable by its name, keeping the rest', async () => {
    const good = path.join(dir, 'proof.pdf');
    await writeFile(good, pdfBytes(0x42));
    const kept = await addPicked(good, { documentType: 'proof_of_address' });
    const cases: Array<[string, Buffer | null, RegExp]> = [
      ['notes.txt', Buffer.from('just text, not a document'), /not a PDF, PNG or JPEG/],
      ['huge.pdf', pdfBytes(0x43, MAX + 10), /accepts at most 300,000 bytes/],
      ['empty.pdf', Buffer.alloc(0), /empty/],
      ['gone.pdf', null, /cannot be read/],
    ];
    for (const [name, bytes, why] of cases) {
      const file = path.join(dir, name);
      if (bytes) await writeFile(file, bytes);
      const r = await addPicked(file);
      expect(r.document).toBeNull();
      expect(r.refused).toEqual([{ name, message: expect.stringMatching(why) }]);
      expect(JSON.stringify(r)).not.toContain(dir);
    }
    const after = await t.services.handlers['locker.list'](undefined);
    expect(after.documents.map((d) => d.id)).toEqual([kept.document!.id]);
  });

  it('a stored copy deleted on disk is reported by name; using it is refused; the others still work', async () => {
    const one = path.join(dir, 'one.pdf');
    const two = path.join(dir, 'two.pdf');
    await writeFile(one, pdfBytes(1));
    await writeFile(two, pdfBytes(2));
    const a = (await addPicked(one)).document!;
    const b = (await addPicked(two)).document!;
    await rm(path.join(t.dataDir, 'locker', 'blobs', `${a.current.versionId}.bin`));
    const list = (await t.services.handlers['locker.list'](undefined)).documents;
    const shown = list.find((d) => d.id === a.id)!;
    expect(shown.problem).toMatch(/^one\.pdf is missing/);
    expect(shown.problem).not.toContain(t.dataDir);
    const rfiId = t.services.sandbox!.fixtures.legal_entities[0]!.rfi_ids[0]!;
    const err = await t.services.handlers['locker.attach']({
      profileId: t.services.session.profile.id,
      id: a.id,
      rfiId,
      questionId: 'q_1',
    }).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/^one\.pdf is missing/);
    expect((err as Error).message).not.toContain(t.dataDir);
    const ok = await t.services.handlers['locker.attach']({
      profileId: t.services.session.profile.id,
      id: b.id,
      rfiId,
      questionId: 'q_1',
    });
    expect(ok.name).toBe('two.pdf');
    expect(list.find((d) => d.id === b.id)!.problem).toBeNull();
  });

  it('a dropped file enters only through a ref main issued; replacing keeps the old version in the history', async () => {
    const bytes = pdfBytes(9);
    const id = await t.services.rfiAnswers.files.begin({
      name: 'C:\\Users\\ada\\statement.pdf',
      contentType: 'application/pdf',
      sizeBytes: bytes.length,
      documentType: 'proof_of_address',
    });
    await t.services.rfiAnswers.files.chunk(id, 0, bytes.toString('base64'));
    const staged = await t.services.rfiAnswers.files.commit(id);
    const added = await t.services.handlers['locker.add']({
      source: { from: 'staged', ref: staged.ref },
      documentType: 'proof_of_address',
      holder: { kind: 'person', name: 'Ada Lovelace' },
    });
    expect(added.document?.current).toMatchObject({ name: 'statement.pdf', sha256: sha(bytes) });
    // The staged copy is gone once the locker holds its own.
    expect(() => t.services.rfiAnswers.files.resolve(staged.ref)).toThrow(/not issued/);
    await expect(
      t.services.handlers['locker.add']({
        source: { from: 'staged', ref: 'f_0123456789abcdef01234567' },
        documentType: 'other',
        holder: { kind: 'person', name: 'X' },
      }),
    ).rejects.toThrow(/not issued by this app/);

    const newer = path.join(dir, 'statement-2026.pdf');
    await writeFile(newer, pdfBytes(10));
    t.platform.nextDialogAnswers.push([newer]);
    const replaced = await t.services.handlers['locker.replace']({
      id: added.document!.id,
      source: { from: 'picker' },
      issuedOn: bankDay(-3),
    });
    expect(replaced.document?.current).toMatchObject({
      name: 'statement-2026.pdf',
      sha256: sha(pdfBytes(10)),
    });
    expect(replaced.document?.history.map((v) => v.sha256)).toEqual([sha(bytes)]);

    // Type, holder and note can change; removing deletes every version's sealed copy.
    const updated = await t.services.handlers['locker.update']({
      id: added.document!.id,
      holder: { kind: 'company', name: 'Lovelace Ltd' },
      note: 'utility bill',
    });
    expect(updated).toMatchObject({
      holder: { kind: 'company', name: 'Lovelace Ltd' },
      note: 'utility bill',
    });
    expect(await readdir(path.join(t.dataDir, 'locker', 'blobs'))).toHaveLength(2);
    expect(await t.services.handlers['locker.remove']({ id: added.document!.id })).toEqual({ removed: true });
    expect(await readdir(path.join(t.dataDir, 'locker', 'blobs'))).toEqual([]);
    expect((await t.services.handlers['locker.list'](undefined)).documents).toEqual([]);
  });

  it('a document expiring in 6 days raises exactly one notification, also after a restart', async () => {
    const soon = path.join(dir, 'id-card.pdf');
    const later = path.join(dir, 'permit.pdf');
    const far = path.join(dir, 'extract.pdf');
    await writeFile(soon, pdfBytes(3));
    await writeFile(later, pdfBytes(4));
    await writeFile(far, pdfBytes(5));
    await addPicked(soon, { documentType: 'national_id', expiresOn: bankDay(6) });
    await addPicked(later, { documentType: 'residence_permit', expiresOn: bankDay(20) });
    await addPicked(far, { documentType: 'registry_extract', expiresOn: bankDay(200) });
    const bodies = () => t.platform.notifications.map((n) => n.body);
    expect(bodies().filter((b) => b.includes('id-card.pdf'))).toEqual([
      expect.stringContaining('expires in 6 days'),
    ]);
    expect(bodies().filter((b) => b.includes('permit.pdf'))).toEqual([
      expect.stringContaining('expires in 20 days'),
    ]);
    expect(bodies().filter((b) => b.includes('extract.pdf'))).toEqual([]);
    const warnings = t.pushed.filter((m) => m.event === 'locker.expiryWarning').map((m) => m.payload);
    expect(warnings).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'id-card.pdf', daysLeft: 6, threshold: 7 })]),
    );
    // Checking again gives nothing new.
    expect(await t.services.locker.checkExpiry()).toBe(0);
    const listed = (await t.services.handlers['locker.list']({ expiry: 'soon' })).documents.map(
      (d) => d.current.name,
    );
    expect(listed).toEqual(['id-card.pdf', 'permit.pdf']);

    // Restart: the services are rebuilt on the same data folder, with a new platform.
    const dataDir = t.dataDir;
    await t.stop();
    await start(dataDir);
    expect(await t.services.locker.checkExpiry()).toBe(0);
    expect(t.platform.notifications).toEqual([]);
    expect((await t.services.handlers['locker.list'](undefined)).documents).toHaveLength(3);
  });
});
