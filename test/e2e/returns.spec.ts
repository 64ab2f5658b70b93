import type { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import type { Harness } from '../harness/harness';
import { chooseOption, selectButton } from './ui-controls';

/**
 * Issue 6 in Chromium through the harness against the embedded sandbox: find a transfer, return
 * it (intent → review → confirm → return_completed), cancel an intent, refusals and the viewer role.
 */
test.use({
  harnessOptions: {
    services: {
      environment: {
        kind: 'embedded-sandbox',
        sandbox: { visibilityDelayMs: { min: 0, max: 0 }, returnCompletionDelayMs: 1500 },
      },
    },
  },
});

type Fixture = { transaction_id: string; amount: string; creditor_account_id: string; status?: string };

function transfers(harness: Harness): Fixture[] {
  const le = harness.services.sandbox?.fixtures.legal_entities[0];
  if (!le) throw new Error('no legal entity A in the sandbox');
  return le.incoming_transfers;
}

/** A settled transfer of `amount` minor units (seeded). */
function seeded(harness: Harness, amount: string, status = 'completed'): string {
  const t = transfers(harness).find((x) => x.amount === amount && (x.status ?? 'completed') === status);
  if (!t) throw new Error(`no seeded transfer of ${amount} (${status})`);
  return t.transaction_id;
}

async function openTransfer(app: Page, id: string): Promise<void> {
  await app.getByRole('link', { name: 'Returns' }).click();
  await app.getByLabel('Transaction id of the incoming transfer').fill(id);
  await app.getByRole('button', { name: 'Open', exact: true }).click();
  await expect(app.getByTestId('transfer-id')).toHaveText(id);
}

async function auditOperations(harness: Harness): Promise<string[]> {
  const { entries } = await harness.services.audit.list();
  return entries.map((e) => `${e.operation} ${e.outcome} ${e.target ?? ''}`.trim());
}

test.describe('returns', () => {
  test('full return: form checked at the field, review beside the original, confirm step, followed to return_completed with a notification', async ({
    app,
    harness,
  }) => {
    const id = seeded(harness, '1250000');
    await openTransfer(app, id);
    await expect(app.getByTestId('transfer-amount')).toHaveText('12,500.00 USD');
    await expect(app.getByTestId('transfer-debtor')).toContainText('Harbour Freight Ltd');
    await expect(app.getByTestId('transfer-status')).toHaveText('Completed');

    await app.getByRole('button', { name: 'Return this transfer…' }).click();
    const amount = app.getByLabel('Amount to return (USD)');
    await expect(amount).toHaveValue('12,500.00');

    // Invalid input is explained at the field and nothing is sent.
    await amount.fill('12500.001');
    await app.getByRole('button', { name: 'Create return intent' }).click();
    await expect(amount).toHaveAccessibleDescription(/USD has 2 decimals: at most 2 digits after the dot\./);
    await expect(amount).toBeFocused();
    await expect(selectButton(app, 'Reason')).toHaveAccessibleDescription(
      /Choose the reason for the return\./,
    );
    await amount.fill('12500.01');
    await app.getByRole('button', { name: 'Create return intent' }).click();
    await expect(amount).toHaveAccessibleDescription(
      /cannot be more than the original transfer \(12,500\.00 USD\)/,
    );
    expect((await harness.services.bank.getTransaction(id)).status).toBe('completed');
    expect(harness.services.ledger.list()).toHaveLength(0);

    await amount.fill('100.5');
    await chooseOption(app, app, 'Reason', /\(AC03\)$/);
    await expect(app.getByTestId('return-reason-meaning')).toHaveText(
      'Invalid creditor account number: wrong or unknown creditor account',
    );
    await app.getByLabel('Description (optional)').fill('Beneficiary account unknown');
    await app.getByRole('button', { name: 'Create return intent' }).click();

    // Review: every return_* field of spec 2.2 beside the original transfer.
    const review = app.getByTestId('return-review');
    await expect(review).toBeVisible();
    await expect(app.getByTestId('return-status')).toHaveText('Return intent created');
    await expect(app.getByTestId('return-amount')).toHaveText('100.50 USD');
    await expect(app.getByTestId('return-fee')).toHaveText('0.00 USD');
    // The reason in words first, its ISO code after it as a secondary detail.
    await expect(app.getByTestId('return-reason')).toHaveText(
      'Invalid creditor account number: wrong or unknown creditor account AC03',
    );
    await expect(app.getByTestId('return-description')).toHaveText('Beneficiary account unknown');
    await expect(app.getByTestId('return-initiated-by')).toContainText('Alex Morgan');
    // dates one way: relative, the exact time on hover and in the <time> element
    const created = app.getByTestId('return-created-at').locator('time');
    await expect(created).toHaveAttribute('datetime', /^\d{4}-\d\d-\d\dT/);
    await expect(created).toHaveAttribute('title', /\d/);
    await expect(app.getByTestId('return-updated-at').locator('time')).toHaveAttribute('datetime', /^\d{4}-/);
    await expect(review.getByTestId('transfer-amount')).toHaveText('12,500.00 USD');
    // the amounts first, and each status named for what it is
    const amounts = app.getByRole('region', { name: 'What this return moves' });
    await expect(amounts).toContainText('100.50 USD');
    await expect(amounts).toContainText('to Harbour Freight Ltd');
    const statuses = app.getByTestId('return-statuses');
    await expect(statuses).toContainText('Original transfer’s status');
    await expect(statuses.getByTestId('return-original-status')).toHaveText('Completed');
    await expect(statuses).toContainText('This return’s status');
    await expect(statuses).toContainText('Return intent created');

    // Confirmation step restates amount, currency and reason; Back leaves it unconfirmed.
    await app.getByRole('button', { name: 'Confirm return…' }).click();
    const step = app.getByRole('alertdialog', { name: 'Confirm the return?' });
    await expect(step).toContainText('100.50 USD');
    await expect(step).toContainText('Currency USD');
    await expect(step).toContainText('AC03');
    await expect(step.getByTestId('return-confirm-restate')).toHaveText(
      'Return 100.50 USD to Harbour Freight Ltd',
    );
    // focus moves into the step, on Back: Enter alone never confirms
    await expect(step.getByRole('button', { name: 'Back' })).toBeFocused();
    await app.keyboard.press('Escape');
    await expect(step).toBeHidden();
    expect((await harness.services.bank.getTransaction(id)).status).toBe('intent_created');

    await app.getByRole('button', { name: 'Confirm return…' }).click();
    await app.getByRole('button', { name: 'Yes, confirm the return' }).click();
    await expect(app.getByTestId('return-following')).toBeVisible();
    await expect(app.getByTestId('return-completed')).toHaveText(
      /^The return is completed: returned 100\.50 USD to Harbour Freight Ltd at \d{1,2}:\d{2}:\d{2}( [AP]M)?\. Reason: Invalid creditor account number\.$/,
      { timeout: 15_000 },
    );
    // The sentence names the reason; no raw code stands in for it.
    await expect(app.getByTestId('return-completed')).not.toContainText('AC03');
    // and a toast says so, with a link to the transfer
    const toasts = app.getByRole('status', { name: 'Notifications' });
    await expect(toasts.getByText('Return completed')).toBeVisible();
    await expect(toasts).toContainText('100.50 USD returned: Invalid creditor account number');
    await expect(toasts.getByRole('link', { name: 'Open the transfer' })).toHaveAttribute(
      'href',
      `#/returns/${id}`,
    );
    await expect(app.getByTestId('return-status')).toHaveText('Return completed');

    await expect
      .poll(() => harness.platform.notifications.map((n) => `${n.title}: ${n.body}`))
      .toEqual([`Return completed: The return 100.50 USD of transfer ${id} is completed.`]);
    expect(await auditOperations(harness)).toEqual([
      `return.confirm succeeded ${id}`,
      `return.create_intent succeeded ${id}`,
    ]);

    // The Returns list shows it with its current status, and the transfer among the recent ones.
    await app.getByRole('link', { name: 'Back to Returns' }).click();
    const row = app.getByTestId('returns-row').filter({ hasText: id });
    await expect(row).toHaveCount(1);
    await expect(row.getByTestId('returns-row-status')).toHaveText('Return completed');
    await expect(row.getByTestId('returns-row-phase')).toHaveText('Completed');
    await expect(row).toContainText('100.50 USD');
    await expect(app.getByTestId('returns-recent')).toContainText(id);
  });

  test('create then cancel: the transfer is completed again and both steps are audited', async ({
    app,
    harness,
  }) => {
    const id = seeded(harness, '320050');
    await openTransfer(app, id);
    await expect(app.getByTestId('transfer-amount')).toHaveText('3,200.50 USD');
    await app.getByRole('button', { name: 'Return this transfer…' }).click();
    await chooseOption(app, app, 'Reason', /\(FOCR\)$/);
    await app.getByRole('button', { name: 'Create return intent' }).click();
    await expect(app.getByTestId('return-amount')).toHaveText('3,200.50 USD');
    await expect(app.getByTestId('return-status')).toHaveText('Return intent created');

    await app.getByRole('button', { name: 'Cancel the intent' }).click();
    await expect(app.getByTestId('return-notice')).toHaveText(
      'The return intent was cancelled. The transfer is completed again.',
    );
    await expect(app.getByTestId('transfer-status')).toHaveText('Completed');
    const tx = await harness.services.bank.getTransaction(id);
    expect(tx.status).toBe('completed');
    expect(tx.fi_to_fi_swift_incoming?.return_transfer_amount).toBeUndefined();
    // A return can be started again.
    await expect(app.getByRole('button', { name: 'Return this transfer…' })).toBeEnabled();
    expect(await auditOperations(harness)).toEqual([
      `return.cancel succeeded ${id}`,
      `return.create_intent succeeded ${id}`,
    ]);

    await app.getByRole('link', { name: 'Back to Returns' }).click();
    const row = app.getByTestId('returns-row').filter({ hasText: id });
    await expect(row.getByTestId('returns-row-phase')).toHaveText('Cancelled');
    await expect(row.getByTestId('returns-row-status')).toHaveText('Completed');
  });

  test('insufficient balance on the creditor account is refused in plain words, nothing is created', async ({
    app,
    harness,
  }) => {
    const id = seeded(harness, '500000');
    await openTransfer(app, id);
    await app.getByRole('button', { name: 'Return this transfer…' }).click();
    await chooseOption(app, app, 'Reason', /\(AM09\)$/);
    await app.getByRole('button', { name: 'Create return intent' }).click();
    const problem = app.getByTestId('return-send-problem');
    await expect(problem).toContainText(
      'the creditor account does not have enough available balance for this return. Fund the account or return a smaller amount',
    );
    // A definitive refusal: no "Send again" (nothing was created).
    await expect(problem.getByRole('button', { name: 'Send again' })).toHaveCount(0);
    expect((await harness.services.bank.getTransaction(id)).status).toBe('completed');
    expect(await auditOperations(harness)).toEqual([`return.create_intent failed ${id}`]);

    await app.getByRole('button', { name: 'Back' }).click();
    await app.getByRole('link', { name: 'Back to Returns' }).click();
    const row = app.getByTestId('returns-row').filter({ hasText: id });
    await expect(row.getByTestId('returns-row-phase')).toContainText('Refused by the bank');
  });

  test('a transfer that is not settled does not offer a return and says why', async ({ app, harness }) => {
    const id = seeded(harness, '75000', 'in_progress');
    await openTransfer(app, id);
    await expect(app.getByRole('button', { name: 'Return this transfer…' })).toBeDisabled();
    await expect(app.getByTestId('return-why-not')).toContainText(
      'This transfer is "in_progress", not completed. Only a settled (completed) transfer can be returned',
    );
  });

  test('viewer role: the return is disabled with the reason, and main refuses before sending', async ({
    app,
    harness,
  }) => {
    await harness.services.session.useSandboxCredential('a-viewer');
    await expect(app.getByTestId('connection-role')).toHaveText('Viewer');
    const id = seeded(harness, '1250000');
    await openTransfer(app, id);
    const start = app.getByRole('button', { name: 'Return this transfer…' });
    await expect(start).toBeDisabled();
    const why = app.getByTestId('return-why-not');
    await expect(why).toHaveText(
      'The credential in use has the viewer role: it can read transfers but not return them. Switch to an admin credential (Connection or Settings) to make a return.',
    );
    await expect(start).toHaveAttribute('aria-describedby', (await why.getAttribute('id')) ?? '');

    // Even a direct call is refused in main without a request to the bank.
    const answer = await app.evaluate(
      ({ txId, profileId }) =>
        (window as unknown as { desk: { invoke(c: string, a: unknown): Promise<unknown> } }).desk.invoke(
          'returns.createIntent',
          {
            profileId,
            operationId: 'ret-viewer-test-1',
            transactionId: txId,
            amount: '100',
            reasonCode: 'FOCR',
          },
        ),
      { txId: id, profileId: harness.services.session.profile.id },
    );
    expect(answer).toMatchObject({ ok: false, error: { kind: 'forbidden', reason: 'ROLE_VIEWER' } });
    expect(harness.services.ledger.list()).toHaveLength(0);
    expect((await harness.services.bank.getTransaction(id)).status).toBe('completed');
    // The refused attempt is audited (nothing was sent).
    expect(await auditOperations(harness)).toEqual([`return.create_intent failed ${id}`]);
  });
});
