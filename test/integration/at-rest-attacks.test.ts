import { randomUUID } from 'node:crypto';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AsyncEntry } from '@napi-rs/keyring';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSealed } from '../../src/main/infra/at-rest';
import { DATA_KEY_ACCOUNT } from '../../src/main/infra/data-key';
import { GENERATION_ACCOUNT } from '../../src/main/infra/generations';
import { napiKeyringBackend, unavailableKeyringBackend } from '../../src/main/infra/keyring';
import { AppFailure } from '../../src/shared/ipc/errors';
import { startServices, tempDir } from '../support/services';
import { filesUnder } from '../support/files';
import { lockable } from '../support/lockable-keyring';
import { staffOf } from '../support/sandbox-staff';

/**
 * Sealed files attacked by a local process that can write the data folder (issue: rollback, swap)
 * and by keychain trouble (locked at start, garbled data key), with the real Secret Service (run
 * under scripts/with-keyring.sh).
 */

beforeAll(() => {
  if (process.platform === 'linux' && !process.env['DBUS_SESSION_BUS_ADDRESS']) {
    throw new Error('No session bus: run the keychain tests under scripts/with-keyring.sh.');
  }
});

const services: string[] = [];
const entry = (service: string, account: string): AsyncEntry =>
  new AsyncEntry(
    service,
    account,
    process.platform === 'linux' ? { linux: { store: 'secret-service' } } : undefined,
  );
afterAll(async () => {
  for (const s of services) {
    for (const a of [DATA_KEY_ACCOUNT, GENERATION_ACCOUNT, 'sandbox'])
      await entry(s, a)
        .deleteCredential()
        .catch(() => false);
  }
});
const newService = (): string => {
  const s = `treasury-desk-test-${randomUUID()}`;
  services.push(s);
  return s;
};

const problemsAbout = (t: Awaited<ReturnType<typeof startServices>>, file: string): string[] =>
  t.services.stores
    .problems()
    .filter((p) => p.file === file)
    .map((p) => p.message);

describe('sealed files bound to their path and generation', () => {
  it('an older sealed settings.json put back (rollback) is refused and reported, not used', async () => {
    const dataDir = await tempDir();
    const keyringService = newService();
    let t = await startServices({ dataDir, keyringService });
    t.services.settings.addProfile({ name: 'Bank One', baseUrl: 'https://one.bank.example' });
    const settingsFile = path.join(dataDir, 'settings.json');
    const older = await readFile(settingsFile);
    expect(isSealed(older)).toBe(true);
    t.services.settings.addProfile({ name: 'Bank Two', baseUrl: 'https://two.bank.example' });
    await t.stop();
    await writeFile(settingsFile, older);

    t = await startServices({ dataDir, keyringService });
    try {
      const messages = problemsAbout(t, 'settings.json');
      expect(messages).toEqual([expect.stringMatching(/rolled back/)]);
      // The older copy was not taken for the current settings.
      expect(t.services.settings.get().profiles.map((p) => p.name)).not.toContain('Bank One');
    } finally {
      await t.close();
    }
  });

  it('one sealed file copied over another (swap) is refused and reported', async () => {
    const dataDir = await tempDir();
    const keyringService = newService();
    let t = await startServices({ dataDir, keyringService });
    await t.stop();
    await copyFile(
      path.join(dataDir, 'state/crypto-accounts.json'),
      path.join(dataDir, 'state/crypto-orders.json'),
    );
    t = await startServices({ dataDir, keyringService });
    try {
      const messages = problemsAbout(t, 'state/crypto-orders.json');
      expect(messages).toEqual([
        expect.stringMatching(/another file, not of state\/crypto-orders\.json \(swapped\)/),
      ]);
    } finally {
      await t.close();
    }
  });

  it('an older sealed outbox.json copied over the current one is reported and not opened', async () => {
    const dataDir = await tempDir();
    const keyringService = newService();
    let t = await startServices({ dataDir, keyringService });
    const h = t.services.handlers;
    const le = t.services.sandbox!.fixtures.legal_entities[0]!;
    const rfi = await staffOf(t.services).createRfi({
      type: 'account',
      related_id: le.accounts[0]!.id,
      description: 'Outbox rollback probe',
      questions: [
        { question_type: 'transaction.purpose', question_text: 'First?' },
        { question_type: 'transaction.purpose', question_text: 'Second?' },
      ],
    });
    const answer = async (i: 0 | 1): Promise<string> => {
      const a = await h['answers.submit']({
        profileId: t.services.session.profile.id,
        rfiId: rfi.id,
        questionId: rfi.questions[i]!.id,
        questionType: 'transaction.purpose',
        text: `Answer ${i}`,
        files: [],
      });
      await expect
        .poll(() => t.services.rfiAnswers.outbox.get(a.id)?.state, { timeout: 15_000 })
        .toBe('sent');
      return a.id;
    };
    const first = await answer(0);
    await t.services.rfiAnswers.outbox.idle();
    const outboxFile = path.join(dataDir, 'rfi-answers/outbox.json');
    const older = await readFile(outboxFile);
    expect(isSealed(older)).toBe(true);
    const second = await answer(1);
    await t.stop();
    // A local process puts the older sealed copy back (it lacks the second answer).
    await writeFile(outboxFile, older);

    t = await startServices({ dataDir, keyringService });
    try {
      expect(problemsAbout(t, 'rfi-answers/outbox.json')).toEqual([expect.stringMatching(/rolled back/)]);
      // Not opened: neither answer of the older copy is taken for the outbox of now.
      const ids = (await t.services.handlers['answers.list']({})).answers.map((a) => a.id);
      expect(ids).not.toContain(first);
      expect(ids).not.toContain(second);
      // Its bytes are kept aside for inspection, as they were.
      const aside = [...(await filesUnder(dataDir)).entries()].filter(([f]) =>
        f.startsWith('rfi-answers/outbox.corrupt-'),
      );
      expect(aside.map(([, b]) => b.equals(older))).toEqual([true]);
    } finally {
      await t.close();
    }
  }, 60_000);

  it('an older generation index put back is reported against the keychain-held sequence', async () => {
    const dataDir = await tempDir();
    const keyringService = newService();
    let t = await startServices({ dataDir, keyringService });
    await t.stop();
    const indexFile = path.join(dataDir, 'at-rest-index.json');
    const older = await readFile(indexFile);
    t = await startServices({ dataDir, keyringService });
    t.services.settings.addProfile({ name: 'Bank Three', baseUrl: 'https://three.bank.example' });
    await t.stop();
    await writeFile(indexFile, older);
    t = await startServices({ dataDir, keyringService });
    try {
      expect(problemsAbout(t, 'at-rest-index.json')).toEqual([expect.stringMatching(/rolled back/)]);
    } finally {
      await t.close();
    }
  });
});

describe('keychain trouble', () => {
  it('a locked keychain at start means waiting: nothing moved aside, nothing written plain, all back once unlocked', async () => {
    const dataDir = await tempDir();
    const keyringService = newService();
    let t = await startServices({ dataDir, keyringService });
    t.services.settings.addProfile({ name: 'Kept Bank', baseUrl: 'https://kept.bank.example' });
    await t.stop();
    const before = await filesUnder(dataDir);

    t = await startServices({
      dataDir,
      keyringService,
      keyring: unavailableKeyringBackend('The keychain is locked'),
    });
    try {
      expect(t.services.vault.status()).toMatchObject({ dataAtRest: 'waiting' });
      expect(t.services.vault.status().problem).toMatch(/Waiting for the .* keychain/);
      // The run works in memory; nothing of it reaches the disk in plain text.
      t.services.settings.addProfile({ name: 'Plain Bank', baseUrl: 'https://plain.bank.example' });
      expect(t.services.settings.get().profiles.map((p) => p.name)).toContain('Plain Bank');
      // A write through the durable store (the audit log) is refused, in words.
      await expect(
        t.services.audit.record({ operation: 'test.write', outcome: 'succeeded', target: 'Plain Bank' }),
      ).rejects.toBeInstanceOf(AppFailure);
    } finally {
      await t.stop();
    }
    const after = await filesUnder(dataDir);
    const corrupt = [...after.keys()].filter((f) => f.includes('.corrupt-'));
    expect(corrupt).toEqual([]);
    for (const [file, bytes] of before) {
      if (isSealed(bytes)) expect(after.get(file)?.equals(bytes), file).toBe(true);
    }
    for (const [file, bytes] of after) expect(bytes.includes('Plain Bank'), file).toBe(false);

    // Unlocked: everything is there.
    t = await startServices({ dataDir, keyringService });
    try {
      expect(t.services.vault.status().dataAtRest).toBe('encrypted');
      expect(t.services.settings.get().profiles.map((p) => p.name)).toContain('Kept Bank');
      expect(t.services.stores.problems()).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('a garbled data key found when the keychain answers later in the run: waiting from then on, never plain', async () => {
    const dataDir = await tempDir();
    const keyringService = newService();
    await entry(keyringService, DATA_KEY_ACCOUNT).setPassword('not a data key either');
    const keychain = lockable(napiKeyringBackend());
    const t = await startServices({ dataDir, keyringService, keyring: keychain.backend });
    try {
      // A fresh folder and no keychain at start: plain, and said so.
      expect(t.services.vault.status().dataAtRest).toBe('unencrypted');
      keychain.unlock();
      const status = await t.services.handlers['vault.status'](undefined);
      expect(status).toMatchObject({ backend: 'keychain', dataAtRest: 'waiting' });
      expect(status.problem).toMatch(/data key entry in the keychain is unreadable/);
      // Writes are refused in words from now on (the stores had a file on disk: no memory copy).
      expect(() =>
        t.services.settings.addProfile({ name: 'Garbled Later', baseUrl: 'https://later.bank.example' }),
      ).toThrow(/waiting for the keychain/);
      await expect(
        t.services.audit.record({ operation: 'test.write', outcome: 'succeeded', target: 'Garbled Later' }),
      ).rejects.toBeInstanceOf(AppFailure);
    } finally {
      await t.stop();
    }
    expect(await entry(keyringService, DATA_KEY_ACCOUNT).getPassword()).toBe('not a data key either');
    for (const [file, bytes] of await filesUnder(dataDir))
      expect(bytes.includes('Garbled Later'), file).toBe(false);
  });

  it('a garbled data key never leads to plain writes', async () => {
    const dataDir = await tempDir();
    const keyringService = newService();
    await entry(keyringService, DATA_KEY_ACCOUNT).setPassword('not a data key');
    const t = await startServices({ dataDir, keyringService });
    try {
      expect(t.services.vault.status().dataAtRest).toBe('waiting');
      t.services.settings.addProfile({ name: 'Garbled Bank', baseUrl: 'https://garbled.bank.example' });
      await expect(
        t.services.audit.record({ operation: 'test.write', outcome: 'succeeded', target: 'Garbled Bank' }),
      ).rejects.toBeInstanceOf(AppFailure);
    } finally {
      await t.stop();
    }
    // The entry was not replaced, and no file holds the name in plain text.
    expect(await entry(keyringService, DATA_KEY_ACCOUNT).getPassword()).toBe('not a data key');
    for (const [file, bytes] of await filesUnder(dataDir))
      expect(bytes.includes('Garbled Bank'), file).toBe(false);
  });
});
