import { createHash, randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AtRestError, AtRestWaiting, createAtRestCodec } from '../../src/main/infra/at-rest';
import { BLOB_CHUNK_BYTES, blobSource, pathSource, writeBlob } from '../../src/main/infra/sealed-blob';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function setup() {
  const root = await mkdtemp(path.join(os.tmpdir(), 'td-blob-'));
  dirs.push(root);
  const codec = createAtRestCodec({ id: 'dk_0123456789abcdef', key: randomBytes(32) }, { root });
  return { root, blobs: codec.blobs };
}

async function* pieces(bytes: Buffer, size: number) {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** Every chunk copied: a source may read the next chunk into the buffer of the one before. */
async function readAll(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const p of chunks) parts.push(Buffer.from(p));
  return Buffer.concat(parts);
}

describe('sealed document blobs', () => {
  it('seal a multi-chunk document as it arrives; reads, ranges and the stream give the plain bytes back', async () => {
    const { root, blobs } = await setup();
    const marker = Buffer.from('CUSTOMER DOCUMENT MARKER');
    const plain = Buffer.concat([marker, randomBytes(BLOB_CHUNK_BYTES * 2 + 1234), marker]);
    const file = path.join(root, 'staging', 'f_a.bin');
    await import('node:fs/promises').then((f) => f.mkdir(path.dirname(file), { recursive: true }));
    // Pieces that do not line up with the chunks, as a page's 512 KiB chunks would not.
    const w = await writeBlob(blobs, file, pieces(plain, 300_001));
    expect(w).toEqual({ sizeBytes: plain.length, sha256: sha(plain), sealed: true });
    const stored = await readFile(file);
    expect(stored.includes(marker)).toBe(false);

    const r = await blobs.open(file, true);
    expect(r.size).toBe(plain.length);
    const across = await r.readAt(BLOB_CHUNK_BYTES - 10, 20);
    expect(across.equals(plain.subarray(BLOB_CHUNK_BYTES - 10, BLOB_CHUNK_BYTES + 10))).toBe(true);
    expect((await r.readAt(plain.length - 5, 100)).equals(plain.subarray(-5))).toBe(true);
    await r.close();

    const source = blobSource(() => blobs.open(file, true), w.sha256);
    expect(await source.size()).toBe(plain.length);
    expect(sha(await readAll(source.open()))).toBe(sha(plain));
    expect(await source.sha256()).toBe(sha(plain));
  });

  it('an empty and an exact-chunk document round-trip', async () => {
    const { root, blobs } = await setup();
    for (const plain of [Buffer.alloc(0), randomBytes(BLOB_CHUNK_BYTES)]) {
      const file = path.join(root, `b_${plain.length}.bin`);
      await writeBlob(blobs, file, pieces(plain, 4096));
      const r = await blobs.open(file, true);
      expect(r.size).toBe(plain.length);
      const parts: Buffer[] = [];
      for await (const p of r.chunks()) parts.push(p);
      expect(Buffer.concat(parts).equals(plain)).toBe(true);
      await r.close();
    }
  });

  it('refuses a document cut at a chunk boundary, changed, or copied over another one', async () => {
    const { root, blobs } = await setup();
    const plain = randomBytes(BLOB_CHUNK_BYTES * 2 + 10);
    const a = path.join(root, 'a.bin');
    const b = path.join(root, 'b.bin');
    await writeBlob(blobs, a, pieces(plain, 65536));
    await writeBlob(blobs, b, pieces(randomBytes(100), 100));

    // Swapped: a's sealed bytes under b's name.
    await copyFile(a, b);
    await expect(blobs.open(b, true)).rejects.toThrow(/swapped/);

    // Cut after two whole chunks: the second one is not the last, its tag says so.
    const cut = path.join(root, 'cut.bin');
    await writeBlob(blobs, cut, pieces(plain, 65536));
    const { size } = await import('node:fs/promises').then((f) => f.stat(cut));
    await truncate(cut, size - (10 + 16));
    const r = await blobs.open(cut, true);
    const stream = blobSource(() => blobs.open(cut, true), sha(plain));
    await expect(readAll(stream.open())).rejects.toBeInstanceOf(AtRestError);
    expect(stream.failure?.()).toBeInstanceOf(AtRestError);
    await r.close();

    // One byte changed in the middle.
    const bent = Buffer.from(await readFile(a));
    bent[BLOB_CHUNK_BYTES + 100] = (bent[BLOB_CHUNK_BYTES + 100] ?? 0) ^ 1;
    await writeFile(a, bent);
    const ra = await blobs.open(a, true);
    await expect(ra.readAt(BLOB_CHUNK_BYTES, 10)).rejects.toThrow(/integrity/);
    await ra.close();
  });

  it('never writes plain while the codec waits for the keychain', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'td-blob-'));
    dirs.push(root);
    const waiting = createAtRestCodec(null, { root, waiting: 'locked' });
    await expect(
      writeBlob(waiting.blobs, path.join(root, 'x.bin'), pieces(Buffer.from('x'), 1)),
    ).rejects.toBeInstanceOf(AtRestWaiting);
  });
});

describe('a picked file as an upload source', () => {
  it('hashes the bytes as they are read for sending; a stream stopped early has no hash of what was sent', async () => {
    const { root } = await setup();
    const file = path.join(root, 'picked.pdf');
    const bytes = randomBytes(3 * BLOB_CHUNK_BYTES + 17);
    await writeFile(file, bytes);
    const source = pathSource(file);
    const whole = createHash('sha256').update(bytes).digest('hex');
    expect(source.sentSha256?.()).toBeNull();
    expect((await readAll(source.open())).equals(bytes)).toBe(true);
    expect(source.sentSha256?.()).toBe(whole);
    expect(await source.sha256()).toBe(whole);

    // Opened again and given up after the first chunk: no hash of bytes that were not all sent.
    const early = source.open();
    for await (const chunk of early) {
      expect(chunk.length).toBeGreaterThan(0);
      break;
    }
    expect(source.sentSha256?.()).toBeNull();
  });
});
