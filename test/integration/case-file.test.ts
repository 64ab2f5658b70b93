import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { pdfText } from '../support/pdf-text';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detailInWords } from '../../src/main/case-files/words';
import { staffOf } from '../support/sandbox-staff';
import { startServices, tempDir } from '../support/services';
import type { TestServices } from '../support/services';
import { pdfDocument, jpegImage } from '../support/documents';

/**
 * A case file exported for an answered RFI (real services, embedded sandbox): the PDF's text,
 * read back with pdfjs-dist, holds every question, every response (customer and staff), every
 * document's sha256 and the audit entries of the RFI; the ZIP beside it holds the documents,
 * each hashing to the manifest's sha256 and to the sha256 the bank stored.
 */

let t: TestServices;
let dir: string;

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
/** An RFI of the default profile, as the page names it for a case file. */
const own = (rfiId: string) => ({ profileId: t.services.session.profile.id, rfiId });

async function waitSent(id: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const s = t.services.rfiAnswers.outbox.get(id)?.state;
    if (s === 'sent') return;
    if (s === 'failed' || s === 'conflict') throw new Error(`answer ${id} ${s}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`answer ${id} not sent`);
}

beforeEach(async () => {
  dir = await tempDir('td-case-file-');
  t = await startServices({
    dataDir: path.join(dir, 'data'),
    rfiAnswers: { retry: { baseMs: 50, maxMs: 200 } },
    rfis: { autoStart: false },
  });
});

afterEach(async () => {
  await t.stop();
  await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

describe('case file export', () => {
  it('PDF with every question, response, document sha256 and audit entry; ZIP files hash to the manifest and the bank', async () => {
    const staff = staffOf(t.services);
    const le = t.services.sandbox!.fixtures.legal_entities[0]!;
    const rfi = await staff.createRfi({
      type: 'account',
      related_id: le.accounts[0]!.id,
      description: 'Periodic review of the freight account',
      questions: [
        { question_type: 'transaction.purpose', question_text: 'What were the March payments for?' },
        {
          question_type: 'transaction.supporting_documents',
          question_text: 'Send the contracts behind them.',
        },
      ],
    });
    const [q1, q2] = rfi.questions;
    const contract = pdfDocument(150_000, 0x51);
    const scan = jpegImage(40_000, 0x22);
    await writeFile(path.join(dir, 'freight contract.pdf'), contract);
    await writeFile(path.join(dir, 'signed page.jpg'), scan);

    const a1 = await t.services.handlers['answers.submit']({
      profileId: t.services.session.profile.id,
      rfiId: rfi.id,
      questionId: q1!.id,
      questionType: 'transaction.purpose',
      text: 'Freight forwarding for the Rotterdam route, invoices 4411 to 4420.',
      files: [],
    });
    await waitSent(a1.id);
    const picked = await t.services.rfiAnswers.files.registerPicked(
      [path.join(dir, 'freight contract.pdf'), path.join(dir, 'signed page.jpg')],
      'transaction_supporting_document',
    );
    const a2 = await t.services.handlers['answers.submit']({
      profileId: t.services.session.profile.id,
      rfiId: rfi.id,
      questionId: q2!.id,
      questionType: 'transaction.supporting_documents',
      text: '',
      files: picked.files.map((f) => f.ref),
    });
    await waitSent(a2.id);
    await staff.adminResponse(rfi.id, q1!.id, {
      response_text: 'Thank you, the invoices match the statement.',
    });
    // The bank's webhook events for this RFI reach the app's receiver (the embedded sandbox posts them there).
    await expect
      .poll(() => t.services.caseFileJournal.seenOf(t.services.session.profile.id, rfi.id).length, {
        timeout: 10_000,
      })
      .toBeGreaterThan(0);
    const seen = t.services.caseFileJournal.seenOf(t.services.session.profile.id, rfi.id);

    const target = path.join(dir, 'out', 'case.pdf');
    await rm(path.dirname(target), { recursive: true, force: true });
    await mkdir(path.dirname(target));
    // The analyst typed the ZIP's name: the base name gives case.pdf and case.zip.
    t.platform.nextSaveAnswers.push(path.join(dir, 'out', 'case.zip'));
    const result = await t.services.handlers['caseFiles.export']({ rfis: [own(rfi.id)], zip: true });
    expect(result).toEqual({
      path: target,
      zipPath: path.join(dir, 'out', 'case.zip'),
      rfis: 1,
      documents: 2,
    });
    // Nothing but the two files (no temp files left beside them or in the data folder).
    expect((await readdir(path.dirname(target))).sort()).toEqual(['case.pdf', 'case.zip']);
    expect(await readdir(path.join(t.dataDir, 'case-files', 'tmp'))).toEqual([]);

    // What the bank holds.
    const bankDocIds = t.services.rfiAnswers.outbox.get(a2.id)!.documents.map((d) => d.documentId!);
    const bankSha = await Promise.all(bankDocIds.map(async (id) => (await staff.getDocument(id)).sha256));
    expect(bankSha.sort()).toEqual([sha(contract), sha(scan)].sort());

    const text = await pdfText(target);
    expect(text).toContain('Case file: Periodic review of the freight account');
    expect(text).toContain(`RFI ${rfi.id}`);
    // In words: no raw enum, catalogue key or ISO time; a document answer names its files, and a
    // document the customer sent is the customer's.
    expect(text).toContain('Account RFI, action required.');
    expect(text).toContain('Supporting documents for the transaction; pending review; asked ');
    expect(text).toMatch(/Customer, \d{1,2} \w{3} \d{4}, \d{2}:\d{2}:\d{2} UTC: sent 2 documents: /);
    expect(text).toContain('sent by customer');
    expect(text).not.toContain('(no text)');
    expect(text).not.toContain('from question');
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:/);
    expect(text).not.toMatch(
      /\b(pending_review|action_required|transaction\.supporting_documents|rfi\.respond)\b/,
    );
    expect(text).toContain('Periodic review of the freight account');
    expect(text).toContain('What were the March payments for?');
    expect(text).toContain('Send the contracts behind them.');
    expect(text).toContain('Freight forwarding for the Rotterdam route, invoices 4411 to 4420.');
    expect(text).toMatch(/Bank staff, .+? UTC: Thank you, the invoices match the statement\./);
    for (const s of bankSha) expect(text).toContain(`sha256 ${s}`);
    for (const id of bankDocIds) expect(text).toContain(`document id ${id}`);
    expect(text).toContain('freight contract.pdf');
    expect(text).toContain('signed page.jpg');
    // The audit entries of this RFI: one response line per answer and one upload line per document.
    const audit = (await t.services.audit.list({ limit: 1000 })).entries.filter(
      (e) => e.target === rfi.id || bankDocIds.includes(e.target ?? ''),
    );
    expect(audit.map((e) => e.operation).sort()).toEqual([
      'rfi.respond',
      'rfi.respond',
      'rfi.upload',
      'rfi.upload',
    ]);
    for (const e of audit) expect(text).toContain(`audit entry ${e.id}`);
    expect(text).toMatch(/Audit entries \(4\)/);
    // The webhook events seen for it.
    expect(text).toMatch(/Notifications and webhook events seen \([1-9]\d*\)/);
    expect(text).toContain(`Webhook event: ${detailInWords(seen[0]!.detail.split(' (')[0]!)}`);
    // Footer: export time, environment, legal entity.
    expect(text).toMatch(
      new RegExp(
        `Exported \\d{1,2} \\w{3} \\d{4}, \\d{2}:\\d{2}:\\d{2} UTC · environment Embedded sandbox · legal entity ${le.name}`,
      ),
    );
    // Who read it, in words: the credential's name and its role, not the raw role code and entity id.
    expect(text).toMatch(new RegExp(`${le.name}: read by .+ \\(administrator\\)\\sfrom Embedded sandbox`));
    expect(text).not.toMatch(/\(admin, |embedded-sandbox/);

    // The ZIP: documents named by sha256 prefix and original name, a manifest that lists them.
    const files = unzipSync(new Uint8Array(await readFile(result.zipPath!)));
    const manifest = JSON.parse(new TextDecoder().decode(files['manifest.json'])) as {
      documents: Array<{ file: string; sha256: string; documentId: string; name: string }>;
    };
    expect(manifest.documents).toHaveLength(2);
    for (const m of manifest.documents) {
      expect(m.file).toBe(`${m.sha256.slice(0, 12)}-${m.name}`);
      expect(sha(files[m.file]!)).toBe(m.sha256);
      expect((await staff.getDocument(m.documentId)).sha256).toBe(m.sha256);
    }
    expect(Object.keys(files).sort()).toEqual(
      [...manifest.documents.map((m) => m.file), 'manifest.json'].sort(),
    );
  });

  it('a filtered set of RFIs in one PDF, each with its questions and staff responses; no ZIP unless asked', async () => {
    const ids = t.services.sandbox!.fixtures.legal_entities[0]!.rfi_ids.slice(0, 3);
    const target = path.join(dir, 'set.pdf');
    t.platform.nextSaveAnswers.push(target);
    const r = await t.services.handlers['caseFiles.export']({ rfis: ids.map(own), zip: false });
    expect(r).toMatchObject({ path: target, zipPath: null, rfis: 3 });
    expect((await readdir(dir)).filter((f) => f.startsWith('set'))).toEqual(['set.pdf']);
    const text = await pdfText(target);
    expect(text).toContain('Case file: 3 RFIs');
    for (const id of ids) {
      const rfi = await t.services.bank.getRfi(id);
      expect(text).toContain(`RFI ${id}`);
      for (const q of rfi.questions) {
        expect(text).toContain(`question id ${q.id}`);
        for (const resp of q.responses) expect(text).toContain(`response id ${resp.id}`);
      }
    }
  });

  it('never replaces a file the save dialog did not confirm without asking; shows only its own files in their folder', async () => {
    const ids = t.services.sandbox!.fixtures.legal_entities[0]!.rfi_ids.slice(0, 1);
    const zipBeside = path.join(dir, 'x.zip');
    await writeFile(zipBeside, 'an older ZIP');
    // The dialog confirmed x.pdf (new); x.zip beside it exists and was not confirmed: declined.
    t.platform.nextSaveAnswers.push(path.join(dir, 'x.pdf'));
    t.platform.nextConfirmAnswers.push(false);
    const declined = await t.services.handlers['caseFiles.export']({ rfis: ids.map(own), zip: true });
    expect(declined.path).toBeNull();
    expect(t.platform.confirmations.at(-1)).toMatchObject({
      kind: 'file-replace',
      title: 'Replace existing files?',
    });
    expect(t.platform.confirmations.at(-1)!.message).toContain('x.zip already exists');
    expect(await readFile(zipBeside, 'utf8')).toBe('an older ZIP');
    expect((await readdir(dir)).filter((f) => f.startsWith('x.'))).toEqual(['x.zip']);
    // Approved: both written, the ZIP replaced.
    t.platform.nextSaveAnswers.push(path.join(dir, 'x.pdf'));
    t.platform.nextConfirmAnswers.push(true);
    const saved = await t.services.handlers['caseFiles.export']({ rfis: ids.map(own), zip: true });
    expect(saved).toMatchObject({ path: path.join(dir, 'x.pdf'), zipPath: zipBeside });
    expect(await readFile(zipBeside, 'utf8')).not.toBe('an older ZIP');
    // The file the dialog itself confirmed (x.pdf, chosen again) needs no second question.
    const asked = t.platform.confirmations.length;
    t.platform.nextSaveAnswers.push(path.join(dir, 'x.pdf'));
    await t.services.handlers['caseFiles.export']({ rfis: ids.map(own), zip: false });
    expect(t.platform.confirmations.length).toBe(asked);

    await t.services.handlers['caseFiles.showInFolder']({ path: path.join(dir, 'x.pdf') });
    expect(t.platform.shownInFolder).toEqual([path.join(dir, 'x.pdf')]);
    await expect(
      t.services.handlers['caseFiles.showInFolder']({ path: path.join(dir, 'data') }),
    ).rejects.toMatchObject({ kind: 'invalid_argument' });
    expect(t.platform.shownInFolder).toHaveLength(1);
  });

  it('a cancelled save dialog writes nothing; an unknown RFI is refused', async () => {
    const rfiId = t.services.sandbox!.fixtures.legal_entities[0]!.rfi_ids[0]!;
    t.platform.nextSaveAnswers.push(null);
    expect(await t.services.handlers['caseFiles.export']({ rfis: [own(rfiId)], zip: true })).toEqual({
      path: null,
      zipPath: null,
      rfis: 0,
      documents: 0,
    });
    t.platform.nextSaveAnswers.push(path.join(dir, 'nope.pdf'));
    await expect(
      t.services.handlers['caseFiles.export']({ rfis: [own('rfi_unknown')], zip: false }),
    ).rejects.toMatchObject({
      kind: 'not_found',
    });
    expect((await readdir(dir)).filter((f) => f.startsWith('nope'))).toEqual([]);
  });
});
