import { test, expect } from './fixtures';
import { seriousA11yViolations } from './axe';
import { staffOf } from '../support/sandbox-staff';

/**
 * treasury-desk:// links in Chromium through the harness: the link is handed to the app in Node
 * the way the shell does (parsed strictly in main, pushed as desktop.openLink), and the page shows
 * that RFI; a hostile link moves nothing. Settings → Desktop shows the background choices.
 */
test('a valid link opens the RFI screen; a hostile one changes nothing', async ({ app, harness }) => {
  const le = harness.services.sandbox!.fixtures.legal_entities[0]!;
  const made = (await staffOf(harness.services).createRfi({
    type: 'account',
    related_id: le.accounts[0]!.id,
    description: 'Opened from a link in an email',
    questions: [{ question_type: 'transaction.purpose', question_text: 'What is the purpose?' }],
  })) as { id: string };
  await harness.services.rfis.sync('sync');
  await expect(app.getByRole('navigation', { name: 'Main' })).toBeVisible();

  expect(harness.openLink(`treasury-desk://rfis/${made.id}`)).toBe(true);
  await expect(app).toHaveURL(new RegExp(`#/rfis/${made.id}\\?profile=[\\w.-]+$`));
  await expect(app.getByText('Opened from a link in an email').first()).toBeVisible();
  await expect(app.getByText('What is the purpose?').first()).toBeVisible();

  for (const hostile of [
    'treasury-desk://rfis/../settings',
    'treasury-desk://rfis/%2e%2e',
    'treasury-desk://settings/profiles',
    'https://evil.example/rfis/x',
    `treasury-desk://user:pw@rfis/${made.id}`,
  ]) {
    expect(harness.openLink(hostile), hostile).toBe(false);
  }
  await app.waitForTimeout(200);
  await expect(app).toHaveURL(new RegExp(`#/rfis/${made.id}\\?profile=[\\w.-]+$`));
  expect(harness.logs.filter((l) => l.message === 'links: ignored')).toHaveLength(5);
});

test('Settings → Desktop: keep running in the background and start at login', async ({ app, harness }) => {
  await app.getByRole('link', { name: 'Settings' }).click();
  const background = app.getByRole('checkbox', { name: /Keep running in the background/ });
  const login = app.getByRole('checkbox', { name: /Start at login/ });
  await expect(background).toBeChecked();
  await expect(login).not.toBeChecked();
  // The design system's checkbox: the analyst clicks its words (the input itself is drawn by CSS).
  await app.getByText('Start at login, without opening the window').click();
  await expect(login).toBeChecked();
  await expect.poll(() => harness.platform.startAtLogin).toBe(true);
  expect(harness.services.desktop.get()).toEqual({ keepRunningInBackground: true, startAtLogin: true });
  await app.getByText(/^Keep running in the background/).click();
  await expect(background).not.toBeChecked();
  await expect.poll(() => harness.services.desktop.get().keepRunningInBackground).toBe(false);
  expect(await seriousA11yViolations(app)).toEqual([]);
});
