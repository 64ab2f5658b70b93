import type { Page } from '@playwright/test';
import pg from 'pg';
import { test, expect } from './fixtures';
import { startHarness } from '../harness/harness';
import { staffOf } from '../support/sandbox-staff';
import type { PostgresCluster } from '../../src/team-server/dev/postgres-cluster';
import type { RunningTeamServer } from '../../src/team-server/index';
import { seedTeam } from '../../src/team-server/bootstrap';
import {
  closeWorkstations,
  joinTeam,
  openWorkstation,
  startTeamStack,
  stopTeamStack,
  type TeamStack,
  type Workstation,
} from './team-stations';
import { chooseOption } from './ui-controls';
import { seriousA11yViolations } from './axe';

/** No serious axe violation on the page, in the light and the dark colour scheme. */
async function axeClean(page: Page): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    expect(await seriousA11yViolations(page), colorScheme).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: null });
}

/**
 * Four-eyes approval of a return from the analysts' side: two workstations of one legal entity,
 * each with its own bank credential (Maria's is Alex Morgan's admin credential, Jonas's Sam
 * Ortiz's), one sandbox bank and one team server on real PostgreSQL. Maria sets the rule (returns
 * above 1,000.00 need a checker), creates a return intent and asks for approval; her own approval
 * is refused by the server and she cannot confirm; Jonas approves it and confirms it, and the bank
 * shows the return confirmed once, with Jonas's credential.
 */

let cluster: PostgresCluster;
let team: RunningTeamServer;
let stack: Partial<TeamStack> = {};
const stations: Workstation[] = [];

test.beforeAll(async () => {
  stack = await startTeamStack('team_money_e2e');
  ({ cluster, team } = stack as TeamStack);
});

test.afterAll(() => stopTeamStack(stack));

test.afterEach(async () => {
  expect(await closeWorkstations(stations)).toEqual([]);
});

test('a maker creates a return intent, a checker approves it and confirms it with their own credential', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const first = await startHarness({
    services: {
      environment: {
        kind: 'embedded-sandbox',
        sandbox: { visibilityDelayMs: { min: 0, max: 0 }, colleagueAdmin: true },
      },
    },
  });
  const sandbox = first.services.sandbox!;
  const le = sandbox.fixtures.legal_entities[0]!;
  const colleagueToken = le.tokens.colleague_admin!;
  expect(colleagueToken).toMatch(/^tds_admin_/);
  const second = await startHarness({
    services: { environment: { kind: 'remote', baseUrl: sandbox.url, name: 'Bank', token: colleagueToken } },
  });
  await seedTeam(team.db, {
    entities: [{ id: le.id, name: le.name }],
    members: [
      // Maria may check too: only the server stops her approving her own return.
      {
        subject: 'maria.keller',
        name: 'Maria Keller',
        legalEntityId: le.id,
        roles: ['maker', 'checker', 'admin'],
      },
      { subject: 'jonas.weber', name: 'Jonas Weber', legalEntityId: le.id, roles: ['maker', 'checker'] },
    ],
  });
  const staff = staffOf(first.services);
  const transfer = (await staff.createIncomingTransfer({
    legal_entity_id: le.id,
    amount: '250000',
    debtor_name: 'Harbour Freight Ltd',
  })) as { transaction_id: string };
  const txId = transfer.transaction_id;

  const maria = await openWorkstation(browser, first, stations);
  const jonas = await openWorkstation(browser, second, stations);
  await joinTeam(maria, team.url, 'maria.keller', 'demo-maria');
  await joinTeam(jonas, team.url, 'jonas.weber', 'demo-jonas');

  // The admin's rule: returns above 1,000.00 need a checker.
  const rules = maria.page.getByTestId('approval-rules');
  await rules.getByLabel('Returns above this amount need a checker').fill('1000.00');
  await rules.getByRole('button', { name: 'Save approval rules' }).click();
  await expect(rules.getByText('Approval rules saved.')).toBeVisible();

  // Maria creates the intent with her credential; the confirm waits for a checker.
  await maria.page.goto(`${first.url}#/returns/${txId}`);
  await maria.page.getByRole('button', { name: 'Return this transfer…' }).click();
  await maria.page.getByLabel('Amount to return (USD)').fill('1500.00');
  await chooseOption(maria.page, maria.page, 'Reason', /\(AC03\)$/);
  await maria.page.getByRole('button', { name: 'Create return intent' }).click();
  await expect(maria.page.getByTestId('return-amount')).toHaveText('1,500.00 USD');
  const mine = maria.page.getByTestId('return-approval');
  await expect(mine).toHaveText('Your team’s rules want a checker to approve returns of this amount.');
  await expect(maria.page.getByTestId('return-confirm')).toBeDisabled();
  await maria.page.getByRole('button', { name: 'Ask for approval' }).click();
  await expect(mine).toHaveText('Waiting for approval by a checker.');
  await expect(maria.page.getByTestId('return-confirm-why-not')).toHaveText(
    'A checker approves this return before it is confirmed.',
  );
  // Her own return: no Approve for her, and the server refuses it when asked all the same.
  await expect(maria.page.getByRole('button', { name: 'Approve' })).toHaveCount(0);
  const profileA = first.services.session.profile.id;
  const asked = await first.services.handlers['team.returnApproval']({
    profileId: profileA,
    transactionId: txId,
  });
  expect(asked.approval).toMatchObject({
    status: 'pending',
    amount: '150000',
    currency: 'USD',
    reasonCode: 'AC03',
  });
  await expect(
    first.services.handlers['team.decideReturnApproval']({
      profileId: profileA,
      transactionId: txId,
      approvalId: asked.approval!.approvalId!,
      decision: 'approve',
      contentHash: asked.approval!.contentHash,
    }),
  ).rejects.toMatchObject({ message: expect.stringContaining('nobody approves their own return') });
  // Nor does main send her confirm: refused before the bank is called.
  await expect(
    first.services.handlers['returns.confirm']({ profileId: profileA, transactionId: txId }),
  ).rejects.toMatchObject({ kind: 'precondition', reason: 'APPROVAL_REQUIRED' });
  expect((await first.services.bank.getTransaction(txId)).status).toBe('intent_created');

  // Jonas finds it waiting for him, reads the exact return, approves it and confirms it.
  await jonas.page.goto(`${second.url}#/returns`);
  const waiting = jonas.page.getByTestId('returns-waiting');
  await expect(waiting).toContainText('Maria Keller asks for approval of a return of 1,500.00 USD');
  await waiting.getByRole('link').click();
  const theirs = jonas.page.getByTestId('return-approval');
  await expect(theirs).toHaveText('Maria Keller asks for your approval.');
  await expect(jonas.page.getByTestId('return-approval-content')).toContainText('1,500.00 USD');
  await expect(jonas.page.getByTestId('return-confirm')).toBeDisabled();
  await axeClean(jonas.page);
  await jonas.page.getByRole('button', { name: 'Approve' }).click();
  await expect(theirs).toHaveText('Approved by you.');
  await expect(mine).toHaveText('Approved by Jonas Weber.');
  // Maria may not confirm what Jonas approved: a checker confirms with their own credential.
  await expect(maria.page.getByTestId('return-confirm')).toBeDisabled();
  await jonas.page.getByTestId('return-confirm').click();
  await jonas.page.getByRole('button', { name: 'Yes, confirm the return' }).click();
  await expect(
    jonas.page.getByTestId('return-following').or(jonas.page.getByTestId('return-completed')),
  ).toBeVisible({
    timeout: 20_000,
  });
  await expect(mine).toHaveText('Approved by Jonas Weber and confirmed at the bank.');

  // The bank: the return confirmed once, with Sam Ortiz's credential (Jonas's), initiated with Alex Morgan's (Maria's).
  const listed = await staff.listTransactions();
  const row = listed.data.find((d) => d.transaction.transaction_id === txId)!;
  expect(['in_progress', 'return_completed']).toContain(row.transaction.status);
  expect(row.return_confirmed_by).toMatchObject({ first_name: 'Sam', last_name: 'Ortiz' });
  expect(row.transaction.fi_to_fi_swift_incoming?.return_initiated_by).toMatchObject({ first_name: 'Alex' });

  // PostgreSQL: one approval decided by Jonas, one send job done with the bank's reference.
  const db = new pg.Client({ connectionString: cluster.url });
  await db.connect();
  try {
    const approvals = await db.query<{ status: string; maker: string; checker: string }>(
      "SELECT status, maker, checker FROM approvals WHERE object_kind = 'return' AND object_id = $1",
      [txId],
    );
    expect(approvals.rows).toEqual([{ status: 'approved', maker: 'maria.keller', checker: 'jonas.weber' }]);
    const jobs = await db.query<{ status: string; bank_reference: string; leased_by: string }>(
      "SELECT status, bank_reference, leased_by FROM send_jobs WHERE object_kind = 'return' AND object_id = $1",
      [txId],
    );
    expect(jobs.rows).toEqual([{ status: 'done', bank_reference: txId, leased_by: 'jonas.weber' }]);
  } finally {
    await db.end();
  }
  // Asked again, the confirm is refused: the bank is not called a second time.
  const profileB = second.services.session.profile.id;
  await expect(
    second.services.handlers['returns.confirm']({ profileId: profileB, transactionId: txId }),
  ).rejects.toMatchObject({ kind: expect.stringMatching(/conflict|precondition/) });
});

test('an exchange inside an approved mandate is confirmed at the bank; one outside it is refused before the bank is called', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const first = await startHarness({
    services: {
      environment: {
        kind: 'embedded-sandbox',
        sandbox: { visibilityDelayMs: { min: 0, max: 0 }, colleagueAdmin: true, quoteTtlSeconds: 120 },
      },
    },
  });
  const sandbox = first.services.sandbox!;
  const le = sandbox.fixtures.legal_entities[0]!;
  const second = await startHarness({
    services: {
      environment: { kind: 'remote', baseUrl: sandbox.url, name: 'Bank', token: le.tokens.colleague_admin! },
    },
  });
  await seedTeam(team.db, {
    entities: [{ id: le.id, name: le.name }],
    members: [
      {
        subject: 'maria.keller',
        name: 'Maria Keller',
        legalEntityId: le.id,
        roles: ['maker', 'checker', 'admin'],
      },
      { subject: 'jonas.weber', name: 'Jonas Weber', legalEntityId: le.id, roles: ['maker', 'checker'] },
    ],
  });
  const maria = await openWorkstation(browser, first, stations);
  const jonas = await openWorkstation(browser, second, stations);
  await joinTeam(maria, team.url, 'maria.keller', 'demo-maria');
  await joinTeam(jonas, team.url, 'jonas.weber', 'demo-jonas');

  // The admin's rule: exchange orders above 100.00 need a checker.
  const rules = maria.page.getByTestId('approval-rules');
  await rules.getByLabel('Exchange orders above this amount need a checker').fill('100.00');
  await rules.getByRole('button', { name: 'Save approval rules' }).click();
  await expect(rules.getByText('Approval rules saved.')).toBeVisible();

  // Maria asks for two mandates: 250 USDT at 1.0100 at most, 300 USDT at 1.0000 at most.
  await maria.page.goto(`${first.url}#/exchange`);
  const mandates = maria.page.getByTestId('mandates');
  const askMandate = async (amount: string, rate: string): Promise<void> => {
    await mandates.getByLabel('Amount', { exact: true }).fill(amount);
    await mandates.getByLabel('Worst acceptable rate').fill(rate);
    await mandates.getByRole('button', { name: 'Ask for a mandate' }).click();
  };
  await askMandate('250', '1.0100');
  await expect(mandates.getByTestId('mandate')).toHaveCount(1);
  await askMandate('300', '1.0000');
  await expect(mandates.getByTestId('mandate')).toHaveCount(2);
  await expect(mandates.getByTestId('mandate-words').first()).toHaveText(
    'Waiting for approval by a checker.',
  );
  await expect(mandates.getByRole('button', { name: 'Approve mandate' })).toHaveCount(0);

  // Jonas approves both.
  await jonas.page.goto(`${second.url}#/exchange`);
  const his = jonas.page.getByTestId('mandates');
  await expect(his.getByText('Buy 250.00 USDT at a rate of at most 1.0100')).toBeVisible();
  await axeClean(jonas.page);
  for (let i = 0; i < 2; i++) {
    await expect(his.getByRole('button', { name: 'Approve mandate' })).toHaveCount(2 - i);
    await his.getByRole('button', { name: 'Approve mandate' }).first().click();
  }
  await expect(his.getByRole('button', { name: 'Approve mandate' })).toHaveCount(0);
  await expect(
    mandates.getByText('Approved by Jonas Weber: a quote inside it may be confirmed.'),
  ).toHaveCount(2);

  // Quotes made by Maria with her credential (USD pays, USDT received).
  const profileA = first.services.session.profile.id;
  const usd = le.accounts.find((a) => a.asset === 'USD')!.id;
  const usdt = le.accounts.find((a) => a.asset === 'ETHEREUM-USDT')!.id;
  const quote = (usdtMinor: string) =>
    first.services.handlers['crypto.quote']({
      profileId: profileA,
      side: 'buy',
      symbol: 'USDT-USD',
      requestedAsset: 'ETHEREUM-USDT',
      requestedAmount: usdtMinor,
      paysAccountId: usd,
      receivesAccountId: usdt,
    });
  const confirmOnPage = async (orderId: string): Promise<void> => {
    await maria.page.goto(`${first.url}#/exchange/${orderId}`);
    await expect(maria.page.getByTestId('crypto-confirm')).toBeEnabled({ timeout: 20_000 });
    await maria.page.getByTestId('crypto-confirm').click();
    await maria.page
      .getByRole('alertdialog')
      .getByRole('button', { name: /^(Buy|Sell) now$/ })
      .click();
  };
  const atBank = async (transactionId: string) =>
    (await staffOf(first.services).listTransactions()).data.find(
      (d) => d.transaction.transaction_id === transactionId,
    )?.transaction;

  // Inside the 250 USDT mandate: confirmed at the bank.
  const inside = await quote('250000000');
  await confirmOnPage(inside.id);
  await expect
    .poll(async () => (await atBank(inside.transactionId!))?.status, { timeout: 20_000 })
    .toMatch(/^(pending_execution|completed)$/);
  expect((await atBank(inside.transactionId!))?.crypto_trade_v2?.quote_confirmed_at).toBeTruthy();
  await maria.page.goto(`${first.url}#/exchange`);
  await expect(
    mandates.getByText('Approved by Jonas Weber; used for an exchange confirmed at the bank.'),
  ).toBeVisible();

  // 300 USDT: the bank's rate (1.0006 or more) is worse than the mandate's 1.0000: refused, in words.
  const outside = await quote('300000000');
  await confirmOnPage(outside.id);
  await expect(maria.page.getByTestId('crypto-action-error')).toContainText(
    'This quote is outside the approved mandate: the quoted rate',
  );
  await expect(maria.page.getByTestId('crypto-action-error')).toContainText('Nothing was sent to the bank.');
  const refused = await atBank(outside.transactionId!);
  expect(refused?.status).toBe('in_progress');
  expect(refused?.crypto_trade_v2?.quote_confirmed_at ?? null).toBeNull();

  // The used mandate is not used twice: another 250 USDT quote is refused before the bank too.
  const again = await quote('250000000');
  await expect(
    first.services.handlers['crypto.confirm']({ profileId: profileA, orderId: again.id }),
  ).rejects.toMatchObject({ kind: 'precondition' });
  expect((await atBank(again.transactionId!))?.status).toBe('in_progress');

  const db = new pg.Client({ connectionString: cluster.url });
  await db.connect();
  try {
    const jobs = await db.query<{ status: string; bank_reference: string }>(
      "SELECT status, bank_reference FROM send_jobs WHERE object_kind = 'exchange'",
    );
    expect(jobs.rows).toEqual([{ status: 'done', bank_reference: inside.transactionId }]);
  } finally {
    await db.end();
  }
});
