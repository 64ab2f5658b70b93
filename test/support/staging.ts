import type { TestServices } from './services';

/**
 * Drops `bytes` as the page does (`files.stageDropped`: begin, chunks in order, commit) and
 * answers the staged file's ref.
 */
export async function stageDropped(
  s: TestServices,
  bytes: Buffer,
  o: {
    name?: string;
    documentType?: 'other' | 'transaction_supporting_document';
    chunkBytes?: number;
    /** The profile whose answer the file is for (default: the default profile). */
    profileId?: string;
  } = {},
): Promise<string> {
  const h = s.services.handlers['files.stageDropped'];
  const begun = await h({
    op: 'begin',
    name: o.name ?? 'statement.pdf',
    contentType: 'application/pdf',
    sizeBytes: bytes.length,
    documentType: o.documentType ?? 'other',
    profileId: o.profileId ?? s.services.session.profile.id,
  });
  const stagingId = begun.stagingId!;
  const step = o.chunkBytes ?? 512 * 1024;
  for (let off = 0; off < bytes.length; off += step) {
    const data = bytes.subarray(off, off + step).toString('base64');
    await h({ op: 'chunk', stagingId, offset: off, data });
  }
  return (await h({ op: 'commit', stagingId })).file!.ref;
}
