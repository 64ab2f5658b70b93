import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { isSealed } from '../../src/main/infra/at-rest';
import { filesUnder } from '../support/files';
import { lockable } from '../support/lockable-keyring';
import { staffOf } from '../support/sandbox-staff';
import { keychainRuns } from '../support/keychain-runs';
import { tempDir } from '../support/services';
import type { TestServices } from '../support/services';

/**
 * The keychain answers later in the run (it was locked at start): the data folder's codec switches
 * to sealing at once, without a restart. Files written plain meanwhile are sealed where they are;
 * sealed files that waited for the keychain are opened; nothing is moved aside and nothing is
 * written plain once the key is there. The real Secret Service (scripts/with-keyring.sh), refusing
 * every call until the test unlocks it.
 */

const runs = keychainRuns();
const { real, newService, start } = runs;
afterEach(() => runs.cleanup());

/** Files (relative paths) whose bytes hold `needle` in plain text. */
async function holding(dataDir: string, needle: string): Promise<string[]> {
  return [...(await filesUnder(dataDir))].filter(([, b]) => b.includes(needle)).map(([f]) => f);
}

/** A draft on a fresh RFI of the sandbox, with `text`. */
async function draftOn(t: TestServices, text: string): Promise<{ rfiId: string; questionId: string }> {
  const le = t.services.sandbox!.fixtures.legal_entities[0]!;
  const rfi = await staffOf(t.services).createRfi({
    type: 'account',
    related_id: le.accounts[0]!.id,
    description: 'Live switch probe',
    questions: [{ question_type: 'transaction.purpose', question_text: 'Purpose?' }],
  });
  const questionId = rfi.questions[0]!.id;
  await t.services.handlers['drafts.save']({
    profileId: t.services.session.profile.id,
    rfiId: rfi.id,
    questionId,
    questionType: 'transaction.purpose',
    text,
    files: [],
  });
  return { rfiId: rfi.id, questionId };
}

it('files written plain while the keychain was locked are sealed the moment it answers, and stay readable', async () => {
  const tag = randomUUID().slice(0, 8);
  const dataDir = path.join(await tempDir(), 'data');
  const service = newService();
  const keychain = lockable(real);
  const t = await start(dataDir, service, keychain.backend);
  const h = t.services.handlers;
  // A fresh data folder and no keychain: plain, and said so.
  expect(t.services.vault.status()).toMatchObject({ backend: 'memory', dataAtRest: 'unencrypted' });

  t.platform.nextConfirmAnswers.push(true);
  await h['settings.addProfile']({
    name: `Meanwhile ${tag}`,
    baseUrl: `https://meanwhile-${tag}.bank.example`,
  });
  const { rfiId, questionId } = await draftOn(t, `Draft meanwhile ${tag}`);
  // Plain on disk while there is no key: the settings, the audit log, the drafts.
  expect((await holding(dataDir, tag)).length).toBeGreaterThan(2);

  keychain.unlock();
  // The analyst's "Try again" (the status asks the keychain again).
  expect(await h['vault.status'](undefined)).toMatchObject({
    backend: 'keychain',
    dataAtRest: 'encrypted',
    problem: null,
  });
  // Sealed where they are, at once: no file holds the session's text any more.
  expect(await holding(dataDir, tag)).toEqual([]);
  expect(isSealed((await filesUnder(dataDir)).get('settings.json')!)).toBe(true);
  // Everything still there, in this run.
  expect(t.services.settings.get().profiles.map((p) => p.name)).toContain(`Meanwhile ${tag}`);
  expect(
    (await h['drafts.get']({ profileId: t.services.session.profile.id, rfiId })).drafts.map((d) => [
      d.questionId,
      d.text,
    ]),
  ).toEqual([[questionId, `Draft meanwhile ${tag}`]]);
  const audited = await t.services.audit.list();
  expect(audited.entries.some((e) => e.target === `https://meanwhile-${tag}.bank.example`)).toBe(true);
  expect(audited.skipped).toBe(0);

  // A write after the switch is sealed.
  t.platform.nextConfirmAnswers.push(true);
  await h['settings.addProfile']({ name: `After ${tag}`, baseUrl: `https://after-${tag}.bank.example` });
  await draftOn(t, `Draft after ${tag}`);
  expect(await holding(dataDir, tag)).toEqual([]);
  expect([...(await filesUnder(dataDir)).keys()].filter((f) => f.includes('.corrupt-'))).toEqual([]);
  expect(t.services.stores.problems()).toEqual([]);

  // A restart with the keychain open reads it all, with nothing to report.
  await t.stop();
  const again = await start(dataDir, service);
  expect(again.services.vault.status().dataAtRest).toBe('encrypted');
  expect(again.services.settings.get().profiles.map((p) => p.name)).toEqual(
    expect.arrayContaining([`Meanwhile ${tag}`, `After ${tag}`]),
  );
  expect(
    (await again.services.handlers['drafts.get']({ profileId: again.services.session.profile.id, rfiId }))
      .drafts[0]?.text,
  ).toBe(`Draft meanwhile ${tag}`);
  expect((await again.services.audit.list()).skipped).toBe(0);
  expect(again.services.stores.problems()).toEqual([]);
}, 120_000);

it('sealed files that waited for a locked keychain are opened when it answers: nothing moved aside, nothing plain', async () => {
  const tag = randomUUID().slice(0, 8);
  const dataDir = path.join(await tempDir(), 'data');
  const service = newService();
  // A first run with the keychain: sealed settings, a draft, audit entries.
  const first = await start(dataDir, service);
  first.platform.nextConfirmAnswers.push(true);
  await first.services.handlers['settings.addProfile']({
    name: `Kept ${tag}`,
    baseUrl: `https://kept-${tag}.bank.example`,
  });
  const { rfiId, questionId } = await draftOn(first, `Kept draft ${tag}`);
  const auditedBefore = (await first.services.audit.list()).entries.length;
  await first.stop();
  const before = await filesUnder(dataDir);

  // Locked at start: waiting, the sealed files left as they are.
  const keychain = lockable(real);
  const t = await start(dataDir, service, keychain.backend);
  const h = t.services.handlers;
  expect(t.services.vault.status()).toMatchObject({ backend: 'memory', dataAtRest: 'waiting' });
  // "Try again" while it is still locked: still waiting, said so.
  expect(await h['vault.status'](undefined)).toMatchObject({ backend: 'memory', dataAtRest: 'waiting' });
  expect(t.services.settings.get().profiles.map((p) => p.name)).not.toContain(`Kept ${tag}`);
  t.services.settings.addProfile({ name: `Waiting ${tag}`, baseUrl: `https://waiting-${tag}.bank.example` });
  await expect(draftOn(t, `Waiting draft ${tag}`)).rejects.toThrow(/keychain/i);
  expect(await holding(dataDir, tag)).toEqual([]);

  keychain.unlock();
  expect(await h['vault.status'](undefined)).toMatchObject({ backend: 'keychain', dataAtRest: 'encrypted' });
  // What was on disk is read now, in this run: the settings (the disk wins over what the run did
  // in memory, which it said lasted only until the keychain answered), the draft, the audit log.
  const names = t.services.settings.get().profiles.map((p) => p.name);
  expect(names).toContain(`Kept ${tag}`);
  expect(
    (await h['drafts.get']({ profileId: t.services.session.profile.id, rfiId })).drafts.map((d) => [
      d.questionId,
      d.text,
    ]),
  ).toEqual([[questionId, `Kept draft ${tag}`]]);
  expect((await t.services.audit.list()).entries.length).toBeGreaterThanOrEqual(auditedBefore);
  // The "waiting" notices are gone with the wait; nothing was moved aside.
  expect(t.services.stores.problems()).toEqual([]);
  const after = await filesUnder(dataDir);
  expect([...after.keys()].filter((f) => f.includes('.corrupt-'))).toEqual([]);
  for (const [file, bytes] of before) {
    if (isSealed(bytes)) expect(after.has(file), file).toBe(true);
  }
  // New writes are sealed.
  t.platform.nextConfirmAnswers.push(true);
  await h['settings.addProfile']({ name: `After ${tag}`, baseUrl: `https://after-${tag}.bank.example` });
  await draftOn(t, `After draft ${tag}`);
  expect(await holding(dataDir, tag)).toEqual([]);

  await t.stop();
  const again = await start(dataDir, service);
  expect(again.services.settings.get().profiles.map((p) => p.name)).toEqual(
    expect.arrayContaining([`Kept ${tag}`, `After ${tag}`]),
  );
  expect(again.services.stores.problems()).toEqual([]);
}, 120_000);
