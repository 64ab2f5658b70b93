import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sweepInterruptedWrites, writeFileDurable } from '../../src/main/infra/durable-file';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('sweepInterruptedWrites', () => {
  it('removes only the temp files an interrupted durable write leaves, at any depth', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'td-sweep-'));
    dirs.push(dir);
    await mkdir(path.join(dir, 'state', 'rfis'), { recursive: true });
    await writeFileDurable(path.join(dir, 'state', 'orders.json'), '{"ok":true}');
    // What a kill between write and rename leaves behind:
    await writeFile(path.join(dir, 'state', '.orders.json.0123456789ab.tmp'), '{"half');
    await writeFile(path.join(dir, 'state', 'rfis', '.shard-07.json.abcdef012345.tmp'), '');
    // Files that only look similar stay.
    await writeFile(path.join(dir, 'notes.tmp'), 'keep');
    await writeFile(path.join(dir, '.orders.json.xyz.tmp'), 'keep');

    expect(await sweepInterruptedWrites(dir)).toBe(2);
    expect((await readdir(path.join(dir, 'state'))).sort()).toEqual(['orders.json', 'rfis']);
    expect(await readdir(path.join(dir, 'state', 'rfis'))).toEqual([]);
    expect(await readFile(path.join(dir, 'state', 'orders.json'), 'utf8')).toBe('{"ok":true}');
    expect((await readdir(dir)).sort()).toEqual(['.orders.json.xyz.tmp', 'notes.tmp', 'state']);
  });

  it('answers 0 for a folder that does not exist', async () => {
    expect(await sweepInterruptedWrites(path.join(os.tmpdir(), 'td-sweep-missing-' + Date.now()))).toBe(0);
  });
});
