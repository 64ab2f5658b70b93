/**
 * Deadline reminders as they cross IPC: snoozing one RFI's reminders, and the "due soon" list of
 * the overview. The page never names an instant: it picks a choice and main computes the end on
 * the owning entity's bank clock.
 */

import { z } from 'zod';
import { bankId } from '../../api/common';
import { SNOOZE_CHOICES } from '../../reminder-rules';
import { channel, event, noArgs } from '../define';
import { profileIdSchema } from './settings';

export const snoozeChoiceSchema = z.enum(SNOOZE_CHOICES);

/** One RFI's snooze: until when (ISO, bank time of its entity), and whether the last reminder capped it. */
export const snoozeViewSchema = z.object({
  rfiId: z.string(),
  /** The profile whose RFI it is (null: its bank is no longer watched). */
  profileId: z.string().nullable(),
  until: z.string(),
  /** The choice asked for ran past the last reminder: the snooze ends there instead. */
  capped: z.boolean(),
  /** When it was set (ISO, bank time). */
  setAt: z.string(),
  /** The owning entity's bank time minus this computer's clock (ms), when main answered. */
  offsetMs: z.number(),
});
export type SnoozeView = z.infer<typeof snoozeViewSchema>;

/** One RFI awaiting action whose timeout is within the largest reminder threshold. */
export const dueSoonItemSchema = z.object({
  rfiId: z.string(),
  type: z.string(),
  description: z.string(),
  relatedId: z.string(),
  profileId: z.string(),
  entityName: z.string(),
  /** The timeout (ISO). */
  deadline: z.string(),
  /** The owning entity's bank time minus this computer's clock (ms), when main answered. */
  offsetMs: z.number(),
  /** The end of the RFI's snooze (ISO), or null. */
  snoozedUntil: z.string().nullable(),
});
export type DueSoonItemView = z.infer<typeof dueSoonItemSchema>;

export const dueSoonSchema = z.object({
  items: z.array(dueSoonItemSchema),
  /** How far ahead the list looks (the largest threshold, or 7 days with reminders off). */
  horizonHours: z.number(),
  /** Whether reminders are shown at all (Settings). */
  enabled: z.boolean(),
});
export type DueSoonView = z.infer<typeof dueSoonSchema>;

export const remindersChannels = {
  'reminders.snooze': channel({
    summary:
      'Snooze the deadline reminders of one RFI of the profile that owns it, for a choice of 1, 3 or 7 days or until the last reminder; main computes the end on the owning entity’s bank clock, never past the last reminder.',
    args: z.strictObject({ profileId: profileIdSchema, rfiId: bankId, choice: snoozeChoiceSchema }),
    result: snoozeViewSchema,
  }),
  'reminders.unsnooze': channel({
    summary:
      'Cancel the snooze of one RFI of the profile that owns it: its reminders come again (a threshold crossed meanwhile is shown once).',
    args: z.strictObject({ profileId: profileIdSchema, rfiId: bankId }),
    result: z.object({ profileId: z.string(), rfiId: z.string(), cancelled: z.boolean() }),
  }),
  'reminders.snoozes': channel({
    summary: 'The RFIs snoozed now, each with until when (bank time).',
    args: noArgs,
    result: z.object({ snoozes: z.array(snoozeViewSchema) }),
  }),
  'reminders.dueSoon': channel({
    summary:
      'RFIs awaiting action across every watched entity whose timeout is within the largest reminder threshold, soonest first.',
    args: noArgs,
    result: dueSoonSchema,
  }),
};

export const remindersEvents = {
  'reminders.changed': event({
    summary: 'A snooze was set, cancelled or ended, or the reminder thresholds changed.',
    payload: z.object({ snoozes: z.array(snoozeViewSchema) }),
  }),
};
