import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { seriousA11yViolations } from './axe';
import { repoRoot } from '../harness/harness';
import type { Harness } from '../harness/harness';

/**
 * Accessibility of every screen (issue 8), in Chromium through the harness against the embedded
 * sandbox, in the light and the dark colour scheme:
 * - axe-core (WCAG 2.1 A/AA) finds no serious or critical violation;
 * - the keyboard alone reaches the screen's main controls with Tab, and every element Tab lands
 *   on on the way shows a focus indicator (an outline or a box-shadow);
 * - in the light scheme, a screenshot of the screen goes to docs/screenshots/<screen>.png
 *   (overwritten on every run, so the README's pictures stay current).
 */

const screenshots = path.join(repoRoot, 'docs/screenshots');
mkdirSync(screenshots, { recursive: true });

test.use({
  harnessOptions: {
    services: {
      environment: {
        kind: 'embedded-sandbox',
        // Quotes stay open while a screen is checked; transactions are visible at once.
        sandbox: { visibilityDelayMs: { min: 0, max: 0 }, quoteTtlSeconds: 600 },
      },
    },
  },
});

function entityA(harness: Harness) {
  const le = harness.services.sandbox?.fixtures.legal_entities[0];
  if (!le) throw new Error('no legal entity A in the sandbox');
  return le;
}

function settledTransfer(harness: Harness, index = 0): string {
  const settled = entityA(harness).incoming_transfers.filter(
    (t) => (t.status ?? 'completed') === 'completed',
  );
  const t = settled[index];
  if (!t) throw new Error('no settled transfer seeded');
  return t.transaction_id;
}

/** A quote made through the crypto service (the app's own path), read until it is in progress. */
async function openQuote(harness: Harness): Promise<string> {
  const ctx = await harness.services.crypto.context();
  const account = (asset: string) => {
    const a = ctx.accounts.find((x) => x.asset === asset);
    if (!a) throw new Error(`no ${asset} account in the book`);
    return a.accountId;
  };
  const quote = await harness.services.crypto.quote({
    side: 'buy',
    symbol: 'USDT-USD',
    requestedAsset: 'ETHEREUM-USDT',
    requestedAmount: '25000000',
    paysAccountId: account('USD'),
    receivesAccountId: account('ETHEREUM-USDT'),
    description: 'Treasury rebalancing',
  });
  await expect
    .poll(async () => (await harness.services.crypto.order(quote.id, true)).status, { timeout: 15_000 })
    .toBe('in_progress');
  return quote.id;
}

/** A return intent made through the returns channel (the app's own path). */
async function returnIntent(harness: Harness): Promise<string> {
  const transactionId = settledTransfer(harness, 1);
  const le = entityA(harness);
  const t = le.incoming_transfers.find((x) => x.transaction_id === transactionId)!;
  // Looked up first, as the Returns screen does (the entry then knows its currency).
  await harness.services.handlers['returns.lookup']({ transactionId });
  await harness.services.handlers['returns.createIntent']({
    operationId: `a11y-return-${transactionId}`,
    transactionId,
    amount: t.amount,
    reasonCode: 'AC04',
    description: 'Account closed before the transfer arrived',
  });
  return transactionId;
}

/** Loads the app afresh at the route (a hash change alone would keep the screen already shown). */
async function go(app: Page, harness: Harness, hash: string): Promise<void> {
  await app.goto('about:blank');
  await app.goto(`${harness.url}${hash}`);
}

interface ScreenCase {
  /** docs/screenshots/<name>.png */
  name: string;
  /** Brings the app to the screen, with content, and waits until it is drawn. */
  open(app: Page, harness: Harness): Promise<void>;
  /** The screen's main controls: Tab must reach each of them. */
  controls(app: Page): Locator[];
}

const screens: ScreenCase[] = [
  {
    name: 'overview',
    async open(app, harness) {
      await openQuote(harness);
      await returnIntent(harness);
      await harness.services.rfis.ready();
      await go(app, harness, '#/overview');
      await expect(app.getByTestId('overview-quote')).toHaveCount(1);
      await expect(app.getByTestId('overview-return')).toHaveCount(1);
      await expect(app.getByTestId('overview-by-type').getByRole('link').first()).toBeVisible();
    },
    controls: (app) => [
      app.getByRole('link', { name: 'Overview' }),
      app.getByTestId('overview-band-on_track'),
      app.getByTestId('overview-band-breached'),
      app.getByTestId('overview-quote').getByRole('link'),
      app.getByTestId('overview-return').getByRole('link'),
    ],
  },
  {
    name: 'rfi-queue',
    async open(app, harness) {
      await harness.services.rfis.ready();
      await go(app, harness, '#/rfis');
      await expect(app.getByTestId('rfi-row').first()).toBeVisible();
    },
    controls: (app) => [
      app.getByTestId('rfi-search'),
      app.getByTestId('rfi-filter-status'),
      app.getByTestId('rfi-filter-band'),
      app.getByTestId('rfi-list'),
    ],
  },
  {
    name: 'rfi-detail',
    async open(app, harness) {
      await harness.services.rfis.ready();
      const id = entityA(harness).rfi_ids[0];
      await go(app, harness, `#/rfis/${id}`);
      await expect(app.getByLabel('Your answer').first()).toBeVisible();
    },
    controls: (app) => [app.getByLabel('Your answer').first(), app.getByTestId('answer-submit').first()],
  },
  {
    name: 'returns',
    async open(app, harness) {
      await go(app, harness, '#/returns');
      await expect(app.getByText('No returns yet.')).toBeVisible();
    },
    controls: (app) => [
      app.getByLabel('Transaction id of the incoming transfer'),
      app.getByRole('button', { name: 'Open', exact: true }),
    ],
  },
  {
    name: 'return-form',
    async open(app, harness) {
      const id = settledTransfer(harness);
      await go(app, harness, `#/returns/${id}`);
      await expect(app.getByTestId('transfer-id')).toHaveText(id);
      await app.getByRole('button', { name: 'Return this transfer…' }).click();
      await expect(app.getByLabel(/^Amount to return/)).toBeVisible();
    },
    controls: (app) => [
      app.getByLabel(/^Amount to return/),
      app.getByLabel('Reason code'),
      app.getByLabel('Description (optional)'),
    ],
  },
  {
    name: 'exchange-form',
    async open(app, harness) {
      await go(app, harness, '#/exchange/new');
      await expect(app.getByRole('heading', { name: 'New exchange quote' })).toBeVisible();
      await expect(app.getByTestId('crypto-pays')).not.toHaveValue('');
    },
    controls: (app) => [app.getByTestId('crypto-amount'), app.getByTestId('crypto-get-quote')],
  },
  {
    name: 'exchange-quote',
    async open(app, harness) {
      const id = await openQuote(harness);
      await go(app, harness, `#/exchange/${id}`);
      await expect(app.getByTestId('crypto-countdown')).toBeVisible();
      await expect(app.getByTestId('crypto-confirm')).toBeEnabled();
    },
    controls: (app) => [app.getByTestId('crypto-confirm'), app.getByTestId('crypto-requote')],
  },
  {
    name: 'settings',
    async open(app, harness) {
      await go(app, harness, '#/settings');
      await expect(app.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
      await expect(app.getByTestId('token-state-sandbox')).toHaveText('Token stored');
    },
    controls: (app) => [app.getByLabel('Sandbox credential')],
  },
  {
    name: 'activity',
    async open(app, harness) {
      await returnIntent(harness);
      await go(app, harness, '#/activity');
      await expect(app.getByTestId('audit-row').first()).toBeVisible();
    },
    controls: (app) => [app.getByTestId('audit-export')],
  },
  {
    name: 'connection',
    async open(app, harness) {
      await go(app, harness, '#/connection');
      await expect(app.getByTestId('connection-details')).toBeVisible();
    },
    controls: (app) => [app.getByRole('link', { name: 'Connection' })],
  },
];

interface TabStop {
  target: string | null;
  tag: string;
  text: string;
  focusVisible: boolean;
}

/**
 * From nothing focused, presses Tab until every control was reached (or `max` presses); answers
 * every stop with whether it showed a focus indicator.
 */
async function tabThrough(
  app: Page,
  controls: Locator[],
  max = 80,
): Promise<{ stops: TabStop[]; missed: number[] }> {
  for (const [i, c] of controls.entries()) {
    await expect(c).toBeVisible();
    await c.evaluate((el, n) => el.setAttribute('data-a11y-target', String(n)), i);
  }
  await app.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const reached = new Set<number>();
  const stops: TabStop[] = [];
  for (let i = 0; i < max && reached.size < controls.length; i++) {
    await app.keyboard.press('Tab');
    const stop = await app.evaluate((): TabStop => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return { target: null, tag: 'body', text: '', focusVisible: true };
      const s = getComputedStyle(el);
      const outline = s.outlineStyle !== 'none' && Number.parseFloat(s.outlineWidth) > 0;
      const shadow = s.boxShadow !== 'none' && s.boxShadow !== '';
      return {
        target: el.getAttribute('data-a11y-target'),
        tag: el.tagName.toLowerCase(),
        text: (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 60),
        focusVisible: outline || shadow,
      };
    });
    stops.push(stop);
    if (stop.target !== null) reached.add(Number(stop.target));
  }
  return { stops, missed: controls.map((_, i) => i).filter((i) => !reached.has(i)) };
}

for (const scheme of ['light', 'dark'] as const) {
  test.describe(`accessibility, ${scheme} scheme`, () => {
    test.use({ colorScheme: scheme });

    for (const screen of screens) {
      test(`${screen.name}: no serious axe violation, keyboard reaches the main controls with visible focus`, async ({
        app,
        harness,
      }) => {
        await screen.open(app, harness);
        expect(await app.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(
          scheme === 'dark',
        );

        const violations = await seriousA11yViolations(app);
        expect(violations, JSON.stringify(violations, null, 2)).toEqual([]);

        if (scheme === 'light') {
          await app.mouse.move(0, 0);
          await app.screenshot({ path: path.join(screenshots, `${screen.name}.png`) });
        }

        const { stops, missed } = await tabThrough(app, screen.controls(app));
        expect(missed, `not reached by Tab: ${JSON.stringify(stops.map((s) => s.text))}`).toEqual([]);
        const unmarked = stops.filter((s) => !s.focusVisible);
        expect(unmarked, 'focused without a visible indicator').toEqual([]);
      });
    }
  });
}
