/**
 * Return and exchange-mandate approvals while the team server is away, through the real main
 * services of two workstations (Maria's with the embedded sandbox bank, Jonas's against the same
 * bank over HTTP with his own credential), the real team server, PostgreSQL and OpenID provider:
 * asked for and decided offline, they wait in the durable outbox as pending, survive a restart
 * of the workstation, land exactly once when the team server is back (PostgreSQL checked), and a
 * refusal (Maria approving her own return) comes back to her in words.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isSealed } from '../../src/main/infra/at-rest';
import { napiKeyringBackend } from '../../src/main/infra/keyring';
import { seedTeam } from '../../src/team-server/bootstrap';
import { startTeamServer, type RunningTeamServer } from '../../src/team-server/index';
import { staffOf } from '../support/sandbox-staff';
import { startServices, type TestServices } from '../support/services';
import { startTeamStack, type TeamStack } from './support';
import { joinTeam, TEAM_TEST_OPTIONS } from './workstation-support';

const keyringServices = [0, 1].map(() => `treasury-desk-team-test/${randomBytes(6).toString('hex')}`);
const keyring = napiKeyringBackend();
let stack: TeamStack;
let maria: TestServices;
let jonas: TestServices;
let entity: string;
let restarted: RunningTeamServer | null = null;

/** Jonas's workstation (his own credential at Maria's embedded bank), new or on its data folder again. */
async function openJonas(dataDir?: string): Promise<TestServices> {
  const le = maria.services.sandbox!.fixtures.legal_entities[0]!;
  const t = await startServices({
    keyringService: keyringServices[1]!,
    team: TEAM_TEST_OPTIONS,
    environment: {
      kind: 'remote',
      baseUrl: maria.services.sandbox!.url,
      name: 'Bank',
      token: le.tokens.colleague_admin!,
    },
    ...(dataDir ? { dataDir } : {}),
  });
  await t.services.session.check();
  return t;
}

const approvalRows = async (objectId: string) =>
  (
    await stack.sql.query<{ status: string; maker: string; checker: string | null; object_kind: string }>(
      `SELECT status, maker, checker, object_kind FROM approvals
        WHERE legal_entity_id = $1 AND object_id = $2 ORDER BY requested_at`,
      [entity, objectId],
    )
  ).rows;

beforeAll(async () => {
  stack = await startTeamStack();
  maria = await startServices({
    keyringService: keyringServices[0]!,
    team: TEAM_TEST_OPTIONS,
    environment: {
      kind: 'embedded-sandbox',
      sandbox: { visibilityDelayMs: { min: 0, max: 0 }, colleagueAdmin: true },
    },
  });
  await maria.services.session.check();
  const le = maria.services.sandbox!.fixtures.legal_entities[0]!;
  entity = le.id;
  jonas = await openJonas();
  await seedTeam(stack.server.db, {
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
  await joinTeam(maria, stack.server.url, 'maria.keller');
  await joinTeam(jonas, stack.server.url, 'jonas.weber');
}, 120_000);

afterAll(async () => {
  // Jonas's workstation talks to Maria's embedded bank: it closes first.
  await jonas?.close();
  await maria?.close();
  await restarted?.close();
  await stack?.close().catch(() => undefined);
  for (const s of keyringServices) await keyring.delete(s, 'team-refresh-token').catch(() => false);
});

/** Feed-driven states on a shared machine: wait seconds, not expect.poll's default one. */
const FEED = { timeout: 15_000 };

describe('return and mandate approvals while the team server is away', () => {
  it('wait in the durable outbox as pending, survive a restart, land once, and a refusal comes back in words', async () => {
    const m = maria.services.handlers;
    const mariaProfile = maria.services.session.profile.id;
    await m['team.setApprovalRules']({
      legalEntityId: entity,
      rules: [
        { kind: 'return', above: '100000' },
        { kind: 'exchange', above: '100000000' },
      ],
    });
    const transfer = (await staffOf(maria.services).createIncomingTransfer({
      legal_entity_id: entity,
      amount: '250000',
      debtor_name: 'Harbour Freight Ltd',
    })) as { transaction_id: string };
    const txId = transfer.transaction_id;
    const ref = { profileId: mariaProfile, transactionId: txId };
    await m['returns.lookup'](ref);
    await m['returns.createIntent']({
      ...ref,
      operationId: `offline-return-${randomBytes(4).toString('hex')}`,
      amount: '150000',
      reasonCode: 'AC03',
    });
    const asked = await m['team.askReturnApproval'](ref);
    expect(asked).toMatchObject({ status: 'pending', queued: null, amount: '150000' });
    await expect
      .poll(async () => (await jonas.services.handlers['team.returnApprovals'](undefined)).length, FEED)
      .toBe(1);

    // The team server goes away.
    const port = Number(new URL(stack.server.url).port);
    await stack.server.close();
    await expect.poll(async () => (await m['team.status'](undefined)).connection, FEED).toBe('unreachable');
    await expect
      .poll(async () => (await jonas.services.handlers['team.status'](undefined)).connection, FEED)
      .toBe('unreachable');

    // Jonas approves the return (his own profile reads the intent at the bank first): queued.
    const jonasProfile = jonas.services.session.profile.id;
    const approving = await jonas.services.handlers['team.decideReturnApproval']({
      profileId: jonasProfile,
      transactionId: txId,
      approvalId: asked.approvalId!,
      decision: 'approve',
      contentHash: asked.contentHash,
    });
    expect(approving).toMatchObject({
      queued: 'approve',
      status: 'pending',
      mayDecide: false,
      words: 'Approved by you (waiting for the team server).',
    });
    // Maria asks for a mandate and (against the rule) approves her own return: both queued.
    const mandate = await m['team.askMandate']({
      profileId: mariaProfile,
      side: 'buy',
      asset: 'ETHEREUM-USDT',
      amount: '250000000',
      worstRate: '1.0100',
    });
    expect(mandate).toMatchObject({
      approvalId: null,
      queued: 'ask',
      status: 'pending',
      maker: { subject: 'maria.keller', isYou: true },
      words: 'Asking for approval by a checker (waiting for the team server).',
    });
    expect(await m['team.mandates'](undefined)).toEqual([mandate]);
    const selfApproving = await m['team.decideReturnApproval']({
      ...ref,
      approvalId: asked.approvalId!,
      decision: 'approve',
      contentHash: asked.contentHash,
    });
    expect(selfApproving).toMatchObject({ queued: 'approve' });
    // The confirm is not covered by a queued approval: refused before the bank is called.
    await expect(
      jonas.services.handlers['returns.confirm']({ profileId: jonasProfile, transactionId: txId }),
    ).rejects.toMatchObject({ reason: 'APPROVAL_REQUIRED' });

    // Jonas's workstation restarts while the team server is still away: the approval waits, sealed.
    const outbox = path.join(jonas.dataDir, 'team', 'approvals-outbox.json');
    expect(isSealed(await readFile(outbox))).toBe(true);
    const dataDir = jonas.dataDir;
    await jonas.stop();
    jonas = await openJonas(dataDir);
    const j = jonas.services.handlers;
    await expect.poll(async () => (await j['team.status'](undefined)).connection, FEED).toBe('unreachable');
    expect(
      jonas.services.approvals.book.queue
        .all()
        .map((x) => [x.op, x.objectKind, x.objectId, x.subject, x.state]),
    ).toEqual([['approve', 'return', txId, 'jonas.weber', 'pending']]);
    expect(await approvalRows(txId)).toEqual([
      { status: 'pending', maker: 'maria.keller', checker: null, object_kind: 'return' },
    ]);

    // The team server is back: each queued change lands once. Meanwhile Maria's list of mandates,
    // read as her page reads it, never lacks the one she asked for (between the outbox and the
    // server's answer, and when the approvals are read again on reconnecting).
    const lacking: string[] = [];
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const listed = await m['team.mandates'](undefined);
        if (!listed.some((x) => x.id === mandate.id)) lacking.push(new Date().toISOString());
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    restarted = await startTeamServer({
      databaseUrl: stack.databaseUrl,
      auth: { issuer: inject('teamIssuer'), audience: inject('teamAudience') },
      port,
    });
    await expect
      .poll(async () => [await approvalRows(txId), await approvalRows(mandate.id)], { timeout: 30_000 })
      .toEqual([
        [{ status: 'approved', maker: 'maria.keller', checker: 'jonas.weber', object_kind: 'return' }],
        [{ status: 'pending', maker: 'maria.keller', checker: null, object_kind: 'exchange' }],
      ]);
    await expect.poll(() => jonas.services.approvals.book.queue.all(), { timeout: 20_000 }).toEqual([]);
    await expect.poll(() => maria.services.approvals.book.queue.all(), { timeout: 20_000 }).toEqual([]);
    // Maria's own approval was refused by the server: she reads why (the notice follows the
    // refused job out of the outbox), once, and nothing else changed.
    const refusals = () =>
      maria.pushed.filter(
        (p) =>
          p.event === 'team.approvalsChanged' &&
          String((p.payload as { notice: string | null }).notice).includes(
            'nobody approves their own return',
          ),
      );
    await expect.poll(() => refusals().length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(refusals()).toHaveLength(1);
    await expect
      .poll(
        async () =>
          (await j['team.returnApproval']({ profileId: jonasProfile, transactionId: txId })).approval,
        FEED,
      )
      .toMatchObject({ status: 'approved', queued: null, checker: { subject: 'jonas.weber', isYou: true } });
    await expect
      .poll(async () => (await m['team.mandates'](undefined)).map((x) => [x.id, x.status, x.queued]), FEED)
      .toEqual([[mandate.id, 'pending', null]]);
    watching = false;
    await watcher;
    expect(lacking).toEqual([]);

    // Jonas confirms the approved return with his own credential: the bank holds it once.
    await j['returns.confirm']({ profileId: jonasProfile, transactionId: txId });
    const jobs = await stack.sql.query<{ status: string }>(
      `SELECT status FROM send_jobs WHERE legal_entity_id = $1 AND object_id = $2`,
      [entity, txId],
    );
    expect(jobs.rows).toEqual([{ status: 'done' }]);
    expect(await approvalRows(txId)).toHaveLength(1);
  }, 180_000);
});
