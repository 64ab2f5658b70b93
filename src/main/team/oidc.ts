/**
 * Signing in to the team: OpenID Connect authorization code with PKCE through `openid-client`
 * (a certified relying party), in the system browser with a loopback redirect (RFC 8252): main
 * listens on 127.0.0.1 on a port the system picks for this one sign-in, hands the provider's
 * authorization URL to the browser, and takes the code the browser brings back. openid-client
 * checks the state, the nonce, the ID token (issuer, audience, signature) and the PKCE verifier.
 * The tokens stay in main: the refresh token goes to the keychain, the access token to memory.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import { AppFailure } from '../../shared/ipc/errors';
import type { TeamConfig } from '../../shared/team/config';
import { isLoopbackHost } from '../infra/origins';

export interface TeamTokens {
  accessToken: string;
  /** Epoch ms when the access token expires. */
  expiresAt: number;
  refreshToken: string | null;
}

export interface TeamOidc {
  /** Runs the browser sign-in; `open` shows the authorization URL in the system browser. */
  signIn(
    open: (url: string) => void | Promise<void>,
    opts?: { timeoutMs?: number; signal?: AbortSignal },
  ): Promise<TeamTokens>;
  /** A new access token from the refresh token (the provider may rotate the refresh token). */
  refresh(refreshToken: string): Promise<TeamTokens>;
}

/** The scopes asked for: the ID token and name, a refresh token, and the team server's own scope. */
const SCOPE = 'openid profile offline_access team';

function signInFailure(message: string, cause?: unknown): AppFailure {
  return new AppFailure({ kind: 'unauthenticated', reason: 'TEAM_SIGN_IN_FAILED', message }, { cause });
}

function page(res: ServerResponse, status: number, title: string, text: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'",
  });
  res.end(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1><p>${text}</p></main></body></html>`,
  );
}

export function createTeamOidc(config: TeamConfig): TeamOidc {
  const issuer = new URL(config.issuer);
  const insecureAllowed = issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname);
  if (issuer.protocol !== 'https:' && !insecureAllowed)
    throw signInFailure('The team’s sign-in provider must use https (plain http only on this machine).');
  let discovered: Promise<oidc.Configuration> | null = null;
  const configuration = (): Promise<oidc.Configuration> => {
    discovered ??= oidc
      .discovery(issuer, config.clientId, undefined, oidc.None(), {
        ...(insecureAllowed ? { execute: [oidc.allowInsecureRequests] } : {}),
        timeout: 15,
      })
      .catch((err: unknown) => {
        discovered = null;
        throw err;
      });
    return discovered;
  };
  const tokensOf = (res: oidc.TokenEndpointResponse): TeamTokens => ({
    accessToken: res.access_token,
    expiresAt: Date.now() + (res.expires_in ?? 300) * 1000,
    refreshToken: res.refresh_token ?? null,
  });

  return {
    async signIn(open, opts = {}) {
      const cfg = await configuration().catch((err: unknown) => {
        throw new AppFailure(
          {
            kind: 'offline',
            reason: 'TEAM_PROVIDER_UNREACHABLE',
            message: 'The team’s sign-in provider could not be reached.',
          },
          { cause: err },
        );
      });
      const verifier = oidc.randomPKCECodeVerifier();
      const challenge = await oidc.calculatePKCECodeChallenge(verifier);
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      let settle: { ok(url: URL): void; fail(err: unknown): void } | null = null;
      const arrived = new Promise<URL>((ok, fail) => (settle = { ok, fail }));
      const server = createServer((req: IncomingMessage, res: ServerResponse) => {
        const url = new URL(req.url ?? '/', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
        if (req.method !== 'GET' || url.pathname !== '/callback')
          return page(res, 404, 'Not found', 'Nothing here.');
        if (url.searchParams.get('state') !== state) {
          // Another page's request: refuse it and keep waiting for ours.
          return page(
            res,
            400,
            'Sign-in not recognised',
            'This answer does not belong to the sign-in Treasury Desk started.',
          );
        }
        const failed = url.searchParams.get('error');
        page(
          res,
          200,
          failed ? 'Sign-in did not complete' : 'Signed in to the team',
          failed
            ? 'Return to Treasury Desk and try again.'
            : 'You can close this tab and return to Treasury Desk.',
        );
        settle?.ok(url);
      });
      await new Promise<void>((ok, fail) => {
        server.once('error', fail);
        server.listen(0, '127.0.0.1', () => ok());
      });
      const port = (server.address() as AddressInfo).port;
      const redirectUri = `http://127.0.0.1:${port}/callback`;
      const timer = setTimeout(
        () => settle?.fail(signInFailure('The sign-in was not completed in the browser in time. Try again.')),
        opts.timeoutMs ?? 5 * 60_000,
      );
      const onAbort = (): void => settle?.fail(signInFailure('The sign-in was cancelled.'));
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const authUrl = oidc.buildAuthorizationUrl(cfg, {
          redirect_uri: redirectUri,
          scope: SCOPE,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          state,
          nonce,
          resource: config.audience,
          // Consent is what makes the provider grant offline_access (a refresh token).
          prompt: 'consent',
        });
        await open(authUrl.href);
        const callback = await arrived;
        const error = callback.searchParams.get('error');
        if (error)
          throw signInFailure(
            `The sign-in provider refused the sign-in (${(callback.searchParams.get('error_description') ?? error).slice(0, 200)}).`,
          );
        const res = await oidc
          .authorizationCodeGrant(
            cfg,
            callback,
            { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true },
            { resource: config.audience },
          )
          .catch((err: unknown) => {
            throw signInFailure('The sign-in provider’s answer could not be verified. Try again.', err);
          });
        return tokensOf(res);
      } finally {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        server.closeAllConnections();
        server.close();
      }
    },
    async refresh(refreshToken) {
      const cfg = await configuration();
      const res = await oidc.refreshTokenGrant(cfg, refreshToken, { resource: config.audience });
      const tokens = tokensOf(res);
      return { ...tokens, refreshToken: tokens.refreshToken ?? refreshToken };
    },
  };
}
