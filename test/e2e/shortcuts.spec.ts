import { test, expect } from './fixtures';
import { seriousA11yViolations } from './axe';
import { shortcuts } from '../../src/shared/shortcuts';

test('F1 and ? open the keyboard shortcuts, listed from the shared list, and Esc closes them', async ({
  app,
}) => {
  await expect(app.getByTestId('connection-state')).toHaveText('Connected');
  await app.keyboard.press('F1');
  const help = app.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(help).toBeVisible();
  await expect(help).toBeFocused();
  for (const s of shortcuts)
    await expect(help.getByRole('rowheader', { name: s.label, exact: true })).toBeVisible();
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
