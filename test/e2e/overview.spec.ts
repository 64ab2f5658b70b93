import type { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import type { Harness } from '../harness/harness';
import type { Rfi } from '../../src/shared/api/rfis';
import { rfiDeadline } from '../../src/shared/rfi-rules';
import { deadlineBand } from '../../src/shared/rfi-view';
import { staffOf } from '../support/sandbox-staff';

/**
 * The overview (home screen, issue 8) in Chromium through the harness, against the embedded
 * sandbox: its numbers are checked against what the sandbox holds (read through the services'
 * bank client, bands derived with the shared rules in server time), and every kind of number and
 * item is followed through to the screen behind it.
 */

interface Expected {
  byStatus: Record<string, number>;
  byType: Record<string, number>;
  awaiting: Record<'on_track' | 'at_risk' | 'breached', number>;
}

async function sandboxRfis(harness: Harness): Promise<Rfi[]> {
  const all: Rfi[] = [];
  for await (const rfi of harness.services.bank.iterateRfis({})) all.push(rfi);
  return all;
}

async function expected(harness: Harness): Promise<Expected> {
  const rfis = await sandboxRfis(harness);
  const now = harness.services.clock.now();
  const e: Expected = { byStatus: {}, byType: {}, awaiting: { on_track: 0, at_risk: 0, breached: 0 } };
  for (const r of rfis) {
    e.byStatus[r.status] = (e.byStatus[r.status] ?? 0) + 1;
    e.byType[r.type] = (e.byType[r.type] ?? 0) + 1;
    const band = deadlineBand(rfiDeadline(r), now);
    if (r.status === 'action_required' && band !== 'none') e.awaiting[band]++;
  }
  return e;
}

async function expectCounts(app: Page, e: Expected): Promise<void> {
  for (const [band, n] of Object.entries(e.awaiting)) {
    await expect(app.getByTestId(`overview-band-${band}-count`)).toHaveText(String(n));
  }
  for (const [status, n] of Object.entries(e.byStatus)) {
    await expect(app.getByTestId(`overview-status-${status}`)).toContainText(String(n));
  }
  for (const [type, n] of Object.entries(e.byType)) {
    await expect(app.getByTestId(`overview-type-${type}`)).toContainText(String(n));
  }
  await expect(app.getByTestId('overview-by-status').getByRole('link')).toHaveCount(
    Object.keys(e.byStatus).length,
  );
}

test.use({
  harnessOptions: {
    services: {
      environment: {
        kind: 'embedded-sandbox',
        // A quote stays open for the whole test.
        sandbox: { visibilityDelayMs: { min: 0, max: 0 }, quoteTtlSeconds: 600 },
      },
    },
  },
});

test.describe('overview', () => {
  test("charts: SVG bars for the bands, weeks and volume, legends in their bars' colours; a bar opens the filtered queue", async ({
    app,
    harness,
  }) => {
    await harness.services.rfis.ready();
    const e = await expected(harness);
    const band = (['at_risk', 'on_track', 'breached'] as const).find((b) => e.awaiting[b] > 0)!;
    const bands = app.getByRole('figure', { name: 'RFIs by deadline band' });
    await expect(bands.locator('svg .chart__bar').first()).toBeVisible();
    const weeks = app.getByRole('figure', { name: /RFIs opened and answered per week/ });
    await expect(weeks.locator('svg .chart__bar').first()).toBeVisible();
    await expect(
      app
        .getByRole('figure', { name: /Returns and exchange volume/ })
        .locator('svg')
        .first(),
    ).toBeVisible();
    // Every legend entry has the colour of its own bars (the "Opened" bars were once drawn in the
    // colour the legend gave to "Answered or closed").
    for (const figure of [bands, weeks]) {
      const pairs = await figure.evaluate((el) =>
        [...el.querySelectorAll<HTMLElement>('.chart__legend li')].map((li) => {
          const name = li.dataset.series!;
          const swatch = getComputedStyle(li.querySelector('.chart__swatch')!).backgroundColor;
          const bars = [...el.querySelectorAll<SVGElement>('.chart__bar')]
            .filter((b) => b.dataset.series === name)
            .map((b) => getComputedStyle(b).fill);
          return { name, swatch, bars };
        }),
      );
      expect(pairs.length).toBe(2);
      expect(pairs[0]!.swatch).not.toBe(pairs[1]!.swatch);
      for (const p of pairs) for (const fill of p.bars) expect(fill, p.name).toBe(p.swatch);
      expect(pairs.some((p) => p.bars.length > 0)).toBe(true);
    }
    await expect(bands.getByTestId(`overview-band-${band}`)).toContainText(
      `${e.awaiting[band]} awaiting action`,
    );

    // A mark in the SVG: the first awaiting-action segment (bands top to bottom, empty ones not
    // drawn) opens the queue filtered to its band and to awaiting action.
    const first = (['breached', 'at_risk', 'on_track'] as const).find((b) => e.awaiting[b] > 0)!;
    await bands.locator('.chart__bar[data-series="Awaiting action"]').first().click();
    await expect(app).toHaveURL(new RegExp(`#/rfis\\?band=${first}&status=action_required$`));
    await expect(app.getByTestId('rfi-row')).toHaveCount(e.awaiting[first]);
    await app.getByRole('link', { name: 'Overview' }).click();
    await bands.locator('.chart__bar[data-series="Awaiting action"]').first().waitFor();
    const rows = app.getByTestId('rfi-row');

    // The same targets by keyboard, from the links under the chart.
    await bands.getByTestId(`overview-band-${band}`).focus();
    await app.keyboard.press('Enter');
    await expect(app).toHaveURL(new RegExp(`#/rfis\\?band=${band}&status=action_required$`));
    await expect(rows).toHaveCount(e.awaiting[band]);
  });

  test('a week of the weekly chart opens the queue filtered to the RFIs opened that week', async ({
    app,
    harness,
  }) => {
    await harness.services.rfis.ready();
    const rfis = await sandboxRfis(harness);
    const weeks = app.getByRole('list', { name: 'Open the RFIs opened in a week' });
    const link = weeks.getByRole('link').first();
    await expect(link).toBeVisible();
    const week = ((await link.getAttribute('data-testid')) ?? '').replace('chart-week-', '');
    // The week is the local Monday the chart uses; the test runs in the app's time zone.
    const [y, m, d] = week.split('-').map(Number);
    const start = new Date(y!, m! - 1, d!);
    const end = new Date(start);
    end.setDate(start.getDate() + 7);
    const opened = rfis.filter((r) => {
      const t = Date.parse(r.created_at);
      return t >= start.getTime() && t < end.getTime();
    }).length;
    expect(opened).toBeGreaterThan(0);
    await expect(link).toContainText(`${opened} opened`);

    await link.focus();
    await app.keyboard.press('Enter');
    await expect(app).toHaveURL(new RegExp(`#/rfis\\?week=${week}$`));
    const chip = app.getByTestId('rfi-filter-week');
    await expect(chip).toHaveAttribute('data-value', week);
    await expect(chip).toContainText('Opened in week of');
    const rows = app.getByTestId('rfi-row');
    await expect(rows).toHaveCount(opened);

    // The chip clears by keyboard: every RFI is back and the link's week leaves the URL.
    await chip.getByRole('button', { name: /^Clear the filter: opened in week of/ }).focus();
    await app.keyboard.press('Enter');
    await expect(chip).toHaveCount(0);
    await expect(app).toHaveURL(/#\/rfis$/);
    await expect(rows).toHaveCount(rfis.length);
  });

  test('is the home screen; its counts are the sandbox’s and follow a new RFI live', async ({
    app,
    harness,
  }) => {
    await expect(app.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
    await expect(app.getByRole('link', { name: 'Overview' })).toHaveAttribute('aria-current', 'page');
    await harness.services.rfis.ready();
    const before = await expected(harness);
    expect(Object.values(before.awaiting).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    await expectCounts(app, before);

    // A new RFI at the bank: once synced, the overview follows (rfis.changed), no reload.
    const le = harness.services.sandbox!.fixtures.legal_entities[0]!;
    await staffOf(harness.services).createRfi({
      type: 'account',
      related_id: le.accounts[0]!.id,
      description: 'Overview live refresh',
      questions: [{ question_type: 'transaction.purpose', question_text: 'What is the account used for?' }],
    });
    await harness.services.rfis.sync('sync');
    const after = await expected(harness);
    expect(after.awaiting.on_track).toBe(before.awaiting.on_track + 1);
    await expectCounts(app, after);
  });

  test('a deadline band, a status and a type open the queue filtered to them', async ({ app, harness }) => {
    await harness.services.rfis.ready();
    const e = await expected(harness);
    const band = (['at_risk', 'on_track', 'breached'] as const).find((b) => e.awaiting[b] > 0)!;
    await expect(app.getByTestId(`overview-band-${band}-count`)).toHaveText(String(e.awaiting[band]));

    // By keyboard: the band is a link, Enter follows it.
    await app.getByTestId(`overview-band-${band}`).focus();
    await app.keyboard.press('Enter');
    await expect(app).toHaveURL(new RegExp(`#/rfis\\?band=${band}&status=action_required$`));
    await expect(app.getByTestId('rfi-filter-band')).toHaveAttribute('data-value', band);
    await expect(app.getByTestId('rfi-filter-status')).toHaveAttribute('data-value', 'action_required');
    const rows = app.getByTestId('rfi-row');
    await expect(rows).toHaveCount(e.awaiting[band]);
    for (const row of await rows.all()) {
      await expect(row.locator('[data-band]')).toHaveAttribute('data-band', band);
      await expect(row.locator('[data-status]')).toHaveAttribute('data-status', 'action_required');
    }

    await app.getByRole('link', { name: 'Overview' }).click();
    const [type, typeCount] = Object.entries(e.byType)[0]!;
    await app.getByTestId(`overview-type-${type}`).click();
    await expect(app.getByTestId('rfi-filter-type')).toHaveAttribute('data-value', type);
    await expect(app.getByTestId('rfi-filter-band')).toHaveAttribute('data-value', '');
    await expect(rows).toHaveCount(typeCount);

    await app.getByRole('link', { name: 'Overview' }).click();
    const [status, statusCount] = Object.entries(e.byStatus).sort((a, b) => b[1] - a[1])[0]!;
    await app.getByTestId(`overview-status-${status}`).click();
    await expect(app.getByTestId('rfi-filter-status')).toHaveAttribute('data-value', status);
    await expect(app.getByTestId('rfi-filter-type')).toHaveAttribute('data-value', '');
    await expect(rows).toHaveCount(statusCount);
  });

  test('an open quote (with its countdown) and a return in flight are listed and open their screens', async ({
    app,
    harness,
  }) => {
    await expect(app.getByTestId('overview-quotes-empty')).toBeVisible();
    await expect(app.getByTestId('overview-returns-empty')).toBeVisible();

    // A quote and a return intent made through the app's own channels.
    const ctx = await harness.services.crypto.context();
    const account = (asset: string) => ctx.accounts.find((a) => a.asset === asset)!.accountId;
    const quote = await harness.services.crypto.quote({
      profileId: ctx.environmentId,
      side: 'buy',
      symbol: 'USDT-USD',
      requestedAsset: 'ETHEREUM-USDT',
      requestedAmount: '25000000',
      paysAccountId: account('USD'),
      receivesAccountId: account('ETHEREUM-USDT'),
    });
    const le = harness.services.sandbox!.fixtures.legal_entities[0]!;
    const transfer = le.incoming_transfers.find((t) => (t.status ?? 'completed') === 'completed')!;
    const looked = await harness.services.handlers['returns.lookup']({
      profileId: harness.services.session.profile.id,
      transactionId: transfer.transaction_id,
    });
    await harness.services.handlers['returns.createIntent']({
      profileId: harness.services.session.profile.id,
      operationId: 'overview-e2e-return-1',
      transactionId: transfer.transaction_id,
      amount: transfer.amount,
      reasonCode: 'AC04',
    });

    const quoteRow = app.locator(`[data-testid="overview-quote"][data-order-id="${quote.id}"]`);
    // Names first: what is bought, in the asset's label, not the symbol and the asset id.
    await expect(quoteRow.getByRole('link')).toHaveText('Buy 25.00 USDT for USD');
    await expect(quoteRow.getByRole('timer')).toHaveAttribute('aria-label', /^Quote valid for: /);

    // Returns are not pushed on create: the list is read when the overview opens.
    await app.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Returns' }).click();
    await app.getByRole('link', { name: 'Overview' }).click();
    const returnRow = app.locator(
      `[data-testid="overview-return"][data-transaction="${transfer.transaction_id}"]`,
    );
    await expect(returnRow.locator('[data-status]')).toHaveAttribute('data-status', 'intent_created');
    await expect(returnRow.locator('.money')).toHaveAttribute('data-minor', transfer.amount);
    await expect(returnRow.locator('.money')).toContainText(looked.incoming!.currency);
    // The debtor's name and the amount name the return; the transaction id comes second.
    await expect(returnRow.getByRole('link')).toContainText(`Return to ${looked.incoming!.debtorName} — `);
    await expect(returnRow.locator('code')).toHaveText(transfer.transaction_id);

    await quoteRow.getByRole('link').click();
    await expect(app).toHaveURL(new RegExp(`#/exchange/${quote.id}$`));
    await expect(app.getByTestId('crypto-status')).toHaveAttribute('data-status', 'in_progress');

    await app.getByRole('link', { name: 'Overview' }).click();
    await returnRow.getByRole('link').click();
    await expect(app).toHaveURL(new RegExp(`#/returns/${transfer.transaction_id}$`));
    await expect(app.getByTestId('transfer-id')).toHaveText(transfer.transaction_id);
  });
});
