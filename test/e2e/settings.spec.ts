import { readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test, expect } from './fixtures';
import { seriousA11yViolations } from './axe';
import { chooseOption } from './ui-controls';
import { startHarness } from '../harness/harness';
import { unavailableKeyringBackend } from '../../src/main/infra/keyring';
import type { KeyringBackend } from '../../src/main/infra/keyring';
import { staffOf } from '../support/sandbox-staff';

/**
 * The settings and activity screens (issue 4) in Chromium, over the harness with the real services
 * and the embedded sandbox. These tests pick the keychain explicitly, whatever the machine has (npm run
 * test:e2e runs under scripts/with-keyring.sh, a real Secret Service): an in-process stand-in for the
 * "keychain available" screens, and the unavailable backend for the warning. (The real Secret
 * Service is covered by test/integration/vault.test.ts.)
 */
function standInKeychain(): KeyringBackend {
  const entries = new Map<string, string>();
  return {
    name: 'Secret Service',
    get: async (s, a) => entries.get(`${s}\u0000${a}`) ?? null,
    set: async (s, a, secret) => void entries.set(`${s}\u0000${a}`, secret),
    delete: async (s, a) => entries.delete(`${s}\u0000${a}`),
  };
}

const sandboxEnv = {
  kind: 'embedded-sandbox' as const,
  sandbox: { visibilityDelayMs: { min: 0, max: 0 } },
};

test.describe('settings', () => {
  test.use({ harnessOptions: { services: { environment: sandboxEnv, keyring: standInKeychain() } } });

  test('shows the environments, the keychain and the sandbox credential; switches to the viewer and back', async ({
    app,
    harness,
  }) => {
    await app.getByRole('link', { name: 'Settings' }).click();
    await expect(app.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
    await expect(app.getByTestId('keychain-status')).toContainText('Secret Service');
    await expect(app.getByTestId('data-at-rest')).toHaveAttribute('data-mode', 'encrypted');
    await expect(app.getByTestId('data-at-rest')).toContainText('encrypted on disk');
    const sandboxCard = app.getByTestId('profile-sandbox');
    await expect(sandboxCard).toContainText('Active');
    await expect(sandboxCard).toContainText(harness.services.sandbox!.url);
    await expect(app.getByTestId('token-state-sandbox')).toHaveText('Token stored');

    const choose = (who: RegExp) => chooseOption(app, app, 'Sandbox credential', who);
    await choose(/^Legal entity A — viewer/);
    await expect(app.getByTestId('connection-role')).toHaveText('Viewer');
    await choose(/^Legal entity B — admin/);
    await expect(app.getByTestId('connection-legal-entity')).toContainText(
      harness.services.sandbox!.fixtures.legal_entities[1]!.id,
    );
    await choose(/^Legal entity A — admin/);
    await expect(app.getByTestId('connection-role')).toHaveText('Admin');
    expect(await seriousA11yViolations(app)).toEqual([]);
  });

  test('sign out, a refused token, a good token: the token goes in once and is never shown', async ({
    app,
    harness,
  }) => {
    const goodToken = harness.services.sandbox!.fixtures.legal_entities[0]!.tokens.admin;
    // Replacing a stored token (the refused one by the good one) is confirmed in main's dialog.
    harness.platform.nextConfirmAnswers.push(true, true);
    await app.goto(`${harness.url}#/settings`);
    const card = app.getByTestId('profile-sandbox');
    await card.getByRole('button', { name: 'Sign out' }).click();
    await expect(app.getByTestId('token-state-sandbox')).toHaveText('Signed out — no token stored');
    const status = app.getByRole('status', { name: 'Connection' });
    await expect(status).toContainText('Signed out');
    await expect(status).toContainText('Enter a token in Settings');
    // nothing to save yet: the button says so instead of looking ready
    await expect(card.getByRole('button', { name: 'Save token' })).toBeDisabled();
    await expect(card.getByRole('button', { name: 'Save token' })).not.toHaveClass(/ui-button--primary/);

    const input = card.getByLabel('Access token');
    await expect(input).toHaveAttribute('type', 'password');
    await input.fill('this-token-is-wrong-123456');
    await card.getByRole('button', { name: 'Save token' }).click();
    await expect(status).toContainText('Signed out');
    await expect(status).toContainText('The bank refused the token');
    await expect(app.getByTestId('token-state-sandbox')).toContainText('Token refused by the bank');
    await expect(card.getByLabel('Replace token')).toHaveValue('');

    await card.getByLabel('Replace token').fill(goodToken);
    await card.getByRole('button', { name: 'Save token' }).click();
    await expect(app.getByTestId('connection-state')).toHaveText('Connected');
    await expect(app.getByTestId('token-state-sandbox')).toHaveText('Token stored');

    // The page never holds a token: not in the DOM, not in an input's value.
    const page = await app.evaluate(() => ({
      html: document.documentElement.outerHTML,
      values: [...document.querySelectorAll('input')].map((i) => i.value).join('\n'),
    }));
    for (const secret of [goodToken, 'this-token-is-wrong-123456']) {
      expect(page.html).not.toContain(secret);
      expect(page.values).not.toContain(secret);
    }
  });

  test('adds a bank environment (https only, approved in main’s dialog), switches to it and back, removes it', async ({
    app,
    harness,
  }) => {
    await app.goto(app.url().replace(/#.*$/, '') + '#/settings');
    const form = app.getByRole('form', { name: 'Add a bank environment' });
    await form.getByLabel('Name').fill('Plain bank');
    await form.getByLabel('Base URL').fill('http://bank.example.com');
    await form.getByRole('button', { name: 'Add environment' }).click();
    await expect(app.getByTestId('settings-error')).toContainText('https');
    expect(harness.platform.confirmations).toEqual([]);

    // Main asks natively; declined, nothing is added.
    await form.getByLabel('Base URL').fill('http://127.0.0.1:9');
    await form.getByRole('button', { name: 'Add environment' }).click();
    await expect(app.getByTestId('settings-error')).toContainText('not approved');
    expect(harness.platform.confirmations).toEqual([
      expect.objectContaining({ kind: 'bank-origin', destination: 'http://127.0.0.1:9' }),
    ]);
    const card = app.locator('[data-testid^="profile-p_"]').filter({ hasText: 'Plain bank' });
    await expect(card).toHaveCount(0);

    // Approved, it is added under a random id.
    harness.platform.nextConfirmAnswers.push(true);
    await form.getByRole('button', { name: 'Add environment' }).click();
    await expect(app.getByTestId('settings-notice')).toHaveText('Environment added.');
    await expect(card).toContainText('http://127.0.0.1:9');
    expect(harness.platform.confirmations).toHaveLength(2);
    await card.getByRole('button', { name: 'Use this environment' }).click();
    await expect(card).toContainText('Active');
    await expect(app.getByRole('status', { name: 'Connection' })).toContainText('Signed out');
    await expect(app.getByLabel('Sandbox credential')).toHaveCount(0);

    await app.getByTestId('profile-sandbox').getByRole('button', { name: 'Use this environment' }).click();
    await expect(app.getByTestId('connection-state')).toHaveText('Connected');
    harness.platform.nextConfirmAnswers.push(true); // main's native dialog: remove it
    await card.getByRole('button', { name: 'Remove Plain bank' }).click();
    await expect(card).toHaveCount(0);
    // Switching asked nothing more: the address was approved once, and the removal was confirmed natively.
    expect(harness.platform.confirmations).toHaveLength(3);
    expect(harness.platform.confirmations[2]).toMatchObject({
      kind: 'profile-remove',
      destination: 'http://127.0.0.1:9',
    });
  });

  test('polling interval and notification preferences are kept', async ({ app, harness }) => {
    await app.goto(`${harness.url}#/settings`);
    const polling = app.getByLabel('Polling interval (seconds)');
    await polling.fill('2');
    await app.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(app.getByTestId('settings-error')).toContainText('at least 5');
    await polling.fill('90');
    await app.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(app.getByTestId('settings-notice')).toHaveText('Polling interval saved.');
    // The design system's checkbox: the analyst clicks its words (the input itself is drawn by CSS).
    await app.getByText('A quote is about to expire').click();
    await expect(app.getByLabel('A quote is about to expire')).not.toBeChecked();
    await expect.poll(() => harness.services.settings.get().notifications.quoteExpiry).toBe(false);

    await app.reload();
    await expect(app.getByLabel('Polling interval (seconds)')).toHaveValue('90');
    await expect(app.getByLabel('A quote is about to expire')).not.toBeChecked();
    await expect(app.getByLabel('A new RFI arrives')).toBeChecked();
  });
});

test.describe('settings without a keychain', () => {
  test.use({
    harnessOptions: { services: { environment: sandboxEnv, keyring: unavailableKeyringBackend() } },
  });

  test('warns that tokens are kept in memory until the keychain answers', async ({ app, harness }) => {
    await app.goto(`${harness.url}#/settings`);
    const warning = app.getByRole('alert').filter({ hasText: 'No keychain available' });
    await expect(warning).toContainText('kept in memory until it answers');
    await expect(warning).toContainText('stored unencrypted on this computer');
    await expect(app.getByTestId('data-at-rest')).toHaveAttribute('data-mode', 'unencrypted');
    await expect(app.getByTestId('keychain-status')).toHaveAttribute('data-backend', 'memory');
    await expect(app.getByTestId('connection-state')).toHaveText('Connected');
  });
});

test('a corrupt settings file is reported on the settings screen, with the old file kept', async ({
  context,
}) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'td-e2e-'));
  await writeFile(path.join(dataDir, 'settings.json'), '{ "version": 1, "profiles": [');
  const h = await startHarness({
    dataDir,
    services: { environment: sandboxEnv, keyring: standInKeychain() },
  });
  try {
    await h.attach(context);
    const page = await h.open(context);
    await page.goto(`${h.url}#/settings`);
    const problem = page.getByTestId('local-problem');
    await expect(problem).toContainText('settings.json could not be read');
    await expect(problem).toContainText('moved aside');
    await problem.getByRole('button', { name: 'Dismiss' }).click();
    await expect(problem).toHaveCount(0);
  } finally {
    await h.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test.describe('activity', () => {
  test.use({ harnessOptions: { services: { environment: sandboxEnv, keyring: standInKeychain() } } });

  test('lists the writes in words, filters them, shows the raw record, updates live, exports CSV', async ({
    app,
    harness,
  }) => {
    const s = harness.services;
    const A = s.sandbox!.fixtures.legal_entities[0]!;
    const transfer = await staffOf(s).createIncomingTransfer({ legal_entity_id: A.id, amount: '250000' });
    // As the Returns screen does it: look the transfer up, then create the intent.
    const seen = await s.handlers['returns.lookup']({
      profileId: s.session.profile.id,
      transactionId: transfer.transaction_id,
    });
    const debtor = seen.incoming!.debtorName;
    const created = await s.handlers['returns.createIntent']({
      profileId: s.session.profile.id,
      operationId: 'e2e-return',
      transactionId: transfer.transaction_id,
      amount: '250000',
      reasonCode: 'AC03',
    });

    await app.getByRole('link', { name: 'Activity' }).click();
    await expect(app.getByRole('grid', { name: 'Audit log entries' })).toBeVisible();
    const rows = app.getByTestId('audit-row');
    await expect(rows).toHaveCount(1);
    const sentence = `Return intent created — 2,500.00 USD to ${debtor}, reason: invalid creditor account number`;
    await expect(rows.first()).toContainText(sentence);
    await expect(rows.first()).toContainText('Succeeded');
    // the raw record is one selection away, not in the row
    await expect(rows.first()).not.toContainText(created.idempotencyKey);
    await rows.first().click();
    const detail = app.getByRole('region', { name: 'Entry detail' });
    await expect(detail.getByTestId('audit-operation')).toHaveText('return.create_intent');
    await expect(detail).toContainText(created.idempotencyKey);
    await expect(detail).toContainText(transfer.transaction_id);

    // A refused write appears live, at the top.
    await s.operations
      .audited({ operation: 'return.cancel', target: 'txn_unknown' }, () =>
        s.bank.cancelReturn('txn_unknown'),
      )
      .catch(() => undefined);
    await expect(rows).toHaveCount(2);
    await expect(rows.first()).toContainText('Return not cancelled');
    await expect(rows.first()).toHaveAttribute('data-outcome', 'failed');

    // Filters: outcome, kind (the empty state offers the way back).
    const filters = app.getByRole('group', { name: 'Filters' });
    await filters.getByRole('button', { name: /Outcome/ }).click();
    await app.getByRole('option', { name: 'Refused' }).click();
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toHaveAttribute('data-operation', 'return.cancel');
    await filters.getByRole('button', { name: /Kind/ }).click();
    await app.getByRole('option', { name: 'Exchange' }).click();
    await expect(rows).toHaveCount(0);
    await expect(app.getByText('No entry matches these filters')).toBeVisible();
    await app.getByRole('button', { name: 'Clear the filters' }).click();
    await expect(rows).toHaveCount(2);

    const target = path.join(harness.dataDir, 'activity.csv');
    harness.platform.nextSaveAnswers.push(target);
    await app.getByTestId('audit-export').click();
    await expect(app.getByTestId('audit-export-notice')).toContainText('Exported 2 entries');
    const csv = await readFile(target, 'utf8');
    expect(csv.split('\r\n')[0]).toBe(
      'at,who,environmentId,environmentName,operation,idempotencyKey,target,outcome,detail,id,summary',
    );
    expect(csv).toContain(created.idempotencyKey);
    expect(csv).toContain(`"${sentence}"`);
    expect(await seriousA11yViolations(app)).toEqual([]);
  });
});
