/**
 * Digital-asset exchange: the local account book, quotes created through the
 * idempotency ledger, their review against the server clock, confirmation under main's expiry
 * guard, and the settlement. Amounts cross as strings of integer minor units.
 */

import { z } from 'zod';
import { CryptoTradeV2 } from '../../api/transactions';
import { SYMBOLS } from '../../catalogue';
import { channel, event, noArgs } from '../define';
import { profileIdSchema } from './settings';

const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const accountId = z
  .string()
  .min(1, 'must not be empty')
  .max(128, 'must be at most 128 characters')
  .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII characters');
const minorUnits = z.string().regex(/^[1-9][0-9]{0,39}$/, 'must be a positive integer string of minor units');
const orderId = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'must be an order id');

/** One entry of the local account book: an account id the analyst labelled. */
export const accountBookEntrySchema = z.object({
  accountId,
  label: z.string().min(1, 'must not be empty').max(120, 'must be at most 120 characters'),
  /** USD, ETHEREUM-USDT, ETHEREUM-USDC, or '' when unknown. */
  asset: text(64),
  /** The legal entity the account belongs to, when known (seeded from the sandbox). */
  legalEntityId: text(128).nullable(),
  /** That legal entity's name, when the bank gives it (the label is the account's own name). */
  holderName: z.string().nullable().optional(),
  /** Where the entry came from. */
  source: z.enum(['sandbox', 'analyst']),
});
export type AccountBookEntry = z.infer<typeof accountBookEntrySchema>;

export const cryptoContextSchema = z.object({
  environmentId: z.string(),
  /** The credential's role and legal entity as the bank reported them (null before a check). */
  role: z.string().nullable(),
  legalEntityId: z.string().nullable(),
  /** Whether quotes may be created and confirmed (admin); when false, `readOnlyReason` says why. */
  canTrade: z.boolean(),
  readOnlyReason: z.string().nullable(),
  /** Every account book entry of this environment. */
  accounts: z.array(accountBookEntrySchema),
  /** Main's confirm safety margin before quote_valid_until, in ms (without round trip). */
  confirmMarginMs: z.number(),
});
export type CryptoContext = z.infer<typeof cryptoContextSchema>;

export const orderRequestSchema = z.object({
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

/** A quote or order of this workstation, as main knows it. */
export const orderViewSchema = z.object({
  /** The local order id (the ledger's operation id). */
  id: z.string(),
  environmentId: z.string(),
  createdAt: z.string(),
  /** The order this one requoted, if any. */
  requoteOf: z.string().nullable(),
  request: orderRequestSchema,
  idempotencyKey: z.string().nullable(),
  transactionId: z.string().nullable(),
  /**
   * Where the local side is: creating (POST under way), not_visible (created, waiting out the
   * bank's read-after-create window), still_processing (that took over a minute), visible (the
   * record was read), create_failed (the bank refused the quote).
   */
  phase: z.enum(['creating', 'not_visible', 'still_processing', 'visible', 'create_failed']),
  /** The bank's status as last read (any string; unknown values are shown as they are). */
  status: z.string().nullable(),
  /** The status to show: the bank's, or 'expired' once quote_valid_until passed in server time. */
  displayStatus: z.string(),
  crypto: CryptoTradeV2.nullable(),
  /** The last refusal or failure, in words an analyst can read. */
  error: z.object({ message: z.string(), reason: z.string().nullable() }).nullable(),
  /** Server time (ISO, ms) when this view was made: the renderer derives its offset from it. */
  serverNow: z.string(),
  /** Confirm is refused when less than this remains before quote_valid_until (ms). */
  safetyMarginMs: z.number(),
  /** Whether main would send a confirm now (in_progress, before expiry minus the margin, admin). */
  confirmable: z.boolean(),
  lastReadAt: z.string().nullable(),
});
export type OrderView = z.infer<typeof orderViewSchema>;

export const quoteArgsSchema = z.strictObject({
  side: z.enum(['buy', 'sell'], { error: 'must be buy or sell' }),
  symbol: z.enum(SYMBOLS, { error: `must be one of ${SYMBOLS.join(', ')}` }),
  /** The asset requested_amount is in: the symbol's base or quote asset. */
  requestedAsset: text(64).min(1, 'must not be empty'),
  requestedAmount: minorUnits,
  paysAccountId: accountId,
  receivesAccountId: accountId,
  description: text(500).optional(),
  additionalDetails: text(2000).optional(),
  /** The profile the quote is for (the entity chosen on the form): its bank and credential make it. */
  profileId: profileIdSchema,
});
export type QuoteArgs = z.infer<typeof quoteArgsSchema>;

/** An order is named by the profile that owns it (its `environmentId`) and its id. */
const orderRef = { profileId: profileIdSchema, orderId };

export const cryptoChannels = {
  'crypto.context': channel({
    summary:
      'Exchange form context of a profile (default: the default profile): role, legal entity, whether trading is allowed (and why not), and the account book.',
    args: z.strictObject({ profileId: profileIdSchema.optional() }).optional(),
    result: cryptoContextSchema,
  }),
  'crypto.saveAccount': channel({
    summary: 'Adds or relabels an account book entry of the named profile.',
    args: z.strictObject({
      profileId: profileIdSchema,
      accountId,
      label: z.string().trim().min(1, 'must not be empty').max(120, 'must be at most 120 characters'),
      asset: text(64).optional(),
    }),
    result: cryptoContextSchema,
  }),
  'crypto.removeAccount': channel({
    summary: 'Removes an account book entry of the named profile.',
    args: z.strictObject({ accountId, profileId: profileIdSchema }),
    result: cryptoContextSchema,
  }),
  'crypto.quote': channel({
    summary:
      'Creates a quote (POST /v1/crypto/order under the idempotency ledger; priority instant, rail rfq) and starts reading it through the visibility window.',
    args: quoteArgsSchema,
    result: orderViewSchema,
  }),
  'crypto.requote': channel({
    summary:
      'A new quote with the same parameters as an earlier order of the profile that owns it (a new operation, a new key).',
    args: z.strictObject(orderRef),
    result: orderViewSchema,
  }),
  'crypto.confirm': channel({
    summary:
      'Confirms a quote through the profile that owns it (PUT /v1/crypto/order) only if it is in progress and main’s server-time guard allows it; never queued.',
    args: z.strictObject(orderRef),
    result: orderViewSchema,
  }),
  'crypto.order': channel({
    summary:
      'One order of the profile that owns it; with refresh, re-read from the bank through that profile first (not final orders only).',
    args: z.strictObject({ ...orderRef, refresh: z.boolean().optional() }),
    result: orderViewSchema,
  }),
  'crypto.list': channel({
    summary: 'This workstation’s quotes and orders in the active environment, newest first.',
    args: noArgs,
    result: z.object({ orders: z.array(orderViewSchema) }),
  }),
};

export const cryptoEvents = {
  'crypto.orderChanged': event({
    summary: 'A quote or order changed (visible, confirmed, settled, failed, expired).',
    payload: orderViewSchema,
  }),
};
