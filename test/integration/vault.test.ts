import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { AsyncEntry } from '@napi-rs/keyring';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/main/infra/vault';
import { napiKeyringBackend, unavailableKeyringBackend } from '../../src/main/infra/keyring';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { startServices } from '../support/services';

/**
 * The token vault against the real OS keychain: `npm run test:unit` runs under
 * scripts/with-keyring.sh, which provides a Secret Service (dbus + gnome-keyring).
 */
const run = promisify(execFile);
const service = `treasury-desk-test-${randomUUID()}`;
const raw = (account: string) => new AsyncEntry(service, account, { linux: { store: 'secret-service' } });

beforeAll(() => {
  if (process.platform === 'linux' && !process.env['DBUS_SESSION_BUS_ADDRESS']) {
    throw new Error(
      'No session bus: run the keychain tests under scripts/with-keyring.sh (npm run test:unit does).',
    );
  }
});

describe('token vault on the real keychain', () => {
  const sink = memorySink();
  const log = createLogger(sink);
  afterAll(async () => {
    await raw('bank-1')
      .deleteCredential()
      .catch(() => false);
  });

  it('uses the keychain, and set / replace / delete go to it', async () => {
    const vault = await openVault({ backend: napiKeyringBackend(), log, service });
    expect(vault.status()).toMatchObject({ backend: 'keychain', available: true, problem: null });

    expect(await vault.get('bank-1')).toBeNull();
    await vault.set('bank-1', 'first-token-aaaaaaaa');
    expect(await raw('bank-1').getPassword()).toBe('first-token-aaaaaaaa'); // really in the Secret Service
    expect(await vault.get('bank-1')).toBe('first-token-aaaaaaaa');

    await vault.replace('bank-1', '  second-token-bbbbbbbb \n');
    expect(await raw('bank-1').getPassword()).toBe('second-token-bbbbbbbb');
    expect(await vault.has('bank-1')).toBe(true);

    // A new vault (a restart) finds it.
    const again = await openVault({ backend: napiKeyringBackend(), log, service });
    expect(await again.get('bank-1')).toBe('second-token-bbbbbbbb');

    expect(await vault.delete('bank-1')).toBe(true);
    expect(await raw('bank-1').getPassword()).toBeNull();
    expect(await vault.get('bank-1')).toBeNull();
    expect(await vault.delete('bank-1')).toBe(false);
  });

  it('announces a stored or removed token only once the keychain holds or has dropped it', async () => {
    const vault = await openVault({ backend: napiKeyringBackend(), log, service });
    const seen: Array<{ profileId: string; inKeychain: string | null }> = [];
    const pending: Array<Promise<void>> = [];
    const off = vault.onChange((profileId) => {
      // What a listener (the desk deciding whom to watch) reads at that moment.
      pending.push(
        raw(profileId)
          .getPassword()
          .then((inKeychain) => void seen.push({ profileId, inKeychain: inKeychain ?? null })),
      );
    });
    await vault.set('bank-1', 'announced-token-cccccccc');
    await Promise.all(pending);
    await vault.delete('bank-1');
    await Promise.all(pending);
    expect(seen).toEqual([
      { profileId: 'bank-1', inKeychain: 'announced-token-cccccccc' },
      { profileId: 'bank-1', inKeychain: null },
    ]);
    off();
    await vault.set('bank-1', 'unheard-token-dddddddd');
    await vault.delete('bank-1');
    expect(seen).toHaveLength(2);
  });

  it('one entry per profile', async () => {
    const vault = await openVault({ backend: napiKeyringBackend(), log, service });
    await vault.set('p-one', 'token-one-11111111');
    await vault.set('p-two', 'token-two-22222222');
    expect(await vault.get('p-one')).toBe('token-one-11111111');
    expect(await vault.get('p-two')).toBe('token-two-22222222');
    await vault.delete('p-one');
    expect(await vault.get('p-two')).toBe('token-two-22222222');
    await vault.delete('p-two');
  });

  it('refuses a malformed token or profile id with a clear error', async () => {
    const vault = await openVault({ backend: napiKeyringBackend(), log, service });
    await expect(vault.set('bank-1', 'short')).rejects.toMatchObject({
      kind: 'invalid_argument',
      field: 'token',
    });
    await expect(vault.set('bank-1', 'has a space inside')).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
    await expect(vault.set('../etc', 'good-token-12345678')).rejects.toMatchObject({
      kind: 'invalid_argument',
      field: 'profileId',
    });
  });

  it('never logs the token', () => {
    const text = JSON.stringify(sink.records);
    for (const t of [
      'first-token-aaaaaaaa',
      'second-token-bbbbbbbb',
      'token-one-11111111',
      'token-two-22222222',
    ]) {
      expect(text).not.toContain(t);
    }
  });
});

describe('no keychain available', () => {
  it('says so clearly and keeps tokens in memory until the keychain answers', async () => {
    const sink = memorySink();
    const log = createLogger(sink);
    const vault = await openVault({
      backend: unavailableKeyringBackend('org.freedesktop.secrets was not provided'),
      log,
      service,
    });
    const status = vault.status();
    expect(status.backend).toBe('memory');
    expect(status.available).toBe(false);
    expect(status.problem).toContain('not available');
    expect(status.problem).toContain('kept in memory until it answers');
    expect(status.problem).toContain('entered again if Treasury Desk closes first');
    await vault.set('bank-1', 'memory-token-cccccccc');
    expect(await vault.get('bank-1')).toBe('memory-token-cccccccc');
    await vault.set('bank-1', 'memory-token-dddddddd');
    expect(await vault.get('bank-1')).toBe('memory-token-dddddddd');
    expect(await vault.delete('bank-1')).toBe(true);
    expect(await vault.get('bank-1')).toBeNull();
    await vault.set('bank-1', 'memory-token-eeeeeeee');
    // A restart forgets it: nothing was written anywhere.
    const restarted = await openVault({ backend: unavailableKeyringBackend(), log, service });
    expect(await restarted.get('bank-1')).toBeNull();
    expect(sink.records.some((r) => r.level === 'warn' && r.message.includes('no keychain'))).toBe(true);
  });

  it('the services report it over IPC and never write the token to the data folder', async () => {
    const t = await startServices({ keyring: unavailableKeyringBackend() });
    try {
      const status = await t.services.handlers['vault.status'](undefined);
      expect(status.backend).toBe('memory');
      t.platform.nextConfirmAnswers.push(true); // replacing the seeded token is confirmed natively
      const view = await t.services.handlers['vault.setToken']({
        profileId: 'sandbox',
        token: 'in-memory-only-token-42',
      });
      expect(view.vault.available).toBe(false);
      expect(view.profiles.find((p) => p.id === 'sandbox')?.hasToken).toBe(true);
      for (const f of await readdir(t.dataDir, { recursive: true })) {
        const full = path.join(t.dataDir, f);
        const text = await readFile(full, 'utf8').catch(() => '');
        expect(text, f).not.toContain('in-memory-only-token-42');
      }
    } finally {
      await t.close();
    }
  });

  it('the real keychain backend without a session bus (Linux without Secret Service) falls back, in a child process', async () => {
    const env = { ...process.env };
    delete env['DBUS_SESSION_BUS_ADDRESS'];
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', path.join(import.meta.dirname, 'support/vault-probe.ts')],
      {
        env,
        cwd: path.resolve(import.meta.dirname, '../..'),
        timeout: 20_000,
      },
    );
    const out = JSON.parse(stdout) as {
      status: { backend: string; available: boolean; problem: string };
      roundTrip: boolean;
    };
    expect(out.status.backend).toBe('memory');
    expect(out.status.available).toBe(false);
    expect(out.status.problem).toMatch(/Secret Service|keychain/);
    expect(out.roundTrip).toBe(true);
  });
});

describe('vault cache', () => {
  it('a read that raced a sign-out does not bring the old token back', async () => {
    let release: () => void = () => undefined;
    const store = new Map<string, string>([['p', 'old-token-12345678']]);
    let slowNext = false;
    const backend = {
      name: 'Slow keychain',
      get: async (_s: string, a: string) => {
        const value = store.get(a) ?? null; // read now, answer later
        if (slowNext) {
          slowNext = false;
          await new Promise<void>((r) => (release = r));
        }
        return value;
      },
      set: async (_s: string, a: string, v: string) => void store.set(a, v),
      delete: async (_s: string, a: string) => store.delete(a),
    };
    const vault = await openVault({ backend, log: createLogger(memorySink()), service: 'race' });
    slowNext = true;
    const racing = vault.get('p'); // stalls holding the old value
    await vault.delete('p');
    release();
    await racing;
    expect(await vault.get('p')).toBeNull();
    expect(await vault.has('p')).toBe(false);
  });
});
