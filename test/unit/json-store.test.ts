import { randomBytes } from 'node:crypto';
import { rename as fsRename, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAtRestCodec, isSealed } from '../../src/main/infra/at-rest';
import type { RenameFile } from '../../src/main/infra/durable-file';
import { openSealedStream, stateFile } from '../../src/main/infra/json-store';
import type { StateFileFormat, StateFileProblem } from '../../src/main/infra/json-store';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { loadWindowState, saveWindowState, windowStateFileName } from '../../src/main/electron/window/state';
import { scopesFormat } from '../../src/main/rfis/scopes-file';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'td-json-store-'));
  dirs.push(dir);
  return dir;
}

/** Version 2 of a list of names; version 1 held one comma-separated string, version 0 a bare array. */
const schema = z.object({ version: z.literal(2), names: z.array(z.string()) });
const format: StateFileFormat<z.infer<typeof schema>> = {
  label: 'The list of names',
  consequence: 'A new one was started.',
  version: 2,
  schema,
  migrations: {
    0: (raw) => ({ csv: Array.isArray(raw['list']) ? raw['list'].join(',') : '' }),
    1: (raw) => ({ names: typeof raw['csv'] === 'string' && raw['csv'] !== '' ? raw['csv'].split(',') : [] }),
  },
};

function setup(o: { codec?: ReturnType<typeof createAtRestCodec>; rename?: RenameFile } = {}) {
  const sink = memorySink();
  const problems: StateFileProblem[] = [];
  const store = stateFile(format, {
    log: createLogger(sink),
    report: (p) => problems.push(p),
    ...(o.codec ? { codec: o.codec } : {}),
    ...(o.rename ? { rename: o.rename } : {}),
  });
  return { store, problems, sink };
}

describe('durable JSON store', () => {
  it('writes and reads back a valid file; a missing file is null and no problem', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'names.json');
    const { store, problems } = setup();
    expect(await store.read(file)).toBeNull();
    await store.write(file, { version: 2, names: ['a', 'b'] });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ version: 2, names: ['a', 'b'] });
    expect(await store.read(file)).toEqual({ value: { version: 2, names: ['a', 'b'] }, stale: false });
    expect(problems).toEqual([]);
    // Nothing but the file itself is left in the folder (the temp file was renamed).
    expect(await readdir(dir)).toEqual(['names.json']);
  });

  it('migrates older versions, an unversioned file included, one version at a time', async () => {
    const dir = await tempDir();
    const { store, problems } = setup();
    const v1 = path.join(dir, 'v1.json');
    await writeFile(v1, JSON.stringify({ version: 1, csv: 'x,y' }));
    expect(await store.read(v1)).toEqual({ value: { version: 2, names: ['x', 'y'] }, stale: true });
    const v0 = path.join(dir, 'v0.json');
    await writeFile(v0, JSON.stringify({ list: ['p', 'q', 'r'] }));
    expect(await store.read(v0)).toEqual({ value: { version: 2, names: ['p', 'q', 'r'] }, stale: true });
    expect(problems).toEqual([]);
  });

  it.each([
    ['not JSON', '{"version":2,"names":[', /not valid JSON/],
    ['not an object', '[1,2]', /not a JSON object/],
    ['the wrong shape', '{"version":2,"names":[1]}', /does not match the expected shape at names\.0/],
    ['a newer version', '{"version":3,"names":[]}', /newer version of the app/],
  ])('a file with %s is moved aside with its bytes, logged and reported', async (_, content, why) => {
    const dir = await tempDir();
    const file = path.join(dir, 'names.json');
    await writeFile(file, content);
    const { store, problems, sink } = setup();
    expect(await store.read(file)).toBeNull();
    expect(problems).toHaveLength(1);
    const p = problems[0]!;
    expect(p.file).toBe(file);
    expect(path.basename(p.movedTo!)).toMatch(/^names\.corrupt-.+\.json$/);
    expect(await readFile(p.movedTo!, 'utf8')).toBe(content);
    expect(p.message).toMatch(why);
    expect(p.message).toMatch(
      /^The list of names: names\.json could not be read .*moved aside to names\.corrupt-/,
    );
    expect(p.message).toMatch(/A new one was started\.$/);
    expect(sink.records.some((r) => r.level === 'error' && r.message.includes('moved aside'))).toBe(true);
    expect(await readdir(dir)).toEqual([path.basename(p.movedTo!)]);
  });

  it('a content refused by the caller check is moved aside too', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'names.json');
    const { store, problems } = setup();
    await store.write(file, { version: 2, names: ['other'] });
    expect(
      await store.read(file, (v) => (v.names.includes('mine') ? null : 'belongs to someone else')),
    ).toBeNull();
    expect(problems[0]!.message).toMatch(/belongs to someone else/);
  });

  it('seals with the data key; a plain file is read and flagged stale; a tampered one is moved aside', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'names.json');
    const codec = createAtRestCodec({ id: 'k1', key: randomBytes(32) });
    const { store, problems } = setup({ codec });

    await writeFile(file, JSON.stringify({ version: 2, names: ['plain'] }));
    expect(await store.read(file)).toEqual({ value: { version: 2, names: ['plain'] }, stale: true });

    await store.write(file, { version: 2, names: ['secret'] });
    const stored = await readFile(file, 'utf8');
    expect(isSealed(stored)).toBe(true);
    expect(stored).not.toContain('secret');
    expect(await store.read(file)).toEqual({ value: { version: 2, names: ['secret'] }, stale: false });

    // One character of the ciphertext changed.
    const at = stored.indexOf('"data":"') + 10;
    const tampered = `${stored.slice(0, at)}${stored[at] === 'A' ? 'B' : 'A'}${stored.slice(at + 1)}`;
    await writeFile(file, tampered);
    expect(await store.read(file)).toBeNull();
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toMatch(/integrity check/);
    expect(await readFile(problems[0]!.movedTo!, 'utf8')).toBe(tampered);

    // Another key cannot open it either.
    await stateFile(format, { codec }).write(file, { version: 2, names: ['k1'] });
    const other = setup({ codec: createAtRestCodec({ id: 'k2', key: randomBytes(32) }) });
    expect(await other.store.read(file)).toBeNull();
    expect(other.problems[0]!.message).toMatch(/another data key/);
  });

  it('retries a rename Windows refuses for a moment (EPERM, EACCES, EBUSY), then succeeds', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'names.json');
    const codes = ['EPERM', 'EACCES', 'EBUSY'];
    let calls = 0;
    const flaky = async (from: string, to: string): Promise<void> => {
      calls++;
      const code = codes.shift();
      if (code) throw Object.assign(new Error(`${code}: operation not permitted, rename`), { code });
      await fsRename(from, to);
    };
    const { store } = setup({ rename: flaky });
    await store.write(file, { version: 2, names: ['after retries'] });
    expect(calls).toBe(4);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ version: 2, names: ['after retries'] });
    expect(await readdir(dir)).toEqual(['names.json']);
  });

  it('gives up after a bounded number of attempts, and at once on other errors; the old file stays', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'names.json');
    await writeFile(file, JSON.stringify({ version: 2, names: ['old'] }));

    /** A rename that always fails with this code; counts its calls. */
    const failing = (code: string) => {
      const r = {
        calls: 0,
        rename: async (): Promise<void> => {
          r.calls++;
          throw Object.assign(new Error(`${code}: rename failed`), { code });
        },
      };
      return r;
    };
    const busy = failing('EBUSY');
    await expect(
      setup({ rename: busy.rename }).store.write(file, { version: 2, names: ['new'] }),
    ).rejects.toThrow(/EBUSY/);
    expect(busy.calls).toBe(5);

    const noSpace = failing('ENOSPC');
    await expect(
      setup({ rename: noSpace.rename }).store.write(file, { version: 2, names: ['new'] }),
    ).rejects.toThrow(/ENOSPC/);
    expect(noSpace.calls).toBe(1);

    // The temp files were removed and the previous content is intact.
    expect(await readdir(dir)).toEqual(['names.json']);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ version: 2, names: ['old'] });
  });
});

describe('a sealed file written as its content arrives', () => {
  it('is the envelope a whole write makes: it opens to the pieces joined, whatever their sizes; tampered, it does not', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'snapshot.json');
    const codec = createAtRestCodec({ id: 'k1', key: randomBytes(32) }, { root: dir });
    // Pieces of 0 to 7 bytes and a large one, multi-byte characters across piece boundaries.
    const pieces = ['', 'a', 'bc', 'déf', 'ghij', '€€', 'k', 'lmnopqr', 'ß'.repeat(40_000), '"}'];
    const out = await openSealedStream(codec, file);
    for (const p of pieces) out.write(p);
    await out.commit();
    const stored = await readFile(file, 'utf8');
    expect(isSealed(stored)).toBe(true);
    expect(stored).not.toContain('lmnopqr');
    expect(codec.open(stored, file)).toEqual({ text: pieces.join(''), sealed: true });
    expect(codec.generation(file)).toBe(1);
    // One character of the tag or of the data changed: refused.
    for (const field of ['"tag":"', '"data":"']) {
      const at = stored.indexOf(field) + field.length + 3;
      const bad = `${stored.slice(0, at)}${stored[at] === 'A' ? 'B' : 'A'}${stored.slice(at + 1)}`;
      expect(() => codec.open(bad, file)).toThrow();
    }
    // Plain without a key: the pieces as they are.
    const plainFile = path.join(dir, 'plain.json');
    const plain = await openSealedStream(createAtRestCodec(null), plainFile);
    for (const p of pieces) plain.write(p);
    await plain.commit();
    expect(await readFile(plainFile, 'utf8')).toBe(pieces.join(''));
  });

  it('aborted, leaves the file as it was and no temp file; a second stream of the file waits for the first', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'snapshot.json');
    const codec = createAtRestCodec({ id: 'k1', key: randomBytes(32) }, { root: dir });
    const first = await openSealedStream(codec, file);
    first.write('one');
    await first.commit();
    const kept = await readFile(file, 'utf8');
    const dropped = await openSealedStream(codec, file);
    dropped.write('two');
    let secondOpen = false;
    const second = openSealedStream(codec, file).then((s) => ((secondOpen = true), s));
    await new Promise((r) => setTimeout(r, 50));
    expect(secondOpen).toBe(false);
    await dropped.abort();
    expect(await readFile(file, 'utf8')).toBe(kept);
    const third = await second;
    third.write('three');
    await third.commit();
    expect(codec.open(await readFile(file, 'utf8'), file).text).toBe('three');
    expect((await readdir(dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});

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
    expect(problems[0]!.message).toMatch(/window size and position: .* could not be read \(not valid JSON\)/);
    expect(await readFile(problems[0]!.movedTo!, 'utf8')).toBe('{"version":1,"bounds":');
    expect(await readdir(dir)).toEqual([path.basename(problems[0]!.movedTo!)]);
  });

  it('writes a batch of files, each whole and sealed; a failed rename fails the batch and leaves the others written', async () => {
    const dir = await tempDir();
    const files = ['a', 'b', 'c', 'd', 'e'].map((n) => path.join(dir, `${n}.json`));
    const codec = createAtRestCodec({ id: 'k1', key: randomBytes(32) });
    const { store } = setup({ codec });
    await store.writeMany(
      files.map((file, i) => ({ file, value: { version: 2, names: [`v1-${i}`] } })),
      2,
    );
    for (const [i, file] of files.entries()) {
      expect(isSealed(await readFile(file, 'utf8'))).toBe(true);
      expect((await store.read(file))?.value).toEqual({ version: 2, names: [`v1-${i}`] });
    }
    // A second batch whose rename of c.json fails: the batch rejects, c keeps its old content
    // (and still reads: its generation was not taken as written), the others have the new one.
    const failing = setup({
      codec,
      rename: async (from, to) => {
        if (path.basename(to) === 'c.json')
          throw Object.assign(new Error('EIO: rename failed'), { code: 'EIO' });
        await fsRename(from, to);
      },
    });
    await expect(
      failing.store.writeMany(
        files.map((file, i) => ({ file, value: { version: 2, names: [`v2-${i}`] } })),
        3,
      ),
    ).rejects.toThrow(/EIO/);
    for (const [i, file] of files.entries()) {
      const want = path.basename(file) === 'c.json' ? `v1-${i}` : `v2-${i}`;
      expect((await store.read(file))?.value).toEqual({ version: 2, names: [want] });
    }
    expect((await readdir(dir)).sort()).toEqual(['a.json', 'b.json', 'c.json', 'd.json', 'e.json']);
  });
});
