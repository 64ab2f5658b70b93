/**
 * Schemas of documents: asking for a signed upload URL, the signed upload itself, and the
 * document record.
 */

import { z } from 'zod';
import { DOCUMENT_TYPES, UPLOAD_CONTENT_TYPES } from '../catalogue';
import { id, timestampOut, msg } from './common';

export const UploadUrlRequest = z.strictObject({
  related_id: id,
  content_type: z.enum(UPLOAD_CONTENT_TYPES, {
    error: msg(`must be one of ${UPLOAD_CONTENT_TYPES.join(', ')}`),
  }),
  document_type: z.enum(DOCUMENT_TYPES, { error: msg('must be a known document type') }),
});
export type UploadUrlRequest = z.infer<typeof UploadUrlRequest>;

export const UploadUrlResponse = z.looseObject({
  id: z.string(),
  url: z.string(),
  expires_at: timestampOut,
});

/** GET /v1/documents/:documentID. `url` is a signed download URL; size_bytes null before upload. */
export const DocumentInfo = z.looseObject({
  id: z.string(),
  url: z.string(),
  expires_at: timestampOut,
  content_type: z.string(),
  size_bytes: z.number().int().nullable(),
});
export const DocumentParams = z.strictObject({ documentID: id });

/** Signed-URL query (PUT/GET {signed_url}). */
export const SignedUrlQuery = z.strictObject({
  expires: z.string().regex(/^[0-9]{1,12}$/, 'must be unix seconds'),
  sig: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'must be a signature'),
});
export const UploadParams = z.strictObject({ documentID: id });
/** Answer of a successful PUT {signed_url}. */
export const UploadResult = z.looseObject({
  id: z.string(),
  size_bytes: z.number().int(),
  sha256: z.string(),
});
