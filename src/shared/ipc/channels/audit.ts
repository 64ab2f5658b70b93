/** The audit.* channels: the local audit log of the analyst's writes. */

import { z } from 'zod';
import { channel, event } from '../define';
import type { ActivityFacts } from '../../activity';

const fact = z.string().max(200);

/** What moved, recorded with the write (src/shared/activity.ts describes it in words). */
export const activityFactsSchema = z.object({
  amount: fact.optional(),
  currency: fact.optional(),
  counterparty: fact.optional(),
  reasonCode: fact.optional(),
  side: fact.optional(),
  baseAsset: fact.optional(),
  baseAmount: fact.optional(),
  quoteAsset: fact.optional(),
  quoteAmount: fact.optional(),
}) satisfies z.ZodType<ActivityFacts>;

/** One audit log entry as the audit.* channels carry it. */
export const auditEntryViewSchema = z.object({
  id: z.string(),
  at: z.string(),
  /** The credential's user as the bank reported it, or "unknown" before the first check. */
  who: z.string(),
  environmentId: z.string(),
  environmentName: z.string(),
  operation: z.string(),
  idempotencyKey: z.string().nullable(),
  target: z.string().nullable(),
  outcome: z.enum(['succeeded', 'failed', 'pending']),
  detail: z.string().nullable(),
  /** What moved (amounts, counterparty, reason code, side), recorded with the write; null for older entries. */
  facts: activityFactsSchema.nullable(),
  /** The entry in words ("Return intent created — 12,500.00 USD to Harbour Freight Ltd, reason: invalid creditor account number"). */
  summary: z.string(),
});
export type AuditEntryView = z.infer<typeof auditEntryViewSchema>;

export const auditChannels = {
  'audit.list': channel({
    summary: 'Audit entries, newest first; `before` continues after an entry id.',
    args: z
      .strictObject({
        limit: z.number().int().min(1).max(1000).optional(),
        before: z.string().max(100).optional(),
      })
      .optional(),
    result: z.object({
      entries: z.array(auditEntryViewSchema),
      nextBefore: z.string().nullable(),
      /** Lines of the file that could not be read (a torn write). */
      skipped: z.number(),
    }),
  }),
  'audit.exportCsv': channel({
    summary: 'Export the whole audit log as CSV to a file the analyst picks (native save dialog).',
    args: z.undefined(),
    result: z.object({ path: z.string().nullable(), rows: z.number() }),
  }),
};

export const auditEvents = {
  'audit.recorded': event({
    summary: 'A new audit entry was written.',
    payload: auditEntryViewSchema,
  }),
};
