import type { KeyringBackend } from '../../src/main/infra/keyring';

/**
 * An in-process keychain for tests that are about something else than the Secret Service (the
 * real one is exercised by test/integration/vault.test.ts and every test that leaves `keyring`
 * unset). `entries` is keyed `<service>\u0000<account>`, so a test can plant a legacy entry.
 */
export function memoryKeyring(): KeyringBackend & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    name: 'test keychain',
    entries,
    get: async (s, a) => entries.get(`${s}\u0000${a}`) ?? null,
    set: async (s, a, secret) => void entries.set(`${s}\u0000${a}`, secret),
    delete: async (s, a) => entries.delete(`${s}\u0000${a}`),
  };
}
