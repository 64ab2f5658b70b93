/**
 * The workstation's side of the team tests: plays the system browser for the app's sign-in (the
 * authorization URL main hands to openExternal is followed with plain HTTP: the provider's login
 * form and consent are submitted, and the redirect is delivered to main's loopback listener), and
 * registers the sandbox's legal entity as a team with two of the demo analysts.
 */
import { expect } from 'vitest';
import { seedTeam } from '../../src/team-server/bootstrap';
import { browserFetch, CookieJar } from '../../src/team-server/dev/sign-in';
import type { TeamDb } from '../../src/team-server/db';
import type { ApprovalRule } from '../../src/shared/team/schemas';
import type { TestServices } from '../support/services';
import { staffOf } from '../support/sandbox-staff';

/**
 * Follows an authorization URL as a browser would for `subject`: sign-in form, consent, then the
 * redirect to the app's loopback address (answered by main). Resolves with the loopback page's
 * status.
 */
export async function browseSignIn(authUrl: string, subject: string, password: string): Promise<number> {
  const issuer = new URL(authUrl).origin;
  const go = browserFetch(new CookieJar());
  let res = await go(authUrl);
  for (let hop = 0; hop < 12; hop += 1) {
    const location = res.headers.get('location');
    if (!location) throw new Error(`sign-in stopped at ${res.status}: ${await res.text()}`);
    const next = new URL(location, issuer);
    if (next.origin !== issuer) {
      // The app's loopback redirect: main's listener takes the code.
      const done = await fetch(next.href);
      await done.text();
      return done.status;
    }
    if (next.pathname.startsWith('/interaction/')) {
      await go(next.href);
      res = await go(next.href, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ login: subject, password, decision: 'allow' }).toString(),
      });
    } else res = await go(next.href);
  }
  throw new Error('sign-in took too many redirects');
}

export const PASSWORDS = {
  'maria.keller': 'demo-maria',
  'jonas.weber': 'demo-jonas',
  'lea.fischer': 'demo-lea',
} as const;

/** The sandbox's legal entity as a team: Maria (maker, admin) and Jonas (maker, checker). */
export async function seedSandboxTeam(db: TeamDb, legalEntityId: string, name: string): Promise<void> {
  await seedTeam(db, {
    entities: [{ id: legalEntityId, name }],
    members: [
      { subject: 'maria.keller', name: 'Maria Keller', legalEntityId, roles: ['maker', 'admin'] },
      { subject: 'jonas.weber', name: 'Jonas Weber', legalEntityId, roles: ['maker', 'checker'] },
    ],
  });
}

/** Short backoffs for the workstations of the team tests. */
export const TEAM_TEST_OPTIONS = {
  feedRetry: { baseMs: 100, maxMs: 400 },
  outboxRetry: { baseMs: 100, maxMs: 400 },
  signInTimeoutMs: 20_000,
};

/**
 * Joins a workstation to the team as an analyst does: the team server's address approved in the
 * native dialog, the sign-in in the (scripted) system browser, then connected within 20 s.
 */
export async function joinTeam(
  t: TestServices,
  serverUrl: string,
  analyst: keyof typeof PASSWORDS,
): Promise<void> {
  const h = t.services.handlers;
  t.platform.nextConfirmAnswers.push(true);
  await h['team.setServer']({ url: serverUrl });
  const browsed: Promise<number>[] = [];
  t.platform.onOpenExternal = (url) => browsed.push(browseSignIn(url, analyst, PASSWORDS[analyst]));
  await h['team.signIn'](undefined);
  expect(await Promise.all(browsed)).toEqual([200]);
  // Used in beforeAll too (no expect.poll there).
  for (let i = 0; i < 200 && (await h['team.status'](undefined)).connection !== 'connected'; i += 1)
    await new Promise((r) => setTimeout(r, 100));
  expect((await h['team.status'](undefined)).connection).toBe('connected');
}

/**
 * The four-eyes scene of the send-lease and takeover tests: the legal entity as a team with Maria
 * as checker and admin and Jonas as maker; Maria's workstation joins as Maria and sets `rules`.
 */
export async function seedCheckerScene(
  db: TeamDb,
  maria: TestServices,
  serverUrl: string,
  entity: { id: string; name: string },
  rules: ApprovalRule[],
): Promise<void> {
  await seedTeam(db, {
    entities: [{ id: entity.id, name: entity.name }],
    members: [
      {
        subject: 'maria.keller',
        name: 'Maria Keller',
        legalEntityId: entity.id,
        roles: ['checker', 'admin'],
      },
      { subject: 'jonas.weber', name: 'Jonas Weber', legalEntityId: entity.id, roles: ['maker'] },
    ],
  });
  await joinTeam(maria, serverUrl, 'maria.keller');
  await maria.services.handlers['team.setApprovalRules']({ legalEntityId: entity.id, rules });
}

/** A checker's decision to approve, made on `t`'s workstation through its own profile. */
export function approveAnswer(
  t: TestServices,
  answer: { rfiId: string; questionId: string },
  approval: { approvalId: string; contentHash: string },
) {
  return t.services.handlers['team.decideApproval']({
    profileId: t.services.session.profile.id,
    ...answer,
    ...approval,
    decision: 'approve',
  });
}

/** A new account RFI of `t`'s embedded bank with one question: the account's purpose. */
export function purposeRfi(t: TestServices, description: string) {
  const le = t.services.sandbox!.fixtures.legal_entities[0]!;
  return staffOf(t.services).createRfi({
    type: 'account',
    related_id: le.accounts[0]!.id,
    description,
    questions: [{ question_type: 'transaction.purpose', question_text: 'Purpose of the account' }],
  });
}
