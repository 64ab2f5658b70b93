/**
 * Wire schemas of the team's shared evidence locker: documents stored once by sha256 on the team
 * server, offered to every analyst with a role in the legal entity. A version never changes;
 * replacing or revoking it is an event appended after it.
 */
import { z } from 'zod';
import { DOCUMENT_TYPES, UPLOAD_CONTENT_TYPES } from '../catalogue';
import { Sha256Hex, Subject } from './schemas';

/** A calendar date, `YYYY-MM-DD`. */
export const PlainDate = z.iso.date();

export const EvidenceHolder = z.strictObject({
  kind: z.enum(['person', 'company']),
  name: z.string().trim().min(1).max(200),
});
export type EvidenceHolder = z.infer<typeof EvidenceHolder>;

/** A new version: the workstation names it (a UUID it makes), so a retried upload lands once. */
export const AddEvidenceBody = z
  .strictObject({
    id: z.uuid(),
    sha256: Sha256Hex,
    fileName: z.string().trim().min(1).max(255),
    documentType: z.enum(DOCUMENT_TYPES),
    holder: EvidenceHolder,
    issuedOn: PlainDate.nullable().default(null),
    expiresOn: PlainDate.nullable().default(null),
  })
  .refine((b) => !b.issuedOn || !b.expiresOn || b.expiresOn >= b.issuedOn, {
    message: 'expiresOn must not be before issuedOn',
    path: ['expiresOn'],
  });
export type AddEvidenceBody = z.infer<typeof AddEvidenceBody>;
export const RevokeEvidenceBody = z.strictObject({ reason: z.string().trim().min(1).max(2000) });

export const EVIDENCE_STATUSES = ['current', 'replaced', 'revoked'] as const;
export const EvidenceStatus = z.enum(EVIDENCE_STATUSES);

export const EvidenceDocument = z.strictObject({
  id: z.string(),
  legalEntityId: z.string(),
  sha256: Sha256Hex,
  size: z.number().int().positive(),
  contentType: z.enum(UPLOAD_CONTENT_TYPES),
  fileName: z.string(),
  documentType: z.string(),
  holder: EvidenceHolder,
  issuedOn: PlainDate.nullable(),
  expiresOn: PlainDate.nullable(),
  /** The version this one replaced, if any. */
  replaces: z.string().nullable(),
  uploadedBy: Subject,
  uploadedAt: z.string(),
  status: EvidenceStatus,
  /** Set once the version was replaced or revoked: by whom, when, and its successor or reason. */
  endedBy: Subject.nullable(),
  endedAt: z.string().nullable(),
  replacedBy: z.string().nullable(),
  revokeReason: z.string().nullable(),
});
export type EvidenceDocument = z.infer<typeof EvidenceDocument>;

export const EvidenceList = z.strictObject({ documents: z.array(EvidenceDocument) });
export const EvidenceListQuery = z.strictObject({
  /** `current` (default): what may be used for answers now; `all`: every version ever stored. */
  status: z.enum(['current', 'all']).default('current'),
});
export const StoredBlob = z.strictObject({
  sha256: Sha256Hex,
  size: z.number().int().positive(),
  contentType: z.enum(UPLOAD_CONTENT_TYPES),
});
