/**
 * Four-eyes approval of returns: when a legal entity's rule wants a checker for returns above an
 * amount, the maker asks for approval of the return intent the bank holds (transfer, amount in
 * minor units, currency, reason, by their hash), a checker approves or rejects it, and the
 * confirm goes to the bank only as the send job of an approval that covers the intent as it is.
 * Every call names the transfer and the profile that owns it.
 */
import { z } from 'zod';
import { BANK_ID_RE } from '../../api/common';
import { Sha256Hex, Subject } from '../../team/schemas';
import { channel, noArgs } from '../define';
import { profileIdSchema } from './settings';

const personSchema = z.object({ subject: Subject, name: z.string(), isYou: z.boolean() });
const minor = z.string().regex(/^(0|[1-9][0-9]*)$/, 'must be an integer string of minor units');

export const returnApprovalViewSchema = z.object({
  legalEntityId: z.string(),
  /** The legal entity by its name (the team server's, as the bank named it). */
  legalEntityName: z.string(),
  transactionId: z.string(),
  /** A profile of this workstation that reaches the legal entity (null: none does). */
  profileId: z.string().nullable(),
  /** The team server's approval (null while the request waits in the outbox). */
  approvalId: z.string().nullable(),
  /** This analyst's change waiting for the team server (asked, approved or rejected offline). */
  queued: z.enum(['ask', 'approve', 'reject']).nullable(),
  status: z.enum(['pending', 'approved', 'rejected', 'cleared']),
  /** The sha256 of the content's canonical JSON: what a decision covers. */
  contentHash: z.string(),
  amount: minor,
  currency: z.string(),
  /** The ISO 20022 reason code of the return (the page says its meaning). */
  reasonCode: z.string(),
  maker: personSchema,
  checker: personSchema.nullable(),
  /** A rejection's reason. */
  reason: z.string().nullable(),
  requestedAt: z.string().nullable(),
  decidedAt: z.string().nullable(),
  mayDecide: z.boolean(),
  send: z
    .object({ status: z.enum(['queued', 'leased', 'done', 'failed']), bankReference: z.string().nullable() })
    .nullable(),
  /** One sentence: "Waiting for approval by a checker.", "Approved by Jonas Weber.", … */
  words: z.string(),
});
export type ReturnApprovalView = z.infer<typeof returnApprovalViewSchema>;

const transferRef = {
  /** The profile that owns the transfer (its screen says it). */
  profileId: profileIdSchema,
  transactionId: z.string().min(1).max(128).regex(BANK_ID_RE, 'must be a transaction id'),
};

export const teamReturnsChannels = {
  'team.returnApproval': channel({
    summary:
      'Whether the return intent the bank holds needs a checker, its approval, and whether that approval covers the intent as it is.',
    args: z.strictObject(transferRef),
    result: z.object({
      /** null: solo use, not a team entity, or the rules are not known yet. */
      required: z.boolean().nullable(),
      approval: returnApprovalViewSchema.nullable(),
      covers: z.boolean(),
    }),
  }),
  'team.askReturnApproval': channel({
    summary:
      'Ask a checker to approve the return intent as the bank holds it (transfer, amount, currency, reason, by hash).',
    args: z.strictObject(transferRef),
    result: returnApprovalViewSchema,
  }),
  'team.decideReturnApproval': channel({
    summary:
      'Approve (only when the intent the checker’s own profile reads is what was asked for) or reject with a reason; never one’s own.',
    args: z.discriminatedUnion('decision', [
      z.strictObject({
        ...transferRef,
        approvalId: z.uuid(),
        decision: z.literal('approve'),
        contentHash: Sha256Hex,
      }),
      z.strictObject({
        ...transferRef,
        approvalId: z.uuid(),
        decision: z.literal('reject'),
        contentHash: Sha256Hex,
        reason: z.string().trim().min(1, 'Say why the return is rejected.').max(2000),
      }),
    ]),
    result: returnApprovalViewSchema,
  }),
  'team.returnApprovals': channel({
    summary:
      'Returns of the analyst’s legal entities with a live approval (asked, or waiting for them), in words.',
    args: noArgs,
    result: z.array(returnApprovalViewSchema),
  }),
};
