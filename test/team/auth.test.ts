import { SignJWT, importJWK, generateKeyPair, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { client, startTeamStack, type TeamStack } from './support';

/**
 * The team server takes only the provider's access tokens for its audience: a token signed with
 * the provider's own key but for another issuer or audience, or expired, is refused, and so is
 * one signed with another key.
 */
let stack: TeamStack;
beforeAll(async () => {
  stack = await startTeamStack();
});
afterAll(async () => stack?.close());

async function forge(
  claims: { iss?: string; aud?: string; exp?: number; sub?: string },
  key?: CryptoKey,
): Promise<string> {
  const jwk = inject('teamSigningKey');
  const signing = key ?? ((await importJWK(jwk, 'ES256')) as CryptoKey);
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: 'team', client_id: 'treasury-desk' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: jwk.kid })
    .setSubject(claims.sub ?? 'maria.keller')
    .setIssuer(claims.iss ?? inject('teamIssuer'))
    .setAudience(claims.aud ?? inject('teamAudience'))
    .setIssuedAt(now - 60)
    .setExpirationTime(claims.exp ?? now + 300)
    .sign(signing);
}

describe('bearer tokens', () => {
  it('a token from the provider’s sign-in is accepted and names the analyst', async () => {
    const me = await stack.as('maria.keller').get('/v1/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      subject: 'maria.keller',
      name: 'Maria Keller',
      memberships: [
        { legalEntityId: 'le_demo_alder', legalEntityName: 'Alder Trade GmbH', roles: ['admin', 'maker'] },
      ],
    });
    const unknown = await stack.as('maria.keller').get('/v1/nothing-here');
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    // The forging helper itself makes tokens the server accepts: the refusals below are the claims'.
    expect((await client(stack.server.url, await forge({})).get('/v1/me')).status).toBe(200);
  });

  it('refuses a wrong issuer, a wrong audience, an expired token, another key and no token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const { privateKey } = await generateKeyPair('ES256');
    const cases: Record<string, string> = {
      issuer: await forge({ iss: 'http://127.0.0.1:1/other' }),
      audience: await forge({ aud: 'urn:somebody-else' }),
      expired: await forge({ exp: now - 120 }),
      key: await forge({}, privateKey),
    };
    for (const [what, token] of Object.entries(cases)) {
      const res = await client(stack.server.url, token).get('/v1/me');
      expect({
        what,
        status: res.status,
        code: (res.body as { error?: { code?: string } }).error?.code,
      }).toEqual({
        what,
        status: 401,
        code: 'unauthenticated',
      });
    }
    const none = await fetch(`${stack.server.url}/v1/me`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    const rows = await stack.sql.query('SELECT count(*)::int AS n FROM analysts');
    expect(rows.rows).toEqual([{ n: 3 }]);
  });
});
