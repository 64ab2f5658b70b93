import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { plainCodec } from '../../src/main/infra/at-rest';
import type { AtRestCodec } from '../../src/main/infra/at-rest';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { openScopeCache } from '../../src/main/rfis/scope-cache';
import type { ScopeCacheDeps } from '../../src/main/rfis/scope-cache';

/**
 * Each profile's RFI service remembers its last legal entity in the one `rfis/scopes.json`, so its
 * cache opens before the bank has named the credential. Two profiles opening at once must both
 * be remembered: one writing its entry never drops the other's.
 */
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
const log = createLogger(memorySink());

const session = (profileId: string, legalEntityId: string): ScopeCacheDeps['session'] =>
  ({
    environment: { id: profileId, kind: 'remote', baseUrl: 'https://bank.example', name: profileId },
    credential: { legalEntityId },
  }) as unknown as ScopeCacheDeps['session'];

describe('RFI scope cache', () => {
  it('keeps every profile’s last entity when several open at once, and finds it again offline', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'scopes-'));
    dirs.push(dataDir);
    await mkdir(path.join(dataDir, 'rfis'), { mode: 0o700 });
    const open = (profileId: string, le: string) =>
      openScopeCache({
        dataDir,
        session: session(profileId, le),
        log,
        onOpened: () => {},
        onReady: () => {},
      });
    // Both load the (empty) file first, then both open their caches: the old code wrote each one's
    // own copy of the map, so the last write dropped the other's entry.
    const caches = await Promise.all([open('alder', 'le_alder'), open('birch', 'le_birch')]);
    await Promise.all(caches.map((c) => c.current()));
    await Promise.all(caches.map((c) => c.dispose()));

    const stored = JSON.parse(await readFile(path.join(dataDir, 'rfis', 'scopes.json'), 'utf8')) as {
      scopes: Record<string, string>;
    };
    expect(stored.scopes).toEqual({ alder: 'le_alder', birch: 'le_birch' });

    // Offline at the next start (no credential named yet): each profile opens its own entity's cache.
    const offline = { environment: session('birch', '').environment, credential: null };
    const later = await openScopeCache({
      dataDir,
      session: offline as unknown as ScopeCacheDeps['session'],
      log,
      onOpened: () => {},
      onReady: () => {},
    });
    const repo = await later.current();
    await later.dispose();
    expect(repo).not.toBeNull();
    // The one folder under Birch's environment is its entity's (no '_unknown' cache was opened).
    const root = path.join(dataDir, 'rfis');
    const birchEnv = (await readdir(root)).find((d) => d.startsWith('birch'))!;
    expect((await readdir(path.join(root, birchEnv))).map((d) => d.split('-')[0])).toEqual(['le_birch']);
  });
});

describe('RFI scope cache teardown', () => {
  it('a cache replaced by another scope, and the last one at teardown, stop listening for the keychain', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'scopes-'));
    dirs.push(dataDir);
    await mkdir(path.join(dataDir, 'rfis'), { mode: 0o700 });
    // A codec that counts who listens for the keychain answering later (each RFI cache does).
    const listeners = new Set<() => unknown>();
    const codec = {
      ...plainCodec,
      onSealed(listener: () => unknown) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    } as AtRestCodec;
    const credential = { legalEntityId: 'le_one' };
    const s = { ...session('alder', 'le_one'), credential } as unknown as ScopeCacheDeps['session'];
    const cache = await openScopeCache({
      dataDir,
      session: s,
      log,
      codec,
      onOpened: () => {},
      onReady: () => {},
    });
    const first = await cache.current();
    expect(listeners.size).toBe(1);
    // The credential now names another entity: its cache opens, the first one stops listening.
    credential.legalEntityId = 'le_two';
    const second = await cache.current();
    expect(second).not.toBe(first);
    expect(listeners.size).toBe(1);
    await cache.dispose();
    second!.close();
    expect(listeners.size).toBe(0);
  });
});
