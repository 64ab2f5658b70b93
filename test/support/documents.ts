/**
 * Small well-formed documents for tests: main checks PDF, PNG and JPEG files by their structure
 * (src/main/infra/file-structure.ts), so a fixture needs the markers a real file has.
 */

/** A PDF of about `size` bytes: header, one object, a cross-reference table, the trailer. */
export function pdfDocument(size = 2_000, fill = 0x41): Buffer {
  const head = Buffer.from(
    '%PDF-1.4\n1 0 obj\n<</Type/Catalog/Pages 2 0 R>>\nendobj\n2 0 obj\n<</Type/Pages/Kids[]/Count 0>>\nendobj\n%',
  );
  const pad = Buffer.alloc(Math.max(0, size - head.length - 120), fill);
  const body = Buffer.concat([head, pad, Buffer.from('\n')]);
  const xref = body.length;
  const tail = Buffer.from(
    `xref\n0 3\n0000000000 65535 f \n0000000009 00000 n \n0000000058 00000 n \ntrailer\n<</Size 3/Root 1 0 R>>\nstartxref\n${xref}\n%%EOF\n`,
  );
  return Buffer.concat([body, tail]);
}

/** A PNG of about `size` bytes: signature, IHDR, one ancillary chunk of padding, IEND. */
export function pngImage(size = 1_000, fill = 7): Buffer {
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const chunk = (type: string, data: Buffer): Buffer => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    return Buffer.concat([len, Buffer.from(type, 'latin1'), data, Buffer.alloc(4)]);
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
  const pad = chunk('tEXt', Buffer.alloc(Math.max(0, size - 8 - 25 - 12 - 12), fill));
  const iend = Buffer.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);
  return Buffer.concat([sig, chunk('IHDR', ihdr), pad, iend]);
}

/** A JPEG of about `size` bytes: SOI, an APP0 marker, padding, EOI. */
export function jpegImage(size = 1_000, fill = 0x22): Buffer {
  return Buffer.concat([
    Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
    Buffer.alloc(Math.max(0, size - 6), fill),
    Buffer.from([0xff, 0xd9]),
  ]);
}

/** The same shapes around given bytes (random content for reliability scenarios). */
export function documentAround(kind: 'pdf' | 'png' | 'jpg', body: Buffer): Buffer {
  if (kind === 'jpg')
    return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), body, Buffer.from([0xff, 0xd9])]);
  if (kind === 'png') {
    const png = pngImage(57 + body.length);
    // The padding chunk's data starts after the signature (8), IHDR (25) and the chunk's length and type (8).
    body.copy(png, 41);
    return png;
  }
  const head = Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\n%');
  const xref = head.length + body.length + 1;
  return Buffer.concat([
    head,
    body,
    Buffer.from(`\nxref\n0 1\n0000000000 65535 f \ntrailer\n<</Size 1>>\nstartxref\n${xref}\n%%EOF\n`),
  ]);
}
