import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { test, expect } from './fixtures';
import type { Harness } from '../harness/harness';
import { writePdf } from './rfi-workspace-support';
import { chooseOption } from './ui-controls';
import { startFaultProxy } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';
import { staffOf } from '../support/sandbox-staff';
import { formatMinor, parseMinor } from '../../src/shared/money';

/**
 * Every object acts through the profile that owns it, seen from the analyst's side: Alder (the
 * embedded sandbox profile) is the default and Birch is a second profile whose bank traffic goes
 * through a recording proxy. Without switching anything, the analyst answers Birch's RFI from the
 * consolidated queue (text and a document), exports one case file of both entities' RFIs, returns
 * Birch's transfer from its RFI and gets a quote for Birch; the proxy shows every request carried
 * Birch's token only, and the bank shows the results on Birch's objects.
 */
test.use({
  harnessOptions: {
    services: {
      environment: { kind: 'embedded-sandbox', sandbox: { visibilityDelayMs: { min: 0, max: 0 } } },
      rfis: { poll: { intervalMs: 300, floorMs: 200, jitter: 0 }, webhook: { autoConfigureSandbox: false } },
    },
  },
});

let proxy: FaultProxy;
test.afterEach(async () => {
  await proxy?.close();
});

async function addBirch(harness: Harness, url: string, token: string): Promise<string> {
  const h = harness.services.handlers;
  harness.platform.nextConfirmAnswers.push(true); // the analyst approves the address natively
  const view = await h['settings.addProfile']({ name: 'Birch via proxy', baseUrl: url });
  const id = view.profiles.find((p) => p.name === 'Birch via proxy')!.id;
  await h['vault.setToken']({ profileId: id, token });
  return id;
}

async function pdfText(file: string): Promise<string> {
  const doc = await getDocument({
    data: new Uint8Array(await readFile(file)),
    standardFontDataUrl: `${path.resolve('node_modules/pdfjs-dist/standard_fonts')}/`,
  }).promise;
  let text = '';
  for (let i = 1; i <= doc.numPages; i++) {
    const c = await (await doc.getPage(i)).getTextContent();
    text += c.items.map((it) => ('str' in it ? it.str + (it.hasEOL ? '\n' : ' ') : '')).join('');
  }
  return text;
}

test('with Alder the default, Birch’s RFI is answered, exported, its transfer returned and a quote made, each through Birch’s own token', async ({
  app,
  harness,
}) => {
  test.setTimeout(150_000);
  const sandbox = harness.services.sandbox!;
  const [alder, birch] = sandbox.fixtures.legal_entities;
  const tokenA = alder!.tokens.admin!;
  const tokenB = birch!.tokens.admin!;
  proxy = await startFaultProxy(sandbox.url);
  await harness.services.rfis.ready();
  const birchId = await addBirch(harness, proxy.url, tokenB);
  await expect
    .poll(() => harness.services.entityWatch.watched().has(birchId), { timeout: 10_000 })
    .toBe(true);
  expect(harness.services.session.profile.id).toBe('sandbox'); // Alder stays the default throughout

  // A new RFI for Birch about its incoming transfer: a text question and a document question.
  const transfer = birch!.incoming_transfers.find((t) => (t.status ?? 'completed') === 'completed')!;
  const rfi = await staffOf(harness.services).createRfi({
    type: 'transaction',
    related_id: transfer.transaction_id,
    description: 'Birch: source of the Quarry Stone payment',
    questions: [
      { question_type: 'transaction.purpose', question_text: 'What was the payment for?' },
      { question_type: 'transaction.supporting_documents', question_text: 'Send the invoice.' },
    ],
  });
  const [qText, qDoc] = rfi.questions;

  // From the consolidated queue, nothing switched.
  await app.goto(`${harness.url}#/rfis`);
  const row = app.getByTestId('rfi-row').filter({ hasText: 'Birch: source of the Quarry Stone payment' });
  await expect(row).toContainText(birch!.name, { timeout: 15_000 });
  await row.click();
  await expect(app.getByTestId('rfi-entity')).toHaveText(birch!.name);
  await expect(app.getByTestId('rfi-acting')).toHaveText(
    `Answers go out as ${birch!.name}, with its own credential.`,
  );
  await expect(app.getByRole('button', { name: /^Act as/ })).toHaveCount(0);
  proxy.seen.length = 0;
  const text = app.getByTestId(`question-${qText!.id}`);
  await text.getByLabel('Your answer').fill('Granite blocks for the Harbour project.');
  await text.getByTestId('answer-submit').click();
  await expect(text.getByTestId('answer-status')).toHaveAttribute('data-state', 'sent', { timeout: 15_000 });
  const invoice = path.join(harness.dataDir, '..', 'quarry-invoice.pdf');
  await writePdf(invoice, 20_000);
  harness.platform.nextDialogAnswers.push([invoice]);
  const docs = app.getByTestId(`question-${qDoc!.id}`);
  await docs.getByRole('button', { name: 'Choose files…' }).click();
  await docs.getByTestId('answer-submit').click();
  await expect(docs.getByTestId('answer-status')).toHaveAttribute('data-state', 'sent', { timeout: 20_000 });

  // The bank shows both answers on Birch's RFI, which Alder's credential cannot even read.
  const atBank = await fetch(`${sandbox.url}/v1/rfis/${rfi.id}`, {
    headers: { authorization: `Bearer ${tokenB}` },
  });
  const body = JSON.stringify(await atBank.json());
  expect(body).toContain('Granite blocks for the Harbour project.');
  expect(body).toMatch(/"document_ids":\["doc_/);
  expect(
    (await fetch(`${sandbox.url}/v1/rfis/${rfi.id}`, { headers: { authorization: `Bearer ${tokenA}` } }))
      .status,
  ).toBe(404);
  // Every request about it went through Birch's profile, with Birch's token only.
  const aboutIt = proxy.seen.filter((r) => r.path.includes(rfi.id) || r.method !== 'GET');
  expect(aboutIt.some((r) => r.method === 'POST' && r.path.includes(`/v1/rfis/${rfi.id}/`))).toBe(true);
  expect(proxy.seen.length).toBeGreaterThan(0);
  expect(proxy.seen.every((r) => r.headers.authorization === `Bearer ${tokenB}`)).toBe(true);

  // One case file of every RFI of both entities, from the consolidated queue.
  await app.goto(`${harness.url}#/rfis`);
  const total = (await harness.services.entityWatch.list({})).total;
  await expect(app.getByTestId('rfi-visible-count')).toContainText(`${total} of ${total}`, {
    timeout: 10_000,
  });
  const target = path.join(harness.dataDir, '..', `both-entities-${Date.now()}.pdf`);
  harness.platform.nextSaveAnswers.push(target);
  proxy.seen.length = 0;
  await app.getByRole('button', { name: /^Case file of/ }).click();
  await expect(app.getByRole('status').filter({ hasText: `Case file saved to ${target}` })).toBeVisible({
    timeout: 30_000,
  });
  const pdf = await pdfText(target);
  expect(pdf).toContain(rfi.id);
  expect(pdf).toContain(alder!.rfi_ids[0]!);
  expect(pdf).toContain(birch!.name);
  expect(pdf).toContain(alder!.name);
  // Birch's RFIs were read through Birch's profile, with Birch's token only.
  expect(proxy.seen.some((r) => r.path.startsWith(`/v1/rfis/${rfi.id}`))).toBe(true);
  expect(proxy.seen.every((r) => r.headers.authorization === `Bearer ${tokenB}`)).toBe(true);

  // A return of Birch's transfer, opened from Birch's RFI.
  await app.goto(`${harness.url}#/rfis/${rfi.id}`);
  await app.getByTestId('rfi-related-name').click();
  await expect(app.getByTestId('transfer-id')).toHaveText(transfer.transaction_id);
  proxy.seen.length = 0;
  await app.getByRole('button', { name: 'Return this transfer…' }).click();
  await app.getByLabel(/^Amount to return/).fill('10');
  await chooseOption(app, app, 'Reason', /\(AC03\)$/);
  await app.getByRole('button', { name: 'Create return intent' }).click();
  await expect(app.getByTestId('return-status')).toHaveText(/intent created/i, { timeout: 15_000 });
  const tx = await fetch(`${sandbox.url}/v1/transactions/${transfer.transaction_id}`, {
    headers: { authorization: `Bearer ${tokenB}` },
  });
  expect(((await tx.json()) as { status: string }).status).toBe('intent_created');
  expect(proxy.seen.some((r) => r.method === 'POST' && r.path === '/v1/transfer/return')).toBe(true);
  expect(proxy.seen.every((r) => r.headers.authorization === `Bearer ${tokenB}`)).toBe(true);

  // A quote for Birch, chosen on the form while Alder is the default.
  await harness.services.handlers['crypto.saveAccount']({
    profileId: birchId,
    accountId: birch!.accounts.find((a) => a.asset === 'USD')!.id,
    label: 'Birch USD main',
    asset: 'USD',
  });
  await harness.services.handlers['crypto.saveAccount']({
    profileId: birchId,
    accountId: birch!.accounts.find((a) => a.asset === 'ETHEREUM-USDT')!.id,
    label: 'Birch USDT wallet',
    asset: 'ETHEREUM-USDT',
  });
  await app.goto(`${harness.url}#/exchange/new`);
  await expect(app.getByRole('heading', { name: 'New exchange quote' })).toBeVisible();
  await chooseOption(app, app, 'For', new RegExp(birch!.name));
  await app.getByLabel('Amount', { exact: true }).fill('25');
  await expect(app.getByTestId('crypto-pays')).toHaveAttribute('data-value', /.+/);
  await expect(app.getByTestId('crypto-receives')).toHaveAttribute('data-value', /.+/);
  proxy.seen.length = 0;
  await app.getByTestId('crypto-get-quote').click();
  await expect(app).toHaveURL(/#\/exchange\/cx-[0-9a-f-]+$/);
  await expect(app.getByTestId('crypto-status')).toHaveAttribute('data-status', 'in_progress', {
    timeout: 15_000,
  });
  const order = (await harness.services.crypto.list()).find((o) => o.environmentId === birchId);
  expect(order?.transactionId).toBeTruthy();
  expect(proxy.seen.some((r) => r.method === 'POST' && r.path === '/v1/crypto/order')).toBe(true);
  expect(proxy.seen.every((r) => r.headers.authorization === `Bearer ${tokenB}`)).toBe(true);
  const quoteAtBank = await fetch(`${sandbox.url}/v1/transactions/${order!.transactionId}`, {
    headers: { authorization: `Bearer ${tokenB}` },
  });
  expect(quoteAtBank.status).toBe(200);
  expect(harness.services.session.profile.id).toBe('sandbox');
});

test('a transfer RFI of the second entity names its counterparty and amount in the queue and the RFI, read through that entity’s own token', async ({
  app,
  harness,
}) => {
  test.setTimeout(90_000);
  await app.setViewportSize({ width: 1360, height: 880 });
  const sandbox = harness.services.sandbox!;
  const [alder, birch] = sandbox.fixtures.legal_entities;
  const tokenA = alder!.tokens.admin!;
  const tokenB = birch!.tokens.admin!;
  proxy = await startFaultProxy(sandbox.url);
  await harness.services.rfis.ready();
  const birchId = await addBirch(harness, proxy.url, tokenB);
  await expect
    .poll(() => harness.services.entityWatch.watched().has(birchId), { timeout: 10_000 })
    .toBe(true);

  // Birch's seeded RFI about its incoming transfer, and that transfer as Birch's bank tells it.
  const rfis = await Promise.all(
    birch!.rfi_ids.map(async (id) => {
      const r = await fetch(`${sandbox.url}/v1/rfis/${id}`, {
        headers: { authorization: `Bearer ${tokenB}` },
      });
      return (await r.json()) as { id: string; type: string; related_id: string; description: string };
    }),
  );
  const rfi = rfis.find((r) => r.type === 'transaction')!;
  const atBank = await fetch(`${sandbox.url}/v1/transactions/${rfi.related_id}`, {
    headers: { authorization: `Bearer ${tokenB}` },
  });
  const incoming = ((await atBank.json()) as { fi_to_fi_swift_incoming: Record<string, string> })
    .fi_to_fi_swift_incoming;
  const words = `${incoming['debtor_name']}, ${formatMinor(parseMinor(incoming['amount']!), incoming['currency']!)}`;
  expect(words).toBe('Quarry Stone AG, 20,000.00 USD');
  // The default profile's (Alder's) token cannot even see it: only the owner can name it.
  const asAlder = await fetch(`${sandbox.url}/v1/transactions/${rfi.related_id}`, {
    headers: { authorization: `Bearer ${tokenA}` },
  });
  expect(asAlder.status).toBe(404);

  proxy.seen.length = 0;
  await app.goto(`${harness.url}#/rfis`);
  const row = app
    .getByTestId('rfi-row')
    .filter({ hasText: rfi.description })
    .filter({ hasText: birch!.name });
  // Beside the detail pane the "Related to" column gives way: the RFI cell says it instead.
  await expect(row.getByTestId('rfi-row-about')).toBeVisible({ timeout: 15_000 });
  await expect(row.getByTestId('rfi-row-about')).toHaveText(words);
  await expect(row).not.toContainText(rfi.related_id);
  await row.click();
  await expect(app.getByTestId('rfi-related-name')).toHaveText(words);
  // The id stays a secondary, copyable detail.
  await expect(app.getByTestId('rfi-related')).toContainText(rfi.related_id);
  // Read once through Birch's profile, with Birch's token only.
  const reads = proxy.seen.filter((r) => r.path === `/v1/transactions/${rfi.related_id}`);
  expect(reads.length).toBeGreaterThan(0);
  expect(reads.every((r) => r.headers.authorization === `Bearer ${tokenB}`)).toBe(true);
  // Without the pane (a list of its own at 1024 px, or the wide list), the same words; and where
  // the list is wide enough for the "Related to" column, it says them there, not twice.
  await app.setViewportSize({ width: 1024, height: 700 });
  await app.goto(`${harness.url}#/rfis`);
  await expect(row.getByTestId('rfi-row-about')).toBeVisible({ timeout: 15_000 });
  await expect(row.getByTestId('rfi-row-about')).toHaveText(words);
  await app.setViewportSize({ width: 1180, height: 800 });
  await expect(row.getByText(words, { exact: true }).filter({ visible: true })).toHaveCount(1);
  await expect(row.getByTestId('rfi-row-about')).toBeHidden();
  expect(harness.services.session.profile.id).toBe('sandbox');
});
