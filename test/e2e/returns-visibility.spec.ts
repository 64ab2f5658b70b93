import { test, expect } from './fixtures';
import { chooseOption } from './ui-controls';

/**
 * The bank's own read-after-create window (spec 7.1) with the embedded sandbox: its visibility
 * delay hides the transfer for 2.5 s after the intent is created, and the analyst sees
 * "processing" until the review pane can be shown. Nothing is created twice.
 */
test.use({
  harnessOptions: {
    services: {
      environment: { kind: 'embedded-sandbox', sandbox: { visibilityDelayMs: { min: 2500, max: 2500 } } },
      readAfterCreate: { firstDelayMs: 300, maxDelayMs: 800 },
    },
  },
});

test('the sandbox visibility delay passes through "processing" to the review pane', async ({
  app,
  harness,
}) => {
  const sandbox = harness.services.sandbox;
  const transfer = sandbox?.fixtures.legal_entities[0]?.incoming_transfers.find(
    (t) => t.amount === '1250000',
  );
  if (!sandbox || !transfer) throw new Error('seed changed: no 12,500.00 USD transfer of legal entity A');

  await expect(app.getByTestId('connection-role')).toHaveText('Admin');
  await app.getByRole('link', { name: 'Returns' }).click();
  await app.getByLabel('Transaction id of the incoming transfer').fill(transfer.transaction_id);
  await app.getByRole('button', { name: 'Open', exact: true }).click();
  await expect(app.getByTestId('transfer-amount')).toHaveText('12,500.00 USD');
  await app.getByRole('button', { name: 'Return this transfer…' }).click();
  await app.getByLabel('Amount to return (USD)').fill('100');
  await chooseOption(app, app, 'Reason', /\(AM09\)$/);
  await app.getByRole('button', { name: 'Create return intent' }).click();

  const processing = app.getByTestId('return-processing');
  await expect(processing).toContainText('Processing.');
  await expect(app.getByTestId('return-review')).toBeVisible({ timeout: 15_000 });
  await expect(processing).toBeHidden();
  await expect(app.getByTestId('return-amount')).toHaveText('100.00 USD');

  const res = await fetch(`${sandbox.url}/v1/sandbox/transactions`, { headers: sandbox.controlHeaders() });
  const rows = (
    (await res.json()) as { data: Array<{ transaction: { transaction_id: string; status: string } }> }
  ).data;
  const mine = rows.filter((r) => r.transaction.transaction_id === transfer.transaction_id);
  expect(mine).toHaveLength(1);
  expect(mine[0]?.transaction.status).toBe('intent_created');
});
