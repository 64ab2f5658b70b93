/**
 * The stored format of `<dataDir>/settings.json`, owned here and frozen per version: version 1 is
 * the shape written before deadline reminders had settings (a file without a version, version 0,
 * is read as version 1); version 2 adds `reminders` (on/off and thresholds), and a version 1 file
 * is migrated by giving it the defaults (on; 7 days, 48 h, 24 h). The IPC views
 * (shared/ipc/channels/settings) may change freely; a change here needs a new version and a
 * migration.
 */
import { z } from 'zod';
import type { StoreFormat } from '../infra/stores';

const storedProfileSchema = z.object({
  id: z
    .string()
    .regex(
      /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/,
      'must be 1 to 64 letters, digits, dots, dashes or underscores, not starting with a dot',
    ),
  name: z.string().min(1, 'must not be empty').max(80, 'must be at most 80 characters'),
  kind: z.enum(['embedded-sandbox', 'remote']),
  baseUrl: z.string().max(2000),
  webhookPublicKeyPem: z.string().max(10_000).nullable(),
  sandboxCredential: z.enum(['a-admin', 'a-viewer', 'b-admin']),
  tokenOrigin: z.string().max(2000).nullable().optional(),
});

/** settings.json, version 2. */
export const storedSettingsSchema = z.object({
  version: z.literal(2),
  activeProfileId: storedProfileSchema.shape.id,
  profiles: z.array(storedProfileSchema).min(1),
  pollingIntervalSeconds: z
    .number()
    .int('must be whole seconds')
    .min(5, 'must be at least 5 seconds')
    .max(3600, 'must be at most 3600 seconds'),
  notifications: z.object({
    newRfi: z.boolean(),
    rfiStatus: z.boolean(),
    transactionStatus: z.boolean(),
    quoteExpiry: z.boolean(),
  }),
  reminders: z.object({
    enabled: z.boolean(),
    hours: z
      .array(
        z
          .number()
          .int()
          .min(1)
          .max(29 * 24),
      )
      .min(1)
      .max(5)
      .refine((h) => new Set(h).size === h.length, 'must not repeat a threshold'),
  }),
});

/** What a settings file without reminder settings gets: reminders on at 7 days, 48 h and 24 h. */
export const defaultStoredReminders = { enabled: true, hours: [168, 48, 24] };

export const settingsFormat: StoreFormat<z.infer<typeof storedSettingsSchema>> = {
  label: 'The settings',
  consequence: 'The default settings are used.',
  version: 2,
  schema: storedSettingsSchema,
  migrations: {
    0: (raw) => raw,
    1: (raw) => ({ ...raw, reminders: raw['reminders'] ?? defaultStoredReminders }),
  },
};
