import type { Browser, BrowserContext, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { startHarness, type Harness } from '../harness/harness';
import type { RunningSandbox } from '../../src/sandbox/index';
import type { TeamRole } from '../../src/shared/team/schemas';
import { seedTeam } from '../../src/team-server/bootstrap';
import { startDevOidcProvider, type DevOidcProvider } from '../../src/team-server/dev/oidc';
import { startPostgresCluster, type PostgresCluster } from '../../src/team-server/dev/postgres-cluster';
import { startTeamServer, type RunningTeamServer } from '../../src/team-server/index';

/**
 * What the team e2e specs share: one team (PostgreSQL from Debian's binaries, the development
 * OpenID provider, the team server) and analysts' workstations (harness instances, each with its
 * own data folder and keychain entries, each in its own browser context), joined to the team the
 * way an analyst does it, and let go in order.
 */

export interface Workstation {
  harness: Harness;
  context: BrowserContext;
  page: Page;
  /** Uncaught errors of the page: a test fails on any. */
  errors: string[];
}

export interface TeamStack {
  cluster: PostgresCluster;
  provider: DevOidcProvider;
  team: RunningTeamServer;
}

export async function startTeamStack(database: string): Promise<TeamStack> {
  const [cluster, provider] = await Promise.all([startPostgresCluster({ database }), startDevOidcProvider()]);
  const team = await startTeamServer({
    databaseUrl: cluster.url,
    auth: { issuer: provider.issuer, audience: provider.audience },
  });
  return { cluster, provider, team };
}

/**
 * A team spec's hooks: the team stack started once for the file on a database of its own, every
 * workstation let go after each test (in order, each step bounded; no page may have thrown), and
 * the stack stopped at the end. The stack is there once the file's tests run.
 */
export function teamSpec(database: string): { stations: Workstation[]; stack(): TeamStack } {
  let stack: Partial<TeamStack> = {};
  const stations: Workstation[] = [];
  test.beforeAll(async () => {
    stack = await startTeamStack(database);
  });
  test.afterAll(() => stopTeamStack(stack));
  test.afterEach(async () => {
    expect(await closeWorkstations(stations)).toEqual([]);
  });
  return { stations, stack: () => stack as TeamStack };
}

/** A teardown step that does not end in time fails with its name: a stalled teardown is a defect. */
async function bounded(what: string, step: () => Promise<unknown>, ms = 30_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    step(),
    new Promise<void>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`teardown: ${what} took longer than ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

export async function stopTeamStack(stack: Partial<TeamStack>): Promise<void> {
  if (stack.team) await bounded('team server', () => stack.team!.close());
  if (stack.provider) await bounded('OpenID provider', () => stack.provider!.close());
  if (stack.cluster) await bounded('PostgreSQL', () => stack.cluster!.stop());
}

export async function openWorkstation(
  browser: Browser,
  harness: Harness,
  stations: Workstation[],
): Promise<Workstation> {
  const context = await browser.newContext();
  await harness.attach(context);
  const page = await harness.open(context);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const s = { harness, context, page, errors };
  stations.push(s);
  return s;
}

/**
 * Lets the workstations go, the last opened first (a second workstation may use the first one's
 * embedded bank): the page leaves the app (nothing in flight), its context closes, then its
 * harness. A step that fails (a page that crashed cannot navigate) does not stop the ones after
 * it, so every harness is closed; the failures are then thrown together, each naming its workstation and step.
 * Answers the pages' uncaught errors.
 */
export async function closeWorkstations(stations: Workstation[]): Promise<string[]> {
  const errors: string[] = [];
  const failed: Error[] = [];
  const step = async (what: string, run: () => Promise<unknown>): Promise<void> => {
    try {
      await bounded(what, run);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      // A step that timed out already names itself (bounded).
      failed.push(
        message.startsWith(`teardown: ${what}`)
          ? (e as Error)
          : new Error(`teardown: ${what}: ${message}`, { cause: e }),
      );
    }
  };
  for (const [i, s] of stations
    .splice(0)
    .map((s, i) => [i, s] as const)
    .reverse()) {
    const name = `workstation ${i + 1} (${s.harness.url})`;
    await step(`${name}: page to about:blank`, () => s.page.goto('about:blank'));
    await step(`${name}: browser context`, () => s.context.close());
    await step(`${name}: harness`, () => s.harness.close());
    errors.push(...s.errors);
  }
  if (failed.length > 0) {
    // The pages' own errors too: the caller's check of them is not reached.
    const lines = [...failed.map((e) => e.message), ...errors.map((e) => `page error: ${e}`)];
    throw new AggregateError(failed, lines.join('\n'));
  }
  return errors;
}

/**
 * Settings → Team: the address (approved in main's native dialog), then the sign-in in "the system
 * browser" (a tab of the workstation's context on the URL main handed to the platform).
 */
export async function joinTeam(
  s: Workstation,
  teamUrl: string,
  analyst: string,
  password: string,
): Promise<void> {
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
  await page.getByLabel('Team server address').fill(teamUrl);
  await page.getByRole('button', { name: 'Save address' }).click();
  await expect(page.getByText('Not signed in to the team.')).toBeVisible();
  expect(harness.platform.confirmations.at(-1)).toMatchObject({ kind: 'team-origin', destination: teamUrl });
  await page.getByRole('button', { name: 'Sign in to the team' }).click();
  await expect.poll(() => browserTabs.length).toBe(1);
  await Promise.all(browserTabs);
  await expect(page.getByTestId('team-status')).toHaveText('Team: connected.');
}

/** Two analysts of one legal entity, each at a workstation of their own, both signed in to the team. */
export interface TwoAnalysts {
  /** Maria's workstation runs the embedded sandbox bank. */
  maria: Workstation;
  /** Jonas's workstation reaches Maria's bank over HTTP, with the entity's admin token. */
  jonas: Workstation;
  sandbox: RunningSandbox;
  /** The legal entity both work for, in the bank and in the team. */
  le: RunningSandbox['fixtures']['legal_entities'][number];
}

/**
 * The team specs' opening: two workstations against one sandbox bank, the team seeded with the
 * bank's first legal entity and its two analysts (Maria maker and admin unless told otherwise,
 * Jonas maker and checker), then each analyst joins the team from Settings.
 */
export async function twoAnalysts(
  browser: Browser,
  team: RunningTeamServer,
  stations: Workstation[],
  o: { mariaRoles?: readonly TeamRole[] } = {},
): Promise<TwoAnalysts> {
  const first = await startHarness({
    services: {
      environment: { kind: 'embedded-sandbox', sandbox: { visibilityDelayMs: { min: 0, max: 0 } } },
    },
  });
  const sandbox = first.services.sandbox!;
  const le = sandbox.fixtures.legal_entities[0]!;
  const maria = await openWorkstation(browser, first, stations);
  const second = await startHarness({
    services: { environment: { kind: 'remote', baseUrl: sandbox.url, name: 'Bank', token: le.tokens.admin } },
  });
  const jonas = await openWorkstation(browser, second, stations);
  await seedTeam(team.db, {
    entities: [{ id: le.id, name: le.name }],
    members: [
      {
        subject: 'maria.keller',
        name: 'Maria Keller',
        legalEntityId: le.id,
        roles: o.mariaRoles ?? ['maker', 'admin'],
      },
      { subject: 'jonas.weber', name: 'Jonas Weber', legalEntityId: le.id, roles: ['maker', 'checker'] },
    ],
  });
  await joinTeam(maria, team.url, 'maria.keller', 'demo-maria');
  await joinTeam(jonas, team.url, 'jonas.weber', 'demo-jonas');
  return { maria, jonas, sandbox, le };
}
