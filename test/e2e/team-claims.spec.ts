import type { Browser, BrowserContext, Page } from '@playwright/test';
import pg from 'pg';
import { test, expect } from './fixtures';
import { startHarness } from '../harness/harness';
import type { Harness } from '../harness/harness';
import { startDevOidcProvider, type DevOidcProvider } from '../../src/team-server/dev/oidc';
import { startPostgresCluster, type PostgresCluster } from '../../src/team-server/dev/postgres-cluster';
import { startTeamServer, type RunningTeamServer } from '../../src/team-server/index';
import { seedTeam } from '../../src/team-server/bootstrap';
import { chooseOption } from './ui-controls';

/**
 * Two analysts' workstations (two harness instances, each with its own data folder and keychain
 * entries) against one sandbox bank and one team server on real PostgreSQL: each signs in through
 * the development provider's login page in Chromium (the URL main handed to the system browser),
 * then both claim the same RFI at once. Exactly one holds it, in PostgreSQL too; the other is
 * told who does.
 */

interface Workstation {
  harness: Harness;
  context: BrowserContext;
  page: Page;
  errors: string[];
}

let cluster: PostgresCluster;
let provider: DevOidcProvider;
let team: RunningTeamServer;
const stations: Workstation[] = [];

test.beforeAll(async () => {
  [cluster, provider] = await Promise.all([
    startPostgresCluster({ database: 'team_e2e' }),
    startDevOidcProvider(),
  ]);
  team = await startTeamServer({
    databaseUrl: cluster.url,
    auth: { issuer: provider.issuer, audience: provider.audience },
  });
});

test.afterAll(async () => {
  await team?.close();
  await provider?.close();
  await cluster?.stop();
});

test.afterEach(async () => {
  // The second workstation talks to the first one's embedded bank: it closes first.
  for (const s of stations.splice(0).reverse()) {
    // Leave the app first, so nothing is in flight in the page while its context closes.
    await s.page.goto('about:blank');
    await s.context.close();
    await s.harness.close();
    expect(s.errors).toEqual([]);
  }
});

async function openWorkstation(browser: Browser, harness: Harness): Promise<Workstation> {
  const context = await browser.newContext();
  await harness.attach(context);
  const page = await harness.open(context);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const s = { harness, context, page, errors };
  stations.push(s);
  return s;
}

/** Settings → Team: the address (approved in main's dialog), then sign-in in "the system browser". */
async function joinTeam(s: Workstation, analyst: string, password: string): Promise<void> {
  const { page, harness, context } = s;
  const browserTabs: Promise<void>[] = [];
  harness.platform.onOpenExternal = (url) =>
    browserTabs.push(
      (async () => {
        const tab = await context.newPage();
        await tab.goto(url);
        await tab.getByLabel('Analyst').selectOption(analyst);
        await tab.getByLabel('Password').fill(password);
        await tab.getByRole('button', { name: 'Sign in' }).click();
        await tab.getByRole('button', { name: 'Allow' }).click();
        await expect(tab.getByRole('heading', { name: 'Signed in to the team' })).toBeVisible();
        await tab.close();
      })(),
    );
  await page.goto(`${harness.url}#/settings`);
  harness.platform.nextConfirmAnswers.push(true);
  await page.getByLabel('Team server address').fill(team.url);
  await page.getByRole('button', { name: 'Save address' }).click();
  await expect(page.getByText('Not signed in to the team.')).toBeVisible();
  expect(harness.platform.confirmations.at(-1)).toMatchObject({ kind: 'team-origin', destination: team.url });
  await page.getByRole('button', { name: 'Sign in to the team' }).click();
  await expect.poll(() => browserTabs.length).toBe(1);
  await Promise.all(browserTabs);
  await expect(page.getByTestId('team-status')).toHaveText('Team: connected.');
}

test('two analysts claim the same RFI at once: exactly one holds it, the other sees who', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const first = await startHarness({
    services: {
      environment: { kind: 'embedded-sandbox', sandbox: { visibilityDelayMs: { min: 0, max: 0 } } },
    },
  });
  const sandbox = first.services.sandbox!;
  const le = sandbox.fixtures.legal_entities[0]!;
  const second = await startHarness({
    services: { environment: { kind: 'remote', baseUrl: sandbox.url, name: 'Bank', token: le.tokens.admin } },
  });
  await seedTeam(team.db, {
    entities: [{ id: le.id, name: le.name }],
    members: [
      { subject: 'maria.keller', name: 'Maria Keller', legalEntityId: le.id, roles: ['maker', 'admin'] },
      { subject: 'jonas.weber', name: 'Jonas Weber', legalEntityId: le.id, roles: ['maker', 'checker'] },
    ],
  });
  const maria = await openWorkstation(browser, first);
  const jonas = await openWorkstation(browser, second);
  await joinTeam(maria, 'maria.keller', 'demo-maria');
  await joinTeam(jonas, 'jonas.weber', 'demo-jonas');
  await expect(maria.page.getByText('Signed in as Maria Keller (maker, admin at')).toBeVisible();

  // The queue shows who holds what once a team is in use.
  await maria.page.goto(`${first.url}#/rfis`);
  await expect(maria.page.getByRole('columnheader', { name: 'Held by' })).toBeVisible();
  const rfi = (await first.services.handlers['rfis.list'](undefined)).items[0]!;

  for (const s of [maria, jonas]) {
    await s.page.goto(`${s.harness.url}#/rfis/${rfi.id}`);
    await expect(s.page.getByTestId('rfi-holder')).toHaveText('Unassigned');
  }
  // Both buttons focused first, then pressed together (keyboard first, as analysts work): the
  // two claims reach the team server at the same moment.
  for (const s of [maria, jonas]) await s.page.getByRole('button', { name: 'Claim' }).focus();
  await Promise.all([maria.page.keyboard.press('Enter'), jonas.page.keyboard.press('Enter')]);

  // Both claims are on their way (each workstation's outbox sends it): wait until the team
  // server has decided, then exactly one row holds the RFI.
  const db = new pg.Client({ connectionString: cluster.url });
  await db.connect();
  const holders = async (): Promise<{ holder: string }[]> =>
    (
      await db.query<{ holder: string }>(
        'SELECT holder FROM rfi_assignments WHERE legal_entity_id = $1 AND rfi_id = $2',
        [le.id, rfi.id],
      )
    ).rows;
  await expect.poll(async () => (await holders()).length).toBeGreaterThan(0);
  for (const s of [maria, jonas]) await expect(s.page.getByTestId('rfi-holder')).not.toHaveText('Unassigned');
  const rows = await holders();
  await db.end();
  expect(rows).toHaveLength(1);
  const winner = rows[0]!.holder;
  const [won, lost, winnerName] =
    winner === 'maria.keller' ? [maria, jonas, 'Maria Keller'] : [jonas, maria, 'Jonas Weber'];
  await expect(won.page.getByTestId('rfi-holder')).toHaveText('You');
  await expect(won.page.getByRole('button', { name: 'Release' })).toBeVisible();
  await expect(lost.page.getByTestId('rfi-holder')).toHaveText(winnerName);
  await expect(
    lost.page.getByRole('alert').filter({ hasText: `${winnerName} holds this RFI` }),
  ).toBeVisible();
  await expect(lost.page.getByRole('button', { name: 'Claim' })).toHaveCount(0);

  // "Mine" in the queue: the winner sees the RFI, the other sees none.
  for (const [s, count] of [
    [won, 1],
    [lost, 0],
  ] as const) {
    await s.page.goto(`${s.harness.url}#/rfis`);
    await chooseOption(s.page, s.page, 'Held by', 'Mine');
    await expect(s.page.getByTestId('rfi-visible-count')).toHaveText(new RegExp(`^${count} of `));
  }
});
