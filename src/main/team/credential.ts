/**
 * The team sign-in's refresh token in the OS keychain (one entry per data folder's keyring
 * service, account `team-refresh-token`). Nothing else of the sign-in is stored: the access token
 * lives in main's memory only. Without a usable keychain the refresh token is kept in memory for
 * this run (the analyst signs in again after a restart), never written to disk.
 */
import type { KeyringBackend } from '../infra/keyring';
import type { Logger } from '../infra/log';

const ACCOUNT = 'team-refresh-token';

export interface TeamCredential {
  get(): Promise<string | null>;
  set(refreshToken: string): Promise<void>;
  /** Sign-out: the keychain entry is deleted. */
  delete(): Promise<void>;
}

export function keychainTeamCredential(
  backend: KeyringBackend,
  service: string,
  log: Logger,
): TeamCredential {
  let memory: string | null = null;
  return {
    async get() {
      try {
        return (await backend.get(service, ACCOUNT)) ?? memory;
      } catch (err) {
        log.warn('team: keychain not readable; the sign-in lasts for this run only', { error: err });
        return memory;
      }
    },
    async set(token) {
      log.addSecret(token);
      try {
        await backend.set(service, ACCOUNT, token);
        memory = null;
      } catch (err) {
        log.warn('team: keychain not writable; the sign-in lasts for this run only', { error: err });
        memory = token;
      }
    },
    async delete() {
      memory = null;
      try {
        await backend.delete(service, ACCOUNT);
      } catch (err) {
        log.warn('team: keychain entry could not be deleted', { error: err });
      }
    },
  };
}
