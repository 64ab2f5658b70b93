import { test as base, expect } from '@playwright/test';
import type { Page } from '@playwright/test';
import { test } from './fixtures';
import { startSandbox } from '../../src/sandbox';
import type { RunningSandbox } from '../../src/sandbox';
import { startHarness } from '../harness/harness';
import type { Harness } from '../harness/harness';
import { startFaultProxy } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';

test.describe('shell: names, palette, toasts', () => {
  test('the header names the legal entity, with its id secondary', async ({ app, harness }) => {
    const entityA = harness.services.sandbox!.fixtures.legal_entities[0]!;
    const status = app.getByRole('status', { name: 'Connection' });
    await expect(status).toContainText('Connected');
    const entity = app.getByTestId('connection-legal-entity');
    await expect(entity).toContainText('Alder Trade GmbH');
    await expect(entity.getByTitle('Legal entity id')).toHaveText(entityA.id);
  });

  test('Ctrl+K opens the palette; typing finds an RFI by text and Enter opens it', async ({
    app,
    harness,
  }) => {
    const rfi = (await harness.services.bank.listRfis({ page_size: '500' })).data.find(
      (r) => r.description === 'Incoming transfer from Harbour Freight Ltd',
    )!;
    await expect(app.getByRole('status', { name: 'Connection' })).toContainText('Connected');
    await app.locator('body').press('Control+k');
    const dialog = app.getByRole('dialog', { name: 'Command palette' });
    await expect(dialog).toBeVisible();
    const search = dialog.getByRole('searchbox', { name: /Search RFIs/ });
    await expect(search).toBeFocused();
    // An opaque panel above the page: its background has no transparency, and what is on top at
    // the panel's centre is the panel itself, in both colour schemes.
    for (const scheme of ['light', 'dark'] as const) {
      await app.emulateMedia({ colorScheme: scheme });
      const panel = await dialog.evaluate((el) => {
        const r = el.getBoundingClientRect();
        const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return { background: getComputedStyle(el).backgroundColor, onTop: el.contains(top) };
      });
      expect(panel.onTop).toBe(true);
      expect(panel.background).toMatch(/^rgb\(/);
    }
    await search.fill('Incoming transfer from Harbour');
    const item = dialog.getByRole('menuitem', { name: /Incoming transfer from Harbour Freight Ltd/ });
    await expect(item).toBeVisible();
    await expect(dialog.getByRole('menuitem')).toHaveCount(1);
    // the arrows highlight the match (focus stays in the search box); Enter navigates
    await search.press('ArrowDown');
    await expect(item).toHaveAttribute('data-focused', 'true');
    await search.press('Enter');
    await expect(dialog).toBeHidden();
    await expect(app).toHaveURL(new RegExp(`#/rfis/${rfi.id}\\?profile=[\\w.-]+$`));
  });

  test('the palette runs actions: new quote, and sync now with a toast', async ({ app }) => {
    await app.getByRole('button', { name: /^Search…/ }).click();
    const dialog = app.getByRole('dialog', { name: 'Command palette' });
    const search = dialog.getByRole('searchbox');
    await search.fill('new quote');
    await dialog.getByRole('menuitem', { name: /New quote/ }).click();
    await expect(app).toHaveURL(/#\/exchange\/new$/);

    await app.locator('body').press('Control+k');
    await dialog.getByRole('searchbox').fill('sync');
    await expect(dialog.getByRole('menuitem')).toHaveCount(1);
    await dialog.getByRole('searchbox').press('ArrowDown');
    await dialog.getByRole('searchbox').press('Enter');
    const toasts = app.getByRole('status', { name: 'Notifications' });
    await expect(toasts.getByText('RFIs synced')).toBeVisible();
    await toasts.getByRole('link', { name: 'Open the RFIs' }).click();
    await expect(app).toHaveURL(/#\/rfis$/);
  });

  test('a typed transaction id is offered and opens the transfer; Escape closes and returns focus', async ({
    app,
    harness,
  }) => {
    const t = harness.services.sandbox!.fixtures.legal_entities[0]!.incoming_transfers[0]!;
    const trigger = app.getByRole('button', { name: /^Search…/ });
    // The shortcut is drawn on the button at every width (at 1024 px in place of the word).
    for (const width of [1360, 1024]) {
      await app.setViewportSize({ width, height: 700 });
      await expect(trigger.locator('kbd')).toBeVisible();
      await expect(trigger.locator('kbd')).toHaveText(/^(Ctrl\+K|⌘K)$/);
    }
    await trigger.click();
    const dialog = app.getByRole('dialog', { name: 'Command palette' });
    await dialog.getByRole('searchbox').fill(t.transaction_id);
    await expect(
      dialog.getByRole('menuitem', { name: `Open transaction ${t.transaction_id}` }),
    ).toBeVisible();
    await dialog.getByRole('searchbox').press('Escape');
    await dialog.getByRole('searchbox').press('Escape');
    await expect(dialog).toBeHidden();
    await expect(trigger).toBeFocused();
  });
});

/** The bank behind a loopback proxy: "stopped" (every connection dropped) and back. */
const rigTest = base.extend<{
  rig: { app: Page; proxy: FaultProxy; harness: Harness; sandbox: RunningSandbox };
}>({
  rig: async ({ context }, use) => {
    const sandbox = await startSandbox({ visibilityDelayMs: { min: 0, max: 0 } });
    const proxy = await startFaultProxy(sandbox.url);
    const le = sandbox.fixtures.legal_entities[0]!;
    const harness = await startHarness({
      services: {
        environment: { kind: 'remote', baseUrl: proxy.url, name: 'Bank via proxy', token: le.tokens.admin },
        bankRetry: { attempts: 1, baseDelayMs: 20, maxDelayMs: 100 },
      },
    });
    await harness.attach(context);
    const app = await harness.open(context);
    const errors: string[] = [];
    app.on('pageerror', (e) => errors.push(e.message));
    await use({ app, proxy, harness, sandbox });
    await harness.close();
    await proxy.close();
    await sandbox.close();
    expect(errors).toEqual([]);
  },
});

rigTest(
  'the status line: bank unreachable since a time with a retry countdown, then connected',
  async ({ rig }) => {
    const { app, proxy, harness } = rig;
    const status = app.getByRole('status', { name: 'Connection' });
    await expect(status).toContainText('Connected');
    proxy.rules.push(() => ({ kind: 'drop' }));
    // any call that fails tells the session; here the analyst asks for a sync
    await harness.services.bank.listRfis({ page_size: '1' }).catch(() => undefined);
    await expect(status).toContainText('Bank unreachable');
    const since = harness.services.session.lastStatus!.since!;
    const hhmm = new Date(since).toLocaleTimeString('en-US', {
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    await expect(status).toContainText(`since ${hhmm}`);
    await expect(status).toContainText(/retrying (in \d+ s|now)/);
    // the countdown counts in seconds
    const first = await status.textContent();
    await expect.poll(async () => status.textContent(), { timeout: 5_000 }).not.toBe(first);
    proxy.rules.length = 0;
    await expect(status).toContainText('Connected', { timeout: 20_000 });
    await expect(status).not.toContainText('unreachable');
  },
);

rigTest(
  'a transfer opened while the bank is unreachable says so, with what was last seen, and opens when the bank is back',
  async ({ rig }) => {
    const { app, proxy, harness, sandbox } = rig;
    const t = sandbox.fixtures.legal_entities[0]!.incoming_transfers[0]!;
    await expect(app.getByRole('status', { name: 'Connection' })).toContainText('Connected');
    // Seen once while the bank answers (this computer remembers the look-up)…
    await app.evaluate((id) => (location.hash = `#/returns/${id}`), t.transaction_id);
    await expect(app.getByTestId('transfer-details')).toBeVisible();
    await app.getByRole('link', { name: 'Back to Returns' }).click();
    // …then opened again while every connection to the bank drops.
    proxy.rules.push(() => ({ kind: 'drop' }));
    await harness.services.bank.listRfis({ page_size: '1' }).catch(() => undefined);
    await expect(app.getByRole('status', { name: 'Connection' })).toContainText('Bank unreachable');
    await app.evaluate((id) => (location.hash = `#/returns/${id}`), t.transaction_id);
    const state = app.getByTestId('return-lookup-error');
    await expect(state).toHaveAttribute('data-state', 'bank-unreachable');
    await expect(state).toContainText('The bank cannot be reached, so this transfer cannot be read now');
    await expect(state).toContainText('Nothing was sent');
    await expect(app.getByTestId('transfer-last-seen')).toContainText('Last read from this computer on');
    await expect(state.getByRole('button', { name: 'Try again now' })).toBeVisible();
    await expect(app.getByRole('alert')).toHaveCount(0);
    // The bank is back: the transfer opens by itself.
    proxy.rules.length = 0;
    await expect(app.getByTestId('transfer-details')).toBeVisible({ timeout: 30_000 });
    await expect(app.getByRole('heading', { level: 1 })).toContainText('Return the transfer from');
  },
);

rigTest('offline banner when this computer has no network', async ({ rig, context }) => {
  const { app } = rig;
  await expect(app.getByRole('status', { name: 'Connection' })).toContainText('Connected');
  await context.setOffline(true);
  await expect(app.getByTestId('offline-banner')).toContainText('This computer is offline');
  await context.setOffline(false);
  await expect(app.getByTestId('offline-banner')).toBeHidden();
});

test('opened in a browser without the app core, the page says what it is and how to run the app', async ({
  browser,
  harness,
}) => {
  // A context the harness did not attach: no window.desk, as in any other browser.
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(harness.url);
    await expect(
      page.getByRole('heading', { name: 'Treasury Desk is not running in this window' }),
    ).toBeVisible();
    await expect(page.getByText('npm run start:browser')).toBeVisible();
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }
});
