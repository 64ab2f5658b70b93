import type { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { chooseOption, selectButton } from './ui-controls';
import { seriousA11yViolations } from './axe';
import type { Harness } from '../harness/harness';
import { staffOf } from '../support/sandbox-staff';

/**
 * Digital-asset exchange (issue 7) in Chromium through the harness, against the in-process
 * sandbox with short quote TTLs, a short settlement delay and a visible read-after-create window.
 */

const sandboxBase = {
  visibilityDelayMs: { min: 400, max: 600 },
  quoteTtlSeconds: 20,
  settlementDelayMs: 600,
};

async function requestQuote(
  app: Page,
  opts: { asset?: 'USDT-USD' | 'USDC-USD'; amount: string; expectMinor?: string },
): Promise<string> {
  await app.goto(`${new URL(app.url()).origin}/#/exchange/new`);
  await expect(app.getByRole('heading', { name: 'New exchange quote' })).toBeVisible();
  if (opts.asset) await chooseOption(app, app, 'Digital asset', new RegExp(`\\(${opts.asset}\\)$`));
  await app.getByLabel('Amount', { exact: true }).fill(opts.amount);
  if (opts.expectMinor) await expect(app.getByText(`= ${opts.expectMinor} minor units`)).toBeVisible();
  await expect(app.getByTestId('crypto-pays')).toHaveAttribute('data-value', /.+/);
  await expect(app.getByTestId('crypto-receives')).toHaveAttribute('data-value', /.+/);
  await app.getByTestId('crypto-get-quote').click();
  await expect(app).toHaveURL(/#\/exchange\/cx-[0-9a-f-]+$/);
  return new URL(app.url()).hash.split('/').pop()!;
}

async function waitInProgress(app: Page): Promise<void> {
  await expect(app.getByTestId('crypto-status')).toHaveAttribute('data-status', 'in_progress', {
    timeout: 15_000,
  });
  await expect(app.getByTestId('crypto-countdown')).toBeVisible();
}

/** The one confirm step: the dialog restates what moves, then the analyst confirms. */
async function confirmQuote(app: Page, restated?: RegExp): Promise<void> {
  await app.getByRole('button', { name: 'Confirm quote…' }).click();
  const dialog = app.getByRole('alertdialog', { name: 'Confirm this quote?' });
  await expect(dialog).toBeVisible();
  if (restated) await expect(dialog.getByTestId('crypto-confirm-restate')).toHaveText(restated);
  // Cancel has the initial focus: Enter alone never moves money.
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await dialog.getByRole('button', { name: /^(Buy|Sell) now$/ }).click();
  await expect(dialog).toBeHidden();
}

async function sandboxTransaction(harness: Harness, transactionId: string) {
  const list = await staffOf(harness.services).listTransactions();
  return list.data.find((d) => d.transaction.transaction_id === transactionId)?.transaction;
}

test.describe('exchange: quote, confirm, settle', () => {
  test.use({
    harnessOptions: {
      services: {
        environment: {
          kind: 'embedded-sandbox',
          // A read-after-create window long enough to be seen even on a loaded machine.
          // A quote long enough to be reviewed, cancelled and confirmed on a loaded machine.
          sandbox: { ...sandboxBase, quoteTtlSeconds: 90, visibilityDelayMs: { min: 1500, max: 2000 } },
        },
      },
    },
  });

  test('buy USDT: quote through the visibility window, review, confirm, follow to completed', async ({
    app,
    harness,
  }) => {
    await app.getByRole('link', { name: 'Exchange' }).click();
    await expect(app.getByTestId('crypto-list-empty')).toBeVisible();
    const orderId = await requestQuote(app, { amount: '25.5', expectMinor: '25500000' });

    // The read-after-create window is shown while the bank answers 404.
    await expect(app.getByTestId('crypto-phase')).toHaveAttribute('data-phase', 'not_visible');
    await waitInProgress(app);
    await expect(app.getByTestId('crypto-phase')).toHaveCount(0);

    // Every decision field of spec 2.4.
    await expect(app.getByTestId('crypto-receives')).toHaveText('25.50 USDT');
    await expect(app.getByTestId('crypto-pays')).toContainText('USD');
    await expect(app.getByTestId('crypto-rate')).toHaveText(/^1 USDT = 1\.\d{4} USD$/);
    await expect(app.getByTestId('crypto-fee')).toHaveText('None at quote time');
    await expect(app.getByTestId('crypto-facts')).toContainText('IBAN');
    await expect(app.getByTestId('crypto-facts')).toContainText('Wallet');
    await expect(app.getByTestId('crypto-initiated-by')).not.toBeEmpty();
    await expect(app.getByTestId('crypto-facts')).toContainText('Not checked');

    expect(await seriousA11yViolations(app)).toEqual([]);

    const confirm = app.getByTestId('crypto-confirm');
    await expect(confirm).toBeEnabled();
    // The amounts come before the button that moves them.
    const amounts = app.getByRole('region', { name: 'What this order moves' });
    expect((await amounts.boundingBox())!.y).toBeLessThan((await confirm.boundingBox())!.y);
    // A first click only asks: nothing is sent until the dialog is confirmed.
    await confirm.click();
    await app.getByRole('alertdialog').getByRole('button', { name: 'Cancel' }).click();
    const before = await harness.services.crypto.order({
      profileId: harness.services.session.profile.id,
      orderId: orderId,
    });
    expect(
      (await sandboxTransaction(harness, before.transactionId!))?.crypto_trade_v2?.quote_confirmed_at,
    ).toBeNull();
    await confirmQuote(app, /^Buy 25\.50 USDT for [\d,]+\.\d{2} USD$/);
    const toasts = app.getByRole('status', { name: 'Notifications' });
    await expect(toasts.getByText('Exchange settled')).toBeVisible({ timeout: 15_000 });
    await expect(app.getByTestId('crypto-settlement')).toBeVisible();
    await expect(app.getByTestId('crypto-status')).toHaveAttribute('data-status', 'completed', {
      timeout: 15_000,
    });
    await expect(app.getByTestId('crypto-hash')).toContainText(/0x[0-9a-f]{64}/);
    await expect(app.getByTestId('crypto-testnet')).toHaveText('Test network: no value');
    await expect(app.getByTestId('crypto-settlement-state')).toHaveText('Settled.');
    // The final state says what happened; no disabled Confirm is left behind.
    await expect(app.getByTestId('crypto-outcome')).toHaveText(
      /^Settled: bought 25\.50 USDT for [\d,]+\.\d{2} USD at \d{1,2}:\d{2}:\d{2}( [AP]M)?\.$/,
    );
    await expect(confirm).toHaveCount(0);
    // React Aria's announcer keeps a node naming the closed dialog for 7 s; axe runs after it.
    await expect(app.locator('[data-live-announcer] [role="img"]')).toHaveCount(0, { timeout: 10_000 });
    expect(await seriousA11yViolations(app)).toEqual([]);

    // Native notification, audit log, the exchange list.
    // In words, without the symbol or an id.
    await expect
      .poll(() => harness.platform.notifications.map((n) => `${n.title}: ${n.body}`))
      .toContainEqual(expect.stringMatching(/^Exchange settled: Buy [\d.,]+ USDT for [\d.,]+ USD: done\.$/));
    const audit = await harness.services.audit.list({ limit: 10 });
    expect(audit.entries.map((e) => `${e.operation}:${e.outcome}`)).toEqual(
      expect.arrayContaining(['crypto.create_order:succeeded', 'crypto.confirm:succeeded']),
    );
    await app.getByRole('link', { name: 'Back to the exchange list' }).first().click();
    const row = app.locator(`[data-order-id="${orderId}"]`);
    await expect(row.getByTestId('crypto-list-status')).toHaveAttribute('data-status', 'completed');
  });
});

test.describe('exchange: expiry and requote', () => {
  test.use({
    harnessOptions: { services: { environment: { kind: 'embedded-sandbox', sandbox: sandboxBase } } },
  });

  test('a quote expires in bank time: Confirm disabled, status expired, main refuses', async ({
    app,
    harness,
  }) => {
    const orderId = await requestQuote(app, { amount: '10' });
    await waitInProgress(app);
    const confirm = app.getByTestId('crypto-confirm');
    await expect(confirm).toBeEnabled();

    const countdown = app.getByTestId('crypto-countdown');
    await expect(countdown).toHaveAttribute('data-zone', 'ok');
    // 12 of 20 s pass at the bank: the countdown turns urgent (in words and colour).
    await staffOf(harness.services).advanceClock(12);
    await expect(countdown).toHaveAttribute('data-state', 'urgent');
    await expect(countdown).toHaveAttribute('data-zone', 'warn');
    await expect(countdown).toContainText('Urgent:');
    // 18 s: less than the safety margin is left: the ring turns to the "too late" colour and
    // Confirm is disabled, with the reason.
    await staffOf(harness.services).advanceClock(6);
    // disabled inside the margin, gone once expired (real time runs on too)
    await expect
      .poll(
        async () =>
          (await confirm.count()) === 0 || (await confirm.isDisabled({ timeout: 1_000 }).catch(() => true)),
        { timeout: 15_000 },
      )
      .toBe(true);

    // Even if the UI lagged, main would not send: the channel refuses and nothing reaches the bank.
    const answer = (await app.evaluate(
      (ref) =>
        (window as unknown as { desk: { invoke(c: string, a: unknown): Promise<unknown> } }).desk.invoke(
          'crypto.confirm',
          ref,
        ),
      { profileId: harness.services.session.profile.id, orderId },
    )) as { ok: boolean; error?: { kind: string; reason?: string } };
    expect(answer.ok).toBe(false);
    expect(answer.error?.kind).toBe('precondition');
    expect(['QUOTE_TOO_CLOSE_TO_EXPIRY', 'QUOTE_EXPIRED']).toContain(answer.error?.reason);
    const view = await harness.services.crypto.order({
      profileId: harness.services.session.profile.id,
      orderId: orderId,
    });
    const atBank = await sandboxTransaction(harness, view.transactionId!);
    expect(['in_progress', 'expired']).toContain(atBank?.status);
    expect(atBank?.crypto_trade_v2?.quote_confirmed_at).toBeNull();

    await staffOf(harness.services).advanceClock(5);
    await expect(app.getByTestId('crypto-status')).toHaveAttribute('data-status', 'expired');
    await expect(app.getByTestId('crypto-expired')).toContainText('was not confirmed');
    await expect(confirm).toHaveCount(0);
    expect((await sandboxTransaction(harness, view.transactionId!))?.status).toBe('expired');
    await app.goto(`${harness.url}#/exchange`);
    await expect(
      app.locator(`[data-order-id="${orderId}"]`).getByTestId('crypto-list-status'),
    ).toHaveAttribute('data-status', 'expired');
  });

  test('requote makes a new quote with the same parameters under a new key', async ({ app, harness }) => {
    const firstId = await requestQuote(app, { amount: '12.345678', expectMinor: '12345678' });
    await waitInProgress(app);
    const first = await harness.services.crypto.order({
      profileId: harness.services.session.profile.id,
      orderId: firstId,
    });
    await app.getByTestId('crypto-requote').click();
    await expect(app).not.toHaveURL(new RegExp(`${firstId}$`));
    await waitInProgress(app);
    const secondId = new URL(app.url()).hash.split('/').pop()!;
    const second = await harness.services.crypto.order({
      profileId: harness.services.session.profile.id,
      orderId: secondId,
    });
    expect(second.requoteOf).toBe(firstId);
    expect(second.request).toEqual(first.request);
    expect(second.transactionId).not.toBe(first.transactionId);
    expect(second.idempotencyKey).not.toBe(first.idempotencyKey);
    await expect(app.getByTestId('crypto-receives')).toHaveText('12.345678 USDT');
    await expect(app.getByTestId('crypto-confirm')).toBeEnabled();
  });
});

test.describe('exchange: USDC liquidity', () => {
  test.use({
    harnessOptions: {
      services: {
        environment: {
          kind: 'embedded-sandbox',
          sandbox: { ...sandboxBase, usdcInventory: 1_000_000n },
        },
      },
    },
  });

  test('a USDC order beyond the bank’s liquidity fails after confirm, with a warning up front', async ({
    app,
    harness,
  }) => {
    await app.goto(`${harness.url}#/exchange/new`);
    await expect(app.getByTestId('usdc-warning')).toHaveCount(0);
    await chooseOption(app, app, 'Digital asset', /\(USDC-USD\)$/);
    await expect(app.getByTestId('usdc-warning')).toContainText('limited liquidity');
    expect(await seriousA11yViolations(app)).toEqual([]);
    await requestQuote(app, { asset: 'USDC-USD', amount: '5', expectMinor: '5000000' });
    await waitInProgress(app);
    await confirmQuote(app, /^Buy 5\.00 USDC for /);
    await expect(app.getByTestId('crypto-status')).toHaveAttribute('data-status', 'failed', {
      timeout: 15_000,
    });
    // The bank's reason in words; its code stays on hover.
    await expect(app.getByTestId('crypto-settlement-state')).toContainText('Insufficient liquidity');
    await expect(
      app.getByTestId('crypto-settlement-state').locator('[data-reason-code="INSUFFICIENT_LIQUIDITY"]'),
    ).toHaveAttribute('title', /INSUFFICIENT_LIQUIDITY/);
    await expect(app.getByTestId('crypto-hash')).toContainText('set at settlement');
    await expect
      .poll(() => harness.platform.notifications.map((n) => `${n.title}: ${n.body}`))
      .toContainEqual(
        expect.stringMatching(
          /^Exchange failed: Buy [\d.,]+ USDC .*did not go through \(insufficient liquidity\); nothing was exchanged\.$/,
        ),
      );
  });
});

test.describe('exchange: viewer', () => {
  test('the viewer credential sees the form read-only with the reason', async ({ app, harness }) => {
    await harness.services.session.useSandboxCredential('a-viewer');
    await app.goto(`${harness.url}#/exchange/new`);
    await expect(app.getByTestId('crypto-readonly')).toContainText('viewer role');
    expect(await seriousA11yViolations(app)).toEqual([]);
    await expect(app.getByTestId('crypto-get-quote')).toBeDisabled();
    await expect(app.getByLabel('Amount', { exact: true })).toBeDisabled();
    await expect(selectButton(app, 'Digital asset')).toBeDisabled();
    // The channel refuses too, before anything is sent.
    const answer = await app.evaluate(
      (profileId) =>
        (window as unknown as { desk: { invoke(c: string, a: unknown): Promise<unknown> } }).desk.invoke(
          'crypto.quote',
          {
            profileId,
            side: 'buy',
            symbol: 'USDT-USD',
            requestedAsset: 'USD',
            requestedAmount: '1000',
            paysAccountId: 'a',
            receivesAccountId: 'b',
          },
        ),
      harness.services.session.profile.id,
    );
    expect(answer).toMatchObject({ ok: false, error: { kind: 'forbidden' } });
  });
});

test.describe('exchange: skewed clocks', () => {
  const mainSkewMs = 3 * 60_000;
  test.use({
    harnessOptions: {
      services: {
        environment: { kind: 'embedded-sandbox', sandbox: { ...sandboxBase, quoteTtlSeconds: 90 } },
        // This machine's clock (as main sees it) runs 3 minutes fast.
        localNow: () => Date.now() + mainSkewMs,
      },
    },
  });

  test('the countdown follows the bank’s clock, not the page’s or main’s', async ({ harness, context }) => {
    // The bank's clock is an hour ahead of real time; the page's clock 7 minutes behind.
    await staffOf(harness.services).advanceClock(3600);
    await context.clock.install({ time: Date.now() - 7 * 60_000 });
    await harness.attach(context);
    const app = await harness.open(context);
    const orderId = await requestQuote(app, { amount: '3' });
    await waitInProgress(app);
    const view = await harness.services.crypto.order({
      profileId: harness.services.session.profile.id,
      orderId: orderId,
    });
    const validUntil = Date.parse(view.crypto!.quote_valid_until);

    const pageNow = await app.evaluate(() => Date.now());
    const bankNow = Date.parse((await staffOf(harness.services).getClock()).now);
    expect(bankNow - pageNow).toBeGreaterThan(3600_000);

    const countdown = app.getByTestId('crypto-countdown');
    await expect
      .poll(async () => {
        const shown = Number(await countdown.getAttribute('data-remaining-seconds'));
        const clock = await staffOf(harness.services).getClock();
        const expected = (validUntil - Date.parse(clock.now)) / 1000;
        return Math.abs(shown - expected);
      })
      .toBeLessThanOrEqual(2);
    const shown = Number(await countdown.getAttribute('data-remaining-seconds'));
    expect(shown).toBeGreaterThan(60);
    expect(shown).toBeLessThanOrEqual(90);
    await expect(app.getByTestId('crypto-confirm')).toBeEnabled();
  });
});

test.describe('exchange: the countdown at the confirm margin', () => {
  test.use({
    harnessOptions: {
      services: {
        environment: { kind: 'embedded-sandbox', sandbox: { ...sandboxBase, quoteTtlSeconds: 60 } },
        // A wide margin, so the "too late" zone lasts long enough to be seen on a loaded machine.
        crypto: { confirmMarginMs: 30_000 },
      },
    },
  });

  test('the ring changes colour at the margin and Confirm says why it is disabled', async ({
    app,
    harness,
  }) => {
    await requestQuote(app, { amount: '4' });
    await waitInProgress(app);
    const countdown = app.getByTestId('crypto-countdown');
    const confirm = app.getByRole('button', { name: 'Confirm quote…' });
    await expect(countdown).toHaveAttribute('data-zone', 'ok');
    await expect(confirm).toBeEnabled();
    // 35 of 60 s pass at the bank: under 30 s remain, inside the margin.
    await staffOf(harness.services).advanceClock(35);
    await expect(countdown).toHaveAttribute('data-zone', 'margin');
    await expect(countdown).toContainText('too late to confirm');
    await expect(countdown.locator('circle.countdown__arc')).toHaveCSS('stroke', /rgb\(/);
    const marginColour = await countdown
      .locator('circle.countdown__arc')
      .evaluate((c) => getComputedStyle(c).stroke);
    await expect(confirm).toBeDisabled();
    await expect(confirm).toHaveAccessibleDescription(
      /^Confirm is disabled: less than \d+ s \(the safety margin\) remain on the quote\.$/,
    );
    // the colour is the "bad" token, not the running one
    const okColour = await app.evaluate(() =>
      getComputedStyle(document.documentElement).getPropertyValue('--color-ok').trim(),
    );
    expect(marginColour).not.toBe(okColour);
    const bad = await app.evaluate(() => {
      const probe = document.createElement('span');
      probe.style.color = 'var(--color-bad)';
      document.body.appendChild(probe);
      const c = getComputedStyle(probe).color;
      probe.remove();
      return c;
    });
    expect(marginColour).toBe(bad);
  });
});

test.describe('exchange: account book', () => {
  test('the analyst relabels and adds accounts; the bank refuses one of another legal entity', async ({
    app,
    harness,
  }) => {
    const [entityA, entityB] = harness.services.sandbox!.fixtures.legal_entities;
    const ownUsd = entityA!.accounts.find((a) => a.asset === 'USD')!;
    const foreignUsd = entityB!.accounts.find((a) => a.asset === 'USD')!;
    await app.goto(`${harness.url}#/exchange/accounts`);
    const book = app.getByTestId('crypto-accounts');
    await expect(book).toContainText(foreignUsd.id);

    // Relabel one of ours: the form offers it under the new label.
    await app.getByLabel(`Label of ${ownUsd.id}`, { exact: true }).fill('Treasury USD (main)');
    await app.getByRole('button', { name: `Save label of ${ownUsd.id}` }).click();
    await expect(app.getByLabel(`Label of ${ownUsd.id}`, { exact: true })).toHaveValue('Treasury USD (main)');

    // B's seeded entry is known to be B's and is not offered to A; typed in by hand, it is.
    await app.getByRole('button', { name: `Remove ${foreignUsd.id}` }).click();
    await expect(book).not.toContainText(foreignUsd.id);
    await app.getByLabel('Account id', { exact: true }).fill(foreignUsd.id);
    await app.getByLabel('Label', { exact: true }).fill('Typed in by the analyst');
    await chooseOption(app, app, 'Asset', 'USD');
    await app.getByRole('button', { name: 'Add account' }).click();
    await expect(app.getByLabel(`Label of ${foreignUsd.id}`, { exact: true })).toHaveValue(
      'Typed in by the analyst',
    );

    await app.getByRole('link', { name: 'Back to the order form' }).click();
    await app.getByLabel('Amount', { exact: true }).fill('1');
    await selectButton(app, 'Paying account (USD)').click();
    const payers = app.getByRole('listbox');
    // Named by its own label (the quote's entity is on the form), its id as the secondary line.
    const ours = payers.getByRole('option', { name: 'Treasury USD (main)', exact: true });
    await expect(ours).toHaveCount(1);
    await expect(ours).toHaveAccessibleDescription(ownUsd.id);
    const typed = payers.getByRole('option', { name: 'Typed in by the analyst', exact: true });
    await expect(typed).toHaveAccessibleDescription(foreignUsd.id);
    await typed.click();
    await expect(app.getByTestId('crypto-pays')).toHaveAttribute('data-value', foreignUsd.id);
    await app.getByTestId('crypto-get-quote').click();
    await expect(app.getByTestId('crypto-form-error')).toContainText('not owned by your legal entity');
    // The input is kept for correction.
    await expect(app.getByLabel('Amount', { exact: true })).toHaveValue('1');
    await expect(app).toHaveURL(/#\/exchange\/new$/);
  });
});
