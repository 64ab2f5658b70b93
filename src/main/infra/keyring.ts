/**
 * The OS keychain as the vault and the data key use it: get, set and delete a secret by service
 * and account. The real one is @napi-rs/keyring; tests and the no-keychain path pass others.
 */
import { AsyncEntry } from '@napi-rs/keyring';

export interface KeyringBackend {
  /** Human name of the store, e.g. "Secret Service". */
  readonly name: string;
  get(service: string, account: string): Promise<string | null>;
  set(service: string, account: string, secret: string): Promise<void>;
  /** true if something was deleted. */
  delete(service: string, account: string): Promise<boolean>;
}

function platformKeychainName(): string {
  if (process.platform === 'darwin') return 'macOS Keychain';
  if (process.platform === 'win32') return 'Windows Credential Manager';
  return 'Secret Service';
}

/** The real OS keychain through @napi-rs/keyring. On Linux it is pinned to the Secret Service. */
export function napiKeyringBackend(): KeyringBackend {
  const entry = (service: string, account: string): AsyncEntry =>
    new AsyncEntry(
      service,
      account,
      process.platform === 'linux' ? { linux: { store: 'secret-service' } } : undefined,
    );
  return {
    name: platformKeychainName(),
    get: (s, a) => entry(s, a).getPassword(),
    set: (s, a, secret) => entry(s, a).setPassword(secret),
    delete: (s, a) => entry(s, a).deleteCredential(),
  };
}

/** A keychain that is never there (the no-keychain path, e.g. Linux without Secret Service). */
export function unavailableKeyringBackend(reason = 'No Secret Service is running'): KeyringBackend {
  const fail = (): never => {
    throw new Error(reason);
  };
  return {
    name: platformKeychainName(),
    get: async () => fail(),
    set: async () => fail(),
    delete: async () => fail(),
  };
}
