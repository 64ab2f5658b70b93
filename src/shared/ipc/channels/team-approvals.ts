/**
 * Four-eyes approval of RFI answers: the approval rules of the analyst's legal entities (an admin
 * edits them), asking a checker to approve an answer (the exact text and documents, by their
 * hash), approving or rejecting with a reason, and each answer's approval in words. Every call
 * names the RFI and the profile that owns it; main finds the legal entity from that profile.
 */
import { z } from 'zod';
import { bankId } from '../../api/common';
import { ApprovalRule, Sha256Hex, Subject } from '../../team/schemas';
import { channel, event, noArgs } from '../define';
import { answerTextSchema, fileRefSchema } from './rfi-answers';
import { profileIdSchema } from './settings';

const personSchema = z.object({ subject: Subject, name: z.string(), isYou: z.boolean() });

export const approvalViewSchema = z.object({
  legalEntityId: z.string(),
  rfiId: z.string(),
  questionId: z.string(),
  /** Null while the request waits for the team server. */
  approvalId: z.string().nullable(),
  status: z.enum(['pending', 'approved', 'rejected', 'cleared']),
  /** The sha256 of the content's canonical JSON: what a decision covers. */
  contentHash: z.string(),
  text: z.string(),
  rfiType: z.string(),
  documentSha256s: z.array(z.string()),
  maker: personSchema,
  checker: personSchema.nullable(),
  reason: z.string().nullable(),
  requestedAt: z.string().nullable(),
  decidedAt: z.string().nullable(),
  /** This analyst's change waiting for the team server. */
  queued: z.enum(['ask', 'approve', 'reject', 'complete']).nullable(),
  mayDecide: z.boolean(),
  send: z
    .object({
      status: z.enum(['queued', 'leased', 'done', 'failed']),
      bankReference: z.string().nullable(),
      /** Why the send failed (the bank refused, the question was closed), in words. */
      detail: z.string().nullable(),
    })
    .nullable(),
  /** One sentence: "Waiting for approval by a checker.", "Approved by Jonas Weber.", … */
  words: z.string(),
});
export type ApprovalView = z.infer<typeof approvalViewSchema>;

export const entityRulesSchema = z.object({
  legalEntityId: z.string(),
  legalEntityName: z.string(),
  rules: z.array(ApprovalRule),
  /** The analyst is an admin of the entity (others read the rules). */
  mayEdit: z.boolean(),
  /** The rules were read from the team server (false: not yet, e.g. offline since start). */
  known: z.boolean(),
});
export type EntityRulesView = z.infer<typeof entityRulesSchema>;

const answerTarget = {
  rfiId: bankId,
  questionId: bankId,
  /** The profile that owns the RFI (the row says it): every call for it goes through that profile. */
  profileId: profileIdSchema,
};

export const teamApprovalsChannels = {
  'team.approvalRules': channel({
    summary: 'The approval rules of each legal entity of the analyst’s team, and whether they may edit them.',
    args: noArgs,
    result: z.array(entityRulesSchema),
  }),
  'team.setApprovalRules': channel({
    summary: 'Replace a legal entity’s approval rules (admin; money as minor units in strings).',
    args: z.strictObject({ legalEntityId: bankId, rules: z.array(ApprovalRule).max(100) }),
    result: entityRulesSchema,
  }),
  'team.answerApproval': channel({
    summary:
      'Whether the saved draft of an answer needs a checker, and its approval (does it still cover the draft).',
    args: z.strictObject(answerTarget),
    result: z.object({
      /** null: solo use, or the rules are not known yet. */
      required: z.boolean().nullable(),
      approval: approvalViewSchema.nullable(),
      /** The approval covers the saved draft as it is now. */
      covers: z.boolean(),
      /**
       * Why the answer cannot go to the bank now, in words: the rules were never read here (it waits
       * for the team server), or signed out where a rule applies. Null: nothing holds it.
       */
      held: z.string().nullable(),
    }),
  }),
  'team.askApproval': channel({
    summary:
      'Save the draft and ask a checker to approve exactly it (text and documents by sha256); queued while the team server is away.',
    args: z.strictObject({
      ...answerTarget,
      questionType: z.string().min(1).max(128),
      text: answerTextSchema,
      files: z.array(fileRefSchema).max(20),
    }),
    result: approvalViewSchema,
  }),
  'team.decideApproval': channel({
    summary:
      'Approve or reject (with a reason) the content the checker read, named by its hash; never one’s own.',
    args: z.discriminatedUnion('decision', [
      z.strictObject({
        ...answerTarget,
        approvalId: z.uuid(),
        decision: z.literal('approve'),
        contentHash: Sha256Hex,
      }),
      z.strictObject({
        ...answerTarget,
        approvalId: z.uuid(),
        decision: z.literal('reject'),
        contentHash: Sha256Hex,
        reason: z.string().trim().min(1, 'Say why the answer is rejected.').max(2000),
      }),
    ]),
    result: approvalViewSchema,
  }),
  'team.approvals': channel({
    summary: 'Approvals of answers in the analyst’s legal entities (of one RFI, or all), with their words.',
    args: z.strictObject({ rfiId: bankId.optional() }).optional(),
    result: z.array(approvalViewSchema),
  }),
};

export const teamApprovalsEvents = {
  'team.approvalsChanged': event({
    summary: 'Approvals or rules changed (read them again); `notice` says why a queued change was dropped.',
    payload: z.object({ notice: z.string().nullable() }),
  }),
};
