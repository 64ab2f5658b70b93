/**
 * The workstation's team connection through the real main services (createServices with the
 * embedded sandbox and the real keychain) against the real team server, PostgreSQL and OpenID
 * provider: sign-in in the "system browser" (the provider's real login form over HTTP, the code
 * delivered to main's loopback listener), claims and releases with the RFI's legal entity, a
 * claim made while the team server is away queued and then accepted (or refused and dropped),
 * and catching up from the stored change number after the workstation was closed.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { napiKeyringBackend } from '../../src/main/infra/keyring';
import { startTeamServer, type RunningTeamServer } from '../../src/team-server/index';
import { startServices, type TestServices } from '../support/services';
import { startTeamStack, type TeamStack } from './support';
import { browseSignIn, PASSWORDS, seedSandboxTeam } from './workstation-support';

const keyringService = `treasury-desk-team-test/${randomBytes(6).toString('hex')}`;
const keyring = napiKeyringBackend();
let stack: TeamStack;
let app: TestServices;
let entity: string;
let rfiIds: string[];
let profileId: string;
let restarted: RunningTeamServer | null = null;

const teamOptions = {
  feedRetry: { baseMs: 100, maxMs: 400 },
  outboxRetry: { baseMs: 100, maxMs: 400 },
  signInTimeoutMs: 20_000,
};

async function openApp(dataDir?: string): Promise<TestServices> {
  return startServices({ keyringService, team: teamOptions, ...(dataDir ? { dataDir } : {}) });
}

async function signIn(t: TestServices, analyst: keyof typeof PASSWORDS): Promise<void> {
  const browsed: Promise<number>[] = [];
  t.platform.onOpenExternal = (url) => browsed.push(browseSignIn(url, analyst, PASSWORDS[analyst]));
  const status = await t.services.handlers['team.signIn'](undefined);
  expect(await Promise.all(browsed)).toEqual([200]);
  expect(status.connection === 'connecting' || status.connection === 'connected').toBe(true);
}

const holderRow = async (rfiId: string): Promise<string | null | undefined> =>
  (
    await stack.sql.query<{ holder: string | null }>(
      'SELECT holder FROM rfi_assignments WHERE legal_entity_id = $1 AND rfi_id = $2',
      [entity, rfiId],
    )
  ).rows[0]?.holder;

beforeAll(async () => {
  stack = await startTeamStack();
  app = await openApp();
  const h = app.services.handlers;
  await app.services.session.check();
  const scope = app.services.session.current.scope();
  entity = scope.legalEntityId!;
  profileId = scope.profileId;
  await seedSandboxTeam(stack.server.db, entity, app.services.session.current.entityName());
  for (let i = 0; i < 200 && (await h['rfis.list'](undefined)).items.length < 5; i += 1)
    await new Promise((r) => setTimeout(r, 100));
  rfiIds = (await h['rfis.list'](undefined)).items.map((r) => r.id);
  if (rfiIds.length < 5) throw new Error('the sandbox RFIs did not arrive');
}, 90_000);

afterAll(async () => {
  await app?.close();
  await restarted?.close();
  await stack?.close().catch(() => undefined);
  await keyring.delete(keyringService, 'team-refresh-token').catch(() => false);
});

describe('the workstation signs in to the team', () => {
  it('approves the team server natively, signs in in the browser with PKCE, keeps the refresh token in the keychain and shows only who is signed in', async () => {
    const h = app.services.handlers;
    expect((await h['team.status'](undefined)).connection).toBe('solo');
    await expect(h['team.setServer']({ url: 'http://team.example.com' })).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
    // Declined in main's dialog: nothing stored.
    app.platform.nextConfirmAnswers.push(false);
    await expect(h['team.setServer']({ url: stack.server.url })).rejects.toMatchObject({
      kind: 'not_approved',
    });
    expect((await h['team.status'](undefined)).serverUrl).toBeNull();
    app.platform.nextConfirmAnswers.push(true);
    const set = await h['team.setServer']({ url: stack.server.url });
    expect(app.platform.confirmations.at(-1)).toMatchObject({
      kind: 'team-origin',
      destination: stack.server.url,
    });
    expect(set).toMatchObject({ serverUrl: stack.server.url, connection: 'signed-out', analyst: null });

    await signIn(app, 'maria.keller');
    const opened = new URL(app.platform.openedExternal.at(-1)!);
    expect(opened.origin).toBe(inject('teamIssuer'));
    expect(opened.searchParams.get('code_challenge_method')).toBe('S256');
    expect(opened.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(opened.searchParams.get('state')).toBeTruthy();
    expect(opened.searchParams.get('nonce')).toBeTruthy();
    await expect.poll(async () => (await h['team.status'](undefined)).connection).toBe('connected');
    const status = await h['team.status'](undefined);
    expect(status.analyst).toMatchObject({
      subject: 'maria.keller',
      name: 'Maria Keller',
      memberships: expect.arrayContaining([
        { legalEntityId: entity, legalEntityName: expect.any(String), roles: ['admin', 'maker'] },
      ]),
    });
    const refresh = await keyring.get(keyringService, 'team-refresh-token');
    expect(refresh).toBeTruthy();
    // Nothing the renderer sees carries a token.
    const seen = JSON.stringify([status, app.pushed]);
    expect(seen).not.toContain(refresh!);
    expect(seen).not.toContain('eyJ');
  });

  it('claims and releases an RFI with its profile’s legal entity; another analyst’s hold is named', async () => {
    const h = app.services.handlers;
    const [mine, theirs] = rfiIds;
    const claimed = await h['team.claim']({ rfiId: mine!, profileId });
    expect(claimed).toMatchObject({
      legalEntityId: entity,
      rfiId: mine,
      holder: { subject: 'maria.keller', name: 'Maria Keller', isYou: true },
      pending: null,
    });
    expect(await holderRow(mine!)).toBe('maria.keller');

    const jonas = stack.as('jonas.weber');
    expect((await jonas.post(`/v1/entities/${entity}/rfis/${theirs}/claim`)).status).toBe(200);
    await expect(h['team.claim']({ rfiId: theirs!, profileId })).rejects.toMatchObject({
      kind: 'conflict',
      reason: 'HELD_BY_OTHER',
      message: 'Jonas Weber holds this RFI; your claim was not made.',
    });
    // The feed brought Jonas's claim: the queue names him.
    await expect
      .poll(async () => (await h['team.assignments'](undefined)).find((a) => a.rfiId === theirs)?.holder)
      .toEqual({ subject: 'jonas.weber', name: 'Jonas Weber', isYou: false });

    const released = await h['team.release']({ rfiId: mine!, profileId });
    expect(released.holder).toBeNull();
    expect(await holderRow(mine!)).toBeNull();
  });

  it('a claim made while the team server is away is pending, then accepted; one someone else won meanwhile is dropped with the holder named', async () => {
    const h = app.services.handlers;
    const [, , first, second] = rfiIds;
    const port = Number(new URL(stack.server.url).port);
    await stack.server.close();
    await expect.poll(async () => (await h['team.status'](undefined)).connection).toBe('unreachable');

    const pending = await h['team.claim']({ rfiId: first!, profileId });
    expect(pending).toMatchObject({ pending: 'claim', pendingTo: { name: 'Maria Keller', isYou: true } });
    await h['team.claim']({ rfiId: second!, profileId });
    expect((await h['team.status'](undefined)).pendingChanges).toBe(2);
    // Pending claims survive in the durable outbox (sealed at rest), not in memory only.
    expect(app.services.team.book.queue.all().map((j) => j.rfiId)).toEqual([first, second]);

    restarted = await startTeamServer({
      databaseUrl: stack.databaseUrl,
      auth: { issuer: inject('teamIssuer'), audience: inject('teamAudience') },
      port,
    });
    // Jonas takes the second RFI before Maria's workstation is back in touch.
    expect((await stack.as('jonas.weber').post(`/v1/entities/${entity}/rfis/${second}/claim`)).status).toBe(
      200,
    );
    app.platform.fire('online');

    await expect
      .poll(async () => (await h['team.status'](undefined)).pendingChanges, { timeout: 15_000 })
      .toBe(0);
    expect(await holderRow(first!)).toBe('maria.keller');
    expect(await holderRow(second!)).toBe('jonas.weber');
    const views = await h['team.assignments'](undefined);
    expect(views.find((a) => a.rfiId === first)).toMatchObject({ holder: { isYou: true }, pending: null });
    expect(views.find((a) => a.rfiId === second)).toMatchObject({
      holder: { name: 'Jonas Weber' },
      pending: null,
    });
    expect(app.pushed).toContainEqual({
      event: 'team.assignmentsChanged',
      payload: { notice: 'Jonas Weber holds this RFI; your claim was not made.' },
    });
  });

  it('a workstation closed while the team worked catches up from its stored change number', async () => {
    const dataDir = app.dataDir;
    await expect
      .poll(async () => (await app.services.handlers['team.status'](undefined)).connection)
      .toBe('connected');
    await app.stop();
    const [, , , , fifth] = rfiIds;
    const jonas = stack.as('jonas.weber');
    expect((await jonas.post(`/v1/entities/${entity}/rfis/${fifth}/claim`)).status).toBe(200);
    const last = Number(
      (await stack.sql.query<{ seq: string }>('SELECT max(seq) AS seq FROM changes')).rows[0]!.seq,
    );

    app = await openApp(dataDir);
    const h = app.services.handlers;
    // Signed in from the keychain's refresh token, no browser this time.
    await expect
      .poll(async () => (await h['team.status'](undefined)).connection, { timeout: 15_000 })
      .toBe('connected');
    expect(app.platform.openedExternal).toEqual([]);
    await expect
      .poll(async () => (await h['team.assignments'](undefined)).find((a) => a.rfiId === fifth)?.holder?.name)
      .toBe('Jonas Weber');
    expect(app.services.team.feedPosition()).toBe(last);
  });

  it('signing out deletes the keychain entry and forgets the analyst', async () => {
    const h = app.services.handlers;
    const out = await h['team.signOut'](undefined);
    expect(out).toMatchObject({ connection: 'signed-out', analyst: null });
    expect(await keyring.get(keyringService, 'team-refresh-token')).toBeNull();
    await expect(h['team.claim']({ rfiId: rfiIds[0]!, profileId })).rejects.toMatchObject({
      kind: 'unauthenticated',
    });
  });
});
