import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createKeyedQueue,
  sweepInterruptedWrites,
  writeFileDurable,
} from '../../src/main/infra/durable-file';

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

describe('createKeyedQueue', () => {
  /** A task that logs its start and ends when told to (or fails). */
  const gate = () => {
    let open!: () => void;
    let fail!: (e: Error) => void;
    const ended = new Promise<void>((resolve, reject) => {
      open = resolve;
      fail = reject;
    });
    return { open, fail, ended };
  };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

  it('runs one key in order, other keys side by side, and a batch in the turn of each of its keys', async () => {
    const turns = createKeyedQueue();
    const started: string[] = [];
    const task = (name: string, g: { ended: Promise<void> }) => () => {
      started.push(name);
      return g.ended;
    };
    const a1 = gate();
    const a2 = gate();
    const b1 = gate();
    const batch = gate();
    const c1 = gate();
    const after = gate();
    const runs = [
      turns('a', task('a1', a1)),
      turns('a', task('a2', a2)),
      turns('b', task('b1', b1)),
      turns.all(['a', 'b'], task('batch', batch)),
      turns('c', task('c1', c1)),
      turns('b', task('after', after)),
    ];
    await settle();
    // a2 waits for a1; b1 and c1 run beside them; the batch waits for both a's and b1.
    expect(started).toEqual(['a1', 'b1', 'c1']);
    a1.fail(new Error('a1 failed')); // a failed task does not stop the next one of its key
    await settle();
    expect(started).toEqual(['a1', 'b1', 'c1', 'a2']);
    a2.open();
    await settle();
    expect(started).toEqual(['a1', 'b1', 'c1', 'a2']);
    b1.open();
    await settle();
    expect(started).toEqual(['a1', 'b1', 'c1', 'a2', 'batch']);
    // A later task of one of the batch's keys waits for the batch.
    batch.open();
    await settle();
    expect(started).toEqual(['a1', 'b1', 'c1', 'a2', 'batch', 'after']);
    c1.open();
    after.open();
    const results = await Promise.allSettled(runs);
    expect(results.map((r) => r.status)).toEqual([
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
  });
});
