import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { test, expect } from './fixtures';
import { seriousA11yViolations } from './axe';
import { writePdf } from './rfi-workspace-support';
import { staffOf } from '../support/sandbox-staff';

/**
 * From the analyst's side: answer an RFI, export its case file from the RFI's screen (main's save
 * dialog answers the path), and read back what was written: the PDF names the answer and the
 * document's sha256, the ZIP holds the document with the bank's sha256.
 */
test('export a case file from the RFI screen: PDF and ZIP match what the bank holds', async ({
  app,
  harness,
}) => {
  const le = harness.services.sandbox!.fixtures.legal_entities[0]!;
  const rfiId = le.rfi_ids[0]!; // transaction: purpose (text) + supporting documents
  const rfi = await harness.services.bank.getRfi(rfiId);
  const [qText, qDoc] = rfi.questions;

  await app.goto(`${harness.url}#/rfis/${rfiId}`);
  const q1 = app.getByTestId(`question-${qText!.id}`);
  await q1.getByLabel('Your answer').fill('Settlement of invoice 77 for port fees.');
  await q1.getByTestId('answer-submit').click();
  await expect(q1.getByTestId('answer-status')).toHaveAttribute('data-state', 'sent');
  const pdf = path.join(harness.dataDir, '..', 'port-fees.pdf');
  await writePdf(pdf, 25_000);
  const sha = createHash('sha256')
    .update(await readFile(pdf))
    .digest('hex');
  harness.platform.nextDialogAnswers.push([pdf]);
  const q2 = app.getByTestId(`question-${qDoc!.id}`);
  await q2.getByRole('button', { name: 'Choose files…' }).click();
  await q2.getByTestId('answer-submit').click();
  await expect(q2.getByTestId('answer-status')).toHaveAttribute('data-state', 'sent', { timeout: 15_000 });

  // A name of this run's own: an existing case file is replaced only after main's native question.
  const target = path.join(harness.dataDir, '..', `case-file-${Date.now()}.pdf`);
  harness.platform.nextSaveAnswers.push(target);
  await app.getByRole('button', { name: 'Export case file…' }).click();
  await expect(app.getByRole('status').filter({ hasText: `Case file saved to ${target}` })).toBeVisible({
    timeout: 15_000,
  });
  // "Show in folder" opens the file manager at the saved PDF (main shows only files it saved).
  await app.getByRole('button', { name: 'Show in folder' }).click();
  await expect.poll(() => harness.platform.shownInFolder).toEqual([target]);
  // React Aria announces a pending button for a few seconds (a transient role=img node that axe
  // reads without its label); the page is checked once the announcement is gone.
  await expect(app.locator('[data-live-announcer] [role="img"]')).toHaveCount(0, { timeout: 15_000 });
  expect(await seriousA11yViolations(app)).toEqual([]);

  const doc = await getDocument({
    data: new Uint8Array(await readFile(target)),
    standardFontDataUrl: `${path.resolve('node_modules/pdfjs-dist/standard_fonts')}/`,
  }).promise;
  let text = '';
  for (let i = 1; i <= doc.numPages; i++) {
    const c = await (await doc.getPage(i)).getTextContent();
    text += c.items.map((it) => ('str' in it ? it.str + (it.hasEOL ? '\n' : '') : '')).join('');
  }
  await doc.destroy();
  expect(text).toContain('Settlement of invoice 77 for port fees.');
  expect(text).toContain(`sha256 ${sha}`);
  expect(text).toContain('port-fees.pdf');

  const zip = unzipSync(new Uint8Array(await readFile(target.replace(/\.pdf$/, '.zip'))));
  const entry = `${sha.slice(0, 12)}-port-fees.pdf`;
  expect(Object.keys(zip).sort()).toEqual([entry, 'manifest.json']);
  const manifest = JSON.parse(new TextDecoder().decode(zip['manifest.json'])) as {
    documents: Array<{ documentId: string; sha256: string }>;
  };
  expect(manifest.documents[0]!.sha256).toBe(sha);
  expect((await staffOf(harness.services).getDocument(manifest.documents[0]!.documentId)).sha256).toBe(sha);
});
