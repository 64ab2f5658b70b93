import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { openDraftStore } from '../../src/main/rfi-answers/drafts';
import { CHUNK_BYTES, openFileArea, sniffContentType } from '../../src/main/rfi-answers/files';
import { pdfDocument, pngImage } from '../support/documents';

let dir: string;
const log = createLogger(memorySink(), 'debug');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'td-drafts-'));
});
const areas: Array<{ dispose(): Promise<void> }> = [];
afterEach(async () => {
  // A file area may still be hashing a picked file into its registry: disposed before the folder goes.
  for (const a of areas.splice(0)) await a.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('draft store', () => {
  it('saves per RFI and question, atomically, and reads them back after a restart', async () => {
    const d1 = await openDraftStore({ dir, log });
    await d1.save('rfi_1', 'q_1', { questionType: 'transaction.purpose', text: 'first', files: [] });
    await d1.save('rfi_1', 'q_2', { questionType: 'transaction.purpose', text: 'other', files: [] });
    await d1.save('rfi_1', 'q_1', { questionType: 'transaction.purpose', text: 'second', files: [] });
    await d1.save('rfi_2', 'q_1', { questionType: 'transaction.purpose', text: 'rfi two', files: [] });
    const names = await readdir(dir);
    expect(names.filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(names).toHaveLength(2);
    for (const n of names) expect((await stat(path.join(dir, n))).mode & 0o777).toBe(0o600);

    const d2 = await openDraftStore({ dir, log });
    const r1 = await d2.get('rfi_1');
    expect(Object.keys(r1).sort()).toEqual(['q_1', 'q_2']);
    expect(r1['q_1']?.text).toBe('second');
    expect((await d2.getOne('rfi_2', 'q_1'))?.text).toBe('rfi two');
  });

  it('concurrent saves are serialised: the last one wins and none is torn', async () => {
    const d = await openDraftStore({ dir, log });
    await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        d.save('rfi_1', 'q_1', { questionType: 't.x', text: `v${i}`, files: [] }),
      ),
    );
    const again = await openDraftStore({ dir, log });
    expect((await again.getOne('rfi_1', 'q_1'))?.text).toBe('v24');
  });

  it('discard removes one question only and answers what was removed', async () => {
    const d = await openDraftStore({ dir, log });
    await d.save('rfi_1', 'q_1', { questionType: 't.x', text: 'a', files: ['f_1'] });
    await d.save('rfi_1', 'q_2', { questionType: 't.x', text: 'b', files: [] });
    expect((await d.discard('rfi_1', 'q_1'))?.files).toEqual(['f_1']);
    expect(await d.discard('rfi_1', 'q_1')).toBeNull();
    const again = await openDraftStore({ dir, log });
    expect(Object.keys(await again.get('rfi_1'))).toEqual(['q_2']);
    expect(await again.referencedFiles()).toEqual(new Set());
  });

  it('an unreadable drafts file is moved aside and reported, never silently reset', async () => {
    const d = await openDraftStore({ dir, log });
    await d.save('rfi_1', 'q_1', { questionType: 't.x', text: 'a', files: [] });
    const [name] = await readdir(dir);
    await writeFile(path.join(dir, name!), '{"version":1,"rfiId":"rfi_1","drafts":{"q_1":{"te');
    const problems: string[] = [];
    const again = await openDraftStore({ dir, log, onProblem: (m) => problems.push(m) });
    expect(await again.get('rfi_1')).toEqual({});
    expect(problems).toHaveLength(1);
    expect((await readdir(dir)).some((n) => n.includes('.corrupt-'))).toBe(true);

    // The copy moved aside is kept as it is: later starts and folder-wide reads never take it for
    // drafts again (it was moved aside once more at every start, each time reported anew).
    const aside = (await readdir(dir)).filter((n) => n.includes('.corrupt-'));
    const later: string[] = [];
    const third = await openDraftStore({ dir, log, onProblem: (m) => later.push(m) });
    expect(await third.referencedFiles()).toEqual(new Set());
    expect(await third.removeProfile('p_other')).toEqual({ drafts: 0, files: [] });
    expect(later).toEqual([]);
    expect((await readdir(dir)).filter((n) => n.includes('.corrupt-'))).toEqual(aside);
  });
});

describe('staged files', () => {
  const area = async (maxBytes = 1024 * 1024) => {
    const a = await openFileArea({ dir, log, maxBytes: () => maxBytes });
    areas.push(a);
    return a;
  };

  it('recognises PDF, PNG and JPEG by their first bytes only', () => {
    expect(sniffContentType(Buffer.from('%PDF-1.7'))).toBe('application/pdf');
    expect(sniffContentType(PNG)).toBe('image/png');
    expect(sniffContentType(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(sniffContentType(Buffer.from('MZ\x90\x00'))).toBeNull();
    expect(sniffContentType(Buffer.from('<html>'))).toBeNull();
  });

  it('a dropped file arrives in chunks under a name main chooses (the page name is display only)', async () => {
    const files = await area();
    const bytes = Buffer.concat([PNG, Buffer.alloc(CHUNK_BYTES + 100, 9)]);
    const id = await files.begin({
      name: '../../etc/passwd.png',
      contentType: 'image/png',
      sizeBytes: bytes.length,
      documentType: 'passport',
    });
    await expect(files.chunk(id, 5, bytes.subarray(0, 10).toString('base64'))).rejects.toThrow(
      /Expected the chunk at 0/,
    );
    expect(await files.chunk(id, 0, bytes.subarray(0, CHUNK_BYTES).toString('base64'))).toBe(CHUNK_BYTES);
    await expect(files.commit(id)).rejects.toThrow(/arrived/);
  });

  it('commit checks size and content; the staged copy lives under the staging folder', async () => {
    const files = await area();
    const bytes = pngImage(1000, 9);
    const id = await files.begin({
      name: '../../evil/name.png',
      contentType: 'image/png',
      sizeBytes: bytes.length,
      documentType: 'passport',
    });
    await files.chunk(id, 0, bytes.toString('base64'));
    const view = await files.commit(id);
    expect(view).toMatchObject({ name: 'name.png', sizeBytes: bytes.length, contentType: 'image/png' });
    const rec = files.resolve(view.ref);
    expect(path.dirname(rec.path)).toBe(path.join(dir, 'staging'));
    expect(path.basename(rec.path)).toBe(`${view.ref}.bin`);
    expect(await readFile(rec.path)).toEqual(bytes);
    // Refs survive a restart; refs never issued are refused.
    const again = await area();
    expect(again.view(view.ref).name).toBe('name.png');
    expect(() => again.resolve('f_000000000000000000000000')).toThrow(/not issued/);
    await again.release([view.ref]);
    await expect(stat(rec.path)).rejects.toThrow();
  });

  it('refuses too large, wrong declared types, extra bytes and content that is not PDF/PNG/JPEG', async () => {
    const files = await area(2000);
    await expect(
      files.begin({
        name: 'big.pdf',
        contentType: 'application/pdf',
        sizeBytes: 2001,
        documentType: 'other',
      }),
    ).rejects.toThrow(/at most 2,000 bytes/);
    await expect(
      files.begin({
        name: 'x.exe',
        contentType: 'application/x-msdownload',
        sizeBytes: 10,
        documentType: 'other',
      }),
    ).rejects.toThrow(/PDF, PNG and JPEG/);
    const a = await files.begin({
      name: 'a.pdf',
      contentType: 'application/pdf',
      sizeBytes: 4,
      documentType: 'other',
    });
    await expect(files.chunk(a, 0, Buffer.from('%PDF-').toString('base64'))).rejects.toThrow(/More bytes/);
    const b = await files.begin({ name: 'b.pdf', contentType: '', sizeBytes: 6, documentType: 'other' });
    await files.chunk(b, 0, Buffer.from('<html>').toString('base64'));
    await expect(files.commit(b)).rejects.toThrow(/not a PDF, PNG or JPEG/);
    expect((await readdir(path.join(dir, 'staging'))).filter((n) => !n.startsWith('.'))).toEqual([]);
  });

  it('picked files are checked and registered by ref, without copying', async () => {
    const files = await area(2000);
    const ok = path.join(dir, 'scan.pdf');
    const bad = path.join(dir, 'notes.pdf');
    const big = path.join(dir, 'big.pdf');
    await writeFile(ok, pdfDocument(300));
    await writeFile(bad, 'plain text');
    await writeFile(big, Buffer.concat([Buffer.from('%PDF-'), Buffer.alloc(3000)]));
    const r = await files.registerPicked([ok, bad, big, 'relative.pdf'], 'proof_of_address');
    expect(r.files.map((f) => [f.name, f.contentType, f.documentType])).toEqual([
      ['scan.pdf', 'application/pdf', 'proof_of_address'],
    ]);
    expect(r.refused.map((x) => x.name)).toEqual(['notes.pdf', 'big.pdf', 'relative.pdf']);
    expect(files.resolve(r.files[0]!.ref).path).toBe(ok);
    // Hashed once picked, so its upload need not hash it on the way out; known while unchanged.
    const source = files.source(r.files[0]!.ref);
    const sha = createHash('sha256').update(pdfDocument(300)).digest('hex');
    expect(await source.known?.()).toBe(sha);
    expect(files.resolve(r.files[0]!.ref).sha256).toBe(sha);
    await writeFile(ok, pdfDocument(301));
    expect(await source.known?.()).toBeNull();
    expect(await source.sha256()).toBe(createHash('sha256').update(pdfDocument(301)).digest('hex'));
  });
});
