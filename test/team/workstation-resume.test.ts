/**
 * Signing in again after a sign-out (or an expired refresh token): the same analyst on the same
 * team server resumes the change feed from the number the workstation kept, and nothing changed
 * meanwhile is lost; another analyst signing in on that workstation starts clean, from 0.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { napiKeyringBackend } from '../../src/main/infra/keyring';
import { seedTeam } from '../../src/team-server/bootstrap';
import { staffOf } from '../support/sandbox-staff';
import { startServices, type TestServices } from '../support/services';
import { startTeamStack, type TeamStack } from './support';
import { joinTeam, TEAM_TEST_OPTIONS } from './workstation-support';

const keyringService = `treasury-desk-team-test/${randomBytes(6).toString('hex')}`;
const keyring = napiKeyringBackend();
let stack: TeamStack;
let ws: TestServices;
let entity: string;

beforeAll(async () => {
  stack = await startTeamStack();
  ws = await startServices({ keyringService, team: TEAM_TEST_OPTIONS });
  await ws.services.session.check();
  const le = ws.services.sandbox!.fixtures.legal_entities[0]!;
  entity = le.id;
  await seedTeam(stack.server.db, {
    entities: [{ id: le.id, name: le.name }],
    members: [
      { subject: 'maria.keller', name: 'Maria Keller', legalEntityId: le.id, roles: ['maker', 'admin'] },
      { subject: 'jonas.weber', name: 'Jonas Weber', legalEntityId: le.id, roles: ['maker', 'checker'] },
    ],
  });
}, 120_000);

afterAll(async () => {
  await ws?.close();
  await stack?.close().catch(() => undefined);
  await keyring.delete(keyringService, 'team-refresh-token').catch(() => false);
});

const maxSeq = async (): Promise<number> =>
  Number((await stack.sql.query<{ m: string | null }>('SELECT max(seq) AS m FROM changes')).rows[0]?.m ?? 0);

const claimedBy = async (rfiId: string): Promise<string | null | undefined> =>
  (
    await stack.sql.query<{ holder: string | null }>(
      'SELECT holder FROM rfi_assignments WHERE legal_entity_id = $1 AND rfi_id = $2',
      [entity, rfiId],
    )
  ).rows[0]?.holder;

describe('signing in again', () => {
  it('the same analyst resumes from the kept number and loses nothing; another analyst starts clean', async () => {
    const team = ws.services.team;
    const le = ws.services.sandbox!.fixtures.legal_entities[0]!;
    const rfis: string[] = [];
    for (const description of ['first', 'second'])
      rfis.push(
        (
          await staffOf(ws.services).createRfi({
            type: 'account',
            related_id: le.accounts[0]!.id,
            description,
            questions: [{ question_type: 'transaction.purpose', question_text: 'Purpose of the account' }],
          })
        ).id,
      );
    await joinTeam(ws, stack.server.url, 'maria.keller');
    // Something happens while Maria is signed in: her workstation's feed applies it.
    expect(
      (await stack.as('jonas.weber').post(`/v1/entities/${entity}/rfis/${rfis[0]}/claim`, {})).status,
    ).toBe(200);
    await expect.poll(() => team.feedPosition(), { timeout: 10_000 }).toBe(await maxSeq());
    const kept = team.feedPosition();
    expect(kept).toBeGreaterThan(0);

    // She signs out (as when her refresh token expired): the number is kept.
    await ws.services.handlers['team.signOut'](undefined);
    expect(team.feedPosition()).toBe(kept);
    // Meanwhile Jonas claims another RFI.
    expect(
      (await stack.as('jonas.weber').post(`/v1/entities/${entity}/rfis/${rfis[1]}/claim`, {})).status,
    ).toBe(200);
    expect(await claimedBy(rfis[1]!)).toBe('jonas.weber');

    // Maria signs in again: the feed resumes after the kept number, and Jonas's claim arrives.
    const positions: number[] = [];
    const off = setInterval(() => positions.push(team.feedPosition()), 5);
    await joinTeam(ws, stack.server.url, 'maria.keller');
    await expect.poll(() => team.feedPosition(), { timeout: 10_000 }).toBe(await maxSeq());
    clearInterval(off);
    // Never back to 0: the position only moved on from the kept one.
    expect(Math.min(...positions)).toBe(kept);
    await expect
      .poll(
        async () =>
          (await ws.services.handlers['team.assignments'](undefined)).find((a) => a.rfiId === rfis[1])?.holder
            ?.subject,
      )
      .toBe('jonas.weber');

    // Jonas signs in on this workstation: Maria's caches and position are not his.
    await ws.services.handlers['team.signOut'](undefined);
    const seen: number[] = [];
    const watch = setInterval(() => seen.push(team.feedPosition()), 5);
    await joinTeam(ws, stack.server.url, 'jonas.weber');
    await expect.poll(() => team.feedPosition(), { timeout: 10_000 }).toBe(await maxSeq());
    clearInterval(watch);
    expect(seen).toContain(0);
  }, 90_000);
});
