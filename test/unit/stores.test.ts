import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { confStoreFactory, createStores } from '../../src/main/infra/stores';
import { openSettings, checkBaseUrl } from '../../src/main/session/settings';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { tempDir } from '../support/temp-dir';

const draftSchema = {
  label: 'The test drafts',
  consequence: 'A new one was started.',
  version: 1,
  schema: z.object({
    version: z.literal(1),
    items: z.array(z.object({ id: z.string(), amount: z.string().regex(/^\d+$/) })),
    note: z.string(),
  }),
  migrations: { 0: (raw: Record<string, unknown>) => raw },
};
const defaults = { items: [], note: '' };

function stores(dataDir: string) {
  const sink = memorySink();
  return { stores: createStores({ dataDir, factory: confStoreFactory, log: createLogger(sink) }), sink };
}

describe('schema-checked stores (conf in Node)', () => {
  it('creates, validates and persists; the file is owner-only', async () => {
    const dir = await tempDir();
    const { stores: s1 } = stores(dir);
    const drafts = await s1.open('drafts', draftSchema, defaults);
    expect(drafts.get()).toEqual(defaults);
    drafts.set({ items: [{ id: 'a', amount: '100' }], note: 'hi' });
    expect((await stat(drafts.path)).mode & 0o777).toBe(0o600);
    expect(drafts.path).toBe(path.join(dir, 'state', 'drafts.json'));

    const { stores: s2 } = stores(dir);
    const again = await s2.open('drafts', draftSchema, defaults);
    expect(again.get().items).toEqual([{ id: 'a', amount: '100' }]);
    expect(again.update((d) => ({ ...d, note: 'changed' })).note).toBe('changed');
  });

  it('refuses a value that does not match the schema, naming the field, and loses nothing', async () => {
    const dir = await tempDir();
    const { stores: s } = stores(dir);
    const drafts = await s.open('drafts', draftSchema, defaults);
    drafts.set({ items: [{ id: 'a', amount: '1' }], note: '' });
    expect(() => drafts.set({ items: [{ id: 'b', amount: '1.5' }], note: '' })).toThrow(/items\.0\.amount/);
    expect(drafts.get().items).toEqual([{ id: 'a', amount: '1' }]);
  });

  it('a corrupt file is moved aside and reported, not silently reset', async () => {
    const dir = await tempDir();
    const { stores: s1 } = stores(dir);
    const drafts = await s1.open('drafts', draftSchema, defaults);
    drafts.set({ items: [{ id: 'keep-me', amount: '5' }], note: '' });
    await writeFile(drafts.path, '{"items": [{"id": "keep-me", "amount": "5"}], "note": ');

    const { stores: s2, sink } = stores(dir);
    const reported: string[] = [];
    s2.onProblem((p) => reported.push(p.file));
    const reopened = await s2.open('drafts', draftSchema, defaults);
    expect(reopened.get()).toEqual(defaults);
    const problems = s2.problems();
    expect(problems).toHaveLength(1);
    expect(problems[0]!.file).toBe('state/drafts.json');
    expect(problems[0]!.message).toMatch(/not valid JSON/);
    expect(reported).toEqual(['state/drafts.json']);
    // The unreadable content is still there, next to the new file.
    const aside = path.join(dir, problems[0]!.movedTo!);
    expect(await readFile(aside, 'utf8')).toContain('keep-me');
    expect(sink.records.some((r) => r.level === 'error')).toBe(true);

    s2.dismiss(problems[0]!.id);
    expect(s2.problems()).toEqual([]);
  });

  it('a file that parses but breaks the schema is also moved aside', async () => {
    const dir = await tempDir();
    const { stores: s1 } = stores(dir);
    const drafts = await s1.open('drafts', draftSchema, defaults);
    await writeFile(drafts.path, JSON.stringify({ items: [{ id: 1 }], note: '' }));
    const { stores: s2 } = stores(dir);
    await s2.open('drafts', draftSchema, defaults);
    expect(s2.problems()[0]!.message).toMatch(/does not match/);
    expect((await readdir(path.join(dir, 'state'))).filter((f) => f.includes('.corrupt-'))).toHaveLength(1);
  });

  it('a file holding JSON that is not an object is moved aside too', async () => {
    const dir = await tempDir();
    const { stores: s1 } = stores(dir);
    const drafts = await s1.open('drafts', draftSchema, defaults);
    await writeFile(drafts.path, '[1, 2, 3]');
    const { stores: s2 } = stores(dir);
    expect((await s2.open('drafts', draftSchema, defaults)).get()).toEqual(defaults);
    expect(s2.problems()[0]!.message).toMatch(/not a JSON object/);
  });
});

describe('settings and profiles', () => {
  it('starts with the embedded sandbox; adds, renames, activates and removes remote profiles', async () => {
    const dir = await tempDir();
    const { stores: s } = stores(dir);
    const settings = await openSettings(s, dir);
    expect(settings.activeProfile()).toMatchObject({ id: 'sandbox', kind: 'embedded-sandbox' });
    expect(settings.get().pollingIntervalSeconds).toBe(30);

    const p = settings.addProfile({ name: 'Acme Bank (prod)', baseUrl: 'https://api.acme.example/' });
    expect(p).toMatchObject({ baseUrl: 'https://api.acme.example', tokenOrigin: null });
    // Ids are random, never the name's slug: a profile added again under the same name is a new
    // profile and cannot inherit a token left in the keychain under the old id.
    expect(p.id).toMatch(/^p_[0-9a-f]{16}$/);
    const again = settings.addProfile({ name: 'Acme Bank (prod)', baseUrl: 'https://api.acme.example' });
    expect(again.id).toMatch(/^p_[0-9a-f]{16}$/);
    expect(again.id).not.toBe(p.id);
    settings.updateProfile(p.id, { name: 'Acme' });
    settings.setActive(p.id);
    settings.update({ pollingIntervalSeconds: 120, notifications: { newRfi: false } });

    const reopened = await openSettings(stores(dir).stores, dir);
    expect(reopened.activeProfile().name).toBe('Acme');
    expect(reopened.get().pollingIntervalSeconds).toBe(120);
    expect(reopened.get().notifications).toMatchObject({ newRfi: false, rfiStatus: true });
    expect((await stat(path.join(dir, 'settings.json'))).mode & 0o777).toBe(0o600);

    reopened.removeProfile(p.id);
    expect(reopened.activeProfile().id).toBe('sandbox');
    expect(() => reopened.removeProfile('sandbox')).toThrow(/cannot be removed/);
  });

  it('validates base URLs, polling interval and pinned keys', async () => {
    expect(() => checkBaseUrl('http://bank.example.com')).toThrow(/https/);
    expect(checkBaseUrl('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080');
    expect(() => checkBaseUrl('https://user:pw@bank.example.com')).toThrow(/credentials/);
    expect(() => checkBaseUrl('nope')).toThrow(/not a URL/);
    const dir = await tempDir();
    const settings = await openSettings(stores(dir).stores, dir);
    expect(() => settings.update({ pollingIntervalSeconds: 1 })).toThrow(/at least 5/);
    expect(() => settings.setWebhookPublicKey('sandbox', 'not a key')).toThrow(/P-256/);
    expect(settings.get().pollingIntervalSeconds).toBe(30);
  });

  it('a corrupt settings file is moved aside and reported; the app starts with defaults', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'settings.json'), '{"version": 1, "profiles": "oops"');
    const { stores: s } = stores(dir);
    const settings = await openSettings(s, dir);
    expect(settings.activeProfile().id).toBe('sandbox');
    expect(s.problems()).toHaveLength(1);
    expect(s.problems()[0]!.file).toBe('settings.json');
    expect((await readdir(dir)).some((f) => f.startsWith('settings.corrupt-'))).toBe(true);
  });
});
