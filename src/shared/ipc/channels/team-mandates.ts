/**
 * Four-eyes approval of exchange orders as mandates: the side, the asset asked for, the amount
 * (integer minor units of that asset) and the worst acceptable rate. A checker approves a mandate;
 * a quote inside an approved mandate may be confirmed before it expires, one outside it is refused
 * before the bank is called. Every call names the profile whose legal entity is meant.
 */
import { z } from 'zod';
import { DecimalRate, Sha256Hex, Subject } from '../../team/schemas';
import { channel, noArgs } from '../define';
import { profileIdSchema } from './settings';

const personSchema = z.object({ subject: Subject, name: z.string(), isYou: z.boolean() });
const minor = z.string().regex(/^[1-9][0-9]{0,39}$/, 'must be a positive integer string of minor units');

export const mandateViewSchema = z.object({
  /** The mandate's id (the team's object id). */
  id: z.string(),
  legalEntityId: z.string(),
  legalEntityName: z.string(),
  /** The team server's approval (null while the request waits in the outbox). */
  approvalId: z.string().nullable(),
  /** This analyst's change waiting for the team server (asked, approved or rejected offline). */
  queued: z.enum(['ask', 'approve', 'reject']).nullable(),
  status: z.enum(['pending', 'approved', 'rejected', 'cleared']),
  contentHash: z.string(),
  side: z.enum(['buy', 'sell']),
  /** The asset the amount is in (the order's requested asset). */
  asset: z.string(),
  amount: minor,
  /** Units of the quote asset for one unit of the base asset: the worst a quote may offer. */
  worstRate: z.string(),
  maker: personSchema,
  checker: personSchema.nullable(),
  reason: z.string().nullable(),
  mayDecide: z.boolean(),
  /** An exchange was confirmed at the bank inside it (a mandate is used once). */
  used: z.boolean(),
  words: z.string(),
});
export type MandateView = z.infer<typeof mandateViewSchema>;

export const teamMandatesChannels = {
  'team.mandates': channel({
    summary: 'Exchange mandates of the analyst’s legal entities (asked, approved, rejected, used), in words.',
    args: noArgs,
    result: z.array(mandateViewSchema),
  }),
  'team.askMandate': channel({
    summary:
      'Ask a checker to approve an exchange mandate (side, asset, amount in minor units, worst acceptable rate) for the profile’s legal entity.',
    args: z.strictObject({
      profileId: profileIdSchema,
      side: z.enum(['buy', 'sell']),
      asset: z.string().min(1).max(13),
      amount: minor,
      worstRate: DecimalRate,
    }),
    result: mandateViewSchema,
  }),
  'team.decideMandate': channel({
    summary: 'Approve or reject (with a reason) an exchange mandate by the hash read; never one’s own.',
    args: z.discriminatedUnion('decision', [
      z.strictObject({
        profileId: profileIdSchema,
        approvalId: z.uuid(),
        decision: z.literal('approve'),
        contentHash: Sha256Hex,
      }),
      z.strictObject({
        profileId: profileIdSchema,
        approvalId: z.uuid(),
        decision: z.literal('reject'),
        contentHash: Sha256Hex,
        reason: z.string().trim().min(1, 'Say why the mandate is rejected.').max(2000),
      }),
    ]),
    result: mandateViewSchema,
  }),
};
