import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkBytes, checkFile } from '../../src/main/infra/file-structure';
import { jpegImage, pdfDocument, pngImage } from '../support/documents';
import { tempDir } from '../support/temp-dir';

describe('file types by structure', () => {
  it('accepts well-formed PDF, PNG and JPEG files, from bytes and from disk', async () => {
    expect(await checkBytes(pdfDocument(5_000))).toEqual({ ok: true, type: 'application/pdf' });
    expect(await checkBytes(pngImage(5_000))).toEqual({ ok: true, type: 'image/png' });
    expect(await checkBytes(jpegImage(5_000))).toEqual({ ok: true, type: 'image/jpeg' });
    const dir = await tempDir();
    const f = path.join(dir, 'a.pdf');
    await writeFile(f, pdfDocument(300_000));
    expect(await checkFile(f)).toEqual({ ok: true, type: 'application/pdf' });
  });

  it('refuses polyglots and truncated files that only start right', async () => {
    const cases: Array<[string, Buffer, RegExp]> = [
      [
        '%PDF- followed by HTML',
        Buffer.from('%PDF-1.7\n<html><script>alert(1)</script></html>\n'),
        /no PDF trailer/,
      ],
      [
        'a PDF trailer pointing at nothing',
        Buffer.from('%PDF-1.7\n<html></html>\nstartxref\n12\n%%EOF\n'),
        /cross-reference table is not where/,
      ],
      [
        'a PDF trailer pointing outside',
        Buffer.from('%PDF-1.7\nxref\nstartxref\n99999\n%%EOF\n'),
        /outside the file/,
      ],
      [
        'a PNG signature in front of HTML',
        Buffer.concat([pngImage(100).subarray(0, 8), Buffer.from('<html>')]),
        /IHDR/,
      ],
      ['a PNG cut before IEND', pngImage(2_000).subarray(0, 1_500), /IEND/],
      ['a JPEG without its end marker', jpegImage(2_000).subarray(0, 1_000), /end-of-image/],
      ['a Windows executable', Buffer.from('MZ\u0090\u0000 not a pdf'), /not a PDF, PNG or JPEG/],
    ];
    for (const [what, bytes, reason] of cases) {
      const r = await checkBytes(bytes);
      expect(r.ok, what).toBe(false);
      expect(r.ok ? '' : r.reason, what).toMatch(reason);
    }
  });
});
