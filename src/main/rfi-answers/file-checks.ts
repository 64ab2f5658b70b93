/** The checks every staged file passes, in the words every refusal of a type uses. */
import { rm } from 'node:fs/promises';
import type { UploadContentType } from '../../shared/catalogue';
import { AppFailure } from '../../shared/ipc/errors';
import { checkStructure } from '../infra/file-structure';
import type { BlobCodec } from '../infra/sealed-blob';

/** A refusal by structure, in the words every refusal of a type uses. */
export function notAccepted(reason: string): string {
  return reason.startsWith('it is not a PDF')
    ? 'It is not a PDF, PNG or JPEG file (the types the bank accepts).'
    : `It is not a PDF, PNG or JPEG file the bank accepts: ${reason}.`;
}

/**
 * The type of a stored blob by its structure (read through the seal: head, tail, cross-reference);
 * a blob of no accepted type is deleted and refused by its display name.
 */
export async function checkStored(
  blobs: BlobCodec,
  file: string,
  sealed: boolean,
  name: string,
  field: string,
): Promise<UploadContentType> {
  let checked: Awaited<ReturnType<typeof checkStructure>>;
  const r = await blobs.open(file, sealed);
  try {
    checked = await checkStructure(r.size, r.readAt);
  } finally {
    await r.close();
  }
  if (!checked.ok) {
    await rm(file, { force: true });
    throw new AppFailure({
      kind: 'invalid_argument',
      field,
      message: `${name}: ${notAccepted(checked.reason)}`,
    });
  }
  return checked.type;
}
