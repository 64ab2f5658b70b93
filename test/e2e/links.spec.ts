import { test, expect } from './fixtures';
import type { Harness } from '../harness/harness';
import { chooseOption } from './ui-controls';
import { seriousA11yViolations } from './axe';
import { staffOf } from '../support/sandbox-staff';

/**
 * Links between objects in Chromium through the harness against the embedded sandbox: from an RFI
 * about an incoming transfer to the return form in two clicks, the return's page listing the RFI,
 * Alt+Left / Alt+Right through that history, and a quote's related RFIs.
 */
test.use({
  harnessOptions: {
    services: {
      environment: {
        kind: 'embedded-sandbox',
        sandbox: { visibilityDelayMs: { min: 0, max: 0 }, quoteTtlSeconds: 90 },
      },
    },
  },
});

function entityA(harness: Harness) {
  const le = harness.services.sandbox?.fixtures.legal_entities[0];
  if (!le) throw new Error('no legal entity A in the sandbox');
  return le;
}

test('from an RFI about an incoming transfer to the return form in two clicks; the return lists the RFI; Alt+Left/Right move through the history', async ({
  app,
  harness,
}) => {
  const le = entityA(harness);
  // The first seeded RFI is about a settled incoming transfer from Harbour Freight Ltd.
  const rfiId = le.rfi_ids[0]!;
  const wire = await harness.services.bank.getRfi(rfiId);
  expect(wire.type).toBe('transaction');
  const txId = wire.related_id;
  expect((await harness.services.bank.getTransaction(txId)).status).toBe('completed');

  // The queue's cache is filled first (the related lists read it).
  await app.goto(`${harness.url}#/rfis`);
  await expect(app.getByTestId('rfi-row').first()).toBeVisible({ timeout: 15_000 });
  await app.goto(`${harness.url}#/rfis/${rfiId}`);
  await expect(app.getByTestId('rfi-status')).toHaveText('Action required');

  // Click 1: the related transfer.
  const link = app.getByTestId('rfi-related-name');
  // The transfer is opened through the profile that owns the RFI.
  await expect(link).toHaveAttribute('href', `#/returns/${txId}?profile=sandbox`);
  await link.click();
  await expect(app.getByTestId('transfer-id')).toHaveText(txId);
  await expect(app.getByTestId('transfer-debtor')).toContainText('Harbour Freight Ltd');
  // Click 2: the return form.
  await app.getByRole('button', { name: 'Return this transfer…' }).click();
  const amount = app.getByLabel(/^Amount to return/);
  await expect(amount).toBeVisible();

  await amount.fill('10');
  await chooseOption(app, app, 'Reason', /\(AC03\)$/);
  await app.getByRole('button', { name: 'Create return intent' }).click();
  await expect(app.getByTestId('return-review')).toBeVisible();
  await expect(app.getByTestId('return-status')).toHaveText('Return intent created');
  // The bank holds the intent.
  expect((await harness.services.bank.getTransaction(txId)).status).toBe('intent_created');

  // The return's page lists the RFIs about this transfer, each a link to the RFI.
  const related = app.getByRole('region', { name: 'Related RFIs' });
  const rfiLink = related.getByRole('link', { name: wire.description });
  await expect(rfiLink).toBeVisible();
  await expect(rfiLink).toHaveAttribute('href', new RegExp(`^#/rfis/${rfiId}\\?profile=[\\w.-]+$`));
  const expected = le.rfi_ids.length;
  expect(expected).toBeGreaterThan(0);
  // Only RFIs whose related object is this transfer are listed (the seed has two about it).
  const rows = related.getByRole('row');
  const aboutThis: string[] = [];
  for (const id of le.rfi_ids) {
    const r = await harness.services.bank.getRfi(id);
    if (r.related_id === txId) aboutThis.push(r.description);
  }
  await expect(rows).toHaveCount(aboutThis.length + 1);
  for (const d of aboutThis) await expect(related).toContainText(d);
  expect(await seriousA11yViolations(app)).toEqual([]);
  await app.screenshot({ path: test.info().outputPath('return-related-rfis.png'), fullPage: true });

  // Back to the RFI with Alt+Left, forward again with Alt+Right.
  await app.getByRole('heading', { level: 1 }).click();
  await app.keyboard.press('Alt+ArrowLeft');
  await expect(app).toHaveURL(new RegExp(`#/rfis/${rfiId}\\?profile=[\\w.-]+$`));
  await expect(app.getByTestId('rfi-status')).toHaveText('Action required');
  await app.keyboard.press('Alt+ArrowRight');
  await expect(app).toHaveURL(new RegExp(`#/returns/${txId}\\?profile=sandbox$`));
  await expect(app.getByTestId('transfer-id')).toHaveText(txId);

  // The mouse's back button does the same.
  await app.mouse.move(200, 200);
  await app.evaluate(() => {
    for (const type of ['mousedown', 'mouseup'])
      document.body.dispatchEvent(new MouseEvent(type, { button: 3, bubbles: true }));
  });
  await expect(app).toHaveURL(new RegExp(`#/rfis/${rfiId}\\?profile=[\\w.-]+$`));

  // F1 lists the history keys.
  await app.keyboard.press('F1');
  const help = app.getByRole('dialog', { name: /keyboard shortcuts/i });
  await expect(help).toContainText('Back (the previous screen)');
  await expect(help).toContainText('Forward');
});

test('an account-related RFI names the account; a quote lists the RFIs about it', async ({
  app,
  harness,
}) => {
  const le = entityA(harness);
  const account = le.accounts[0]!;
  const created = await staffOf(harness.services).createRfi({
    legal_entity_id: le.id,
    type: 'account',
    related_id: account.id,
    description: 'Review of the account for links',
    questions: [{ question_type: 'transaction.purpose', question_text: 'What is the account used for?' }],
  });
  await app.goto(`${harness.url}#/rfis`);
  await expect(app.getByTestId('rfi-row').first()).toBeVisible({ timeout: 15_000 });
  await app.goto(`${harness.url}#/rfis/${created.id}`);
  const name = app.getByTestId('rfi-related-name');
  await expect(name).not.toHaveText('Account');
  await expect(name).not.toHaveText(account.id);
  await expect(app.getByTestId('rfi-related')).toContainText(account.id);

  // A quote: no RFI is about it at first.
  await app.goto(`${harness.url}#/exchange/new`);
  await expect(app.getByRole('heading', { name: 'New exchange quote' })).toBeVisible();
  await app.getByLabel('Amount', { exact: true }).fill('10');
  await expect(app.getByTestId('crypto-pays')).toHaveAttribute('data-value', /.+/);
  await app.getByTestId('crypto-get-quote').click();
  await expect(app).toHaveURL(/#\/exchange\/cx-[0-9a-f-]+$/);
  const orderId = new URL(app.url()).hash.split('/').pop()!;
  await expect(app.getByTestId('crypto-status')).toHaveAttribute('data-status', 'in_progress', {
    timeout: 15_000,
  });
  const related = app.getByRole('region', { name: 'Related RFIs' });
  await expect(related.getByTestId('related-rfis-none')).toBeVisible();

  // The bank opens an RFI about this order: once synced, the quote lists it, linked.
  const aboutQuote = await staffOf(harness.services).createRfi({
    legal_entity_id: le.id,
    type: 'transaction',
    related_id: orderId,
    description: 'Purpose of the USDT purchase',
    questions: [{ question_type: 'transaction.purpose', question_text: 'What is the purchase for?' }],
  });
  await harness.services.rfis.sync('sync');
  const link = related.getByRole('link', { name: 'Purpose of the USDT purchase' });
  await expect(link).toBeVisible({ timeout: 15_000 });
  await expect(link).toHaveAttribute('href', new RegExp(`^#/rfis/${aboutQuote.id}\\?profile=[\\w.-]+$`));
  await expect(related.getByRole('row')).toHaveCount(2);
});
