/**
 * The stored format of `<dataDir>/settings.json`, owned here and frozen: version 1 is a copy of
 * the shape written so far (those files already carry `version: 1`; a file without a version,
 * version 0, is read unchanged). The IPC views (shared/ipc/channels/settings) may change freely;
 * a change here needs a new version and a migration.
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

/** settings.json, version 1. */
export const storedSettingsSchema = z.object({
  version: z.literal(1),
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
});

export const settingsFormat: StoreFormat<z.infer<typeof storedSettingsSchema>> = {
  label: 'The settings',
  consequence: 'The default settings are used.',
  version: 1,
  schema: storedSettingsSchema,
  migrations: { 0: (raw) => raw },
};
