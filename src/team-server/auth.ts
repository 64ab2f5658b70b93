/**
 * Bearer tokens: JWT access tokens of the team's OpenID provider, checked with `jose` against
 * the provider's published keys (its JWKS, found by discovery and cached by jose), for the
 * provider's issuer, the team server's audience, a current `exp` and an asymmetric algorithm.
 * The analyst is the token's `sub`; what they may do is in the team database, not the token.
 */
import { createRemoteJWKSet, jwtVerify, errors as joseErrors, type JWTVerifyGetKey } from 'jose';

export interface AuthOptions {
  /** The provider's issuer, exactly as in its tokens. */
  issuer: string;
  /** The team server's resource identifier (the tokens' `aud`). */
  audience: string;
  /** The provider's JWKS; found by OpenID discovery when absent. */
  jwksUrl?: string;
  /** Allowed clock difference, in seconds. */
  clockToleranceSeconds?: number;
}

export interface Caller {
  subject: string;
  name: string | null;
}

export class AuthError extends Error {}

export interface TokenVerifier {
  verify(authorization: string | undefined): Promise<Caller>;
}

async function discoverJwks(issuer: string): Promise<string> {
  const res = await fetch(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`);
  if (!res.ok) throw new Error(`OpenID discovery at ${issuer} answered ${res.status}`);
  const doc = (await res.json()) as { issuer?: unknown; jwks_uri?: unknown };
  if (doc.issuer !== issuer) throw new Error(`OpenID discovery at ${issuer} names another issuer`);
  if (typeof doc.jwks_uri !== 'string') throw new Error(`OpenID discovery at ${issuer} gives no jwks_uri`);
  return doc.jwks_uri;
}

export async function createTokenVerifier(options: AuthOptions): Promise<TokenVerifier> {
  const jwksUrl = options.jwksUrl ?? (await discoverJwks(options.issuer));
  const keys: JWTVerifyGetKey = createRemoteJWKSet(new URL(jwksUrl), { cooldownDuration: 30_000 });
  return {
    async verify(authorization) {
      const m = /^Bearer ([A-Za-z0-9_.-]+)$/.exec(authorization ?? '');
      if (!m?.[1]) throw new AuthError('a bearer token is required');
      try {
        const { payload } = await jwtVerify(m[1], keys, {
          issuer: options.issuer,
          audience: options.audience,
          algorithms: ['ES256', 'RS256', 'PS256', 'EdDSA'],
          clockTolerance: options.clockToleranceSeconds ?? 5,
          requiredClaims: ['sub', 'exp', 'iat'],
        });
        if (typeof payload.sub !== 'string' || payload.sub === '')
          throw new AuthError('the token names no analyst');
        const name = typeof payload['name'] === 'string' ? payload['name'] : null;
        return { subject: payload.sub, name };
      } catch (err) {
        if (err instanceof AuthError) throw err;
        if (err instanceof joseErrors.JOSEError) throw new AuthError(`token refused: ${err.code}`);
        throw err;
      }
    },
  };
}
