/**
 * The stored format of state/returns.json (transfers looked up recently, intents made here),
 * owned here and frozen: version 1 is a copy of the shape written before files carried a version
 * (version 0, read unchanged). The IPC views (shared/ipc/channels/returns) may change freely; a
 * change here needs a new version and a migration.
 */
import { z } from 'zod';
import type { StoreContent, StoreFormat } from '../infra/stores';

const minor = z.string().regex(/^(0|[1-9][0-9]*)$/, 'must be an integer string of minor units');

const storedReturnEntrySchema = z.object({
  operationId: z.string(),
  transactionId: z.string(),
  amount: minor,
  currency: z.string(),
  reasonCode: z.string(),
  description: z.string(),
  phase: z.enum(['sending', 'created', 'refused', 'confirmed', 'cancelled', 'completed']),
  status: z.string().nullable(),
  idempotencyKey: z.string().nullable(),
  environmentId: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  problem: z.string().nullable(),
});

const storedRecentTransferSchema = z.object({
  transactionId: z.string(),
  amount: minor.nullable(),
  currency: z.string().nullable(),
  debtorName: z.string().nullable(),
  status: z.string(),
  viewedAt: z.string(),
  /** The profile it was looked up through (absent in files from before profiles owned transfers). */
  profileId: z.string().optional(),
});

/** returns.json, version 1. */
export const storedReturnsSchema = z.object({
  version: z.literal(1),
  recent: z.array(storedRecentTransferSchema),
  entries: z.array(storedReturnEntrySchema),
});

export type ReturnsState = StoreContent<z.infer<typeof storedReturnsSchema>>;

export const returnsFormat: StoreFormat<z.infer<typeof storedReturnsSchema>> = {
  label: 'The list of returns made here',
  consequence: 'A new list was started; the returns are still at the bank.',
  version: 1,
  schema: storedReturnsSchema,
  migrations: { 0: (raw) => raw },
};
