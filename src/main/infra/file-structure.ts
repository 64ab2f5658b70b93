/**
 * What a file is, by its structure rather than its first bytes (the bank takes PDF, PNG and JPEG):
 *   - PDF: `%PDF-1.x`/`%PDF-2.x` header; in its last KiB `startxref <offset>` then `%%EOF`; at that
 *     offset a cross-reference table (`xref`) or an xref stream object (`n g obj`).
 *   - PNG: the 8-byte signature, an IHDR chunk of length 13 right after it, and the IEND chunk
 *     (with its fixed CRC) as the last 12 bytes.
 *   - JPEG: SOI (FF D8) followed by a marker (FF), and EOI (FF D9) at the end (trailing zero
 *     padding tolerated).
 * So `%PDF-` followed by HTML, or a PNG signature in front of anything, is refused. Reads only the
 * head, the tail and (for a PDF) a few bytes at the cross-reference offset, so a 25 MB file costs
 * three small reads. Full parsing (pdf-lib, sharp) would load whole files and pull in large
 * dependencies for a check the bank repeats anyway; these are the markers each format's
 * specification requires.
 */
import { open } from 'node:fs/promises';
import type { UploadContentType } from '../../shared/catalogue';

/** Reads `length` bytes at `offset` (fewer at the end). */
export type ReadAt = (offset: number, length: number) => Promise<Buffer>;

const PNG_SIG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PNG_IEND = Buffer.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);

/** The type the structure shows, or why it is none of the three. */
export async function checkStructure(
  size: number,
  readAt: ReadAt,
): Promise<{ ok: true; type: UploadContentType } | { ok: false; reason: string }> {
  const head = await readAt(0, 32);
  const tailLen = Math.min(size, 1024);
  const tail = await readAt(size - tailLen, tailLen);
  if (/^%PDF-[12]\.\d/.test(head.toString('latin1'))) {
    const t = tail.toString('latin1');
    const m = /startxref\s+(\d{1,12})\s+%%EOF\s*$/.exec(t);
    if (!m) return { ok: false, reason: 'it starts like a PDF but has no PDF trailer (startxref, %%EOF)' };
    const offset = Number(m[1]);
    if (offset <= 0 || offset >= size)
      return { ok: false, reason: 'its PDF cross-reference offset is outside the file' };
    const at = (await readAt(offset, 32)).toString('latin1');
    if (!/^(xref\b|\d+\s+\d+\s+obj\b)/.test(at)) {
      return { ok: false, reason: 'its PDF cross-reference table is not where the trailer says' };
    }
    return { ok: true, type: 'application/pdf' };
  }
  if (head.subarray(0, 8).equals(PNG_SIG)) {
    const ihdr = head.subarray(8, 16);
    if (ihdr.length < 8 || ihdr.readUInt32BE(0) !== 13 || ihdr.subarray(4, 8).toString('latin1') !== 'IHDR') {
      return { ok: false, reason: 'it starts like a PNG but has no IHDR header chunk' };
    }
    if (size < 8 + 25 + 12 || !tail.subarray(tail.length - 12).equals(PNG_IEND)) {
      return { ok: false, reason: 'it starts like a PNG but does not end with the IEND chunk' };
    }
    return { ok: true, type: 'image/png' };
  }
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) {
    let end = tail.length;
    while (end > 0 && tail[end - 1] === 0) end--;
    if (end < 2 || tail[end - 2] !== 0xff || tail[end - 1] !== 0xd9) {
      return { ok: false, reason: 'it starts like a JPEG but does not end with the end-of-image marker' };
    }
    return { ok: true, type: 'image/jpeg' };
  }
  return { ok: false, reason: 'it is not a PDF, PNG or JPEG file (the types the bank accepts)' };
}

export function checkBytes(bytes: Buffer): ReturnType<typeof checkStructure> {
  return checkStructure(bytes.length, async (offset, length) =>
    bytes.subarray(Math.max(0, offset), Math.max(0, offset) + length),
  );
}

export async function checkFile(file: string): ReturnType<typeof checkStructure> {
  const h = await open(file, 'r');
  try {
    const { size } = await h.stat();
    return await checkStructure(size, async (offset, length) => {
      const buf = Buffer.alloc(length);
      const { bytesRead } = await h.read(buf, 0, length, Math.max(0, offset));
      return buf.subarray(0, bytesRead);
    });
  } finally {
    await h.close();
  }
}
