/**
 * Every settings-like store reads its own versioned stored format (issue 14): files as today's
 * code writes them (fixtures in test/unit/fixtures/state-files) keep loading, a damaged file or
 * one written by a newer app is moved aside and reported, never silently rewritten.
 */
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cryptoAccountsFormat, cryptoOrdersFormat } from '../../src/main/crypto/stored';
import { confStoreFactory, createStores } from '../../src/main/infra/stores';
import type { StoreFormat } from '../../src/main/infra/stores';
import { returnsFormat } from '../../src/main/returns/stored';
import { approvalsFormat } from '../../src/main/session/destinations';
import { desktopFormat } from '../../src/main/desktop/settings';
import { openSettings } from '../../src/main/session/settings';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { tempDir } from '../support/temp-dir';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'state-files');

function stores(dataDir: string) {
  return createStores({ dataDir, factory: confStoreFactory, log: createLogger(memorySink()) });
}

interface Case {
  name: string;
  format: StoreFormat<{ version: number }>;
  defaults: Record<string, unknown>;
  /** What the fixture holds, checked after loading. */
  expectLoaded(value: Record<string, unknown>): void;
}

const cases: Case[] = [
  {
    name: 'crypto-orders',
    format: cryptoOrdersFormat as unknown as StoreFormat<{ version: number }>,
    defaults: { orders: [] },
    expectLoaded: (v) => expect(v['orders']).toMatchObject([{ id: 'op_fixture_1', status: 'completed' }]),
  },
  {
    name: 'crypto-accounts',
    format: cryptoAccountsFormat as unknown as StoreFormat<{ version: number }>,
    defaults: { accounts: [] },
    expectLoaded: (v) =>
      expect(v['accounts']).toMatchObject([{ accountId: 'acc-usd-1', environmentId: 'sandbox' }]),
  },
  {
    name: 'returns',
    format: returnsFormat as unknown as StoreFormat<{ version: number }>,
    defaults: { recent: [], entries: [] },
    expectLoaded: (v) => {
      expect(v['recent']).toMatchObject([{ transactionId: 'tx_fixture_2' }]);
      expect(v['entries']).toMatchObject([{ operationId: 'op_return_fixture', phase: 'created' }]);
    },
  },
  {
    name: 'approved-bank-origins',
    format: approvalsFormat as unknown as StoreFormat<{ version: number }>,
    defaults: { origins: [] },
    expectLoaded: (v) => expect(v['origins']).toMatchObject([{ origin: 'https://api.acme.example' }]),
  },
  {
    name: 'desktop',
    format: desktopFormat as unknown as StoreFormat<{ version: number }>,
    defaults: { keepRunningInBackground: true, startAtLogin: false },
    expectLoaded: (v) => expect(v).toEqual({ keepRunningInBackground: false, startAtLogin: true }),
  },
];

async function withFixture(name: string): Promise<{ dir: string; file: string }> {
  const dir = await tempDir();
  await mkdir(path.join(dir, 'state'));
  const file = path.join(dir, 'state', `${name}.json`);
  await copyFile(path.join(fixtures, `${name}.json`), file);
  return { dir, file };
}

describe.each(cases)('the $name store', ({ name, format, defaults, expectLoaded }) => {
  it("loads today's unversioned file unchanged and writes it back as version 1", async () => {
    const { dir, file } = await withFixture(name);
    const original = JSON.parse(await readFile(path.join(fixtures, `${name}.json`), 'utf8')) as object;
    const s = stores(dir);
    const store = await s.open(name, format, defaults);
    const value = store.get() as Record<string, unknown>;
    expectLoaded(value);
    expect(value).toEqual(original);
    expect(s.problems()).toEqual([]);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ ...original, version: 1 });
    // And it opens again as version 1, unchanged.
    const again = stores(dir);
    expect((await again.open(name, format, defaults)).get()).toEqual(original);
    expect(again.problems()).toEqual([]);
  });

  it('moves a damaged file aside and reports it', async () => {
    const { dir, file } = await withFixture(name);
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.slice(0, text.length / 2));
    const s = stores(dir);
    expect((await s.open(name, format, defaults)).get()).toEqual(defaults);
    expect(s.problems()).toHaveLength(1);
    expect(s.problems()[0]!).toMatchObject({ file: `state/${name}.json` });
    expect(s.problems()[0]!.message).toContain(format.label);
    expect(await readFile(path.join(dir, s.problems()[0]!.movedTo!), 'utf8')).toBe(
      text.slice(0, text.length / 2),
    );
  });

  it('moves a file of a newer version aside and reports it, never rewriting it', async () => {
    const { dir, file } = await withFixture(name);
    const newer = JSON.stringify({ ...(JSON.parse(await readFile(file, 'utf8')) as object), version: 2 });
    await writeFile(file, newer);
    const s = stores(dir);
    expect((await s.open(name, format, defaults)).get()).toEqual(defaults);
    expect(s.problems()).toHaveLength(1);
    expect(s.problems()[0]!.message).toMatch(/newer version of the app \(format 2\)/);
    expect(await readFile(path.join(dir, s.problems()[0]!.movedTo!), 'utf8')).toBe(newer);
  });

  it('a file made newer while the app runs is moved aside on the next read, not overwritten', async () => {
    const { dir, file } = await withFixture(name);
    const s = stores(dir);
    const store = await s.open(name, format, defaults);
    const newer = JSON.stringify({ ...(JSON.parse(await readFile(file, 'utf8')) as object), version: 7 });
    await writeFile(file, newer);
    expect(store.get()).toEqual(defaults);
    expect(s.problems()[0]!.message).toMatch(/format 7/);
    expect(await readFile(path.join(dir, s.problems()[0]!.movedTo!), 'utf8')).toBe(newer);
  });
});

describe('the settings store', () => {
  it('loads a version 1 settings.json (before reminder settings) with the default reminders, written back as version 2', async () => {
    const dir = await tempDir();
    await copyFile(path.join(fixtures, 'settings.json'), path.join(dir, 'settings.json'));
    const s = stores(dir);
    const settings = await openSettings(s, dir);
    expect(s.problems()).toEqual([]);
    expect(settings.activeProfile()).toMatchObject({ id: 'p_0123456789abcdef', name: 'Acme' });
    const before = JSON.parse(await readFile(path.join(fixtures, 'settings.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(before['version']).toBe(1);
    expect(before['reminders']).toBeUndefined();
    const defaults = { enabled: true, hours: [168, 48, 24] };
    // Everything the file held is kept; reminders take the defaults.
    expect(settings.get()).toEqual({ ...before, reminders: defaults });
    expect(JSON.parse(await readFile(path.join(dir, 'settings.json'), 'utf8'))).toEqual({
      ...before,
      version: 2,
      reminders: defaults,
    });
  });

  it('loads a settings.json without a version (version 0) unchanged', async () => {
    const dir = await tempDir();
    const { version: _v, ...unversioned } = JSON.parse(
      await readFile(path.join(fixtures, 'settings.json'), 'utf8'),
    ) as Record<string, unknown>;
    await writeFile(path.join(dir, 'settings.json'), JSON.stringify(unversioned));
    const s = stores(dir);
    const settings = await openSettings(s, dir);
    expect(s.problems()).toEqual([]);
    expect(settings.get().pollingIntervalSeconds).toBe(120);
    expect(JSON.parse(await readFile(path.join(dir, 'settings.json'), 'utf8'))).toMatchObject({
      version: 2,
      reminders: { enabled: true, hours: [168, 48, 24] },
    });
  });

  it('moves a damaged settings.json aside and reports it', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'settings.json'), '{"version": 1, "profiles": "oops"');
    const s = stores(dir);
    const settings = await openSettings(s, dir);
    expect(settings.activeProfile().id).toBe('sandbox');
    expect(s.problems()).toHaveLength(1);
    expect(s.problems()[0]!.file).toBe('settings.json');
    expect((await readdir(dir)).some((f) => f.startsWith('settings.corrupt-'))).toBe(true);
  });

  it('moves a settings.json of a newer version aside and reports it, never rewriting it', async () => {
    const dir = await tempDir();
    const newer = (await readFile(path.join(fixtures, 'settings.json'), 'utf8')).replace(
      '"version": 1',
      '"version": 3',
    );
    await writeFile(path.join(dir, 'settings.json'), newer);
    const s = stores(dir);
    const settings = await openSettings(s, dir);
    expect(settings.activeProfile().id).toBe('sandbox');
    expect(s.problems()).toHaveLength(1);
    expect(s.problems()[0]!.message).toMatch(/newer version of the app \(format 3\)/);
    expect(await readFile(path.join(dir, s.problems()[0]!.movedTo!), 'utf8')).toBe(newer);
  });
});
