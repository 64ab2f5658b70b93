import { mkdirSync } from 'node:fs';
import { readFile, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { seriousA11yViolations } from './axe';
import { selectButton } from './ui-controls';
import { RETURN_REASON_CODE_LIST } from '../../src/shared/catalogue';
import { repoRoot } from '../harness/harness';
import { staffOf } from '../support/sandbox-staff';
import { writePdf } from './rfi-workspace-support';
import type { Harness } from '../harness/harness';

/**
 * Accessibility of every screen, in Chromium through the harness against the embedded sandbox, in
 * the light and the dark colour scheme, at 1360×880 and at 1024×700:
 * - axe-core (WCAG 2.1 A/AA) finds no serious or critical violation;
 * - no Content-Security-Policy violation (nothing injected a <style> or inline script);
 * - table cells are one line, and a cell whose text is cut (ellipsis) carries the full value as
 *   its title; a column's name, a number (amounts, times) and an entity's name that fits 30%
 *   of the table are never cut (beside the detail pane too); no Unicode symbol glyphs stand in
 *   for icons on the screens that use SVG icons;
 * - the keyboard alone reaches the screen's main controls with Tab, and every element Tab lands
 *   on on the way shows a focus indicator (an outline or a box-shadow);
 * - a status or a deadline in a table is never cut; outside the tables no text is cut at all: the
 *   header (only a long entity name or its id may be capped, with the full value as the title),
 *   buttons' and headings' words, empty fields' placeholders;
 * - the visible text is words: no snake_case value, dotted catalogue key or SCREAMING enum outside
 *   an id's monospace (ids are shown as ids, secondary), no ISO return reason code ("AC03": the
 *   reason by its name) and no ISO date ("2026-11-24", "…T11:56:21Z": one date style);
 * - a screenshot of the screen goes to <dir>/<screen>-<scheme>-<w>x<h>.png: reports/screenshots
 *   (ignored by git) in `npm test`, docs/screenshots with `npm run screenshots`
 *   (TREASURY_SCREENSHOTS_DIR), so a test run leaves the work tree as it was.
 */

const screenshots = path.resolve(
  repoRoot,
  process.env['TREASURY_SCREENSHOTS_DIR'] ?? path.join('reports', 'screenshots'),
);
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

const LONG_ENTITY =
  'Consolidated Northern Hemisphere Metals, Mining and Commodity Trading Holdings International GmbH';

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

/** A second legal entity on the desk: a profile with entity B's credential (the app's own path). */
async function addEntityB(harness: Harness): Promise<void> {
  const sandbox = harness.services.sandbox!;
  harness.platform.nextConfirmAnswers.push(true);
  const view = await harness.services.handlers['settings.addProfile']({
    name: 'Group entity B',
    baseUrl: sandbox.url,
  });
  const id = view.profiles.find((p) => p.name === 'Group entity B')!.id;
  await harness.services.handlers['vault.setToken']({
    profileId: id,
    token: sandbox.fixtures.legal_entities[1]!.tokens.admin,
  });
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
    profileId: ctx.environmentId,
    side: 'buy',
    symbol: 'USDT-USD',
    requestedAsset: 'ETHEREUM-USDT',
    requestedAmount: '25000000',
    paysAccountId: account('USD'),
    receivesAccountId: account('ETHEREUM-USDT'),
    description: 'Treasury rebalancing',
  });
  await expect
    .poll(
      async () =>
        (await harness.services.crypto.order({ profileId: quote.environmentId, orderId: quote.id }, true))
          .status,
      { timeout: 15_000 },
    )
    .toBe('in_progress');
  return quote.id;
}

/** A return intent made through the returns channel (the app's own path). */
async function returnIntent(harness: Harness): Promise<string> {
  const transactionId = settledTransfer(harness, 1);
  const le = entityA(harness);
  const t = le.incoming_transfers.find((x) => x.transaction_id === transactionId)!;
  // Looked up first, as the Returns screen does (the entry then knows its currency).
  await harness.services.handlers['returns.lookup']({
    profileId: harness.services.session.profile.id,
    transactionId,
  });
  await harness.services.handlers['returns.createIntent']({
    profileId: harness.services.session.profile.id,
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
  /** docs/screenshots/<name>-<scheme>-<w>x<h>.png */
  name: string;
  /** Icons are SVG here: no Unicode symbol glyph may stand in for one (tofu without the font). */
  svgIconsOnly?: boolean;
  /** Brings the app to the screen, with content, and waits until it is drawn. */
  open(app: Page, harness: Harness): Promise<void>;
  /** The screen's main controls: Tab must reach each of them. */
  controls(app: Page): Locator[];
  /**
   * After a change of window size: waits until the screen shows what it must at that size (its
   * layout for the width, its content drawn). The page is then checked once it is also still.
   */
  settle?(app: Page, size: Size): Promise<void>;
}

type Size = (typeof SIZES)[number];

/**
 * Waits until the page is still: web fonts loaded, and for several frames in a row no change in
 * the DOM (outside timers that tick on purpose, such as a quote's countdown) and no change in
 * the size of the main area. Checks and screenshots then see the screen as it stays, not a
 * layout half-way through following the window.
 */
async function still(app: Page): Promise<void> {
  await app.evaluate(async () => {
    await document.fonts.ready;
    await new Promise<void>((resolve) => {
      const ticking = (n: Node): boolean =>
        !!(n instanceof Element ? n : n.parentElement)?.closest('[role="timer"]');
      let changed = true;
      const observer = new MutationObserver((records) => {
        if (records.some((r) => !ticking(r.target))) changed = true;
      });
      observer.observe(document.body, {
        subtree: true,
        childList: true,
        attributes: true,
        characterData: true,
      });
      let size = '';
      let quiet = 0;
      const frame = (): void => {
        const r = document.querySelector('main')?.getBoundingClientRect();
        const now = r ? `${r.width}x${r.height}` : '';
        quiet = changed || now !== size ? 0 : quiet + 1;
        changed = false;
        size = now;
        if (quiet >= 5) {
          observer.disconnect();
          resolve();
        } else requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    });
  });
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
    svgIconsOnly: true,
    async open(app, harness) {
      await harness.services.rfis.ready();
      await go(app, harness, '#/rfis');
      await expect(app.getByTestId('rfi-row').first()).toBeVisible();
    },
    async settle(app, size) {
      // Wide windows show the queue beside the detail pane, narrow ones the queue alone (the
      // table is built anew then): the layout for this width, every RFI loaded, rows drawn.
      await expect(app.getByTestId('rfi-split')).toHaveCount(size.width >= 1200 ? 1 : 0);
      await expect(app.getByTestId('rfi-visible-count')).toHaveText(/^(\d+) of \1 RFIs/);
      await expect(app.getByTestId('rfi-row').first()).toBeVisible();
    },
    controls: (app) => [
      app.getByRole('searchbox', { name: 'Search' }),
      app.getByRole('radiogroup', { name: 'Status' }).getByRole('radio', { checked: true }),
      selectButton(app, 'Deadline'),
      app.getByRole('grid', { name: 'RFIs' }),
    ],
  },
  {
    name: 'rfi-queue-two-entities',
    svgIconsOnly: true,
    async open(app, harness) {
      await harness.services.rfis.ready();
      await addEntityB(harness);
      await go(app, harness, '#/rfis');
      // Both entities are in the Entity filter's list, and their rows in the queue.
      await expect(app.getByTestId('rfi-filter-entity')).toHaveAttribute('data-count', '2', {
        timeout: 15_000,
      });
    },
    async settle(app, size) {
      await expect(app.getByTestId('rfi-split')).toHaveCount(size.width >= 1200 ? 1 : 0);
      await expect(app.getByTestId('rfi-visible-count')).toHaveText(/^(\d+) of \1 RFIs/);
      await expect(app.getByTestId('rfi-row').first()).toBeVisible();
    },
    controls: (app) => [
      app.getByRole('radiogroup', { name: 'Status' }).getByRole('radio', { checked: true }),
      selectButton(app, 'Entity'),
      app.getByRole('grid', { name: 'RFIs' }),
    ],
  },
  {
    name: 'rfi-queue-no-match',
    async open(app, harness) {
      await harness.services.rfis.ready();
      await go(app, harness, '#/rfis');
      await expect(app.getByTestId('rfi-row').first()).toBeVisible();
      await app.getByRole('searchbox', { name: 'Search' }).fill('no such words anywhere');
      await expect(app.getByText('No RFI matches')).toBeVisible();
    },
    controls: (app) => [app.getByRole('button', { name: 'Clear the filters' })],
  },
  {
    name: 'offline',
    async open(app, harness) {
      await harness.services.rfis.ready();
      await go(app, harness, '#/rfis');
      await expect(app.getByTestId('rfi-row').first()).toBeVisible();
      await app.context().setOffline(true);
      await expect(app.getByTestId('offline-banner')).toBeVisible();
      // One truth: the header and the queue say offline too.
      await expect(app.getByTestId('connection-state')).toHaveText('Offline');
      await expect(app.getByTestId('rfi-sync-state')).toContainText('showing the copy synced');
    },
    controls: (app) => [app.getByRole('searchbox', { name: 'Search' })],
  },
  {
    name: 'palette',
    async open(app, harness) {
      await harness.services.rfis.ready();
      await go(app, harness, '#/overview');
      await expect(app.getByRole('heading', { level: 1 }).first()).toBeVisible();
      await app.locator('body').press('Control+k');
      const dialog = app.getByRole('dialog', { name: 'Command palette' });
      await dialog.getByRole('searchbox').fill('harbour');
      await expect(dialog.getByRole('menuitem').first()).toBeVisible();
    },
    controls: (app) => [app.getByRole('dialog', { name: 'Command palette' }).getByRole('searchbox')],
  },
  {
    name: 'rfi-many-questions',
    svgIconsOnly: true,
    async open(app, harness) {
      const le = entityA(harness);
      const rfi = await staffOf(harness.services).createRfi({
        type: 'account',
        related_id: le.accounts[0]!.id,
        description: 'Annual review of the operating account: twelve questions',
        questions: Array.from({ length: 12 }, (_, i) => ({
          question_type: i % 3 === 2 ? 'transaction.supporting_documents' : 'transaction.purpose',
          question_text: `Question ${i + 1}: explain the payments of month ${i + 1}.`,
        })),
      });
      await harness.services.rfis.ready();
      await go(app, harness, `#/rfis/${rfi.id}`);
      await expect(app.getByTestId('answer-composer')).toHaveCount(12);
    },
    controls: (app) => [app.getByTestId('answer-submit').first()],
  },
  {
    name: 'rfi-detail',
    svgIconsOnly: true,
    async open(app, harness) {
      await harness.services.rfis.ready();
      // The transaction RFI with a staff response in its history (the staff marker is an icon).
      const le = entityA(harness);
      const withHistory = [];
      for (const rid of le.rfi_ids) {
        const d = await harness.services.rfis.get(rid, false);
        if (d.rfi.status === 'action_required' && d.rfi.questions.some((q) => q.responses.length > 0))
          withHistory.push(rid);
      }
      const id = withHistory[0] ?? le.rfi_ids[0];
      await go(app, harness, `#/rfis/${id}`);
      await expect(app.getByTestId('answer-composer').first()).toBeVisible();
      await expect(app.getByTestId('question-history').first()).toBeVisible();
    },
    controls: (app) => [
      app.getByTestId('rfi-detail').getByRole('button', { name: 'Copy RFI id' }),
      app.getByTestId('answer-submit').first(),
    ],
  },
  {
    name: 'rfi-snoozed',
    svgIconsOnly: true,
    async open(app, harness) {
      await harness.services.rfis.ready();
      // An RFI awaiting action whose last reminder is still ahead, its reminders snoozed.
      const now = harness.services.clock.now();
      const { items } = await harness.services.entityWatch.list({});
      const rfi = items.find(
        (r) => r.awaitingAction && r.deadline && Date.parse(r.deadline) - now > 2 * 86_400_000,
      );
      if (!rfi) throw new Error('no RFI awaiting action with days left');
      await harness.services.handlers['reminders.snooze']({
        profileId: harness.services.session.profile.id,
        rfiId: rfi.id,
        choice: '3d',
      });
      await go(app, harness, `#/rfis/${rfi.id}`);
      await expect(app.getByTestId('rfi-snooze-state')).toContainText('Reminders snoozed');
    },
    controls: (app) => [
      app.getByRole('button', { name: 'Snooze for another time' }),
      app.getByRole('button', { name: 'Cancel snooze' }),
    ],
  },
  {
    name: 'returns',
    svgIconsOnly: true,
    async open(app, harness) {
      await returnIntent(harness);
      await go(app, harness, '#/returns');
      await expect(app.getByTestId('returns-row').first()).toBeVisible();
      await expect(app.getByTestId('returns-recent-row').first()).toBeVisible();
      // Settled: every transfer an RFI is about is named by its sender and amount as the bank
      // tells them (none still being read, none labelled by its RFI's words instead).
      const rows = app.getByTestId('returns-recent-row');
      await expect(app.locator('[data-testid="returns-recent-row"][data-reading]')).toHaveCount(0);
      await expect(rows.filter({ hasText: /RFI:|Open to read|Sender not known/ })).toHaveCount(0);
      await expect(rows.filter({ hasText: 'Harbour Freight' }).first()).toBeVisible();
    },
    controls: (app) => [
      app.getByLabel('Transaction id of the incoming transfer'),
      app.getByRole('button', { name: 'Open', exact: true }),
      app.getByRole('grid', { name: 'Returns made from this workstation' }),
    ],
  },
  {
    name: 'exchange',
    svgIconsOnly: true,
    async open(app, harness) {
      await openQuote(harness);
      await go(app, harness, '#/exchange');
      await expect(app.getByTestId('crypto-list-row').first()).toBeVisible();
    },
    controls: (app) => [
      app.getByRole('link', { name: 'New quote' }),
      app.getByRole('grid', { name: 'Quotes and orders' }),
    ],
  },
  {
    name: 'account-book',
    svgIconsOnly: true,
    async open(app, harness) {
      await go(app, harness, '#/exchange/accounts');
      await expect(app.getByRole('grid', { name: 'Accounts' })).toBeVisible();
      await expect(app.getByRole('row')).not.toHaveCount(1);
    },
    controls: (app) => [
      app.getByRole('grid', { name: 'Accounts' }).getByRole('textbox').first(),
      app.getByLabel('Account id', { exact: true }),
      selectButton(app, 'Asset'),
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
      selectButton(app, 'Reason'),
      app.getByLabel('Description (optional)'),
    ],
  },
  {
    name: 'exchange-form',
    async open(app, harness) {
      await go(app, harness, '#/exchange/new');
      await expect(app.getByRole('heading', { name: 'New exchange quote' })).toBeVisible();
      await expect(app.getByTestId('crypto-pays')).toHaveAttribute('data-value', /.+/);
    },
    controls: (app) => [app.getByLabel('Amount', { exact: true }), app.getByTestId('crypto-get-quote')],
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
    name: 'settings-reminders',
    async open(app, harness) {
      await go(app, harness, '#/settings');
      const panel = app.getByRole('region', { name: 'Deadline reminders' });
      await panel.scrollIntoViewIfNeeded();
      await expect(
        panel.getByRole('list', { name: 'Reminder thresholds' }).getByRole('listitem'),
      ).toHaveCount(3);
    },
    controls: (app) => [
      app.getByRole('switch', { name: /Remind me before/ }),
      app.getByRole('button', { name: 'Remove the reminder 24 hours before the timeout' }),
      app.getByLabel('Remind me', { exact: true }),
    ],
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
    // A legal entity whose name is longer than the header and the queue's columns, beside a
    // second entity (the queue's Entity column caps the long name, the other stays whole).
    name: 'long-entity-name',
    svgIconsOnly: true,
    async open(app, harness) {
      await harness.services.rfis.ready();
      // The embedded bank names its entities from its fixtures: this one gets a long name.
      entityA(harness).name = LONG_ENTITY;
      await harness.services.handlers['session.useSandboxCredential']({ credential: 'a-admin' });
      await addEntityB(harness);
      await go(app, harness, '#/rfis');
      await expect(app.getByTestId('connection-legal-entity')).toContainText(LONG_ENTITY.slice(0, 20));
      await expect(app.getByTestId('rfi-filter-entity')).toHaveAttribute('data-count', '2', {
        timeout: 15_000,
      });
      await expect(app.getByTestId('rfi-row').first()).toBeVisible();
    },
    async settle(app, size) {
      await expect(app.getByTestId('rfi-split')).toHaveCount(size.width >= 1200 ? 1 : 0);
      await expect(app.getByTestId('rfi-row').first()).toBeVisible();
    },
    controls: (app) => [app.getByRole('grid', { name: 'RFIs' })],
  },
  {
    // The bank stops answering; a transfer opened then says so, with what was last seen.
    name: 'bank-unreachable',
    svgIconsOnly: true,
    async open(app, harness) {
      await harness.services.rfis.ready();
      const id = settledTransfer(harness);
      await harness.services.handlers['returns.lookup']({
        profileId: harness.services.session.profile.id,
        transactionId: id,
      });
      await harness.services.sandbox!.close();
      await harness.services.bank.listRfis({ page_size: '1' }).catch(() => undefined);
      await go(app, harness, `#/returns/${id}`);
      await expect(app.getByTestId('connection-state')).toContainText('unreachable');
      await expect(app.getByTestId('return-lookup-error')).toHaveAttribute('data-state', 'bank-unreachable');
      await expect(app.getByTestId('transfer-last-seen')).toBeVisible();
    },
    controls: (app) => [
      app.getByRole('button', { name: 'Try again now' }),
      app.getByRole('link', { name: 'Back to Returns' }),
    ],
  },
  {
    // Two documents in the locker, the stored copy of one gone from disk.
    name: 'locker-missing-copy',
    async open(app, harness) {
      const dir = path.join(harness.dataDir, '..', 'locker-files');
      mkdirSync(dir, { recursive: true });
      const added = [];
      for (const [file, type, holder] of [
        ['passport-ada-lovelace.pdf', 'passport', 'Ada Lovelace'],
        ['registry-extract-2026.pdf', 'business_registry_extract', 'Alder Trade GmbH'],
      ] as const) {
        const at = path.join(dir, file);
        await writePdf(at, 20_000);
        harness.platform.nextDialogAnswers.push([at]);
        const r = await harness.services.handlers['locker.add']({
          source: { from: 'picker' },
          documentType: type,
          holder: { kind: holder === 'Ada Lovelace' ? 'person' : 'company', name: holder },
        });
        added.push(r.document!);
      }
      // The stored copy goes missing on disk (whatever form it is kept in: a sealed blob or an older copy).
      const blobs = path.join(harness.dataDir, 'locker', 'blobs');
      const versionId: string = added[1]!.current.versionId;
      const copies = (await readdir(blobs)).filter((n) => n.startsWith(`${versionId}.`));
      expect(copies).toHaveLength(1);
      await rm(path.join(blobs, copies[0]!));
      await go(app, harness, '#/locker');
      await expect(app.getByTestId('locker-missing-copies')).toContainText('registry-extract-2026.pdf');
      await expect(app.getByTestId('locker-item').first()).toHaveAttribute('data-problem', 'true');
    },
    controls: (app) => [app.getByRole('button', { name: 'Replace with the file…' })],
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

interface CellProblem {
  where: string;
  problem: string;
  text: string;
}

/**
 * Every data-table cell (the DataTable's grid cells and column headers) is one line, and any
 * element in it whose text is cut horizontally (overflow hidden, content wider than the box) has
 * a title on itself or an ancestor within the cell, so the full value is on hover. Column names
 * and end-aligned cells (amounts, times) are never cut at all.
 */
async function cellProblems(app: Page): Promise<CellProblem[]> {
  return app.evaluate(() => {
    const out: { where: string; problem: string; text: string }[] = [];
    const cells = [...document.querySelectorAll<HTMLElement>('[role="gridcell"], [role="columnheader"]')];
    const label = (el: HTMLElement): string => {
      const row = el.closest('[role="row"], tr');
      const grid = el.closest('[role="grid"], table');
      return `${grid?.getAttribute('aria-label') ?? grid?.querySelector('caption')?.textContent ?? 'table'} row ${row?.getAttribute('aria-rowindex') ?? '?'}`;
    };
    // A table fits its box: no column pushed out of view to the right.
    for (const grid of document.querySelectorAll<HTMLElement>('[role="grid"]')) {
      if (grid.scrollWidth > grid.clientWidth + 1) {
        out.push({
          where: grid.getAttribute('aria-label') ?? 'table',
          problem: `columns wider than the table (${grid.scrollWidth} > ${grid.clientWidth} px)`,
          text: '',
        });
      }
    }
    for (const cell of cells) {
      const r = cell.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      // One line: every text fragment in the cell sits on the same line box.
      const range = document.createRange();
      range.selectNodeContents(cell);
      const tops = new Set<number>();
      for (const rect of range.getClientRects()) {
        if (rect.width > 0 && rect.height > 0 && rect.bottom > r.top && rect.top < r.bottom)
          tops.add(Math.round(rect.top + rect.height / 2));
      }
      const lines = [...tops].sort((a, b) => a - b);
      if (lines.length > 1 && lines[lines.length - 1]! - lines[0]! > 8) {
        out.push({
          where: label(cell),
          problem: 'wraps onto more than one line',
          text: cell.innerText.slice(0, 80),
        });
      }
      // A deadline sits inside the cell's padding, not against the table's edge ("in 22d|").
      const cs = getComputedStyle(cell);
      for (const d of cell.querySelectorAll<HTMLElement>('.deadline')) {
        // Its drawn content (scrollWidth), which may be wider than its capped box.
        const over =
          d.getBoundingClientRect().left + d.scrollWidth - (r.right - Number.parseFloat(cs.paddingRight));
        if (over > 1)
          out.push({
            where: label(cell),
            problem: `deadline runs ${Math.round(over)} px into the cell's padding`,
            text: d.innerText.slice(0, 80),
          });
      }
      // Cut text must carry its full value as a title.
      for (const el of [cell, ...cell.querySelectorAll<HTMLElement>('*')]) {
        if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof SVGElement)
          continue;
        const s = getComputedStyle(el);
        if (s.overflowX === 'visible') continue;
        if (el.scrollWidth <= el.clientWidth + 1) continue;
        if (!(el.textContent ?? '').trim()) continue;
        // A column's name and a number (an amount, a time: the end-aligned cells) are never cut,
        // title or not: "3,200.5…" or "Amou…" cannot be read at a glance.
        if (cell.getAttribute('role') === 'columnheader' || cell.classList.contains('dt__cell--end')) {
          out.push({
            where: label(cell),
            problem: cell.getAttribute('role') === 'columnheader' ? 'column name cut' : 'number cut',
            text: el.textContent!.slice(0, 80),
          });
          continue;
        }
        // Nor an entity's name for want of room ("Alder Trad…" beside the detail pane): the
        // Entity column is as wide as its names, up to 30% of the table; only a name longer than
        // that (with the cell's padding) may be capped, with its title (below).
        const entity = el.closest('.rfi-cell__entity') ?? el.querySelector('.rfi-cell__entity');
        const grid = cell.closest('[role="grid"]');
        if (entity && grid && entity.getBoundingClientRect().width + 30 <= grid.clientWidth * 0.3) {
          out.push({ where: label(cell), problem: 'entity name cut', text: el.textContent!.slice(0, 80) });
          continue;
        }
        // Nor a status or a deadline: "Return intent …" or "At risk ·" says nothing.
        if (el.closest('.ui-badge, .status-badge, .deadline')) {
          out.push({
            where: label(cell),
            problem: 'status or deadline cut',
            text: el.textContent!.slice(0, 80),
          });
          continue;
        }
        let titled = false;
        for (let at: HTMLElement | null = el; at; at = at === cell ? null : at.parentElement) {
          if (at.title) titled = true;
        }
        if (!titled)
          out.push({
            where: label(cell),
            problem: 'text cut without a title',
            text: el.textContent!.slice(0, 80),
          });
      }
    }
    return out;
  });
}

/**
 * Text cut outside the tables, where no title can stand in for it: anything in the header (the
 * connection state, its retry countdown, the role, the alerts; only a legal entity's name longer
 * than the header may be capped, with its full name as its title), a button's or a heading's
 * words, and an empty field's placeholder (measured against the field's content box).
 */
async function clippedText(app: Page): Promise<CellProblem[]> {
  return app.evaluate(() => {
    const out: { where: string; problem: string; text: string }[] = [];
    // Drawn for the eye: text kept only for screen readers (a 1 px clipped box) is not cut text.
    const visible = (el: Element): boolean => {
      const r = el.getBoundingClientRect();
      const st = getComputedStyle(el);
      return r.width > 1 && r.height > 1 && st.visibility !== 'hidden' && st.clipPath === 'none';
    };
    const cut = (el: HTMLElement): boolean =>
      getComputedStyle(el).overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1;
    const header = document.querySelector<HTMLElement>('.app__header');
    for (const el of header ? [...header.querySelectorAll<HTMLElement>('*')] : []) {
      if (el instanceof SVGElement || !visible(el) || !(el.textContent ?? '').trim() || !cut(el)) continue;
      // An entity's long name and its id may be capped, their full value in the title.
      const titled = el.closest<HTMLElement>('.status-line__entity-name, .status-line__id');
      if (titled?.title.includes((el.textContent ?? '').trim())) continue;
      // A box that holds a cut child is reported through the child.
      if ([...el.children].some((c) => c instanceof HTMLElement && cut(c))) continue;
      out.push({ where: 'header', problem: 'text cut', text: (el.textContent ?? '').trim().slice(0, 80) });
    }
    const main = document.querySelector('main');
    for (const el of main ? [...main.querySelectorAll<HTMLElement>('h1, h2, h3, button')] : []) {
      if (el.closest('[role="grid"], [role="dialog"]') || !visible(el)) continue;
      // A Select's value may be cut with its option's text as the button's name; other buttons not.
      for (const part of [el, ...el.querySelectorAll<HTMLElement>('span')]) {
        if (part.closest('.ui-select__value') || !(part.textContent ?? '').trim() || !cut(part)) continue;
        out.push({
          where: el.tagName.toLowerCase(),
          problem: 'text cut',
          text: (part.textContent ?? '').trim().slice(0, 80),
        });
        break;
      }
    }
    const canvas = document.createElement('canvas').getContext('2d')!;
    for (const el of document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(
      'input[placeholder], textarea[placeholder]',
    )) {
      if (el.value || !visible(el)) continue;
      const s = getComputedStyle(el);
      canvas.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
      const room = el.clientWidth - Number.parseFloat(s.paddingLeft) - Number.parseFloat(s.paddingRight);
      const need = canvas.measureText(el.placeholder).width;
      if (need > room + 1)
        out.push({
          where: `field ${el.getAttribute('aria-label') ?? el.name ?? ''}`,
          problem: `placeholder cut (${Math.round(need)} > ${Math.round(room)} px)`,
          text: el.placeholder,
        });
    }
    return out;
  });
}

/**
 * Raw values that have words or one style: ISO return reason codes ("AC03", "FOCR": the reason is
 * said in words, the code at most in an id's monospace) and ISO dates ("2026-11-24",
 * "2026-11-24T11:56:21Z": one date style, the absolute one from the shared words or a relative
 * time). Fields, ids' monospace and closed lists are left out.
 */
async function rawValues(app: Page): Promise<string[]> {
  const text = await app.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('main, [role="dialog"]')]
      .map((root) => {
        const copy = root.cloneNode(true) as HTMLElement;
        // A Select's hidden native <select> (form autofill) and a closed list are not on screen.
        for (const el of copy.querySelectorAll(
          'code, kbd, input, textarea, select, [hidden], [role="listbox"]',
        ))
          el.remove();
        document.body.appendChild(copy);
        const t = copy.innerText;
        copy.remove();
        return t;
      })
      .join('\n'),
  );
  const codes = new RegExp(`\\b(?:${RETURN_REASON_CODE_LIST.join('|')})\\b`, 'g');
  const isoDates = /\b\d{4}-\d{2}-\d{2}(?:T[\d:.]+Z?)?\b/g;
  return [...new Set([...(text.match(codes) ?? []), ...(text.match(isoDates) ?? [])])];
}

/**
 * Raw values in the visible text of the page (the main area and any open dialog): snake_case
 * ("pending_review"), dotted catalogue keys ("identification.individual.passport") and SCREAMING
 * enums ("SWIFT-FI-TO-FI-…"). Ids are ids: monospace elements (CopyableId, code) and the ids'
 * own shape (rfi_…, txn_… with a hex tail) are left out.
 */
async function codeWords(app: Page): Promise<string[]> {
  const text = await app.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('main, [role="dialog"]')]
      .map((root) => {
        const copy = root.cloneNode(true) as HTMLElement;
        for (const el of copy.querySelectorAll('code, kbd, input, textarea, [hidden]')) el.remove();
        document.body.appendChild(copy);
        const t = copy.innerText;
        copy.remove();
        return t;
      })
      .join('\n'),
  );
  const words = text.replace(/\b[a-z]{2,5}_[0-9a-z]{8,}\b/g, ' ');
  return [
    ...new Set(
      words.match(/\b[a-z]+_[a-z_]+\b|\b[a-z]+\.[a-z_]+\.[a-z_]+\b|\b[A-Z]+(?:[-_][A-Z]+){2,}\b/g) ?? [],
    ),
  ];
}

/** Unicode symbols that need an emoji or symbol font (tofu on a workstation without one). */
async function symbolGlyphs(app: Page): Promise<string[]> {
  const text = await app.evaluate(() => document.querySelector('main')?.innerText ?? '');
  return [
    ...new Set(
      text.match(
        /[\u2190-\u21FF\u2300-\u23FF\u2460-\u24FF\u25A0-\u27BF\u2B00-\u2BFF\u{1F000}-\u{1FFFF}]/gu,
      ) ?? [],
    ),
  ];
}

const SIZES = [
  { width: 1360, height: 880 },
  { width: 1024, height: 700 },
] as const;

for (const scheme of ['light', 'dark'] as const) {
  test.describe(`accessibility, ${scheme} scheme`, () => {
    test.use({ colorScheme: scheme, viewport: SIZES[0] });

    for (const screen of screens) {
      test(`${screen.name}: no serious axe violation, single-line cells, keyboard reaches the main controls with visible focus`, async ({
        app,
        harness,
      }) => {
        await app.addInitScript(() => {
          const w = window as unknown as { __csp: string[] };
          w.__csp = [];
          document.addEventListener('securitypolicyviolation', (e) =>
            w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`),
          );
        });
        await screen.open(app, harness);
        expect(await app.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(
          scheme === 'dark',
        );

        for (const size of SIZES) {
          await app.setViewportSize(size);
          await app.mouse.move(0, 0);
          // Layouts follow the window (master–detail, wrapping toolbars): wait for the screen's
          // own state at this size, then for the page to be still.
          await expect
            .poll(() => app.evaluate(() => `${window.innerWidth}x${window.innerHeight}`))
            .toBe(`${size.width}x${size.height}`);
          await screen.settle?.(app, size);
          await still(app);
          const at = `${screen.name} ${scheme} ${size.width}x${size.height}`;

          const violations = await seriousA11yViolations(app);
          expect(violations, `${at}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
          expect(await cellProblems(app), at).toEqual([]);
          if (screen.svgIconsOnly) expect(await symbolGlyphs(app), at).toEqual([]);
          expect(await codeWords(app), at).toEqual([]);
          expect(await clippedText(app), at).toEqual([]);
          expect(await rawValues(app), at).toEqual([]);

          await app.screenshot({
            path: path.join(screenshots, `${screen.name}-${scheme}-${size.width}x${size.height}.png`),
          });
        }
        expect(await app.evaluate(() => (window as unknown as { __csp: string[] }).__csp)).toEqual([]);

        // Back to the wide window: the queue switches to master–detail and is built anew, so the
        // walk starts once the screen is in its state at this size (else it marks elements that
        // are about to be replaced).
        await app.setViewportSize(SIZES[0]);
        await expect
          .poll(() => app.evaluate(() => `${window.innerWidth}x${window.innerHeight}`))
          .toBe(`${SIZES[0].width}x${SIZES[0].height}`);
        await screen.settle?.(app, SIZES[0]);
        await still(app);
        const { stops, missed } = await tabThrough(app, screen.controls(app));
        expect(missed, `not reached by Tab: ${JSON.stringify(stops.map((s) => s.text))}`).toEqual([]);
        const unmarked = stops.filter((s) => !s.focusVisible);
        expect(unmarked, 'focused without a visible indicator').toEqual([]);
        // The shell never scrolls as a whole: the screen scrolls inside its pane, the header stays.
        expect(await app.evaluate(() => document.scrollingElement?.scrollTop ?? 0)).toBe(0);
        await expect(app.locator('.app__header')).toBeInViewport();
      });
    }
  });
}

/**
 * The first page of a case file as auditors read it, rendered to PNG (pdf.js in Chromium, from
 * the PDF main writes), beside the screens' screenshots. Its text is words: no raw enum, ISO
 * time or "(no text)".
 */
test('case file: the first page rendered to PNG reads in words', async ({ app, harness }) => {
  await harness.services.rfis.ready();
  const le = entityA(harness);
  const target = path.join(harness.dataDir, '..', `case-file-${Date.now()}.pdf`);
  harness.platform.nextSaveAnswers.push(target);
  const saved = await harness.services.handlers['caseFiles.export']({
    rfis: [{ profileId: harness.services.session.profile.id, rfiId: le.rfi_ids[0]! }],
    zip: false,
  });
  expect(saved.path ?? target).toBe(target);
  const pdf = await readFile(target);
  const build = path.resolve(repoRoot, 'node_modules/pdfjs-dist/legacy/build');
  // A page of its own origin serves pdf.js and the PDF; the canvas it draws is the screenshot.
  const page = await app.context().newPage();
  await page.route('http://case-file.local/**', async (route) => {
    const name = new URL(route.request().url()).pathname.slice(1);
    if (name === 'case-file.pdf') return route.fulfill({ body: pdf, contentType: 'application/pdf' });
    if (name === 'index.html')
      return route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><html lang="en"><title>Case file, page 1</title><body style="margin:0;background:#888">
<canvas id="page" role="img" aria-label="Case file, page 1"></canvas>
<script type="module">
import * as pdfjs from '/pdf.mjs';
pdfjs.GlobalWorkerOptions.workerSrc = '/pdf.worker.mjs';
const doc = await pdfjs.getDocument('/case-file.pdf').promise;
const p = await doc.getPage(1);
const viewport = p.getViewport({ scale: 1.5 });
const canvas = document.getElementById('page');
canvas.width = viewport.width; canvas.height = viewport.height;
await p.render({ canvasContext: canvas.getContext('2d'), viewport }).promise;
const text = (await p.getTextContent()).items.map((i) => i.str).join(' ');
document.body.dataset.text = text;
document.body.dataset.done = 'true';
</script></body></html>`,
      });
    if (/^pdf(\.worker)?\.mjs$/.test(name))
      return route.fulfill({ body: await readFile(path.join(build, name)), contentType: 'text/javascript' });
    return route.fulfill({ status: 404, body: '' });
  });
  await page.goto('http://case-file.local/index.html');
  await expect(page.locator('body[data-done="true"]')).toBeAttached({ timeout: 20_000 });
  const text = (await page.locator('body').getAttribute('data-text')) ?? '';
  expect(text.length).toBeGreaterThan(50);
  expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
  expect(text).not.toContain('(no text)');
  expect(text).not.toMatch(/\b[a-z]+_[a-z_]+\b/);
  await page.locator('#page').screenshot({ path: path.join(screenshots, 'case-file-page1.png') });
  await page.close();
});
