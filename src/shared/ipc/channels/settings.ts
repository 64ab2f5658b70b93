/**
 * Settings and environment profiles as they cross IPC. The settings file main keeps has a stored
 * format of its own (src/main/session/settings-stored.ts), so a change here never moves an
 * analyst's file aside.
 */

import { z } from 'zod';
import { MAX_REMINDER_HOURS, MAX_REMINDER_THRESHOLDS, MIN_REMINDER_HOURS } from '../../reminder-rules';
import { channel, event, noArgs } from '../define';

export const profileIdSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/,
    'must be 1 to 64 letters, digits, dots, dashes or underscores, not starting with a dot',
  );

/** Which seeded credential the embedded sandbox uses (legal entity A admin/viewer, B admin). */
export const sandboxCredentialSchema = z.enum(['a-admin', 'a-viewer', 'b-admin']);
export type SandboxCredential = z.infer<typeof sandboxCredentialSchema>;

export const profileSchema = z.object({
  id: profileIdSchema,
  name: z.string().min(1, 'must not be empty').max(80, 'must be at most 80 characters'),
  kind: z.enum(['embedded-sandbox', 'remote']),
  /** Bank base URL; '' for the embedded sandbox (its port changes every run). */
  baseUrl: z.string().max(2000),
  /** The webhook signing public key pinned for this environment (SPKI PEM), or null. */
  webhookPublicKeyPem: z.string().max(10_000).nullable(),
  /** Embedded sandbox only. */
  sandboxCredential: sandboxCredentialSchema,
  /**
   * The origin the stored token was entered for (main binds it when the token is stored); the
   * token is sent to this origin only. null: no usable token. Absent in files written before
   * tokens were bound (main binds those to the profile's origin when it opens the file).
   */
  tokenOrigin: z.string().max(2000).nullable().optional(),
});
export type Profile = z.infer<typeof profileSchema>;

export const notificationPrefsSchema = z.object({
  /** A new RFI arrived. */
  newRfi: z.boolean(),
  /** An RFI or question changed status. */
  rfiStatus: z.boolean(),
  /** A return or crypto order changed status. */
  transactionStatus: z.boolean(),
  /** A quote is about to expire. */
  quoteExpiry: z.boolean(),
});
export type NotificationPrefs = z.infer<typeof notificationPrefsSchema>;

export const pollingIntervalSchema = z
  .number()
  .int('must be whole seconds')
  .min(5, 'must be at least 5 seconds')
  .max(3600, 'must be at most 3600 seconds');

/** Deadline reminder thresholds: hours before an RFI's timeout, 1 to 5 distinct values of 1 h to 29 days. */
export const reminderHoursSchema = z
  .array(
    z
      .number()
      .int('must be whole hours')
      .min(MIN_REMINDER_HOURS, `must be at least ${MIN_REMINDER_HOURS} hour`)
      .max(MAX_REMINDER_HOURS, `must be at most ${MAX_REMINDER_HOURS} hours (29 days)`),
  )
  .min(1, 'needs at least one threshold (turn reminders off instead)')
  .max(MAX_REMINDER_THRESHOLDS, `must be at most ${MAX_REMINDER_THRESHOLDS} thresholds`)
  .refine((h) => new Set(h).size === h.length, 'must not repeat a threshold');

export const reminderSettingsSchema = z.object({
  /** Native notifications before an RFI's timeout. */
  enabled: z.boolean(),
  /** Hours before the timeout, largest first. */
  hours: reminderHoursSchema,
});
export type ReminderSettings = z.infer<typeof reminderSettingsSchema>;

export const settingsFileSchema = z.object({
  version: z.literal(1),
  activeProfileId: profileIdSchema,
  profiles: z.array(profileSchema).min(1),
  pollingIntervalSeconds: pollingIntervalSchema,
  notifications: notificationPrefsSchema,
  reminders: reminderSettingsSchema,
});
export type SettingsFile = z.infer<typeof settingsFileSchema>;

/** A local file that could not be read and was moved aside (never silently reset). */
export const localProblemSchema = z.object({
  id: z.string(),
  file: z.string(),
  movedTo: z.string().nullable(),
  message: z.string(),
  at: z.string(),
});

export const vaultStatusSchema = z.object({
  backend: z.enum(['keychain', 'memory']),
  available: z.boolean(),
  problem: z.string().nullable(),
  keychainName: z.string(),
  /** Drafts, the outbox and the RFI cache on disk: encrypted with a keychain-held key, or not. */
  dataAtRest: z.enum(['encrypted', 'unencrypted', 'waiting']),
});
export type VaultStatusView = z.infer<typeof vaultStatusSchema>;

/** What the settings screen shows. No token, ever: only whether one is stored. */
export const settingsViewSchema = z.object({
  activeProfileId: z.string(),
  profiles: z.array(
    profileSchema.extend({
      hasToken: z.boolean(),
      /** The embedded sandbox's URL while it runs. */
      runningUrl: z.string().nullable(),
    }),
  ),
  pollingIntervalSeconds: z.number(),
  notifications: notificationPrefsSchema,
  reminders: reminderSettingsSchema,
  vault: vaultStatusSchema,
  problems: z.array(localProblemSchema),
});
export type SettingsView = z.infer<typeof settingsViewSchema>;

const baseUrlArg = z.string().max(2000).url('must be a URL such as https://bank.example.com');

export const settingsChannels = {
  'settings.get': channel({
    summary:
      'Profiles (with whether a token is stored), polling, notifications, keychain status, local file problems.',
    args: noArgs,
    result: settingsViewSchema,
  }),
  'settings.update': channel({
    summary:
      'Change the polling interval, notification preferences and/or deadline reminders (on/off, thresholds in hours before the timeout).',
    args: z.strictObject({
      pollingIntervalSeconds: pollingIntervalSchema.optional(),
      notifications: z
        .strictObject({
          newRfi: z.boolean().optional(),
          rfiStatus: z.boolean().optional(),
          transactionStatus: z.boolean().optional(),
          quoteExpiry: z.boolean().optional(),
        })
        .optional(),
      reminders: z
        .strictObject({ enabled: z.boolean().optional(), hours: reminderHoursSchema.optional() })
        .optional(),
    }),
    result: settingsViewSchema,
  }),
  'settings.addProfile': channel({
    summary:
      'Add a remote bank environment (https, or http on loopback only); a new address takes effect only once the analyst approves it in main’s native dialog (or an administrator allow-listed it).',
    args: z.strictObject({ name: z.string().min(1).max(80), baseUrl: baseUrlArg }),
    result: settingsViewSchema,
  }),
  'settings.updateProfile': channel({
    summary:
      'Rename a profile. (A profile’s bank address never changes: remove it and add a new one, which main asks the analyst to approve.)',
    args: z.strictObject({
      profileId: profileIdSchema,
      name: z.string().min(1).max(80).optional(),
    }),
    result: settingsViewSchema,
  }),
  'settings.removeProfile': channel({
    summary:
      'Remove a remote profile after main’s native confirmation (which says what unsent work it loses): its token, its address approval, its queued answers, drafts and caches go with it (the embedded sandbox stays).',
    args: z.strictObject({ profileId: profileIdSchema }),
    result: settingsViewSchema,
  }),
  'settings.activateProfile': channel({
    summary:
      'Make a profile the default for new objects and the header (starts the embedded sandbox if needed; a bank address not yet approved is confirmed natively first). Objects keep acting through their own profile.',
    args: z.strictObject({ profileId: profileIdSchema }),
    result: settingsViewSchema,
  }),
  'settings.approveProfileAddress': channel({
    summary: 'Ask the analyst in main’s native dialog to approve a profile’s bank address (again).',
    args: z.strictObject({ profileId: profileIdSchema }),
    result: settingsViewSchema,
  }),
  'settings.dismissProblem': channel({
    summary: 'Acknowledge a reported local file problem.',
    args: z.strictObject({ id: z.string().max(100) }),
    result: settingsViewSchema,
  }),
};

export const settingsEvents = {
  'settings.changed': event({
    summary: 'Settings, profiles, the keychain status or the list of local problems changed.',
    payload: settingsViewSchema,
  }),
};
