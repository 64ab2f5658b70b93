import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchDocument } from '../../src/main/case-files/documents';
import type { DocumentBank } from '../../src/main/case-files/documents';
import { createAtRestCodec } from '../../src/main/infra/at-rest';
import { BLOB_CHUNK_BYTES } from '../../src/main/infra/sealed-blob';

/** A bank document downloaded for a case file's ZIP waits in the data folder sealed, never in clear. */
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const marker = Buffer.from('PASSPORT OF A CUSTOMER');
const plain = Buffer.concat([marker, randomBytes(BLOB_CHUNK_BYTES + 4321), marker]);
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const bank = {
  getDocument: async () => ({
    id: 'doc_1',
    content_type: 'application/pdf',
    size_bytes: plain.length,
    url: 'https://bank/doc_1',
  }),
  // Pieces that do not line up with the sealed chunks, as a network's would not.
  downloadDocument: async () =>
    Readable.from([plain.subarray(0, 1000), plain.subarray(1000, 700_000), plain.subarray(700_000)]),
} as unknown as DocumentBank;
const ref = {
  documentId: 'doc_1',
  rfiId: 'rfi_1',
  questionId: 'q_1',
  from: 'customer',
  at: '2026-11-01T00:00:00.000Z',
};

describe('case file temp documents', () => {
  it('are sealed as they arrive, hashed as plain bytes, and read back whole through the seal', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'td-case-tmp-'));
    dirs.push(root);
    const codec = createAtRestCodec({ id: 'dk_0123456789abcdef', key: randomBytes(32) }, { root });
    const { info, temp } = await fetchDocument(ref, undefined, bank, root, codec.blobs);
    expect(info.problem).toBeNull();
    expect(info.sha256).toBe(sha(plain));
    expect(info.sizeBytes).toBe(plain.length);
    expect(temp?.sealed).toBe(true);
    const onDisk = await readFile(temp!.file);
    expect(onDisk.includes(marker)).toBe(false);

    const reader = await codec.blobs.open(temp!.file, true);
    const parts: Buffer[] = [];
    for await (const c of reader.chunks()) parts.push(c);
    await reader.close();
    expect(sha(Buffer.concat(parts))).toBe(sha(plain));
  });

  it('without a data key they are written as they came (every file is plain then, and said so)', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'td-case-tmp-'));
    dirs.push(root);
    const { info, temp } = await fetchDocument(ref, undefined, bank, root, null);
    expect(temp?.sealed).toBe(false);
    expect(sha(await readFile(temp!.file))).toBe(info.sha256);
  });
});
