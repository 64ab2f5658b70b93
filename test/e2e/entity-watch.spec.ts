import { test, expect } from './fixtures';
import type { Harness } from '../harness/harness';
import { staffOf } from '../support/sandbox-staff';

/**
 * The consolidated desk in Chromium through the harness: the embedded sandbox's two legal
 * entities as two profiles (the sandbox profile holds A's credential, a second profile B's).
 * Both entities' RFIs in one queue, labelled and filterable by entity; a new RFI for either
 * raises one notification naming it; A signs out and B keeps working; an answer to B's RFI
 * lands at the bank under B's credential.
 */
test.use({
  harnessOptions: {
    services: {
      environment: { kind: 'embedded-sandbox', sandbox: { visibilityDelayMs: { min: 0, max: 0 } } },
      rfis: { poll: { intervalMs: 300, floorMs: 200, jitter: 0 }, webhook: { autoConfigureSandbox: false } },
    },
  },
});

async function addEntityB(harness: Harness): Promise<string> {
  const sandbox = harness.services.sandbox!;
  const h = harness.services.handlers;
  // The analyst approves the address in main's own dialog.
  harness.platform.nextConfirmAnswers.push(true);
  const view = await h['settings.addProfile']({ name: 'Group entity B', baseUrl: sandbox.url });
  const id = view.profiles.find((p) => p.name === 'Group entity B')!.id;
  await h['vault.setToken']({ profileId: id, token: sandbox.fixtures.legal_entities[1]!.tokens.admin });
  return id;
}

async function bankRfi(harness: Harness, token: string, id: string) {
  const res = await fetch(`${harness.services.sandbox!.url}/v1/rfis/${id}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

test('two legal entities in one queue; notifications, sign-out and answers stay with their entity', async ({
  app,
  harness,
}) => {
  test.setTimeout(120_000);
  const sandbox = harness.services.sandbox!;
  const [leA, leB] = sandbox.fixtures.legal_entities;
  const staff = staffOf(harness.services);
  await harness.services.rfis.ready();
  const profileB = await addEntityB(harness);
  await expect
    .poll(() => harness.services.entityWatch.watched().has(profileB), { timeout: 10_000 })
    .toBe(true);

  await app.goto(`${harness.url}#/rfis`);
  // The Entity filter lists every entity watched, each with how its watch goes: which profile
  // watches it and how its changes arrive. Nothing needs attention, so no line above the filters.
  const entitySelect = app.getByRole('button', { name: /Entity/ });
  await expect(app.getByTestId('rfi-filter-entity')).toHaveAttribute('data-count', '2', { timeout: 10_000 });
  await entitySelect.click();
  await expect(app.getByRole('option', { name: leA!.name })).toBeVisible();
  await expect(app.getByRole('option', { name: leB!.name })).toContainText(
    'watched by profile Group entity B',
  );
  await app.keyboard.press('Escape');
  await expect(app.getByTestId('rfi-entities')).toHaveCount(0);
  const rows = app.getByTestId('rfi-row');
  await expect(rows.filter({ hasText: leA!.name }).first()).toBeVisible();
  await expect(rows.filter({ hasText: leB!.name }).first()).toBeVisible();
  const all = (await harness.services.entityWatch.list({})).total;
  expect(all).toBe(leA!.rfi_ids.length + leB!.rfi_ids.length);

  // Filter by entity: only B's rows.
  await entitySelect.click();
  await app.getByRole('option', { name: leB!.name }).click();
  await expect(app.getByTestId('rfi-visible-count')).toContainText(`${leB!.rfi_ids.length} of ${all} RFIs`);
  await entitySelect.click();
  await app.getByRole('option', { name: 'All entities' }).click();

  // A new RFI for either entity: exactly one notification each, naming it.
  const forB = await staff.createRfi({
    type: 'account',
    related_id: leB!.accounts[0]!.id,
    description: 'Entity B: expected monthly volume',
    questions: [{ question_type: 'transaction.purpose', question_text: 'What volume do you expect?' }],
  });
  await expect.poll(() => harness.platform.notifications.length, { timeout: 10_000 }).toBe(1);
  expect(harness.platform.notifications[0]!.title).toContain(leB!.name);
  expect(harness.platform.notifications[0]!.body).toContain('Entity B: expected monthly volume');
  expect(forB.id).toBeTruthy();
  const forA = await staff.createRfi({
    type: 'account',
    related_id: leA!.accounts[0]!.id,
    description: 'Entity A: unusual payments',
    questions: [{ question_type: 'transaction.purpose', question_text: 'What is the purpose?' }],
  });
  await expect.poll(() => harness.platform.notifications.length, { timeout: 10_000 }).toBe(2);
  const polls = harness.services.rfis.poller.polls;
  await expect.poll(() => harness.services.rfis.poller.polls, { timeout: 10_000 }).toBeGreaterThan(polls + 2);
  expect(harness.platform.notifications).toHaveLength(2);
  expect(harness.platform.notifications[1]!.title).toContain(leA!.name);
  expect(harness.platform.notifications[1]!.body).toContain('Entity A: unusual payments');
  expect(forA.id).toBeTruthy();
  await expect(rows.filter({ hasText: 'Entity B: expected monthly volume' })).toContainText(leB!.name);

  // A signs out: A shows as signed out, B keeps working.
  await app.goto(`${harness.url}#/settings`);
  await app
    .getByTestId('token-state-sandbox')
    .locator('..')
    .getByRole('button', { name: 'Sign out' })
    .click();
  await expect(app.getByTestId('token-state-sandbox')).toContainText('Signed out');
  const afterSignOut = await staff.createRfi({
    type: 'account',
    related_id: leB!.accounts[0]!.id,
    description: 'Entity B: after A signed out',
    questions: [{ question_type: 'transaction.purpose', question_text: 'Who are your main customers?' }],
  });
  await app.goto(`${harness.url}#/rfis`);
  // The entity needing attention shows above the filters, alone; B, still connected, says so in
  // the Entity filter's list.
  const attention = app.getByRole('list', { name: 'Legal entities needing attention' });
  await expect(attention.getByRole('listitem')).toHaveCount(1);
  await expect(attention.getByRole('listitem').filter({ hasText: leA!.name })).toContainText('signed out');
  await app.getByRole('button', { name: /Entity/ }).click();
  await expect(app.getByRole('option', { name: leB!.name })).toContainText('connected');
  await app.keyboard.press('Escape');
  const row = rows.filter({ hasText: 'Entity B: after A signed out' });
  await expect(row).toContainText(leB!.name, { timeout: 10_000 });

  // The answer to B's RFI goes out as B.
  await app.getByRole('searchbox', { name: 'Search' }).fill('after A signed out');
  await expect(app.getByTestId('rfi-visible-count')).toContainText('1 of');
  await row.click();
  await expect(app).toHaveURL(new RegExp(`#/rfis/${afterSignOut.id}\\?profile=[\\w.-]+$`));
  await expect(app.getByTestId('rfi-entity')).toHaveText(leB!.name);
  // Nothing to switch: the answer goes out through B's own profile.
  await expect(app.getByTestId('rfi-acting')).toHaveText(
    `Answers go out as ${leB!.name}, with its own credential.`,
  );
  const q = app.getByTestId(`question-${afterSignOut.questions[0]!.id}`);
  await q.getByLabel('Your answer').fill('Wholesale buyers in the EU.');
  // A's sync failures while it was signed out left toasts; the analyst closes them.
  const dismiss = app.getByTestId('toasts').getByRole('button', { name: /^Dismiss/ });
  while ((await dismiss.count()) > 0) await dismiss.first().click();
  await q.getByTestId('answer-submit').click();
  await expect(q.getByTestId('answer-status')).toHaveAttribute('data-state', 'sent', { timeout: 15_000 });

  // At the bank: B's RFI carries our answer, under B's legal entity; A's credential cannot see it.
  const atBank = await bankRfi(harness, leB!.tokens.admin, afterSignOut.id);
  expect(atBank.status).toBe(200);
  expect(atBank.body.legal_entity_id).toBe(leB!.id);
  expect(JSON.stringify(atBank.body)).toContain('Wholesale buyers in the EU.');
  expect((await bankRfi(harness, leA!.tokens.admin, afterSignOut.id)).status).toBe(404);
});

test('an entity held by two profiles is listed once, and the entity list says which profile watches it', async ({
  app,
  harness,
}, testInfo) => {
  test.setTimeout(90_000);
  const sandbox = harness.services.sandbox!;
  const [leA, leB] = sandbox.fixtures.legal_entities;
  await harness.services.rfis.ready();
  await addEntityB(harness);
  // A second credential of entity A (its viewer) in a profile of its own.
  harness.platform.nextConfirmAnswers.push(true);
  const view = await harness.services.handlers['settings.addProfile']({
    name: 'Alder viewer',
    baseUrl: sandbox.url,
  });
  const viewer = view.profiles.find((p) => p.name === 'Alder viewer')!.id;
  await harness.services.handlers['vault.setToken']({ profileId: viewer, token: leA!.tokens.viewer! });

  await app.goto(`${harness.url}#/rfis`);
  await expect(app.getByTestId('rfi-filter-entity')).toHaveAttribute('data-count', '2', { timeout: 10_000 });
  await app.getByRole('button', { name: /Entity/ }).click();
  await expect(app.getByRole('option')).toHaveCount(3);
  const a = app.getByRole('option', { name: leA!.name });
  await expect(a).toContainText('watched by profile Embedded sandbox');
  await expect(a).toContainText('also held by Alder viewer, not watched twice');
  await app.keyboard.press('Escape');
  const total = leA!.rfi_ids.length + leB!.rfi_ids.length;
  await expect(app.getByTestId('rfi-visible-count')).toContainText(`${total} of ${total} RFIs`);
  // The bank's side: the viewer sees exactly A's RFIs, so they are the same ones, listed once.
  const res = await fetch(`${sandbox.url}/v1/rfis?page_size=500`, {
    headers: { authorization: `Bearer ${leA!.tokens.viewer!}` },
  });
  const viewerIds = ((await res.json()) as { data: Array<{ id: string }> }).data.map((r) => r.id).sort();
  expect(viewerIds).toEqual([...leA!.rfi_ids].sort());
  expect(harness.services.entityWatch.watched().has(viewer)).toBe(false);
  await app.screenshot({ path: testInfo.outputPath('desk-entities.png') });
});
