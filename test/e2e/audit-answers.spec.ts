import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test, expect } from './fixtures';
import { seriousA11yViolations } from './axe';
import { customerResponses, writePdf } from './rfi-workspace-support';
import type { WireRfi } from './rfi-workspace-support';
import { staffOf } from '../support/sandbox-staff';
import { chooseOption } from './ui-controls';

/**
 * An RFI answered with a text and a document appears in Activity and in its CSV export — the
 * response lines and the upload, with their outcomes — and what they say matches what the bank
 * (the embedded sandbox) holds: the response ids, the document id and its sha256.
 */
test('answering an RFI with a text and a document is audited: Activity and its CSV match the bank', async ({
  app,
  harness,
}) => {
  const sandbox = harness.services.sandbox!;
  const le = sandbox.fixtures.legal_entities[0]!;
  const bankGet = async (p: string): Promise<WireRfi> => {
    const r = await fetch(`${sandbox.url}${p}`, { headers: { authorization: `Bearer ${le.tokens.admin}` } });
    return (await r.json()) as WireRfi;
  };
  const rfiId = le.rfi_ids[0]!; // transaction: purpose (text) + supporting documents
  const [qText, qDoc] = (await bankGet(`/v1/rfis/${rfiId}`)).questions;

  await app.goto(`${harness.url}#/rfis/${rfiId}`);
  const q1 = app.getByTestId(`question-${qText!.id}`);
  await q1.getByLabel('Your answer').fill('Freight under contract HF-2026-114.');
  await q1.getByTestId('answer-submit').click();
  await expect(q1.getByTestId('answer-status')).toHaveAttribute('data-state', 'sent');

  const pdf = path.join(harness.dataDir, '..', 'audit-invoice.pdf');
  await writePdf(pdf, 40_000);
  const sha = createHash('sha256')
    .update(await readFile(pdf))
    .digest('hex');
  harness.platform.nextDialogAnswers.push([pdf]);
  const q2 = app.getByTestId(`question-${qDoc!.id}`);
  await q2.getByRole('button', { name: 'Choose files…' }).click();
  await expect(q2.getByTestId('answer-files')).toContainText('audit-invoice.pdf');
  await q2.getByTestId('answer-submit').click();
  await expect(q2.getByTestId('answer-status')).toHaveAttribute('data-state', 'sent', { timeout: 15_000 });

  // What the bank holds.
  const after = await bankGet(`/v1/rfis/${rfiId}`);
  const textResponse = customerResponses(after, qText!.id)[0]!;
  const docResponse = customerResponses(after, qDoc!.id)[0]!;
  const documentId = docResponse.response['transaction.supporting_documents']!.document_ids[0]!;
  const stored = await staffOf(harness.services).getDocument(documentId);
  expect(stored.sha256).toBe(sha);

  // Activity, from the analyst's side.
  await app.getByRole('link', { name: 'Activity' }).click();
  await expect(app.getByRole('heading', { name: 'Activity' })).toBeVisible();
  const table = app.getByRole('grid', { name: 'Audit log entries' });
  // In words, one row per write: two answers and one upload, all succeeded; the RFI is named by
  // its subject, never by its id (the id is in the entry's detail).
  const responseRows = table.getByRole('row').filter({ hasText: /RFI answered — (?!rfi_)/ });
  await expect(responseRows).toHaveCount(2);
  const uploadRows = table
    .getByRole('row')
    .filter({ hasText: /Document uploaded for an RFI — (?!rfi_|doc)/ });
  await expect(uploadRows).toHaveCount(1);
  for (const row of [...(await responseRows.all()), ...(await uploadRows.all())]) {
    await expect(row).toContainText('Succeeded');
  }
  // The raw record of each row (operation, ids, sha256) in the entry's detail pane.
  const detail = app.getByRole('region', { name: 'Entry detail' });
  const details: string[] = [];
  for (const row of await responseRows.all()) {
    await row.click();
    await expect(detail.getByTestId('audit-operation')).toHaveText('rfi.respond');
    await expect(detail).toContainText(rfiId);
    details.push((await detail.textContent()) ?? '');
  }
  expect(details.filter((d) => d.includes(`response ${textResponse.id}`))).toHaveLength(1);
  const docDetail = details.find((d) => d.includes(`response ${docResponse.id}`));
  expect(docDetail).toContain(`${documentId} sha256 ${sha}`);
  await uploadRows.first().click();
  await expect(detail.getByTestId('audit-operation')).toHaveText('rfi.upload');
  await expect(detail).toContainText(documentId);
  await expect(detail).toContainText(`sha256 ${sha}`);
  // The kind filter keeps exactly these three.
  await chooseOption(app, app, 'Kind', 'RFI answers and uploads');
  await expect(table.getByRole('row').filter({ has: app.getByRole('gridcell') })).toHaveCount(3);

  // Its CSV export says the same.
  const target = path.join(harness.dataDir, 'activity.csv');
  harness.platform.nextSaveAnswers.push(target);
  await app.getByRole('button', { name: 'Export CSV…' }).click();
  await expect(app.getByText(/Exported \d+ entr/)).toBeVisible();
  const rows = (await readFile(target, 'utf8')).split('\r\n');
  const respond = rows.filter((r) => r.includes('"rfi.respond"'));
  expect(respond).toHaveLength(2);
  expect(respond.every((r) => r.includes('"succeeded"') && r.includes(`"${rfiId}"`))).toBe(true);
  expect(respond.some((r) => r.includes(`response ${textResponse.id}`))).toBe(true);
  expect(respond.some((r) => r.includes(`response ${docResponse.id}`))).toBe(true);
  const upload = rows.filter((r) => r.includes('"rfi.upload"'));
  expect(upload).toHaveLength(1);
  expect(upload[0]).toContain(`"${documentId}"`);
  expect(upload[0]).toContain(`sha256 ${sha}`);
  expect(upload[0]).toContain('"succeeded"');
  // React Aria announces a pending button for a few seconds (a transient role=img node that axe
  // reads without its label); the page is checked once the announcement is gone.
  await expect(app.locator('[data-live-announcer] [role="img"]')).toHaveCount(0, { timeout: 15_000 });
  expect(await seriousA11yViolations(app)).toEqual([]);
});
