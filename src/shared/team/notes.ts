/**
 * Wire schemas of internal notes (the team's own words on an RFI, a return or an exchange order,
 * never sent to the bank) and presence (who is viewing or editing an object right now).
 */
import { z } from 'zod';
import { bankId } from '../api/common';
import { Subject } from './schemas';

/** What a note or presence is about: an RFI, a return (by its transaction) or an exchange order. */
export const TeamObjectKind = z.enum(['rfi', 'return', 'exchange']);
export const TeamObjectRef = z.strictObject({ kind: TeamObjectKind, id: bankId });
export type TeamObjectRef = z.infer<typeof TeamObjectRef>;

/** The workstation names a note (a UUID it makes), so a retried note lands once. */
export const AddNoteBody = z.strictObject({
  id: z.uuid(),
  object: TeamObjectRef,
  text: z.string().trim().min(1).max(10_000),
});
export const Note = z.strictObject({
  id: z.string(),
  legalEntityId: z.string(),
  object: TeamObjectRef,
  author: Subject,
  authorName: z.string().nullable(),
  /** The server's time of the note. */
  at: z.string(),
  text: z.string(),
});
export type Note = z.infer<typeof Note>;
export const NotesQuery = z.strictObject({ kind: TeamObjectKind, objectId: bankId });
export const NoteList = z.strictObject({ notes: z.array(Note) });

export const PresenceActivity = z.enum(['viewing', 'editing']);
export const HeartbeatBody = z.strictObject({
  object: TeamObjectRef,
  activity: PresenceActivity.default('viewing'),
});
export const LeaveBody = z.strictObject({ object: TeamObjectRef });
export const PresenceQuery = z.strictObject({
  kind: TeamObjectKind.optional(),
  objectId: bankId.optional(),
});

export const PresentAnalyst = z.strictObject({
  subject: Subject,
  name: z.string().nullable(),
  activity: PresenceActivity,
  /** Since when (server time) they have been there without a gap. */
  since: z.string(),
  /** Gone at this server time unless their workstation beats again. */
  expiresAt: z.string(),
});
/** Who is at one object now: the answer of a heartbeat and the `presence` event of the stream. */
export const ObjectPresence = z.strictObject({
  legalEntityId: z.string(),
  object: TeamObjectRef,
  present: z.array(PresentAnalyst),
  /** The server time this was read. */
  at: z.string(),
});
export type ObjectPresence = z.infer<typeof ObjectPresence>;
