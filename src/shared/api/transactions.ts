/**
 * Schemas of the bank's transactions: returns of incoming SWIFT transfers, crypto orders and the
 * transaction record. Requests are strict (unknown keys refused); answers are loose and tolerant.
 */

import { z } from 'zod';
import {
  BASE_ASSETS,
  QUOTE_ASSETS,
  RETURN_REASON_CODE_LIST,
  SYMBOLS,
  TRANSACTION_STATUSES,
  TRANSACTION_TYPES,
} from '../catalogue';
import { freeText, id, minorOut, positiveMinor, timestampOut, tolerantEnum, msg } from './common';

export const TransactionStatus = tolerantEnum(TRANSACTION_STATUSES);
export const TransactionType = tolerantEnum(TRANSACTION_TYPES);

// ---- Returns (spec 2.1, 2.2) ----

export const ReturnIntentRequest = z.strictObject({
  transfer_return_type: z.literal('SWIFT_FI_TO_FI_RETURN', {
    error: msg('must be SWIFT_FI_TO_FI_RETURN'),
  }),
  transaction_id: id,
  return_amount: positiveMinor,
  description: freeText(500).optional(),
  status_reason_code: z.enum(RETURN_REASON_CODE_LIST, {
    error: msg('must be a known ISO return/status reason code (e.g. FOCR, AC03, AM09)'),
  }),
});
export type ReturnIntentRequest = z.infer<typeof ReturnIntentRequest>;

export const ReturnConfirmRequest = z.strictObject({ transaction_id: id });

export const InitiatedBy = z.looseObject({
  id: z.string(),
  first_name: z.string(),
  last_name: z.string(),
});

export const FiToFiSwiftIncoming = z.looseObject({
  amount: minorOut,
  currency: z.string(),
  creditor_account_id: z.string(),
  debtor_name: z.string(),
  debtor_bic: z.string(),
  uetr: z.string(),
  remittance_information: z.string(),
  value_date: z.string(),
  return_transfer_amount: minorOut.optional(),
  return_fee_amount: minorOut.optional(),
  return_description: z.string().optional(),
  return_status_reason_code: z.string().optional(),
  return_initiated_by: InitiatedBy.optional(),
  return_created_at: timestampOut.optional(),
  return_updated_at: timestampOut.optional(),
});

// ---- Digital asset exchange (spec 2.3, 2.4) ----

export const CryptoOrderRequest = z.strictObject({
  side: z.enum(['buy', 'sell'], { error: msg('must be buy or sell') }),
  priority: z.literal('instant', { error: msg('must be instant') }),
  rail: z.literal('rfq', { error: msg('must be rfq') }),
  symbol: z.enum(SYMBOLS, { error: msg(`must be one of ${SYMBOLS.join(', ')}`) }),
  base_asset: z.enum(BASE_ASSETS, { error: msg(`must be one of ${BASE_ASSETS.join(', ')}`) }),
  quote_asset: z.enum(QUOTE_ASSETS, { error: msg('must be USD') }),
  requested_asset: z
    .string({ error: msg('must be a string') })
    .min(1, 'must not be empty')
    .max(64),
  requested_amount: positiveMinor,
  customer_pays_account_id: id,
  customer_receives_account_id: id,
  description: freeText(500).optional(),
  additional_details: freeText(2000).optional(),
});
export type CryptoOrderRequest = z.infer<typeof CryptoOrderRequest>;

export const CryptoConfirmRequest = z.strictObject({ transaction_id: id });

export const CryptoTradeV2 = z.looseObject({
  transaction_id: z.string(),
  customer_legal_entity_id: z.string(),
  initiated_by: InitiatedBy,
  checked_by: z.unknown().nullable(),
  checked_at: timestampOut.nullable(),
  priority: z.string(),
  side: z.string(),
  rail: z.string(),
  symbol: z.string(),
  base_asset: z.string(),
  quote_asset: z.string(),
  customer_pays_account_id: z.string(),
  customer_pays_account_name: z.string(),
  customer_pays_account_iban: z.string(),
  customer_pays_account_wallet_address: z.string(),
  customer_receives_account_id: z.string(),
  customer_receives_account_name: z.string(),
  customer_receives_account_iban: z.string(),
  customer_receives_account_wallet_address: z.string(),
  customer_requested_asset: z.string(),
  customer_requested_amount: minorOut,
  customer_pays_asset: z.string(),
  customer_pays_amount: minorOut,
  customer_receives_asset: z.string(),
  customer_receives_amount: minorOut,
  customer_rate: z.string(),
  quote_valid_until: timestampOut,
  quote_confirmed_at: timestampOut.nullable(),
  description: z.string(),
  additional_details: z.string(),
  document_ids: z.array(z.string()),
  transaction_hash: z.string(),
  customer_pays_network_fee_asset: z.string(),
  customer_pays_network_fee_amount: minorOut.nullable(),
  customer_pays_network_fee_account_id: z.string(),
  created_at: timestampOut,
  updated_at: timestampOut,
  /** Sandbox extension: why a confirmed order failed (e.g. INSUFFICIENT_LIQUIDITY), else null. */
  failure_reason: z.string().nullable().optional(),
});

/** GET /v1/transactions/:id. Tolerant: unknown types and statuses parse; extra fields pass. */
export const Transaction = z.looseObject({
  transaction_id: z.string(),
  status: TransactionStatus,
  timestamp: timestampOut,
  type: TransactionType,
  customer_type: z.string().optional(),
  fi_to_fi_swift_incoming: FiToFiSwiftIncoming.optional(),
  crypto_trade_v2: CryptoTradeV2.optional(),
});
export type Transaction = z.infer<typeof Transaction>;

export const TransactionParams = z.strictObject({ transactionID: id });
