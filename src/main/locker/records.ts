/**
 * The locker's records as they are kept in its sealed index (`locker/index.json`) and the pure
 * rules over them: names, expiry by the bank's clock.
 */
import { z } from 'zod';
import { DOCUMENT_TYPES, EXPIRY_WARNING_DAYS, UPLOAD_CONTENT_TYPES } from '../../shared/catalogue';
import type { DocumentType } from '../../shared/catalogue';
import type { LockerDocumentView } from '../../shared/ipc/channels/locker';
import { AppFailure } from '../../shared/ipc/errors';
import { cleanName } from '../../shared/names';

const DAY_MS = 86_400_000;

const versionSchema = z.object({
  versionId: z.string(),
  name: z.string(),
  contentType: z.enum(UPLOAD_CONTENT_TYPES),
  sizeBytes: z.number().int(),
  sha256: z.string(),
  addedAt: z.string(),
  issuedOn: z.string().nullable(),
  expiresOn: z.string().nullable(),
  /**
   * How the copy is stored: a document blob (`<versionId>.bin`, sealed in chunks unless written
   * without a keychain; infra/sealed-blob.ts). Absent: a JSON envelope of the whole file in
   * base64 (`<versionId>.sealed`), as versions added before chunked sealing are kept.
   */
  blob: z.object({ sealed: z.boolean() }).optional(),
});
export type Version = z.infer<typeof versionSchema>;

const documentSchema = z.object({
  id: z.string(),
  documentType: z.enum(DOCUMENT_TYPES),
  holder: z.object({ kind: z.enum(['person', 'company']), name: z.string() }),
  note: z.string(),
  current: versionSchema,
  history: z.array(versionSchema),
  usedBy: z.array(
    z.object({
      rfiId: z.string(),
      questionId: z.string(),
      versionId: z.string(),
      at: z.string(),
      /** The profile (bank + credential) whose RFI it answered: RFI ids are one bank's only. */
      profileId: z.string().nullable().optional(),
    }),
  ),
  /** `<versionId>:<threshold days>` of every expiry warning given. */
  warned: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type LockerDocument = z.infer<typeof documentSchema>;

export const indexFormat = {
  label: 'The evidence locker',
  consequence: 'Its documents are no longer listed; add them again.',
  version: 1,
  schema: z.object({ version: z.literal(1), documents: z.array(documentSchema) }),
};

export type FileSource = { from: 'picker' } | { from: 'staged'; ref: string };

export interface NewDocument {
  documentType: DocumentType;
  holder: { kind: 'person' | 'company'; name: string };
  note?: string | undefined;
  issuedOn?: string | null | undefined;
  expiresOn?: string | null | undefined;
}

export type VersionDates = { issuedOn?: string | null | undefined; expiresOn?: string | null | undefined };

/** A holder's name as kept: NFC, no bidi, format or control characters; never empty. */
export function holderName(name: string): string {
  const clean = cleanName(name, 200);
  if (!clean) {
    throw new AppFailure({
      kind: 'invalid_argument',
      field: 'holder.name',
      message: 'The holder’s name has no visible characters.',
    });
  }
  return clean;
}

/** Whole days from the bank's today to a YYYY-MM-DD date (the document is valid through it). */
export function daysUntil(date: string, nowMs: number): number {
  const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
  return Math.round((Date.parse(`${date}T00:00:00Z`) - today) / DAY_MS);
}

export function expiryOf(
  v: Version,
  nowMs: number,
): { daysLeft: number | null; expiry: LockerDocumentView['expiry'] } {
  if (!v.expiresOn) return { daysLeft: null, expiry: 'none' };
  const daysLeft = daysUntil(v.expiresOn, nowMs);
  const soonest = Math.max(...EXPIRY_WARNING_DAYS);
  return { daysLeft, expiry: daysLeft < 0 ? 'expired' : daysLeft <= soonest ? 'soon' : 'valid' };
}

/** Documents in the order the locker lists them: soonest expiry first, then by holder. */
export const sorted = (list: LockerDocument[]): LockerDocument[] =>
  list.sort((a, b) => {
    const ea = a.current.expiresOn ?? '9999-12-31';
    const eb = b.current.expiresOn ?? '9999-12-31';
    return ea.localeCompare(eb) || a.holder.name.localeCompare(b.holder.name);
  });
