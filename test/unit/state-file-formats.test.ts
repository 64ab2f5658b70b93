import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadWindowState, saveWindowState, windowStateFileName } from '../../src/main/electron/window/state';
import { stateFile } from '../../src/main/infra/json-store';
import type { StateFileProblem } from '../../src/main/infra/json-store';
import { scopesFormat } from '../../src/main/rfis/scopes-file';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'td-state-formats-'));
  dirs.push(dir);
  return dir;
}

describe('state files of their owners', () => {
  it('the unversioned scopes.json of before keeps loading, migrated to version 1', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'scopes.json');
    await writeFile(file, JSON.stringify({ sandbox: 'le_1', remote: 'le_2', broken: 7 }));
    const problems: StateFileProblem[] = [];
    const store = stateFile(scopesFormat, { report: (p) => problems.push(p) });
    const loaded = await store.read(file);
    expect(loaded).toEqual({
      value: { version: 1, scopes: { sandbox: 'le_1', remote: 'le_2' } },
      stale: true,
    });
    await store.write(file, loaded!.value);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      version: 1,
      scopes: { sandbox: 'le_1', remote: 'le_2' },
    });
    expect(await store.read(file)).toEqual({ value: loaded!.value, stale: false });
    expect(problems).toEqual([]);
  });

  it('a damaged window-state file is moved aside and reported; the window opens at its default size', async () => {
    const dir = await tempDir();
    await saveWindowState(dir, { bounds: { x: 1, y: 2, width: 1000, height: 700 }, maximized: true });
    expect(await loadWindowState(dir)).toEqual({
      bounds: { x: 1, y: 2, width: 1000, height: 700 },
      maximized: true,
    });
    await writeFile(path.join(dir, windowStateFileName), '{"version":1,"bounds":');
    const problems: StateFileProblem[] = [];
    expect(await loadWindowState(dir, { report: (p) => problems.push(p) })).toBeNull();
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toMatch(/window size and position .* could not be read \(not valid JSON\)/);
    expect(await readFile(problems[0]!.movedTo!, 'utf8')).toBe('{"version":1,"bounds":');
    expect(await readdir(dir)).toEqual([path.basename(problems[0]!.movedTo!)]);
  });
});
