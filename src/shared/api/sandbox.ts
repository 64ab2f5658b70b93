/**
 * Schemas of the sandbox-only control endpoints: fixtures, the sandbox clock, incoming transfers,
 * the webhook public key and deliveries, and stored documents.
 */

import { z } from 'zod';
import { ACCOUNT_ASSETS } from '../catalogue';
import { id, minorOut, positiveMinor, timestampOut, tolerantEnum, msg } from './common';
import { Transaction } from './transactions';

export const FixtureAccount = z.looseObject({
  id: z.string(),
  name: z.string(),
  asset: tolerantEnum(ACCOUNT_ASSETS),
  iban: z.string(),
  wallet_address: z.string(),
  balance: minorOut,
});
export const Fixtures = z.looseObject({
  legal_entities: z.array(
    z.looseObject({
      id: z.string(),
      name: z.string(),
      tokens: z.looseObject({
        admin: z.string(),
        viewer: z.string().optional(),
        colleague_admin: z.string().optional(),
      }),
      accounts: z.array(FixtureAccount),
      incoming_transfers: z.array(
        z.looseObject({
          transaction_id: z.string(),
          amount: minorOut,
          currency: z.string(),
          creditor_account_id: z.string(),
          status: z.string().optional(),
        }),
      ),
      rfi_ids: z.array(z.string()),
    }),
  ),
});
export type Fixtures = z.infer<typeof Fixtures>;

export const ClockState = z.looseObject({
  now: timestampOut,
  offset_seconds: z.number(),
});
export const ClockAdvanceRequest = z.strictObject({
  advance_seconds: z
    .int({ error: msg('must be an integer number of seconds') })
    .min(0, 'must not be negative')
    .max(10 * 366 * 86_400, 'at most ten years'),
});

export const IncomingTransferRequest = z.strictObject({
  legal_entity_id: id.optional(),
  creditor_account_id: id.optional(),
  amount: positiveMinor.optional(),
  currency: z.literal('USD', { error: msg('must be USD') }).optional(),
  debtor_name: z.string().max(140).optional(),
  status: z.enum(['completed', 'in_progress']).optional(),
});

export const SandboxTransactionList = z.looseObject({
  data: z.array(
    z.looseObject({
      transaction: Transaction,
      legal_entity_id: z.string(),
      idempotency_key: z.string().nullable(),
      visible_at: timestampOut,
      /** The user whose credential confirmed the transfer's return (null: none confirmed). */
      return_confirmed_by: z
        .looseObject({ id: z.string(), first_name: z.string(), last_name: z.string() })
        .nullable()
        .optional(),
    }),
  ),
});

export const SandboxAccounts = z.looseObject({
  data: z.array(FixtureAccount.extend({ legal_entity_id: z.string(), held: minorOut })),
});

export const PublicKeyResponse = z.looseObject({
  public_key_pem: z.string(),
  algorithm: z.string(),
  signature_header: z.string(),
});

export const WebhookDeliveries = z.looseObject({
  data: z.array(
    z.looseObject({
      id: z.string(),
      event_id: z.string(),
      event_type: z.string(),
      url: z.string(),
      status: tolerantEnum(['pending', 'delivered', 'failed']),
      attempts: z.number(),
      last_status_code: z.number().nullable(),
      last_error: z.string().nullable(),
      next_attempt_at: timestampOut.nullable(),
      body: z.string(),
    }),
  ),
});

export const SandboxDocument = z.looseObject({
  id: z.string(),
  sha256: z.string().nullable(),
  size_bytes: z.number().nullable(),
  content_type: z.string(),
  related_id: z.string(),
  uploaded: z.boolean(),
  document_type: z.string().optional(),
});
