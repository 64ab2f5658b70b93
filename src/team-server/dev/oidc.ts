/**
 * The development OpenID Connect provider: `oidc-provider` (a certified implementation) with the
 * three demo analysts, one public native client (`treasury-desk`: authorization code with PKCE,
 * any loopback redirect port, RFC 8252) and JWT access tokens for the team server's audience,
 * signed with an ES256 key made for this run. Its sign-in page is a small form of ours (the
 * provider leaves interactions to the host); the workstation's own client is outside this file.
 * For `npm run team:dev` and the tests only: never a production identity provider.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider, { errors as oidcErrors, type Configuration } from 'oidc-provider';
import { DEMO_ANALYSTS, DESK_CLIENT_ID, TEAM_SCOPE, type DemoAnalyst } from './demo-team';
import { freePort } from './postgres-cluster';

export { DEMO_ANALYSTS, DESK_CLIENT_ID, TEAM_SCOPE };

export interface DevOidcProvider {
  issuer: string;
  /** The team server's resource identifier: the `aud` of the access tokens. */
  audience: string;
  /** The provider's signing key (private): tests forge tokens with wrong claims with it. */
  signingKey: JWK;
  close(): Promise<void>;
}

function html(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function loginPage(analysts: readonly DemoAnalyst[], uid: string, error?: string): string {
  const options = analysts.map((a) => `<option value="${html(a.subject)}">${html(a.name)}</option>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Treasury Desk team sign-in (development)</title></head>
<body><main><h1>Sign in to the team (development provider)</h1>
${error ? `<p role="alert">${html(error)}</p>` : ''}
<form method="post" action="/interaction/${html(uid)}">
<label>Analyst <select name="login">${options}</select></label>
<label>Password <input type="password" name="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button></form></main></body></html>`;
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of req) {
    body += String(chunk);
    if (body.length > 10_000) throw new Error('form too large');
  }
  return new URLSearchParams(body);
}

function consentPage(uid: string, name: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Allow Treasury Desk (development)</title></head>
<body><main><h1>Allow Treasury Desk to act for ${html(name)} in the team?</h1>
<p>It will read and change the team's assignments, approvals, send jobs and activity in your name.</p>
<form method="post" action="/interaction/${html(uid)}"><input type="hidden" name="decision" value="allow">
<button type="submit">Allow</button></form></main></body></html>`;
}

function page(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(body);
}

/**
 * The provider's two interactions: sign-in (checked against the demo analysts) and consent
 * (asked every time for a native client, as the provider requires, since any app can listen on
 * a loopback port).
 */
async function interaction(
  provider: Provider,
  audience: string,
  analysts: readonly DemoAnalyst[],
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const { uid, prompt, params, session, grantId } = details;
  if (prompt.name === 'login') {
    if (req.method === 'GET') return page(res, 200, loginPage(analysts, uid));
    const form = await readForm(req);
    const analyst = analysts.find(
      (a) => a.subject === form.get('login') && a.password === form.get('password'),
    );
    if (!analyst) return page(res, 401, loginPage(analysts, uid, 'Wrong analyst or password.'));
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: analyst.subject } },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  const accountId = session?.accountId;
  const analyst = analysts.find((a) => a.subject === accountId);
  if (prompt.name !== 'consent' || !accountId || !analyst) {
    await provider.interactionFinished(req, res, {
      error: 'access_denied',
      error_description: 'unexpected sign-in step',
    });
    return;
  }
  if (req.method === 'GET') return page(res, 200, consentPage(uid, analyst.name));
  const form = await readForm(req);
  if (form.get('decision') !== 'allow') {
    await provider.interactionFinished(req, res, {
      error: 'access_denied',
      error_description: 'the analyst declined',
    });
    return;
  }
  const grant =
    (grantId ? await provider.Grant.find(grantId) : undefined) ??
    new provider.Grant({ accountId, clientId: String(params['client_id']) });
  const missing = prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  grant.addOIDCScope('openid profile email');
  grant.addResourceScope(audience, TEAM_SCOPE);
  const saved = await grant.save();
  await provider.interactionFinished(
    req,
    res,
    { consent: { grantId: saved } },
    { mergeWithLastSubmission: true },
  );
}

export async function startDevOidcProvider(
  opts: {
    port?: number;
    audience?: string;
    accessTokenTtlSeconds?: number;
    /** Who may sign in (the three demo analysts unless given: the bench signs in fifty). */
    analysts?: readonly DemoAnalyst[];
  } = {},
): Promise<DevOidcProvider> {
  const analysts = opts.analysts ?? DEMO_ANALYSTS;
  const port = opts.port || (await freePort());
  const issuer = `http://127.0.0.1:${port}`;
  const audience = opts.audience ?? 'urn:treasury-desk:team';
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const signingKey: JWK = {
    ...(await exportJWK(privateKey)),
    kid: `dev-${randomBytes(6).toString('hex')}`,
    alg: 'ES256',
    use: 'sig',
  };
  const ttl = opts.accessTokenTtlSeconds ?? 600;

  const configuration: Configuration = {
    clients: [
      {
        client_id: DESK_CLIENT_ID,
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        id_token_signed_response_alg: 'ES256',
      },
    ],
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    pkce: { required: () => true },
    scopes: ['openid', 'profile', 'email', 'offline_access'],
    claims: { openid: ['sub'], profile: ['name'], email: ['email'] },
    features: {
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== audience) throw new oidcErrors.InvalidTarget();
          return {
            scope: TEAM_SCOPE,
            audience,
            accessTokenTTL: ttl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    findAccount: (_ctx, id) => {
      const a = analysts.find((x) => x.subject === id);
      if (!a) return undefined;
      return { accountId: a.subject, claims: () => ({ sub: a.subject, name: a.name, email: a.email }) };
    },
    extraTokenClaims: (_ctx, token) => {
      const a = analysts.find((x) => x.subject === (token as { accountId?: string }).accountId);
      return a ? { name: a.name } : undefined;
    },
    ttl: {
      AccessToken: ttl,
      AuthorizationCode: 60,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
      IdToken: ttl,
      RefreshToken: 8 * 3600,
    },
    renderError: (ctx, out) => {
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = `${out.error}: ${out.error_description ?? ''}`;
    },
  };
  const provider = new Provider(issuer, configuration);
  const callback = provider.callback();
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      interaction(provider, audience, analysts, req, res).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(err instanceof Error ? err.message : 'sign-in failed');
      });
      return;
    }
    callback(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    issuer,
    audience,
    signingKey,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
