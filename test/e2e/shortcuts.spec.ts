import { test, expect } from './fixtures';
import { seriousA11yViolations } from './axe';
import { helpGroups, shortcuts } from '../../src/shared/shortcuts';

test('F1 and ? open the keyboard shortcuts, listed from the shared list, and Esc closes them', async ({
  app,
}) => {
  await expect(app.getByTestId('connection-state')).toHaveText('Connected');
  await app.keyboard.press('F1');
  const help = app.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(help).toBeVisible();
  await expect(help).toBeFocused();
  // The app's own keys, from the shared list; the system's Cut/Copy/Paste stay in the Edit menu.
  for (const s of shortcuts.filter((x) => helpGroups.includes(x.group)))
    await expect(help.getByRole('rowheader', { name: s.label, exact: true })).toBeVisible();
  await expect(help.getByRole('rowheader', { name: 'Cut', exact: true })).toHaveCount(0);
  // Keys line up: every group's key column starts at the same x.
  const keyColumns = await help
    .locator('table')
    .evaluateAll((tables) =>
      tables.map((t) => Math.round(t.querySelector('td')!.getBoundingClientRect().left)),
    );
  expect(new Set(keyColumns).size).toBe(1);
  expect(await seriousA11yViolations(app)).toEqual([]);
  await app.keyboard.press('Escape');
  await expect(help).toBeHidden();

  await app.keyboard.press('?');
  await expect(help).toBeVisible();
  await help.getByRole('button', { name: 'Close' }).click();
  await expect(help).toBeHidden();
});

test('typing ? in a text field types it and does not open the help', async ({ app }) => {
  await app.getByRole('link', { name: 'Returns' }).click();
  const field = app.getByLabel('Transaction id of the incoming transfer');
  await field.fill('');
  await field.press('?');
  await expect(field).toHaveValue('?');
  await expect(app.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeHidden();
});

test('G then a letter goes to a screen; A in an RFI goes to the first question awaiting an answer', async ({
  app,
  harness,
}) => {
  await expect(app.getByTestId('connection-state')).toHaveText('Connected');
  await app.setViewportSize({ width: 1024, height: 700 });
  await app.locator('body').press('g');
  await app.locator('body').press('r');
  await expect(app).toHaveURL(/#\/rfis$/);
  // Arriving at the queue, the list has the keyboard: j moves at once.
  const grid = app.getByRole('grid', { name: 'RFIs' });
  await expect(grid).toBeFocused();
  const rows = app.getByTestId('rfi-row');
  await app.keyboard.press('j');
  await expect(rows.nth(1)).toHaveAttribute('aria-selected', 'true');
  await app.locator('body').click({ position: { x: 5, y: 300 } });
  await app.keyboard.press('g');
  await app.keyboard.press('l');
  await expect(app).toHaveURL(/#\/locker$/);
  await app.keyboard.press('g');
  await app.keyboard.press('o');
  await expect(app).toHaveURL(/#\/(overview)?$/);

  const rfiId = harness.services.sandbox!.fixtures.legal_entities[0]!.rfi_ids[0]!; // purpose (text) first
  await app.goto(`${harness.url}#/rfis/${rfiId}`);
  const composer = app.getByTestId('answer-composer').first();
  await expect(composer.getByLabel('Your answer')).toBeVisible();
  await app.locator('body').press('a');
  await expect(composer.getByLabel('Your answer')).toBeFocused();
});
