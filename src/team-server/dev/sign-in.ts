/**
 * Signs a demo analyst in at the development provider the way a workstation does (authorization
 * code with PKCE, loopback redirect), but without a browser: it follows the provider's redirects,
 * submits the sign-in form and exchanges the code. For `npm run team:dev` and the tests.
 */
import { createHash, randomBytes } from 'node:crypto';
import { DESK_CLIENT_ID, TEAM_SCOPE } from './demo-team';
import type { DevOidcProvider } from './oidc';

/** The cookies of one browser session (the provider's interaction cookies). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (pair && eq > 0) this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** Requests as a browser makes them in one session: its cookies sent and kept, redirects seen. */
export function browserFetch(jar: CookieJar): (url: string, init?: RequestInit) => Promise<Response> {
  return async (url, init = {}) => {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: jar.header() },
    });
    jar.take(res);
    return res;
  };
}

export interface SignedIn {
  accessToken: string;
  idToken: string;
  expiresIn: number;
}

export async function signIn(
  provider: Pick<DevOidcProvider, 'issuer' | 'audience'>,
  subject: string,
  password: string,
): Promise<SignedIn> {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(16).toString('base64url');
  const redirectUri = 'http://127.0.0.1:53682/callback';
  const jar = new CookieJar();
  const auth = new URL('/auth', provider.issuer);
  auth.search = new URLSearchParams({
    client_id: DESK_CLIENT_ID,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: `openid profile email ${TEAM_SCOPE}`,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    resource: provider.audience,
  }).toString();

  const go = browserFetch(jar);
  let res = await go(auth.href);
  for (let hop = 0; hop < 10; hop += 1) {
    const location = res.headers.get('location');
    if (res.status === 401) throw new Error(`the provider refused ${subject}'s sign-in`);
    if (!location) throw new Error(`sign-in stopped at ${res.status}: ${await res.text()}`);
    const next = new URL(location, provider.issuer);
    if (next.href.startsWith(redirectUri)) {
      if (next.searchParams.get('state') !== state) throw new Error('sign-in answered another state');
      const code = next.searchParams.get('code');
      if (!code)
        throw new Error(
          `sign-in failed: ${next.searchParams.get('error') ?? 'no code'} ${next.searchParams.get('error_description') ?? ''}`,
        );
      const token = await fetch(new URL('/token', provider.issuer), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          client_id: DESK_CLIENT_ID,
          code_verifier: verifier,
          resource: provider.audience,
        }),
      });
      const body = (await token.json()) as {
        access_token?: string;
        id_token?: string;
        expires_in?: number;
        error?: string;
      };
      if (!token.ok || !body.access_token)
        throw new Error(`token exchange failed: ${body.error ?? token.status}`);
      return {
        accessToken: body.access_token,
        idToken: body.id_token ?? '',
        expiresIn: body.expires_in ?? 0,
      };
    }
    if (next.pathname.startsWith('/interaction/')) {
      await go(next.href);
      res = await go(next.href, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ login: subject, password, decision: 'allow' }).toString(),
      });
    } else {
      res = await go(next.href);
    }
  }
  throw new Error('sign-in took too many redirects');
}
