/**
 * The stored formats of crypto-orders.json and crypto-accounts.json (the exchange's state files),
 * owned here and frozen: version 1 is a copy of the shape written before files carried a version
 * (version 0, read unchanged). The IPC views (shared/ipc/channels/crypto) may change freely; a
 * change here needs a new version and a migration.
 */
import { z } from 'zod';
import { CryptoTradeV2 } from '../../shared/api/transactions';
import type { StoreFormat } from '../infra/stores';

/** The order body as sent to the bank (a frozen copy of the v1 shape). */
const storedOrderRequestSchema = z.object({
  side: z.string(),
  symbol: z.string(),
  base_asset: z.string(),
  quote_asset: z.string(),
  requested_asset: z.string(),
  requested_amount: z.string(),
  customer_pays_account_id: z.string(),
  customer_receives_account_id: z.string(),
  description: z.string(),
  additional_details: z.string(),
});

export const storedOrderRecordSchema = z.object({
  id: z.string(),
  environmentId: z.string(),
  /** The legal entity of the credential that created it (the list shows that entity's orders). */
  legalEntityId: z.string().nullable().optional(),
  createdAt: z.string(),
  requoteOf: z.string().nullable(),
  body: storedOrderRequestSchema,
  idempotencyKey: z.string().nullable(),
  transactionId: z.string().nullable(),
  phase: z.enum(['creating', 'not_visible', 'still_processing', 'visible', 'create_failed']),
  status: z.string().nullable(),
  crypto: CryptoTradeV2.nullable(),
  error: z.object({ message: z.string(), reason: z.string().nullable() }).nullable(),
  lastReadAt: z.string().nullable(),
  /** The analyst confirmed it from this workstation. */
  confirmedHere: z.boolean(),
  /** A settlement notification was shown. */
  notified: z.boolean(),
});

/** crypto-orders.json, version 1. */
export const storedOrdersSchema = z.object({
  version: z.literal(1),
  orders: z.array(storedOrderRecordSchema),
});

export const cryptoOrdersFormat: StoreFormat<z.infer<typeof storedOrdersSchema>> = {
  label: 'The list of crypto orders',
  consequence: 'A new list was started; the orders are still at the bank.',
  version: 1,
  schema: storedOrdersSchema,
  migrations: { 0: (raw) => raw },
};

const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);

/** One account book entry with its environment (a frozen copy of the v1 shape). */
export const storedAccountSchema = z.object({
  accountId: z
    .string()
    .min(1, 'must not be empty')
    .max(128, 'must be at most 128 characters')
    .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII characters'),
  label: z.string().min(1, 'must not be empty').max(120, 'must be at most 120 characters'),
  asset: text(64),
  legalEntityId: text(128).nullable(),
  source: z.enum(['sandbox', 'analyst']),
  environmentId: z.string(),
});

/** crypto-accounts.json, version 1. */
export const storedAccountsSchema = z.object({
  version: z.literal(1),
  accounts: z.array(storedAccountSchema),
});

export const cryptoAccountsFormat: StoreFormat<z.infer<typeof storedAccountsSchema>> = {
  label: 'The crypto account book',
  consequence: 'A new account book was started.',
  version: 1,
  schema: storedAccountsSchema,
  migrations: { 0: (raw) => raw },
};
