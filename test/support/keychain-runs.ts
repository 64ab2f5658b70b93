import { randomUUID } from 'node:crypto';
import { DATA_KEY_ACCOUNT } from '../../src/main/infra/data-key';
import { GENERATION_ACCOUNT } from '../../src/main/infra/generations';
import { napiKeyringBackend } from '../../src/main/infra/keyring';
import type { KeyringBackend } from '../../src/main/infra/keyring';
import { startServices } from './services';
import type { TestServices } from './services';

/**
 * Runs of the real services against the real Secret Service (scripts/with-keyring.sh), each test
 * under a keychain service of its own, and everything they left there removed afterwards.
 */
export function keychainRuns(): {
  real: KeyringBackend;
  /** A fresh keychain service; `accounts` lists the profile ids whose tokens go with it. */
  newService(accounts?: string[]): string;
  /** Services on `dataDir`, asking a keychain that did not answer again only when told. */
  start(dataDir: string, service: string, keyring?: KeyringBackend): Promise<TestServices>;
  /** Closes every run (the newest first) and removes their keychain entries. */
  cleanup(): Promise<void>;
} {
  if (process.platform === 'linux' && !process.env['DBUS_SESSION_BUS_ADDRESS']) {
    throw new Error('No session bus: run the keychain tests under scripts/with-keyring.sh.');
  }
  const real = napiKeyringBackend();
  const services: Array<{ service: string; accounts: string[] }> = [];
  const running: TestServices[] = [];
  return {
    real,
    newService(accounts = []) {
      const service = `treasury-desk-test/${randomUUID()}`;
      services.push({ service, accounts });
      return service;
    },
    async start(dataDir, service, keyring = real) {
      const t = await startServices({
        dataDir,
        keyring,
        keyringService: service,
        keychainReprobeMs: 3_600_000,
      });
      running.push(t);
      return t;
    },
    async cleanup() {
      // An older run of the same folder is stopped already; the newest removes the folder.
      for (const t of running.splice(0).reverse()) await t.close();
      for (const { service, accounts } of services.splice(0)) {
        for (const a of [...accounts, 'sandbox', DATA_KEY_ACCOUNT, GENERATION_ACCOUNT]) {
          await real.delete(service, a).catch(() => false);
        }
      }
    },
  };
}
