import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { startHarness } from '../harness/harness';
import type { Harness } from '../harness/harness';
import { seriousA11yViolations } from './axe';
import { customerResponses, writePdf } from './rfi-workspace-support';
import type { WireRfi } from './rfi-workspace-support';
import { staffOf } from '../support/sandbox-staff';

/**
 * The evidence locker in Chromium through the harness (embedded sandbox): two documents added
 * through main's native picker, one of them used to answer a passport question from inside the
 * answer composer (the bank then holds the same sha256), a document expiring in 6 days raises
 * exactly one notification, also after a restart on the same data folder, and a file that is not
 * a PDF/PNG/JPEG is refused by its name.
 */

let tmp: string;
test.beforeEach(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'td-locker-e2e-'));
});
test.afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** YYYY-MM-DD, `days` after the bank's today. */
function bankDay(h: Harness, days: number): string {
  const now = h.services.clock.now();
  return new Date(Math.floor(now / 86_400_000) * 86_400_000 + days * 86_400_000).toISOString().slice(0, 10);
}

async function choose(page: Page, label: string, option: string): Promise<void> {
  await page.getByRole('button', { name: new RegExp(`${label}$`) }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

async function addDocument(
  page: Page,
  h: Harness,
  file: string,
  o: { type: string; holder: string; expiresOn?: string },
): Promise<void> {
  const form = page.getByRole('region', { name: 'Add a document' });
  await choose(page, 'Document type', o.type);
  await form.getByRole('textbox', { name: 'Person’s name' }).fill(o.holder);
  await form.getByRole('textbox', { name: 'Expires on' }).fill(o.expiresOn ?? '');
  h.platform.nextDialogAnswers.push([file]);
  await form.getByRole('button', { name: 'Choose a file and add it…' }).click();
  await expect(
    page.getByRole('status').filter({ hasText: `${path.basename(file)} is in the locker.` }),
  ).toBeVisible();
}

test('add two documents, answer a passport question from the locker (same sha256 at the bank); one expiry notification, also after a restart', async ({
  browser,
}) => {
  const dataDir = path.join(tmp, 'data');
  const h = await startHarness({
    dataDir,
    services: {
      environment: { kind: 'embedded-sandbox', sandbox: { visibilityDelayMs: { min: 0, max: 0 } } },
    },
  });
  const context = await browser.newContext();
  await h.attach(context);
  const page = await h.open(context);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));

  const passport = path.join(tmp, 'ada-passport.pdf');
  const idCard = path.join(tmp, 'ada-id-card.pdf');
  await writePdf(passport, 30_000);
  await writePdf(idCard, 12_000);
  const passportSha = createHash('sha256')
    .update(await readFile(passport))
    .digest('hex');

  await page.getByRole('link', { name: 'Evidence locker' }).click();
  await expect(page.getByRole('heading', { name: 'Evidence locker', level: 1 })).toBeVisible();
  await addDocument(page, h, passport, {
    type: 'Passport',
    holder: 'Ada Lovelace',
    expiresOn: bankDay(h, 900),
  });
  await addDocument(page, h, idCard, {
    type: 'National identity card',
    holder: 'Ada Lovelace',
    expiresOn: bankDay(h, 6),
  });
  const items = page
    .getByRole('list', { name: 'Locker documents' })
    .getByRole('listitem')
    .filter({ has: page.getByRole('button') });
  await expect(items).toHaveCount(2);
  await expect(page.getByRole('listitem', { name: 'National identity card of Ada Lovelace' })).toContainText(
    'Expires in 6 days',
  );
  await expect(page.getByTestId('locker-expiry-warning')).toContainText('ada-id-card.pdf (Ada Lovelace)');
  const idNotes = () => h.platform.notifications.filter((n) => n.body.includes('ada-id-card.pdf'));
  expect(idNotes()).toHaveLength(1);
  expect(idNotes()[0]!.body).toContain('expires in 6 days');
  expect(h.platform.notifications.filter((n) => n.body.includes('ada-passport.pdf'))).toEqual([]);

  // A file that is not a PDF/PNG/JPEG is refused by its name; the locker keeps its two documents.
  const notes = path.join(tmp, 'notes.txt');
  await writeFile(notes, 'plain text');
  const form = page.getByRole('region', { name: 'Add a document' });
  await form.getByRole('textbox', { name: 'Person’s name' }).fill('Ada Lovelace');
  await form.getByRole('textbox', { name: 'Expires on' }).fill('');
  h.platform.nextDialogAnswers.push([notes]);
  await form.getByRole('button', { name: 'Choose a file and add it…' }).click();
  const refusal = page.getByRole('alert').filter({ hasText: 'notes.txt: It is not a PDF, PNG or JPEG file' });
  await expect(refusal).toBeVisible();
  await expect(refusal).not.toContainText(tmp);
  await expect(items).toHaveCount(2);
  // React Aria announces a pending button for a few seconds (a transient role=img node that axe
  // reads without its label); the page is checked once the announcement is gone.
  await expect(page.locator('[data-live-announcer] [role="img"]')).toHaveCount(0, { timeout: 15_000 });
  expect(await seriousA11yViolations(page)).toEqual([]);

  // A passport question: the locker offers the passport first; its exact bytes go to the bank.
  const sandbox = h.services.sandbox!;
  const le = sandbox.fixtures.legal_entities[0]!;
  const rfi = await staffOf(h.services).createRfi({
    type: 'account',
    related_id: le.accounts[0]!.id,
    description: 'Director identification',
    questions: [
      { question_type: 'identification.individual.passport', question_text: 'Passport of the director' },
    ],
  });
  await h.services.rfis.sync('sync', true);
  const questionId = rfi.questions[0]!.id;
  await page.goto(`${h.url}#/rfis/${rfi.id}`);
  const q = page.getByTestId(`question-${questionId}`);
  await q.getByRole('button', { name: 'Use from the locker…' }).click();
  const fitting = q.getByRole('list', { name: 'Fitting documents from the locker' });
  await expect(fitting.getByRole('listitem')).toHaveCount(1);
  await fitting.getByRole('button', { name: 'Use Passport of Ada Lovelace (ada-passport.pdf)' }).click();
  await expect(q.getByTestId('answer-files')).toContainText('ada-passport.pdf');
  await q.getByTestId('answer-submit').click();
  await expect(q.getByTestId('answer-status')).toHaveAttribute('data-state', 'sent', { timeout: 15_000 });

  const r = await fetch(`${sandbox.url}/v1/rfis/${rfi.id}`, {
    headers: { authorization: `Bearer ${le.tokens.admin}` },
  });
  const bank = (await r.json()) as WireRfi;
  const docIds = customerResponses(bank, questionId)[0]!.response['identification.individual.passport']!
    .document_ids;
  expect(docIds).toHaveLength(1);
  expect((await staffOf(h.services).getDocument(docIds[0]!)).sha256).toBe(passportSha);

  // The locker lists the open RFI that used the passport, by its subject (its id on hover).
  await page.getByRole('link', { name: 'Evidence locker' }).click();
  const passportItem = page.getByRole('listitem', { name: 'Passport of Ada Lovelace' });
  await expect(passportItem).toContainText('Used by open RFIs: Director identification');
  await expect(passportItem.getByRole('link', { name: 'Director identification' })).toHaveAttribute(
    'title',
    `RFI id ${rfi.id}`,
  );
  await context.close();
  await h.close();
  expect(errors).toEqual([]);

  // Restart: the services are rebuilt on the same data folder; no second notification.
  const again = await startHarness({
    dataDir,
    services: {
      environment: { kind: 'embedded-sandbox', sandbox: { visibilityDelayMs: { min: 0, max: 0 } } },
    },
  });
  try {
    expect(await again.services.locker.checkExpiry()).toBe(0);
    expect(again.platform.notifications).toEqual([]);
    expect((await again.services.locker.list()).map((d) => d.current.name).sort()).toEqual([
      'ada-id-card.pdf',
      'ada-passport.pdf',
    ]);
  } finally {
    await again.close();
  }
});
