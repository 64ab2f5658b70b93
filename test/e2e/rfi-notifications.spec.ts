import { createPublicKey } from 'node:crypto';
import { test, expect } from './fixtures';
import { seriousA11yViolations } from './axe';
import { chooseOption } from './ui-controls';
import { startHarness } from '../harness/harness';
import type { Harness } from '../harness/harness';
import { keyFingerprint } from '../../src/main/rfis/signature';
import { staffOf } from '../support/sandbox-staff';

/**
 * RFI notifications (issue 5, data in) in Chromium through the harness against the embedded
 * sandbox: a new RFI made by the sandbox staff endpoint raises exactly one native notification
 * (webhook and polling both on, and polling alone), the header shows the app badge's count and
 * the unread count, clicking the notification opens the RFI; and Settings → Webhook.
 */
async function staffCreatesRfi(harness: Harness): Promise<string> {
  const le = harness.services.sandbox!.fixtures.legal_entities[0]!;
  const created = await staffOf(harness.services).createRfi({
    type: 'account',
    related_id: le.accounts[0]!.id,
    description: 'Unusual incoming payments: please explain',
    questions: [{ question_type: 'transaction.purpose', question_text: 'What is the purpose?' }],
  });
  return (created as { id: string }).id;
}

test.describe('RFI notifications', () => {
  test.use({
    harnessOptions: {
      services: {
        environment: { kind: 'embedded-sandbox', sandbox: { visibilityDelayMs: { min: 0, max: 0 } } },
        // webhook and polling together, polling fast enough to report the same RFI too
        rfis: { poll: { intervalMs: 300, floorMs: 200, jitter: 0 } },
      },
    },
  });

  test('a new RFI raises one notification, bumps the badge and unread count, and a click opens it', async ({
    app,
    harness,
  }) => {
    await harness.services.rfis.ready();
    await expect.poll(() => harness.services.webhooks.status().autoConfigure?.state).toBe('done');
    const before = (await harness.services.rfis.counts()).counts;
    await expect(app.getByTestId('rfi-badge-count')).toHaveText(String(before.awaitingAction));
    await expect(app.getByTestId('rfi-unread-count')).toHaveText(`${before.unread} unread`);
    expect(harness.platform.badgeCount).toBe(before.awaitingAction);

    const id = await staffCreatesRfi(harness);
    await expect.poll(() => harness.platform.notifications.length, { timeout: 10_000 }).toBe(1);
    await expect(app.getByTestId('rfi-badge-count')).toHaveText(String(before.awaitingAction + 1));
    await expect(app.getByTestId('rfi-unread-count')).toHaveText(`${before.unread + 1} unread`);
    expect(harness.platform.badgeCount).toBe(before.awaitingAction + 1);

    // the webhook delivered it and several polls saw it too: still one notification
    await expect
      .poll(() => harness.services.webhooks.status().accepted, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(2);
    const polls = harness.services.rfis.poller.polls;
    await expect
      .poll(() => harness.services.rfis.poller.polls, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(polls + 2);
    await harness.services.webhooks.idle();
    expect(harness.platform.notifications).toHaveLength(1);
    expect(harness.platform.notifications[0]!.title).toBe('New RFI');
    // what it is about, by name, not by id
    expect(harness.platform.notifications[0]!.body).toBe(
      'Account: Unusual incoming payments: please explain — Alder USD operating (Alder Trade GmbH) · Action required',
    );

    // clicking the native notification opens that RFI; opening it clears its unread marker
    harness.platform.notifications[0]!.onClick?.();
    await expect(app).toHaveURL(new RegExp(`#/rfis/${id}\\?profile=[\\w.-]+$`));
    await expect(app.getByTestId('rfi-unread-count')).toHaveText(`${before.unread} unread`);
    await expect(app.getByTestId('rfi-badge-count')).toHaveText(String(before.awaitingAction + 1));
  });
});

test('polling alone (no webhook URL) raises exactly one notification for a new RFI', async ({ browser }) => {
  const harness = await startHarness({
    services: {
      environment: { kind: 'embedded-sandbox', sandbox: { visibilityDelayMs: { min: 0, max: 0 } } },
      rfis: { poll: { intervalMs: 300, floorMs: 200, jitter: 0 }, webhook: { autoConfigureSandbox: false } },
    },
  });
  const context = await browser.newContext();
  try {
    await harness.attach(context);
    const app = await harness.open(context);
    await harness.services.rfis.ready();
    const before = (await harness.services.rfis.counts()).counts;
    await expect(app.getByTestId('rfi-badge-count')).toHaveText(String(before.awaitingAction));
    const id = await staffCreatesRfi(harness);
    await expect(app.getByTestId('rfi-badge-count')).toHaveText(String(before.awaitingAction + 1), {
      timeout: 10_000,
    });
    const polls = harness.services.rfis.poller.polls;
    await expect
      .poll(() => harness.services.rfis.poller.polls, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(polls + 3);
    expect(harness.platform.notifications).toHaveLength(1);
    expect(harness.platform.notifications[0]!.body).toContain('Unusual incoming payments: please explain');
    expect(harness.platform.notifications[0]!.body).not.toContain(id);
    expect(harness.services.webhooks.status().accepted).toBe(0);
  } finally {
    await context.close();
    await harness.close();
  }
});

test.describe('Settings → Webhook', () => {
  test('shows the configuration, the pinned key and the receiver; an admin sets the URL, a viewer sees why not', async ({
    app,
    harness,
  }) => {
    await expect.poll(() => harness.services.webhooks.status().autoConfigure?.state).toBe('done');
    // The page sees the receiver's address with its route's secret path hidden.
    const receiverUrl = `${new URL(harness.services.webhooks.receiver.url!).origin}/webhooks/rfi/…`;
    const le = harness.services.sandbox!.fixtures.legal_entities[0]!;
    const fingerprint = keyFingerprint(createPublicKey(harness.services.sandbox!.publicKeyPem));

    await app.getByRole('link', { name: 'Settings' }).click();
    const panel = app.getByTestId('webhook-panel');
    await expect(panel).toBeVisible();
    await expect(app.getByRole('heading', { name: 'Webhook', level: 2 })).toBeVisible();
    await expect(panel.getByTestId('webhook-url')).toHaveText(receiverUrl);
    // The entity by name, its id secondary.
    await expect(panel.getByTestId('webhook-legal-entity')).toHaveText(`${le.name} ${le.id}`);
    await expect(panel.getByTestId('webhook-role')).toHaveText('Administrator');
    await expect(panel.getByTestId('webhook-name')).not.toBeEmpty();
    await expect(panel.getByTestId('webhook-fingerprint')).toHaveText(fingerprint);
    await expect(panel.getByTestId('webhook-receiver-address')).toContainText(`Listening at ${receiverUrl}`);
    await expect(panel.getByTestId('webhook-last-event')).toHaveText('None yet');

    // an event arrives: the receiver status follows live
    const id = await staffCreatesRfi(harness);
    await expect(panel.getByTestId('webhook-last-event')).toContainText(id, { timeout: 10_000 });
    await expect(panel.getByTestId('webhook-failures')).toHaveText('0');

    // an admin sets another URL: main asks natively first (declined: nothing changes), then it is
    // set; plain http to a remote host is refused; then back at this app, clear, and back again
    const input = panel.getByRole('textbox', { name: 'Webhook URL' });
    await input.fill('https://desk.example.com/hooks/rfi');
    await panel.getByRole('button', { name: 'Save URL' }).click();
    await expect(panel.getByTestId('webhook-message')).toContainText('not approved');
    await expect(panel.getByTestId('webhook-url')).toHaveText(receiverUrl);
    expect(harness.platform.confirmations).toEqual([
      expect.objectContaining({ kind: 'webhook-url', destination: 'https://desk.example.com/hooks/rfi' }),
    ]);
    harness.platform.nextConfirmAnswers.push(true);
    await panel.getByRole('button', { name: 'Save URL' }).click();
    await expect(panel.getByTestId('webhook-message')).toHaveText('Webhook URL saved.');
    await expect(panel.getByTestId('webhook-url')).toHaveText('https://desk.example.com/hooks/rfi');
    expect((await harness.services.bank.getWebhookConfig()).webhook_url).toBe(
      'https://desk.example.com/hooks/rfi',
    );
    await input.fill('not a url');
    await panel.getByRole('button', { name: 'Save URL' }).click();
    await expect(panel.getByTestId('webhook-message')).toContainText('not a URL');
    await input.fill('http://desk.example.com/hooks/rfi');
    await panel.getByRole('button', { name: 'Save URL' }).click();
    await expect(panel.getByTestId('webhook-message')).toContainText('must use https');
    await expect(panel.getByTestId('webhook-url')).toHaveText('https://desk.example.com/hooks/rfi');
    expect(harness.platform.confirmations).toHaveLength(2);
    await panel.getByRole('button', { name: 'Use this app’s receiver' }).click();
    await expect(panel.getByTestId('webhook-url')).toHaveText(receiverUrl);
    await panel.getByRole('button', { name: 'Clear' }).click();
    await expect(panel.getByTestId('webhook-message')).toHaveText('Webhook URL cleared.');
    await expect(panel.getByTestId('webhook-url')).toHaveText('Not set');
    await panel.getByRole('button', { name: 'Use this app’s receiver' }).click();
    await expect(panel.getByTestId('webhook-url')).toHaveText(receiverUrl);
    expect(harness.platform.confirmations).toHaveLength(2);

    expect(await seriousA11yViolations(app)).toEqual([]);

    // a viewer: read-only, with the reason
    await chooseOption(app, app, 'Sandbox credential', /^Legal entity A — viewer/);
    await expect(panel.getByTestId('webhook-role')).toHaveText('Viewer');
    await expect(panel.getByTestId('webhook-cannot-set')).toContainText('only an admin');
    await expect(panel.getByRole('textbox', { name: 'Webhook URL' })).toBeDisabled();
    await expect(panel.getByRole('button', { name: 'Save URL' })).toBeDisabled();
  });
});
