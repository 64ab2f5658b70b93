import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { startHarness } from '../harness/harness';
import type { Harness } from '../harness/harness';
import { seriousA11yViolations } from './axe';
import { selectButton } from './ui-controls';
import { customerResponses, startBank, writePdf } from './rfi-workspace-support';
import type { Bank, WireRfi } from './rfi-workspace-support';

/**
 * RFI workspace (issue 5, answers half) in Chromium through the harness: the services talk to a
 * sandbox run by the test through a proxy that can take the bank away and bring it back on the
 * same port, so "offline" is a real connection failure while the bank's state survives.
 */

interface Run {
  harness: Harness;
  context: BrowserContext;
  page: Page;
  errors: string[];
}

async function openApp(browser: Browser, bank: Bank, dataDir?: string): Promise<Run> {
  const harness = await startHarness({
    ...(dataDir ? { dataDir } : {}),
    services: {
      environment: { kind: 'remote', baseUrl: bank.proxy.url, name: 'Test bank', token: bank.token },
      bankRetry: { attempts: 2, baseDelayMs: 50, maxDelayMs: 100 },
      bankTimeoutMs: 5000,
      rfiAnswers: { retry: { baseMs: 300, maxMs: 1500 } },
    },
  });
  const context = await browser.newContext();
  await harness.attach(context);
  const page = await harness.open(context);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { harness, context, page, errors };
}

async function closeApp(run: Run): Promise<void> {
  await run.context.close();
  await run.harness.close();
  expect(run.errors).toEqual([]);
}

const question = (page: Page, id: string) => page.getByTestId(`question-${id}`);

let bank: Bank;
let tmp: string;

test.beforeEach(async () => {
  bank = await startBank();
  tmp = await mkdtemp(path.join(os.tmpdir(), 'td-rfi-e2e-'));
});

test.afterEach(async () => {
  await bank.close();
  await rm(tmp, { recursive: true, force: true });
});

function seededRfi(index: number): string {
  const id = bank.sandbox.fixtures.legal_entities[0]?.rfi_ids[index];
  if (!id) throw new Error('no seeded RFI');
  return id;
}

test('answer a text question and a document question (progress shown); the RFI moves to pending_review', async ({
  browser,
}) => {
  const rfiId = seededRfi(0); // transaction: purpose (text) + supporting documents
  const before = await bank.get<WireRfi>(`/v1/rfis/${rfiId}`);
  const [qText, qDoc] = before.questions;
  expect(before.status).toBe('action_required');
  const run = await openApp(browser, bank);
  const { page, harness } = run;

  await page.goto(`${harness.url}#/rfis/${rfiId}`);
  await expect(page.getByTestId('rfi-status')).toHaveText('Action required');

  // Text question.
  const q1 = question(page, qText!.id);
  await q1.getByLabel('Your answer').fill('Payment for freight services under contract HF-2026-114.');
  await expect(q1.getByTestId('draft-state')).toHaveText('Draft saved');
  await q1.getByTestId('answer-submit').click();
  await expect(q1.getByTestId('answer-status')).toHaveAttribute('data-state', 'sent');

  // Document question: a real 3 MB PDF through the native picker, uploaded slowly enough to watch.
  const pdf = path.join(tmp, 'invoice-4411.pdf');
  await writePdf(pdf, 3 * 1024 * 1024);
  harness.platform.nextDialogAnswers.push([pdf]);
  const q2 = question(page, qDoc!.id);
  await expect(selectButton(q2, 'Document type')).toContainText('Transaction supporting document');
  await q2.getByRole('button', { name: 'Choose files…' }).click();
  await expect(q2.getByTestId('answer-files')).toContainText('invoice-4411.pdf · application/pdf · 3.0 MB');
  bank.proxy.uploadBytesPerTick = 128 * 1024;
  await q2.getByTestId('answer-submit').click();
  await expect(q2.getByTestId('answer-status')).toHaveAttribute('data-state', 'uploading');
  const bar = q2.getByRole('progressbar', { name: 'Upload of the documents' });
  await expect(bar).toBeVisible();
  await expect
    .poll(async () => Number((await bar.getAttribute('aria-valuenow')) ?? '0'), { timeout: 15_000 })
    .toBeGreaterThan(0);
  await expect(q2.getByTestId('answer-status')).toContainText(/Uploading \d+%/);
  await expect(q2.getByTestId('answer-status')).toHaveAttribute('data-state', 'sent', { timeout: 30_000 });

  // The RFI moved on, in the UI and at the bank; each answer landed once.
  await expect(page.getByTestId('rfi-status')).toHaveText('Pending review');
  await expect(q1.getByTestId('question-status')).toHaveText('Pending review');
  // The page re-read the RFI after the send; the bank answered, so no offline-copy notice.
  await expect(page.getByTestId('rfi-from-cache')).toHaveCount(0);
  await expect(page.getByText('The bank could not be reached')).toHaveCount(0);
  const after = await bank.get<WireRfi>(`/v1/rfis/${rfiId}`);
  expect(after.status).toBe('pending_review');
  expect(
    customerResponses(after, qText!.id).map((r) => r.response['transaction.purpose']?.response_text),
  ).toEqual(['Payment for freight services under contract HF-2026-114.']);
  const docResponses = customerResponses(after, qDoc!.id);
  expect(docResponses).toHaveLength(1);
  const docIds = docResponses[0]!.response['transaction.supporting_documents']!.document_ids;
  expect(docIds).toHaveLength(1);
  const doc = await bank.get<{ size_bytes: number; content_type: string }>(`/v1/documents/${docIds[0]}`);
  expect(doc).toMatchObject({ size_bytes: 3 * 1024 * 1024, content_type: 'application/pdf' });
  await closeApp(run);
});

test('a dropped file is staged in chunks through main and refused when the bank would not accept it', async ({
  browser,
}) => {
  const rfiId = seededRfi(5); // KYC: passport + proof of address (documents)
  const rfi = await bank.get<WireRfi>(`/v1/rfis/${rfiId}`);
  const run = await openApp(browser, bank);
  const { page, harness } = run;
  await page.goto(`${harness.url}#/rfis/${rfiId}`);
  const q = question(page, rfi.questions[0]!.id);
  await expect(selectButton(q, 'Document type')).toContainText('Passport');

  const drop = async (
    name: string,
    type: string,
    bytes: number[] | string,
    size?: number,
    tail?: number[],
  ) => {
    const zone = q.getByTestId('answer-drop');
    const dt = await page.evaluateHandle(
      ({ name, type, bytes, size, tail }) => {
        const data = new DataTransfer();
        const head = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : new Uint8Array(bytes);
        const body = new Uint8Array(size ?? head.length);
        body.set(head.subarray(0, body.length));
        if (tail) body.set(tail, body.length - tail.length);
        data.items.add(new File([body], name, { type }));
        return data;
      },
      { name, type, bytes, size, tail },
    );
    await zone.dispatchEvent('dragenter', { dataTransfer: dt });
    await zone.dispatchEvent('drop', { dataTransfer: dt });
  };

  // A PNG of 1.2 MB (signature, IHDR, …, IEND: main checks the structure): three chunks through files.stageDropped.
  await drop(
    '../../passport scan.png',
    'image/png',
    [
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0,
      0, 1, 8, 2, 0, 0, 0, 0, 0, 0, 0,
    ],
    1_200_000,
    [0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82],
  );
  await expect(q.getByTestId('answer-files')).toContainText('passport scan.png · image/png');
  // An executable renamed .pdf: the bytes say what it is.
  await drop('invoice.pdf', 'application/pdf', 'MZ\u0090\u0000 not a pdf');
  await expect(q.getByTestId('answer-problem')).toContainText('not a PDF, PNG or JPEG');
  // A type the bank does not accept is refused before any byte moves.
  await drop('notes.txt', 'text/plain', 'hello');
  await expect(q.getByTestId('answer-problem')).toContainText('text/plain is not accepted');
  await expect(q.getByTestId('answer-files').getByRole('listitem')).toHaveCount(1);

  await q.getByTestId('answer-submit').click();
  await expect(q.getByTestId('answer-status')).toHaveAttribute('data-state', 'sent', { timeout: 20_000 });
  const after = await bank.get<WireRfi>(`/v1/rfis/${rfiId}`);
  const resp = customerResponses(after, rfi.questions[0]!.id);
  expect(resp).toHaveLength(1);
  const docId = resp[0]!.response['identification.individual.passport']!.document_ids[0]!;
  expect(
    await bank.get<{ size_bytes: number; content_type: string }>(`/v1/documents/${docId}`),
  ).toMatchObject({
    size_bytes: 1_200_000,
    content_type: 'image/png',
  });
  await closeApp(run);
});

test('drafts and answers written offline survive a restart and land exactly once when back online', async ({
  browser,
}) => {
  const rfiId = seededRfi(0);
  const rfi = await bank.get<WireRfi>(`/v1/rfis/${rfiId}`);
  const [qText, qDoc] = rfi.questions;
  const dataDir = path.join(tmp, 'data');

  // Online once: the RFIs are cached on this computer.
  let run = await openApp(browser, bank, dataDir);
  await run.page.goto(`${run.harness.url}#/rfis/${rfiId}`);
  await expect(run.page.getByTestId('rfi-status')).toHaveText('Action required');

  // The bank goes away.
  await bank.proxy.stop();
  await run.page.reload();
  await expect(run.page.getByTestId('rfi-from-cache')).toBeVisible({ timeout: 15_000 });
  const pdf = path.join(tmp, 'contract.pdf');
  await writePdf(pdf, 200_000);
  run.harness.platform.nextDialogAnswers.push([pdf]);

  let q1 = question(run.page, qText!.id);
  await q1.getByLabel('Your answer').fill('Freight services, offline answer.');
  await q1.getByTestId('answer-submit').click();
  await expect(q1.getByTestId('answer-status')).toHaveAttribute('data-state', 'queued');
  await expect(q1.getByTestId('answer-status')).toContainText('will retry', { timeout: 15_000 });

  let q2 = question(run.page, qDoc!.id);
  await q2.getByRole('button', { name: 'Choose files…' }).click();
  await expect(q2.getByTestId('answer-files')).toContainText('contract.pdf');
  await q2.getByTestId('answer-submit').click();
  await expect(q2.getByTestId('answer-status')).toHaveAttribute('data-state', /queued|uploading/);

  await closeApp(run);

  // Restart the services on the same data folder, still offline.
  run = await openApp(browser, bank, dataDir);
  await run.page.goto(`${run.harness.url}#/rfis/${rfiId}`);
  q1 = question(run.page, qText!.id);
  q2 = question(run.page, qDoc!.id);
  await expect(q1.getByTestId('answer-status')).toHaveAttribute('data-state', /queued|verifying/, {
    timeout: 15_000,
  });
  await expect(q1.getByLabel('Your answer')).toHaveValue('Freight services, offline answer.');
  await expect(q2.getByTestId('answer-files')).toContainText('contract.pdf');
  // Nothing reached the bank while it was away.
  expect(customerResponses(await bank.get<WireRfi>(`/v1/rfis/${rfiId}`), qText!.id)).toEqual([]);

  // Back online: the outbox runs when the system says so.
  await bank.proxy.start();
  run.harness.platform.fire('online');
  await expect(q1.getByTestId('answer-status')).toHaveAttribute('data-state', 'sent', { timeout: 20_000 });
  await expect(q2.getByTestId('answer-status')).toHaveAttribute('data-state', 'sent', { timeout: 20_000 });
  await expect(run.page.getByTestId('rfi-status')).toHaveText('Pending review', { timeout: 15_000 });

  const after = await bank.get<WireRfi>(`/v1/rfis/${rfiId}`);
  expect(customerResponses(after, qText!.id)).toHaveLength(1);
  expect(customerResponses(after, qDoc!.id)).toHaveLength(1);
  expect(after.status).toBe('pending_review');
  // Landing cleared the drafts of the sent answers.
  expect((await run.harness.services.rfiAnswers.getDrafts(rfiId)).map((d) => d.questionId)).toEqual([]);
  await closeApp(run);
});

test('a typed draft is kept across a restart without sending anything', async ({ browser }) => {
  const rfiId = seededRfi(4); // segment_upgrade: first question awaits documents, no text
  const rfi = await bank.get<WireRfi>(`/v1/rfis/${rfiId}`);
  const q = rfi.questions.find((x) => x.status === 'action_required')!;
  const earlier = customerResponses(rfi, q.id).length; // the outdated register sent before
  const dataDir = path.join(tmp, 'data');
  let run = await openApp(browser, bank, dataDir);
  await run.page.goto(`${run.harness.url}#/rfis/${rfiId}`);
  await bank.proxy.stop();
  const pdf = path.join(tmp, 'ubo-register-2026.pdf');
  await writePdf(pdf, 50_000);
  run.harness.platform.nextDialogAnswers.push([pdf]);
  await question(run.page, q.id).getByRole('button', { name: 'Choose files…' }).click();
  await expect(question(run.page, q.id).getByTestId('draft-state')).toHaveText('Draft saved');
  await closeApp(run);

  run = await openApp(browser, bank, dataDir);
  await run.page.goto(`${run.harness.url}#/rfis/${rfiId}`);
  await expect(question(run.page, q.id).getByTestId('answer-files')).toContainText('ubo-register-2026.pdf');
  await expect(question(run.page, q.id).getByTestId('answer-status')).toHaveAttribute('data-state', 'draft');
  await bank.proxy.start();
  expect(customerResponses(await bank.get<WireRfi>(`/v1/rfis/${rfiId}`), q.id)).toHaveLength(earlier);
  await closeApp(run);
});

test('staff closes a question while its answer is queued: the UI shows the conflict and keeps the draft', async ({
  browser,
}) => {
  const created = await bank.post<WireRfi>('/v1/sandbox/rfis', {
    type: 'account',
    related_id: bank.sandbox.fixtures.legal_entities[0]!.accounts[0]!.id,
    description: 'Conflict scenario',
    questions: [{ question_type: 'transaction.purpose', question_text: 'What is the account used for?' }],
  });
  const qid = created.questions[0]!.id;
  const run = await openApp(browser, bank);
  const { page, harness } = run;
  await page.goto(`${harness.url}#/rfis/${created.id}`);
  await expect(page.getByTestId('rfi-status')).toHaveText('Action required');

  await bank.proxy.stop();
  const q = question(page, qid);
  await q.getByLabel('Your answer').fill('Operating account for EU receivables.');
  await q.getByTestId('answer-submit').click();
  await expect(q.getByTestId('answer-status')).toHaveAttribute('data-state', 'queued');

  // Meanwhile at the bank: a colleague answered elsewhere and staff closed the question.
  await bank.post(`/v1/rfis/${created.id}/questions/${qid}/responses`, {
    question_type: 'transaction.purpose',
    'transaction.purpose': { response_text: 'Answered by phone.', document_ids: [] },
  });
  await bank.post(`/v1/sandbox/rfis/${created.id}/questions/${qid}/action`, {
    action: 'close',
    response_text: 'Closed: clarified by phone with the relationship manager.',
  });

  await bank.proxy.start();
  harness.platform.fire('online');
  await expect(q.getByTestId('answer-status')).toHaveAttribute('data-state', 'conflict', { timeout: 20_000 });
  await expect(q.getByTestId('answer-status')).toContainText('the question is now closed');
  await expect(q.getByTestId('answer-conflict')).toContainText(
    'Closed: clarified by phone with the relationship manager.',
  );
  await expect(q.getByTestId('question-status')).toHaveText('Closed');
  // The question no longer awaits an answer: what was written stays on screen as not sent.
  await expect(q.getByTestId('unsent-notice')).toContainText('Not sent: the question was closed by the bank');
  await expect(q.getByLabel('Your answer (not sent)')).toHaveValue('Operating account for EU receivables.');

  // Nothing was sent, nothing dropped: the bank has only the other response, the draft is kept.
  const after = await bank.get<WireRfi>(`/v1/rfis/${created.id}`);
  expect(customerResponses(after, qid).map((r) => r.response['transaction.purpose']?.response_text)).toEqual([
    'Answered by phone.',
  ]);
  const drafts = await harness.services.rfiAnswers.getDrafts(created.id);
  expect(drafts.map((d) => d.text)).toEqual(['Operating account for EU receivables.']);
  await closeApp(run);
});

test('queue: counts, deadline bands in words, search with /, j/k and Enter', async ({ browser }) => {
  const run = await openApp(browser, bank);
  const { page, harness } = run;
  await page.goto(`${harness.url}#/rfis`);
  await expect(page.getByTestId('rfi-row').first()).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId('rfi-visible-count')).toContainText('8 of 8 RFIs');
  // The one status filter is a row of chips carrying the counts: "Action required 3".
  const statusChips = page.getByRole('radiogroup', { name: 'Status' });
  await expect(statusChips.getByRole('radio', { name: 'Action required 3' })).toBeVisible();
  await expect(statusChips.getByRole('radio', { name: 'All 8' })).toHaveAttribute('aria-checked', 'true');
  // Deadline order: the KYC RFI about 6 hours from its timeout comes first, at risk in words.
  const first = page.getByTestId('rfi-row').first();
  await expect(first).toHaveAttribute('data-rfi-id', seededRfi(5));
  await expect(first).toContainText('At risk');
  await expect(first).toContainText('New');
  expect(await seriousA11yViolations(page)).toEqual([]);

  await page.getByRole('heading', { name: 'Requests for information' }).click();
  await page.keyboard.press('/');
  const search = page.getByRole('searchbox', { name: 'Search' });
  await expect(search).toBeFocused();
  await page.keyboard.type('harbour');
  await expect(page.getByTestId('rfi-visible-count')).toContainText('2 of 8 RFIs');
  // Enter in the search moves to the results, keeping the filter.
  await page.keyboard.press('Enter');
  await expect(page.getByRole('grid', { name: 'RFIs' })).toBeFocused();
  await expect(page.getByTestId('rfi-visible-count')).toContainText('2 of 8 RFIs');
  await page.keyboard.press('j');
  await page.keyboard.press('j');
  await page.keyboard.press('k');
  const active = page.locator('[data-testid="rfi-row"][aria-selected="true"]');
  await expect(active).toHaveCount(1);
  const activeId = await active.getAttribute('data-rfi-id');
  expect(activeId).toBe(seededRfi(0));
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`#/rfis/${activeId}\\?profile=[\\w.-]+$`));
  await expect(page.getByTestId('rfi-detail')).toBeVisible();
  await expect(page.getByTestId('answer-composer').first()).toBeVisible();
  expect(await seriousA11yViolations(page)).toEqual([]);

  await page.goto(`${harness.url}#/rfis`);
  // The queue keeps its filter while the analyst looks at an RFI.
  await expect(page.getByRole('searchbox', { name: 'Search' })).toHaveValue('harbour');
  await page.getByRole('searchbox', { name: 'Search' }).fill('');
  await statusChips.getByRole('radio', { name: 'Approved 1' }).click();
  await expect(page.getByTestId('rfi-visible-count')).toContainText('1 of 8 RFIs');
  await expect(page.getByTestId('rfi-row').first()).toContainText('No deadline');

  // One status filter: the chosen chip is checked; the keyboard moves along the chips (arrows,
  // Space), and "All" clears it.
  await statusChips.getByRole('radio', { name: 'Approved 1' }).focus();
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await expect(statusChips.getByRole('radio', { name: 'Action required 3' })).toBeFocused();
  await page.keyboard.press('Space');
  await expect(page.getByTestId('rfi-visible-count')).toContainText('3 of 8 RFIs');
  await expect(page.getByTestId('rfi-filter-status')).toHaveAttribute('data-value', 'action_required');
  await expect(statusChips.getByRole('radio', { name: 'Action required 3' })).toHaveAttribute(
    'aria-checked',
    'true',
  );
  await statusChips.getByRole('radio', { name: 'All 8' }).click();
  await expect(page.getByTestId('rfi-visible-count')).toContainText('8 of 8 RFIs');
  await expect(page.getByTestId('rfi-filter-status')).toHaveAttribute('data-value', '');
  // Sort from the Sort control (pointer, then keyboard) and from the column headers: the rows
  // follow main's order of the same cache (the shared rules): newest first, last updated first,
  // then by deadline again.
  const rowIds = () =>
    page.getByTestId('rfi-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-rfi-id')));
  const mainOrder = async (sort: 'deadline' | 'created_desc' | 'updated_desc') =>
    (await harness.services.handlers['rfis.list']({ sort })).items.map((r) => r.id);
  const sortOrder = page.getByRole('radiogroup', { name: 'Sort' });
  await sortOrder.getByRole('radio', { name: 'Newest' }).click();
  await expect(page.getByTestId('rfi-sort')).toHaveAttribute('data-value', 'created_desc');
  await expect.poll(rowIds).toEqual(await mainOrder('created_desc'));
  await page.keyboard.press('ArrowLeft');
  await expect(sortOrder.getByRole('radio', { name: 'Updated' })).toBeFocused();
  await page.keyboard.press('Space');
  await expect(sortOrder.getByRole('radio', { name: 'Updated' })).toHaveAttribute('aria-checked', 'true');
  await expect.poll(rowIds).toEqual(await mainOrder('updated_desc'));
  await page.getByRole('columnheader', { name: 'Deadline' }).getByRole('button').click();
  await expect(page.getByTestId('rfi-sort')).toHaveAttribute('data-value', 'deadline');
  await expect.poll(rowIds).toEqual(await mainOrder('deadline'));
  await closeApp(run);
});

test('a draft whose question the bank closes or answers before it is sent stays visible: not sent, copy, discard', async ({
  browser,
}) => {
  const created = await bank.post<WireRfi>('/v1/sandbox/rfis', {
    type: 'account',
    related_id: bank.sandbox.fixtures.legal_entities[0]!.accounts[0]!.id,
    description: 'Drafts overtaken by the bank',
    questions: [
      { question_type: 'transaction.purpose', question_text: 'What is the account used for?' },
      { question_type: 'transaction.purpose', question_text: 'Who are the main counterparties?' },
    ],
  });
  const [closedQ, answeredQ] = created.questions.map((q) => q.id);
  const run = await openApp(browser, bank);
  const { page, harness, context } = run;
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: harness.url });
  await page.goto(`${harness.url}#/rfis/${created.id}`);
  await expect(page.getByTestId('rfi-status')).toHaveText('Action required');

  const q1 = question(page, closedQ!);
  const q2 = question(page, answeredQ!);
  await q1.getByLabel('Your answer').fill('Receivables from EU distributors.');
  await expect(q1.getByTestId('draft-state')).toHaveText('Draft saved');
  await q2.getByLabel('Your answer').fill('Harbour Freight Ltd and two shipping agents.');
  await expect(q2.getByTestId('draft-state')).toHaveText('Draft saved');
  // "Draft saved" is said once per question.
  await expect(q1.getByText('Draft saved')).toHaveCount(1);

  // At the bank, before anything is sent: a colleague answers both questions elsewhere, then
  // staff closes the first.
  for (const qid of [closedQ, answeredQ]) {
    await bank.post(`/v1/rfis/${created.id}/questions/${qid}/responses`, {
      question_type: 'transaction.purpose',
      'transaction.purpose': { response_text: 'Answered by a colleague.', document_ids: [] },
    });
  }
  await bank.post(`/v1/sandbox/rfis/${created.id}/questions/${closedQ}/action`, {
    action: 'close',
    response_text: 'Closed: no longer needed.',
  });
  await page.reload();

  await expect(q1.getByTestId('question-status')).toHaveText('Closed');
  await expect(q1.getByTestId('unsent-notice')).toContainText(
    'Not sent: the question was closed by the bank',
  );
  await expect(q1.getByLabel('Your answer (not sent)')).toHaveValue('Receivables from EU distributors.');
  await expect(q2.getByTestId('unsent-notice')).toContainText(
    'Not sent: the question was answered by the bank',
  );
  await expect(q2.getByLabel('Your answer (not sent)')).toHaveValue(
    'Harbour Freight Ltd and two shipping agents.',
  );
  // The bank has not reached: no offline notice; and nothing of ours went out.
  await expect(page.getByTestId('rfi-from-cache')).toHaveCount(0);
  const atBank = await bank.get<WireRfi>(`/v1/rfis/${created.id}`);
  expect(
    customerResponses(atBank, closedQ!).map((r) => r.response['transaction.purpose']?.response_text),
  ).toEqual(['Answered by a colleague.']);
  expect(
    customerResponses(atBank, answeredQ!).map((r) => r.response['transaction.purpose']?.response_text),
  ).toEqual(['Answered by a colleague.']);

  // Copy puts the text on the clipboard.
  await q1.getByRole('button', { name: 'Copy text' }).click();
  await expect(q1.getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('Receivables from EU distributors.');

  // Discard asks once, then deletes the draft in main; the other one stays.
  await q1.getByRole('button', { name: 'Discard' }).click();
  const dialog = page.getByRole('alertdialog', { name: 'Discard this answer?' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Discard' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(q1.getByTestId('unsent-notice')).toHaveCount(0);
  await expect(q2.getByTestId('unsent-notice')).toBeVisible();
  const drafts = await harness.services.rfiAnswers.getDrafts(created.id);
  expect(drafts.map((d) => d.questionId)).toEqual([answeredQ]);
  await page.reload();
  await expect(q2.getByLabel('Your answer (not sent)')).toHaveValue(
    'Harbour Freight Ltd and two shipping agents.',
  );
  await expect(q1.getByTestId('unsent-notice')).toHaveCount(0);
  await closeApp(run);
});

test('master-detail on a wide window: j/k moves the selection, the detail and the URL follow, Back works', async ({
  browser,
}) => {
  const run = await openApp(browser, bank);
  const { page, harness } = run;
  await page.setViewportSize({ width: 1360, height: 880 });
  await page.goto(`${harness.url}#/overview`);
  await page.goto(`${harness.url}#/rfis`);
  const grid = page.getByRole('grid', { name: 'RFIs' });
  await expect(page.getByTestId('rfi-row').first()).toBeVisible({ timeout: 15_000 });
  await expect(page.getByText('No RFI selected')).toBeVisible();

  const rows = page.getByTestId('rfi-row');
  const firstId = await rows.nth(0).getAttribute('data-rfi-id');
  const secondId = await rows.nth(1).getAttribute('data-rfi-id');
  await rows.nth(0).click();
  await expect(page).toHaveURL(new RegExp(`#/rfis/${firstId}\\?profile=[\\w.-]+$`));
  const detail = page.getByTestId('rfi-detail');
  await expect(detail.getByRole('button', { name: 'Copy RFI id' })).toBeVisible();
  await expect(detail.getByText(firstId!)).toBeVisible();
  // The queue stays beside the detail.
  await expect(grid).toBeVisible();

  await grid.focus();
  await page.keyboard.press('j');
  await expect(page).toHaveURL(new RegExp(`#/rfis/${secondId}\\?profile=[\\w.-]+$`));
  await expect(detail.getByText(secondId!)).toBeVisible();
  await expect(page.locator('[data-testid="rfi-row"][aria-selected="true"]')).toHaveAttribute(
    'data-rfi-id',
    secondId!,
  );
  await page.keyboard.press('k');
  await expect(page).toHaveURL(new RegExp(`#/rfis/${firstId}\\?profile=[\\w.-]+$`));
  await expect(grid).toBeFocused();

  // Moving with j/k replaced the history entry: Back leaves the RFI workspace.
  await page.goBack();
  await expect(page).toHaveURL(/#\/rfis$/);
  await page.goBack();
  await expect(page).toHaveURL(/#\/overview$/);

  // A narrow window shows one or the other.
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.goto(`${harness.url}#/rfis/${firstId}`);
  await expect(page.getByTestId('rfi-detail')).toBeVisible();
  await expect(page.getByRole('grid', { name: 'RFIs' })).toHaveCount(0);
  await page.getByRole('link', { name: 'Back to the queue' }).click();
  await expect(page.getByRole('grid', { name: 'RFIs' })).toBeVisible();
  expect(await seriousA11yViolations(page)).toEqual([]);
  await closeApp(run);
});

test('a long queue recycles its rows as it scrolls: Chromium’s accessibility tree reads them in the order on screen, and j/k follow it', async ({
  browser,
}) => {
  const le = bank.sandbox.fixtures.legal_entities[0]!.id;
  await bank.post('/v1/sandbox/rfis/bulk', { count: 300, legal_entity_id: le });
  const run = await openApp(browser, bank);
  const { page, harness, context } = run;
  await page.setViewportSize({ width: 1360, height: 880 });
  await page.goto(`${harness.url}#/rfis`);
  await expect(page.getByTestId('rfi-visible-count')).toContainText('of 308 RFIs', { timeout: 20_000 });
  const grid = page.getByRole('grid', { name: 'RFIs' });
  // Move well down by keyboard (each PageDown moves the highlight a page and scrolls with it).
  await grid.focus();
  for (let i = 0; i < 5; i++) await page.keyboard.press('PageDown');
  await page.keyboard.press('j');
  await expect(page.locator('[data-testid="rfi-row"][aria-selected="true"]')).toBeVisible();

  // The rows as the analyst sees them, top to bottom.
  const onScreen = async (): Promise<string[]> =>
    page.getByTestId('rfi-row').evaluateAll((rows) =>
      rows
        .map((r) => ({ id: r.getAttribute('data-rfi-id') ?? '', y: r.getBoundingClientRect().top }))
        .sort((a, b) => a.y - b.y)
        .map((r) => r.id),
    );
  // The rows as Chromium hands them to a screen reader (its accessibility tree, in order).
  const cdp = await context.newCDPSession(page);
  const readingOrder = async (): Promise<string[]> => {
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as {
      nodes: { role?: { value?: string }; backendDOMNodeId?: number }[];
    };
    const ids: string[] = [];
    for (const n of nodes) {
      if (n.role?.value !== 'row' || n.backendDOMNodeId === undefined) continue;
      const { node } = (await cdp.send('DOM.describeNode', { backendNodeId: n.backendDOMNodeId })) as {
        node: { attributes?: string[] };
      };
      const attrs = node.attributes ?? [];
      const at = attrs.indexOf('data-rfi-id');
      if (at >= 0) ids.push(attrs[at + 1]!);
    }
    return ids;
  };
  const domOrder = async (): Promise<string[]> =>
    page.getByTestId('rfi-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-rfi-id') ?? ''));
  const seen = await onScreen();
  expect(seen.length).toBeGreaterThan(10);
  expect(await readingOrder()).toEqual(seen);
  // The row elements were recycled as the window moved: their DOM order is not the screen's.
  expect(await domOrder()).not.toEqual(seen);
  // The queue's own order (main's rules) is the one on screen.
  const mainOrder = (await harness.services.handlers['rfis.list']({ sort: 'deadline' })).items.map(
    (r) => r.id,
  );
  const from = mainOrder.indexOf(seen[0]!);
  expect(from).toBeGreaterThan(0);
  expect(seen).toEqual(mainOrder.slice(from, from + seen.length));

  // j moves to the next row on screen, whatever the DOM order.
  const active = page.locator('[data-testid="rfi-row"][aria-selected="true"]');
  const current = (await active.getAttribute('data-rfi-id'))!;
  await page.keyboard.press('j');
  await expect(active).toHaveAttribute('data-rfi-id', mainOrder[mainOrder.indexOf(current) + 1]!);
  expect(await readingOrder()).toEqual(await onScreen());
  expect(await seriousA11yViolations(page)).toEqual([]);
  await closeApp(run);
});
