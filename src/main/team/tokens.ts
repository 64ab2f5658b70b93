/**
 * The team access token, kept in main's memory only and renewed with the keychain's refresh token
 * when it is about to expire or the server refused it (one renewal at a time). A refresh token the
 * provider no longer accepts (`invalid_grant`) ends the sign-in; a provider that cannot be reached
 * counts as the team being unreachable (retried), never as a sign-out.
 */
import type { TeamConfig } from '../../shared/team/config';
import type { Logger } from '../infra/log';
import { TeamUnreachable } from './api';
import type { TeamCredential } from './credential';
import type { TeamOidc, TeamTokens } from './oidc';

const REFRESH_MARGIN_MS = 30_000;

export interface TokenKeeperDeps {
  config(): TeamConfig | null;
  credential: TeamCredential;
  log: Logger;
  oidc(config: TeamConfig): TeamOidc;
  /** The refresh token was refused: the analyst must sign in again. */
  onExpired(): Promise<void>;
}

export interface TokenKeeper {
  accessToken(renew: boolean): Promise<string | null>;
  /** A fresh sign-in: the access token to memory, the refresh token to the keychain. */
  signedIn(tokens: TeamTokens): Promise<void>;
  forget(): void;
}

export function createTokenKeeper(deps: TokenKeeperDeps): TokenKeeper {
  let access: { token: string; expiresAt: number } | null = null;
  let refreshing: Promise<string | null> | null = null;

  const renew = async (): Promise<string | null> => {
    const config = deps.config();
    const refreshToken = await deps.credential.get();
    if (!config || !refreshToken) return null;
    try {
      const t = await deps.oidc(config).refresh(refreshToken);
      deps.log.addSecret(t.accessToken);
      access = { token: t.accessToken, expiresAt: t.expiresAt };
      if (t.refreshToken && t.refreshToken !== refreshToken) await deps.credential.set(t.refreshToken);
      return t.accessToken;
    } catch (err) {
      if ((err as { error?: unknown }).error === 'invalid_grant') {
        access = null;
        await deps.onExpired();
        return null;
      }
      throw new TeamUnreachable('The team’s sign-in provider could not be reached.', { cause: err });
    }
  };

  return {
    async accessToken(force) {
      if (access && !force && access.expiresAt - REFRESH_MARGIN_MS > Date.now()) return access.token;
      refreshing ??= renew().finally(() => {
        refreshing = null;
      });
      return refreshing;
    },
    async signedIn(tokens) {
      deps.log.addSecret(tokens.accessToken);
      access = { token: tokens.accessToken, expiresAt: tokens.expiresAt };
      if (tokens.refreshToken) await deps.credential.set(tokens.refreshToken);
    },
    forget() {
      access = null;
    },
  };
}
