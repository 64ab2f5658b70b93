/**
 * The evidence locker: documents the analyst keeps once (a passport, a registry extract) and
 * reuses to answer RFIs. Files enter only through main's native picker or as dropped bytes staged
 * by main (`files.stageDropped`, an opaque ref); the renderer never names a path. A document is
 * stored encrypted in the data folder, with its sha256, and every replacement keeps the older
 * versions in its history.
 */

import { z } from 'zod';
import { profileIdSchema } from './settings';
import { bankId } from '../../api/common';
import { DOCUMENT_TYPES } from '../../catalogue';
import { channel, event } from '../define';
import { fileRefSchema, stagedFileSchema } from './rfi-answers';

export const lockerIdSchema = z.string().regex(/^ld_[0-9a-f]{24}$/, 'must be a locker document id');
const documentType = z.enum(DOCUMENT_TYPES, { error: 'must be a known document type' });
/** A calendar date, YYYY-MM-DD. */
const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date (YYYY-MM-DD)')
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)), 'must be a real date');
const holder = z.strictObject({
  kind: z.enum(['person', 'company']),
  name: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
});
const note = z.string().max(2000, 'must be at most 2000 characters');
const dates = {
  issuedOn: day.nullable().optional(),
  expiresOn: day.nullable().optional(),
};
/** Where the file comes from: main's native picker, or a file the page dropped (staged by main). */
const source = z.discriminatedUnion('from', [
  z.strictObject({ from: z.literal('picker') }),
  z.strictObject({ from: z.literal('staged'), ref: fileRefSchema }),
]);

export const lockerVersionSchema = z.object({
  versionId: z.string(),
  /** Display name only (never used as a path). */
  name: z.string(),
  contentType: z.string(),
  sizeBytes: z.number().int(),
  sha256: z.string(),
  addedAt: z.string(),
  issuedOn: z.string().nullable(),
  expiresOn: z.string().nullable(),
});

export const lockerDocumentSchema = z.object({
  id: z.string(),
  documentType: z.string(),
  holder: z.object({ kind: z.enum(['person', 'company']), name: z.string() }),
  note: z.string(),
  current: lockerVersionSchema,
  /** Older versions, newest first. */
  history: z.array(lockerVersionSchema),
  /** Whole days until the current version expires (negative: expired), by the bank's clock. */
  daysLeft: z.number().int().nullable(),
  expiry: z.enum(['expired', 'soon', 'valid', 'none']),
  /** The stored file is gone or damaged (it can no longer be used; replace it). */
  problem: z.string().nullable(),
  /** RFIs answered (or being answered) with this document; `open` when the RFI is not final yet. */
  usedBy: z.array(
    z.object({
      rfiId: z.string(),
      questionId: z.string(),
      /** The profile whose RFI it answered (RFI ids are one bank's only); null: from before profiles. */
      profileId: z.string().nullable(),
      at: z.string(),
      rfiStatus: z.string().nullable(),
      open: z.boolean(),
    }),
  ),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type LockerDocumentView = z.infer<typeof lockerDocumentSchema>;

const refusal = z.object({ name: z.string(), message: z.string() });

export const lockerChannels = {
  'locker.list': channel({
    summary:
      'Locker documents, soonest expiry first; filter by type, holder (part of the name), expiry state or words.',
    args: z
      .strictObject({
        documentType: documentType.optional(),
        holder: z.string().max(200).optional(),
        expiry: z.enum(['expired', 'soon', 'valid', 'none']).optional(),
        query: z.string().max(200).optional(),
      })
      .optional(),
    result: z.object({ documents: z.array(lockerDocumentSchema) }),
  }),
  'locker.add': channel({
    summary:
      'Add a document: from main’s native file picker or a dropped file staged by main; checked (PDF/PNG/JPEG, size), hashed, stored encrypted.',
    args: z.strictObject({ source, documentType, holder, note: note.optional(), ...dates }),
    result: z.object({ document: lockerDocumentSchema.nullable(), refused: z.array(refusal) }),
  }),
  'locker.replace': channel({
    summary: 'Replace a document’s file with a newer version (the old one stays in its history).',
    args: z.strictObject({ id: lockerIdSchema, source, ...dates }),
    result: z.object({ document: lockerDocumentSchema.nullable(), refused: z.array(refusal) }),
  }),
  'locker.update': channel({
    summary: 'Change a document’s type, holder or note.',
    args: z.strictObject({
      id: lockerIdSchema,
      documentType: documentType.optional(),
      holder: holder.optional(),
      note: note.optional(),
    }),
    result: lockerDocumentSchema,
  }),
  'locker.remove': channel({
    summary: 'Remove a document and every version of it from the locker.',
    args: z.strictObject({ id: lockerIdSchema }),
    result: z.object({ removed: z.boolean() }),
  }),
  'locker.forQuestion': channel({
    summary: 'Locker documents for a question: the ones whose type fits the question type first.',
    args: z.strictObject({ questionType: z.string().min(1).max(128) }),
    result: z.object({
      fitting: z.array(lockerDocumentSchema),
      others: z.array(lockerDocumentSchema),
    }),
  }),
  'locker.attach': channel({
    summary:
      'Use a locker document in an answer: its exact bytes are staged for upload (a file ref for the draft).',
    args: z.strictObject({
      id: lockerIdSchema,
      rfiId: bankId,
      questionId: bankId,
      /** The profile that owns the RFI (the row says it): the staged copy is bound to it. */
      profileId: profileIdSchema,
    }),
    result: stagedFileSchema,
  }),
};

export const lockerEvents = {
  'locker.changed': event({
    summary: 'The locker changed (added, replaced, removed, used, or an expiry warning).',
    payload: z.object({ count: z.number().int() }),
  }),
  'locker.expiryWarning': event({
    summary: 'A locker document expires within a warning threshold (sent once per document and threshold).',
    payload: z.object({
      id: z.string(),
      name: z.string(),
      holder: z.string(),
      daysLeft: z.number().int(),
      threshold: z.number().int(),
    }),
  }),
};
