import pg from 'pg';
import { test, expect } from './fixtures';
import { teamSpec, twoAnalysts } from './team-stations';
import { chooseOption } from './ui-controls';

/**
 * Two analysts' workstations (two harness instances, each with its own data folder and keychain
 * entries) against one sandbox bank and one team server on real PostgreSQL: each signs in through
 * the development provider's login page in Chromium (the URL main handed to the system browser),
 * then both claim the same RFI at once. Exactly one holds it, in PostgreSQL too; the other is
 * told who does.
 */

const spec = teamSpec('team_e2e');

test('two analysts claim the same RFI at once: exactly one holds it, the other sees who', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const { cluster, team } = spec.stack();
  const { maria, jonas, le } = await twoAnalysts(browser, team, spec.stations);
  await expect(maria.page.getByText('Signed in as Maria Keller (maker, admin at')).toBeVisible();

  // The queue shows who holds what once a team is in use.
  await maria.page.goto(`${maria.harness.url}#/rfis`);
  await expect(maria.page.getByRole('columnheader', { name: 'Held by' })).toBeVisible();
  const rfi = (await maria.harness.services.handlers['rfis.list'](undefined)).items[0]!;

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
