import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { lockable } from '../support/lockable-keyring';
import { keychainRuns } from '../support/keychain-runs';
import { tempDir } from '../support/services';
import type { TestServices } from '../support/services';

/**
 * Tokens entered while the keychain was locked are kept in memory and moved into it once it
 * answers. A sign-out or a profile removal while they are kept in memory, even during the move
 * itself, wins: the token is never written back into the keychain. The move is held at the
 * keychain write of the token (a gate in front of the real Secret Service) while the page deletes
 * it through its own API, so the race is the same on every run.
 */

const runs = keychainRuns();
const { real, newService, start } = runs;
afterEach(() => runs.cleanup());

/** A second profile of the embedded sandbox with its own token; answers its id. */
async function addBirch(t: TestServices, accounts: string[]): Promise<{ id: string; token: string }> {
  const h = t.services.handlers;
  const le = t.services.sandbox!.fixtures.legal_entities[1]!;
  t.platform.nextConfirmAnswers.push(true);
  const view = await h['settings.addProfile']({ name: 'Birch', baseUrl: t.services.sandbox!.url });
  const id = view.profiles.find((p) => p.name === 'Birch')!.id;
  accounts.push(id);
  await h['vault.setToken']({ profileId: id, token: le.tokens.admin });
  return { id, token: le.tokens.admin };
}

for (const how of ['sign-out', 'profile removal'] as const) {
  it(`a ${how} while the token is being moved into the keychain wins: the token is not written back`, async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const accounts: string[] = [];
    const service = newService(accounts);
    const keychain = lockable(real);
    const t = await start(dataDir, service, keychain.backend);
    const h = t.services.handlers;
    const birch = await addBirch(t, accounts);
    expect(t.services.vault.status().backend).toBe('memory');
    expect(await t.services.vault.get(birch.id)).toBe(birch.token);

    // The keychain answers; the move writes Birch's token and is held right there.
    keychain.unlock();
    const write = keychain.holdWrites(birch.id);
    const probe = h['vault.status'](undefined);
    await write.reached;
    // Meanwhile the page signs Birch out (or removes the profile) through its own API.
    if (how === 'sign-out') {
      const view = await h['vault.deleteToken']({ profileId: birch.id });
      expect(view.profiles.find((p) => p.id === birch.id)?.hasToken).toBe(false);
    } else {
      t.platform.nextConfirmAnswers.push(true);
      await h['settings.removeProfile']({ profileId: birch.id });
    }
    write.release();
    expect(await probe).toMatchObject({ backend: 'keychain', dataAtRest: 'encrypted' });

    // The delete won: not in the keychain, not in the vault; the other token moved as it should.
    expect(await real.get(service, birch.id)).toBeNull();
    expect(await t.services.vault.get(birch.id)).toBeNull();
    expect(await real.get(service, 'sandbox')).not.toBeNull();
    // Nor after a restart.
    await t.stop();
    const again = await start(dataDir, service);
    expect(await again.services.vault.get(birch.id)).toBeNull();
  }, 90_000);
}

it('a token the keychain held from an earlier run, signed out while it was locked, is deleted there once it answers', async () => {
  const dataDir = path.join(await tempDir(), 'data');
  const accounts: string[] = [];
  const service = newService(accounts);
  const first = await start(dataDir, service);
  const birch = await addBirch(first, accounts);
  expect(await real.get(service, birch.id)).toBe(birch.token);
  await first.stop();

  const keychain = lockable(real);
  const t = await start(dataDir, service, keychain.backend);
  // The sealed settings wait for the keychain too, so the page does not see Birch now: main's own
  // sign-out (the vault's contract every caller goes through) is what runs here.
  expect(await t.services.vault.delete(birch.id)).toBe(false);
  keychain.unlock();
  expect(await t.services.handlers['vault.status'](undefined)).toMatchObject({ backend: 'keychain' });
  expect(await real.get(service, birch.id)).toBeNull();
  // The settings are read again now (Birch is back in the list), without a token.
  expect(t.services.settings.get().profiles.map((p) => p.id)).toContain(birch.id);
  expect(await t.services.vault.get(birch.id)).toBeNull();
}, 90_000);
