import { createHash } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OFF_THREAD_FROM_BYTES, sha256OfFile, sha256OfFileOnWorker } from '../../src/main/infra/file-hash';
import { tempDir } from '../support/temp-dir';

/**
 * A document's sha256 (the audit line and the case file carry it): the same digest whether the
 * file is hashed in place or, large, on a worker thread; a file that cannot be read rejects with
 * its read error on either path.
 */

let dir: string;
beforeEach(async () => {
  dir = await tempDir('td-file-hash-');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** Bytes that differ from one MiB to the next, so a skipped or repeated chunk changes the digest. */
function bytes(size: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i + 4 <= size; i += 4096) b.writeUInt32LE((i * 2654435761) >>> 0, i);
  return b;
}

describe('sha256OfFile', () => {
  it('hashes a small file in place and a large one on a worker, both as createHash does', async () => {
    const small = bytes(100_003);
    const large = bytes(OFF_THREAD_FROM_BYTES + 1_048_579);
    await writeFile(path.join(dir, 'small.pdf'), small);
    await writeFile(path.join(dir, 'large.pdf'), large);
    expect(await sha256OfFile(path.join(dir, 'small.pdf'))).toBe(sha256(small));
    expect(await sha256OfFile(path.join(dir, 'large.pdf'))).toBe(sha256(large));
    expect(await sha256OfFileOnWorker(path.join(dir, 'small.pdf'))).toBe(sha256(small));
  });

  it('hashes an empty file', async () => {
    await writeFile(path.join(dir, 'empty.pdf'), '');
    expect(await sha256OfFileOnWorker(path.join(dir, 'empty.pdf'))).toBe(sha256(Buffer.alloc(0)));
  });

  it('rejects with the read error for a file that is not there, in place and on a worker', async () => {
    const missing = path.join(dir, 'missing.pdf');
    await expect(sha256OfFile(missing)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(sha256OfFileOnWorker(missing)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
