/**
 * What the team shares beside assignment: the shared evidence locker, notes and presence on RFIs,
 * and the team activity log. Every call names the profile that owns its object (an RFI's, or the
 * one whose legal entity is meant); main finds the legal entity from that profile's session and
 * checks the analyst is a member there. Files move only inside main: a local document is shared
 * by its locker id, a shared document is staged for an answer by its id; the page never sees a
 * path, a token or the team server's address.
 */
import { z } from 'zod';
import { bankId } from '../../api/common';
import { Subject } from '../../team/schemas';
import { channel, event } from '../define';
import { lockerIdSchema } from './locker';
import { stagedFileSchema } from './rfi-answers';
import { profileIdSchema } from './settings';

const person = z.object({ subject: Subject, name: z.string(), isYou: z.boolean() });

export const sharedDocumentSchema = z.object({
  id: z.string(),
  /** Display name only (never used as a path). */
  fileName: z.string(),
  documentType: z.string(),
  holder: z.object({ kind: z.enum(['person', 'company']), name: z.string() }),
  issuedOn: z.string().nullable(),
  expiresOn: z.string().nullable(),
  sizeBytes: z.number().int(),
  sha256: z.string(),
  addedBy: person,
  addedAt: z.string(),
  /** Shared on this workstation, waiting for the team server. */
  pending: z.boolean(),
});
export type SharedDocumentView = z.infer<typeof sharedDocumentSchema>;

export const sharedEntitySchema = z.object({
  /** The profile the entity is reached through (its bank and credential). */
  profileId: z.string(),
  legalEntityId: z.string(),
  legalEntityName: z.string(),
  canShare: z.boolean(),
  documents: z.array(sharedDocumentSchema),
  /** The team server could not be reached: the documents are the last ones read. */
  offline: z.boolean(),
});
export type SharedEntityView = z.infer<typeof sharedEntitySchema>;

export const teamNoteSchema = z.object({
  id: z.string(),
  author: person,
  at: z.string(),
  text: z.string(),
  pending: z.boolean(),
});
export type TeamNoteView = z.infer<typeof teamNoteSchema>;

export const presentSchema = z.object({
  subject: Subject,
  name: z.string(),
  activity: z.enum(['viewing', 'editing']),
  since: z.string(),
});
export type PresentView = z.infer<typeof presentSchema>;

export const teamActivityEntrySchema = z.object({
  seq: z.number().int(),
  at: z.string(),
  actor: person,
  action: z.string(),
  words: z.string(),
  object: z.object({ kind: z.string(), id: z.string() }).nullable(),
  detail: z.record(z.string(), z.string()),
});
export type TeamActivityEntryView = z.infer<typeof teamActivityEntrySchema>;

export const chainSchema = z.object({
  intact: z.boolean(),
  brokenAt: z.number().int().nullable(),
  words: z.string(),
});

const rfiTarget = {
  rfiId: bankId,
  /** The profile that owns the RFI (the row says it): every call for it goes through that profile. */
  profileId: profileIdSchema,
};

export const teamShareChannels = {
  'team.sharedEvidence': channel({
    summary:
      'The team’s shared documents of each legal entity the analyst’s profiles reach (current versions); only one profile’s when named.',
    args: z.strictObject({ profileId: profileIdSchema.optional() }).optional(),
    result: z.object({ entities: z.array(sharedEntitySchema) }),
  }),
  'team.shareEvidence': channel({
    summary:
      'Share a document of the analyst’s own locker with the team of the profile’s legal entity (its bytes by sha256; queued while the team server is away).',
    args: z.strictObject({ lockerId: lockerIdSchema, profileId: profileIdSchema }),
    result: sharedDocumentSchema,
  }),
  'team.attachEvidence': channel({
    summary:
      'Use a shared document in an answer: its bytes are fetched, checked against the sha256 the team server names, and staged for the RFI’s owning profile.',
    args: z.strictObject({ documentId: z.uuid(), questionId: bankId, ...rfiTarget }),
    result: stagedFileSchema,
  }),
  'team.notes': channel({
    summary: 'The team’s notes on an RFI (oldest first, pending ones included) and who else has it open.',
    args: z.strictObject(rfiTarget),
    result: z.object({
      notes: z.array(teamNoteSchema),
      present: z.array(presentSchema),
      canWrite: z.boolean(),
      offline: z.boolean(),
    }),
  }),
  'team.addNote': channel({
    summary:
      'Write a note on an RFI for the team (never sent to the bank; queued while the team server is away).',
    args: z.strictObject({
      ...rfiTarget,
      text: z.string().trim().min(1, 'must not be empty').max(10_000, 'must be at most 10000 characters'),
    }),
    result: teamNoteSchema,
  }),
  'team.presence': channel({
    summary:
      'A presence beat for an RFI the analyst has open (`viewing`, `editing`), or `gone` when they leave it; answers who else is there.',
    args: z.strictObject({ ...rfiTarget, activity: z.enum(['viewing', 'editing', 'gone']) }),
    result: z.object({ present: z.array(presentSchema) }),
  }),
  'team.activity': channel({
    summary:
      'The team activity log of a legal entity (the named profile’s; the default profile’s when none is named), only an RFI’s of that profile when named, with the hash chain checked; null in solo use or outside the team.',
    args: z.strictObject({ profileId: profileIdSchema, rfiId: bankId.optional() }).optional(),
    result: z
      .object({
        legalEntityId: z.string(),
        legalEntityName: z.string(),
        entries: z.array(teamActivityEntrySchema),
        chain: chainSchema,
        offline: z.boolean(),
      })
      .nullable(),
  }),
};

export const teamShareEvents = {
  'team.shared': event({
    summary:
      'Shared documents, notes, presence or team activity of a legal entity changed (read again); `notice`: a queued note or share the server refused.',
    payload: z.object({
      legalEntityId: z.string(),
      topic: z.enum(['evidence', 'note', 'presence', 'activity']),
      rfiId: z.string().nullable(),
      notice: z.string().nullable(),
    }),
  }),
};
