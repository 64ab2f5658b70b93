/**
 * Returns of settled incoming SWIFT transfers: find the transfer, create the intent
 * through the idempotency ledger, wait out the read-after-create window, review, confirm or
 * cancel, follow to return_completed. Amounts are strings of integer minor units.
 */

import { z } from 'zod';
import { BANK_ID_RE } from '../../api/common';
import { RETURN_REASON_CODE_LIST } from '../../catalogue';
import { channel, event, noArgs } from '../define';
import { profileIdSchema } from './settings';

const txId = z
  .string()
  .trim()
  .min(1, 'Enter a transaction id.')
  .max(128, 'A transaction id has at most 128 characters.')
  .regex(BANK_ID_RE, 'A transaction id has letters, digits, "_", "-", ".", ":" or "~" only.');

const minor = z.string().regex(/^(0|[1-9][0-9]*)$/, 'must be an integer string of minor units');

export const returnabilitySchema = z.object({
  ok: z.boolean(),
  /** Why not, in plain words with what to do (null when ok). */
  reason: z.string().nullable(),
  code: z.enum(['ok', 'not_incoming', 'not_settled', 'return_active', 'viewer', 'no_credential']),
});

export const transferViewSchema = z.object({
  transactionId: z.string(),
  /** As the bank reports it (unknown values are shown as they are). */
  status: z.string(),
  type: z.string(),
  timestamp: z.string(),
  incoming: z
    .object({
      amount: minor,
      currency: z.string(),
      creditorAccountId: z.string(),
      debtorName: z.string(),
      debtorBic: z.string(),
      uetr: z.string(),
      remittanceInformation: z.string(),
      valueDate: z.string(),
    })
    .nullable(),
  /** The return_* fields of spec 2.2, when a return exists. */
  returnDetails: z
    .object({
      amount: minor.nullable(),
      fee: minor.nullable(),
      description: z.string().nullable(),
      reasonCode: z.string().nullable(),
      reasonMeaning: z.string().nullable(),
      initiatedBy: z.object({ id: z.string(), firstName: z.string(), lastName: z.string() }).nullable(),
      createdAt: z.string().nullable(),
      updatedAt: z.string().nullable(),
    })
    .nullable(),
  returnable: returnabilitySchema,
  /** The credential's role as the bank reported it (null before a successful check). */
  role: z.string().nullable(),
  /** The profile the transfer was read through (it owns every return of it made here). */
  profileId: z.string().optional(),
});
export type TransferView = z.infer<typeof transferViewSchema>;

export const returnEntrySchema = z.object({
  operationId: z.string(),
  transactionId: z.string(),
  amount: minor,
  currency: z.string(),
  reasonCode: z.string(),
  description: z.string(),
  /**
   * Local phase: sending (the POST may or may not have reached the bank), created (intent exists),
   * refused (the bank said no; nothing was created), confirmed, cancelled, completed.
   */
  phase: z.enum(['sending', 'created', 'refused', 'confirmed', 'cancelled', 'completed']),
  /** The bank's status of the transaction as last read (null when never read). */
  status: z.string().nullable(),
  idempotencyKey: z.string().nullable(),
  environmentId: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** The last problem, in plain words (null when none). */
  problem: z.string().nullable(),
});
export type ReturnEntry = z.infer<typeof returnEntrySchema>;

export const recentTransferSchema = z.object({
  transactionId: z.string(),
  amount: minor.nullable(),
  currency: z.string().nullable(),
  debtorName: z.string().nullable(),
  status: z.string(),
  viewedAt: z.string(),
  /** The profile it was looked up through. */
  profileId: z.string().optional(),
});
export type RecentTransfer = z.infer<typeof recentTransferSchema>;

/**
 * The profile the transfer belongs to: the screen it was opened from says it (a transfer typed in
 * is the default profile's, chosen by the page). Every call goes through that profile.
 */
const owner = { profileId: profileIdSchema };

export const returnsChannels = {
  'returns.lookup': channel({
    summary:
      'Read a transaction (GET /v1/transactions/:id) for a return: the transfer, any return details, and whether a return can be made (and why not).',
    args: z.strictObject({ transactionId: txId, ...owner }),
    result: transferViewSchema,
  }),
  'returns.recent': channel({
    summary: 'Transfers looked up recently on this workstation (kept locally), newest first.',
    args: noArgs,
    result: z.object({ items: z.array(recentTransferSchema) }),
  }),
  'returns.createIntent': channel({
    summary:
      'POST /v1/transfer/return under the idempotency ledger: one operationId per intended return, reused on retry.',
    args: z.strictObject({
      operationId: z
        .string()
        .min(8)
        .max(100)
        .regex(/^[A-Za-z0-9_-]+$/),
      transactionId: txId,
      amount: z.string().regex(/^[1-9][0-9]*$/, 'The amount must be a positive number of minor units.'),
      reasonCode: z.enum(RETURN_REASON_CODE_LIST),
      description: z.string().max(500).optional(),
      ...owner,
    }),
    result: z.object({ transactionId: z.string(), idempotencyKey: z.string(), alreadyDone: z.boolean() }),
  }),
  'returns.review': channel({
    summary:
      'Read a just-created intent through the bank’s 404 window (progress as transaction.progress events), then the review.',
    args: z.strictObject({ transactionId: txId, ...owner }),
    result: transferViewSchema,
  }),
  'returns.confirm': channel({
    summary: 'PUT /v1/transfer/return: confirm the intent; main then follows it to return_completed.',
    args: z.strictObject({ transactionId: txId, ...owner }),
    result: transferViewSchema,
  }),
  'returns.cancel': channel({
    summary:
      'DELETE /v1/transfer/return/:id: cancel the unconfirmed intent (the transfer is completed again).',
    args: z.strictObject({ transactionId: txId, ...owner }),
    result: transferViewSchema,
  }),
  'returns.list': channel({
    summary:
      'Intents and returns made from this workstation, each re-read from the bank for its current status.',
    args: noArgs,
    result: z.object({ entries: z.array(returnEntrySchema) }),
  }),
};

export const returnsEvents = {
  'returns.changed': event({
    summary: 'A return made from this workstation changed (status followed to return_completed).',
    payload: returnEntrySchema,
  }),
};
