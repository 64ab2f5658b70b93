import { test, expect } from './fixtures';
import { staffOf } from '../support/sandbox-staff';

/**
 * Deadline reminders from the analyst's side, in Chromium through the harness against the
 * embedded sandbox (its clock advanced, the workstation's untouched): the overview's "Due soon"
 * names an RFI near its timeout and opens it by keyboard; the analyst snoozes its reminders from
 * the RFI (keyboard only) and sees it marked on the RFI, in the queue and in "Due soon", main
 * holding the snooze on the bank's clock; Settings change the thresholds, refuse a bad one, and
 * "Due soon" follows.
 */
test.use({
  harnessOptions: {
    services: {
      environment: { kind: 'embedded-sandbox', sandbox: { visibilityDelayMs: { min: 0, max: 0 } } },
      // Reminders follow Settings here (the harness turns them off otherwise).
      reminders: {},
      rfis: {
        poll: { intervalMs: 60_000, floorMs: 60_000, jitter: 0 },
        webhook: { autoConfigureSandbox: false },
      },
    },
  },
});

const DAY = 86_400;

test('due soon lists an RFI near its timeout; it is snoozed from its page; thresholds are set in Settings', async ({
  app,
  harness,
}) => {
  test.setTimeout(90_000);
  const services = harness.services;
  const staff = staffOf(services);
  const le = services.sandbox!.fixtures.legal_entities[0]!;
  const leB = services.sandbox!.fixtures.legal_entities[1]!;
  await services.rfis.ready();
  // Entity B as a second profile: "Due soon" covers every entity.
  harness.platform.nextConfirmAnswers.push(true);
  const view = await services.handlers['settings.addProfile']({
    name: 'Group entity B',
    baseUrl: services.sandbox!.url,
  });
  const profileB = view.profiles.find((p) => p.name === 'Group entity B')!.id;
  await services.handlers['vault.setToken']({ profileId: profileB, token: leB.tokens.admin });
  await expect.poll(() => services.entityWatch.watched().has(profileB), { timeout: 30_000 }).toBe(true);

  const rfi = await staff.createRfi({
    type: 'account',
    related_id: le.accounts[0]!.id,
    description: 'Quarterly volume check',
    questions: [{ question_type: 'transaction.purpose', question_text: 'What volume do you expect?' }],
  });
  await staff.advanceClock(3600);
  const rfiB = await staff.createRfi({
    type: 'account',
    related_id: leB.accounts[0]!.id,
    description: 'Entity B: source of funds',
    questions: [{ question_type: 'transaction.purpose', question_text: 'Where do the funds come from?' }],
  });
  // 23 days and an hour later on the bank's clock: under 7 days left for both.
  await staff.advanceClock(23 * DAY);
  // Both entities synced (each watcher on its own; a busy machine may need a second round).
  await expect
    .poll(
      async () => {
        await services.handlers['rfis.sync'](undefined);
        const ids = (await services.entityWatch.list({})).items.map((i) => i.id);
        return ids.includes(rfi.id) && ids.includes(rfiB.id);
      },
      { timeout: 30_000 },
    )
    .toBe(true);

  await app.goto(`${harness.url}#/overview`);
  const dueSoon = app.getByRole('region', { name: 'Due soon' });
  const list = dueSoon.getByRole('list', { name: 'RFIs due soon' });
  const row = list.getByRole('listitem', { name: 'Quarterly volume check' });
  await expect(row).toBeVisible();
  await expect(row).toContainText(le.name);
  await expect(row).toContainText(/At risk · in [67]d/);
  await expect(dueSoon).toContainText('within 7 days');
  // B's RFI too, named by its entity, after A's (its timeout is an hour later).
  const rowB = list.getByRole('listitem', { name: 'Entity B: source of funds' });
  await expect(rowB).toContainText(leB.name);
  const order = await list
    .getByTestId('due-soon-item')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-rfi-id')));
  expect(order.indexOf(rfi.id)).toBeLessThan(order.indexOf(rfiB.id));
  // Soonest first, as main's bank-time list says, and only RFIs awaiting action within 7 days.
  const main = await services.entityWatch.reminders().then((r) => r.dueSoon());
  expect(main.items.map((i) => i.rfiId)).toContain(rfi.id);
  const deadlines = main.items.map((i) => Date.parse(i.deadline));
  expect(deadlines).toEqual([...deadlines].sort((a, b) => a - b));
  await expect(list.getByRole('listitem')).toHaveCount(main.items.length);
  expect(
    await list
      .getByTestId('due-soon-item')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-rfi-id'))),
  ).toEqual(main.items.map((i) => i.rfiId));

  // Opened by keyboard.
  await row.getByRole('link', { name: 'Quarterly volume check' }).focus();
  await app.keyboard.press('Enter');
  await expect(app).toHaveURL(new RegExp(`#/rfis/${rfi.id}\\?profile=[\\w.-]+$`));
  const detail = app.getByTestId('rfi-detail');
  await expect(detail.getByRole('heading', { level: 1 })).toContainText('Quarterly volume check');

  // Snoozed for 3 days, keyboard only.
  const reminders = detail.getByRole('group', { name: 'Deadline reminders' });
  await reminders.getByRole('button', { name: 'Snooze reminders' }).focus();
  await app.keyboard.press('Enter');
  const menu = app.getByRole('menu', { name: 'Snooze reminders' });
  await expect(menu).toBeVisible();
  await expect(menu.getByRole('menuitem')).toHaveText([
    /^1 day/,
    /^3 days/,
    /^7 days/,
    /^Until the last reminder/,
  ]);
  await app.keyboard.press('ArrowDown');
  await app.keyboard.press('Enter');
  await expect(reminders).toContainText('Reminders snoozed: they resume in 3d');
  await expect(reminders.getByRole('button', { name: 'Cancel snooze' })).toBeVisible();
  // Main holds it, three days on the bank's clock (which is 23 days ahead of this computer's).
  const held = await services.entityWatch.reminders().then((r) => r.snoozes());
  expect(held.map((s) => s.rfiId)).toEqual([rfi.id]);
  expect(Math.abs(Date.parse(held[0]!.until) - services.clock.now() - 3 * DAY * 1000)).toBeLessThan(120_000);
  const title = await reminders.locator('time').getAttribute('title');
  expect(title).toContain('(bank time)');

  // Marked in the queue and in "Due soon".
  await app.goto(`${harness.url}#/rfis`);
  const queueRow = app.getByTestId('rfi-row').filter({ hasText: 'Quarterly volume check' });
  await expect(queueRow.getByTestId('rfi-snoozed-mark')).toContainText('in 3d');
  await app.goto(`${harness.url}#/overview`);
  await expect(row.getByTestId('due-soon-snoozed')).toContainText('Reminders snoozed: they resume in 3d');

  // Settings: reminders at 3 days, 48 h and 24 h (7 days removed); 30 days is refused.
  await app.goto(`${harness.url}#/settings`);
  const panel = app.getByRole('region', { name: 'Deadline reminders' });
  const thresholds = panel.getByRole('list', { name: 'Reminder thresholds' });
  await expect(thresholds.getByRole('listitem')).toHaveText([
    '7 days before the timeout',
    '48 hours before the timeout',
    '24 hours before the timeout',
  ]);
  const form = panel.getByRole('form', { name: 'Add a reminder' });
  await form.getByRole('button', { name: /Unit$/ }).click();
  await app.getByRole('option', { name: 'days', exact: true }).click();
  await form.getByLabel('Remind me').fill('30');
  await form.getByRole('button', { name: 'Add reminder' }).click();
  await expect(form).toContainText('must be at most 696 hours (29 days)');
  expect(services.settings.get().reminders.hours).toEqual([168, 48, 24]);
  await form.getByLabel('Remind me').fill('3');
  await form.getByRole('button', { name: 'Add reminder' }).click();
  await expect(thresholds.getByRole('listitem')).toHaveCount(4);
  await panel.getByRole('button', { name: 'Remove the reminder 7 days before the timeout' }).click();
  await expect(thresholds.getByRole('listitem')).toHaveText([
    '3 days before the timeout',
    '48 hours before the timeout',
    '24 hours before the timeout',
  ]);
  expect(services.settings.get().reminders).toEqual({ enabled: true, hours: [72, 48, 24] });

  // "Due soon" now looks 3 days ahead: the RFI (6 days left) is not in it.
  await app.goto(`${harness.url}#/overview`);
  await expect(dueSoon).toContainText(/within 3 days|in the next 3 days/);
  await expect(dueSoon.getByRole('listitem', { name: 'Quarterly volume check' })).toHaveCount(0);

  // Cancelled from the RFI: the mark goes, and main holds nothing.
  await app.goto(`${harness.url}#/rfis/${rfi.id}`);
  await reminders.getByRole('button', { name: 'Cancel snooze' }).click();
  await expect(reminders).toContainText('Reminders not snoozed');
  expect(await services.entityWatch.reminders().then((r) => r.snoozes())).toEqual([]);
});
