/**
 * Wire schemas of the team server: what a workstation sends and what it reads back. The team
 * server validates every body with them and a workstation checks answers against them. Money is
 * integer minor units as strings; ids are bank ids (the bank's legal entity, RFI, transaction).
 */
import { z } from 'zod';
import { bankId, freeText, positiveMinor } from '../api/common';

export const TEAM_ROLES = ['maker', 'checker', 'admin', 'viewer'] as const;
export const TeamRole = z.enum(TEAM_ROLES);
export type TeamRole = z.infer<typeof TeamRole>;

/** A lowercase hex sha256. */
export const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex sha256');
/** An analyst, as the OpenID provider names them (the token's `sub`). */
export const Subject = z.string().min(1).max(255);
/** A positive decimal rate, as a string (`"0.9985"`): never a float. */
export const DecimalRate = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,17})(\.[0-9]{1,18})?$/, 'must be a decimal string');

// ---------------------------------------------------------------------------------------------
// Objects a team shares and what an approval covers

export const OBJECT_KINDS = ['rfi_answer', 'return', 'exchange'] as const;
export const ObjectKind = z.enum(OBJECT_KINDS);
export type ObjectKind = z.infer<typeof ObjectKind>;

/** The exact content a checker approves: its canonical JSON's sha256 is the approval's hash. */
export const ApprovalContent = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('rfi_answer'),
    rfiId: bankId,
    rfiType: z.string().min(1).max(64),
    text: freeText(20_000),
    documentSha256s: z.array(Sha256Hex).max(50),
  }),
  z.strictObject({
    kind: z.literal('return'),
    transactionId: bankId,
    amount: positiveMinor,
    currency: z.string().min(3).max(13),
    reason: z.string().min(1).max(64),
  }),
  z.strictObject({
    /** A mandate: a quote within it may be confirmed before it expires. */
    kind: z.literal('exchange'),
    side: z.enum(['buy', 'sell']),
    asset: z.string().min(1).max(13),
    amount: positiveMinor,
    worstRate: DecimalRate,
  }),
]);
export type ApprovalContent = z.infer<typeof ApprovalContent>;

export const ObjectRef = z.strictObject({ kind: ObjectKind, id: bankId });
export type ObjectRef = z.infer<typeof ObjectRef>;

// ---------------------------------------------------------------------------------------------
// Members and entities

export const Membership = z.strictObject({
  legalEntityId: bankId,
  legalEntityName: z.string(),
  roles: z.array(TeamRole),
});
export const Me = z.strictObject({
  subject: Subject,
  name: z.string().nullable(),
  memberships: z.array(Membership),
});
export type Me = z.infer<typeof Me>;

export const SetRolesBody = z.strictObject({
  name: z.string().max(200).optional(),
  roles: z.array(TeamRole).max(4),
});

// ---------------------------------------------------------------------------------------------
// Assignment

export const Assignment = z.strictObject({
  legalEntityId: bankId,
  rfiId: bankId,
  holder: Subject.nullable(),
  version: z.number().int(),
  updatedAt: z.string(),
});
export type Assignment = z.infer<typeof Assignment>;
export const ReassignBody = z.strictObject({ from: Subject.nullable(), to: Subject });

// ---------------------------------------------------------------------------------------------
// Approval rules and approvals

export const ApprovalRule = z.discriminatedUnion('kind', [
  /** rfiType null: every answer of the entity needs a checker. */
  z.strictObject({ kind: z.literal('rfi_answer'), rfiType: z.string().min(1).max(64).nullable() }),
  /** Returns of more than `above` minor units (of any currency) need a checker. */
  z.strictObject({ kind: z.literal('return'), above: z.string().regex(/^(0|[1-9][0-9]*)$/) }),
  z.strictObject({ kind: z.literal('exchange'), above: z.string().regex(/^(0|[1-9][0-9]*)$/) }),
]);
export type ApprovalRule = z.infer<typeof ApprovalRule>;
export const ApprovalRules = z.strictObject({ rules: z.array(ApprovalRule).max(100) });

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'cleared'] as const;
export const ApprovalStatus = z.enum(APPROVAL_STATUSES);
export const Approval = z.strictObject({
  id: z.string(),
  legalEntityId: bankId,
  object: ObjectRef,
  contentHash: Sha256Hex,
  content: ApprovalContent,
  maker: Subject,
  status: ApprovalStatus,
  checker: Subject.nullable(),
  reason: z.string().nullable(),
  requestedAt: z.string(),
  decidedAt: z.string().nullable(),
});
export type Approval = z.infer<typeof Approval>;

export const RequestApprovalBody = z.strictObject({
  legalEntityId: bankId,
  objectId: bankId,
  content: ApprovalContent,
});
/** The checker names the hash they read: a decision never covers content they did not see. */
export const ApproveBody = z.strictObject({ contentHash: Sha256Hex });
export const RejectBody = z.strictObject({
  contentHash: Sha256Hex,
  reason: z.string().trim().min(1).max(2000),
});

// ---------------------------------------------------------------------------------------------
// Send jobs

export const SEND_JOB_STATUSES = ['queued', 'leased', 'done', 'failed'] as const;
export const SendJob = z.strictObject({
  id: z.string(),
  legalEntityId: bankId,
  object: ObjectRef,
  contentHash: Sha256Hex,
  idempotencyKey: z.string(),
  status: z.enum(SEND_JOB_STATUSES),
  leaseNumber: z.number().int(),
  leasedBy: Subject.nullable(),
  leaseExpiresAt: z.string().nullable(),
  /** The last holder's outcome was unknown or its lease expired: re-read the bank before writing. */
  verifyFirst: z.boolean(),
  bankReference: z.string().nullable(),
  /** Why a send ended failed (the bank refused, the question was closed), in words; else null. */
  detail: z.string().nullable(),
  createdBy: Subject,
});
export type SendJob = z.infer<typeof SendJob>;
export const CreateSendJobBody = z.strictObject({
  legalEntityId: bankId,
  objectId: bankId,
  content: ApprovalContent,
});
export const LeaseBody = z.strictObject({ workstation: z.string().min(1).max(128) });
export const LeaseAnswer = z.strictObject({ job: SendJob.nullable() });
/** An entity's send jobs not finished yet (queued or leased), oldest first. */
export const OpenSendJobs = z.strictObject({ jobs: z.array(SendJob) });
/** Renews a held lease (the send is still under way): refused unless that lease number is held. */
export const RenewBody = z.strictObject({ leaseNumber: z.number().int().positive() });
/**
 * A leased send's outcome: sent; failed (the bank refused it) or conflict (the object moved on at
 * the bank, e.g. the question was closed), both ending the job with `detail` in words; ambiguous
 * (not known whether the bank holds it: queued again, verified first, `bankReference` naming what
 * was being written, so the next holder can read it at the bank); unsent (refused before anything
 * reached the bank, e.g. the quote had expired: queued again as it was, the lease let go, so an
 * approved mandate or return stays usable).
 */
export const CompleteBody = z.strictObject({
  leaseNumber: z.number().int().positive(),
  outcome: z.enum(['sent', 'failed', 'conflict', 'ambiguous', 'unsent']),
  bankReference: z.string().max(256).optional(),
  detail: z.string().max(2000).optional(),
});

// ---------------------------------------------------------------------------------------------
// Team activity log and the change feed

/** What an activity entry is about: a shared object, a document of the evidence locker, an RFI. */
export const ActivityObjectRef = z.strictObject({
  kind: z.enum([...OBJECT_KINDS, 'evidence', 'rfi']),
  id: bankId,
});
export const ActivityDetail = z.record(z.string().max(64), z.string().max(2000));
export const AppendActivityBody = z.strictObject({
  /** The workstation's name for this append (a UUID): sent again, it answers the stored entry. */
  id: z.uuid().optional(),
  legalEntityId: bankId,
  action: z.string().min(1).max(64),
  object: ActivityObjectRef.optional(),
  detail: ActivityDetail.default({}),
});
export const ActivityEntry = z.strictObject({
  seq: z.number().int().positive(),
  at: z.string(),
  actor: Subject,
  legalEntityId: bankId,
  action: z.string(),
  object: ActivityObjectRef.nullable(),
  detail: ActivityDetail,
  prevHash: Sha256Hex,
  hash: Sha256Hex,
});
export type ActivityEntry = z.infer<typeof ActivityEntry>;
export const ActivityPage = z.strictObject({
  entries: z.array(ActivityEntry),
  next: z.number().int().nullable(),
});

export const CHANGE_TOPICS = [
  'assignment',
  'approval',
  'approval_rules',
  'send_job',
  'activity',
  'member',
  'evidence',
  'note',
] as const;
export const Change = z.strictObject({
  seq: z.number().int().positive(),
  at: z.string(),
  legalEntityId: bankId,
  topic: z.enum(CHANGE_TOPICS),
  objectId: z.string(),
  data: z.unknown(),
});
export type Change = z.infer<typeof Change>;
export const ChangesPage = z.strictObject({ changes: z.array(Change), last: z.number().int().nonnegative() });
export const SinceQuery = z.strictObject({
  since: z.coerce.number().int().nonnegative().default(0),
  limit: z.coerce.number().int().positive().max(1000).default(500),
});

/** Error body of the team server: a stable code the workstation maps to a typed error. */
export const TEAM_ERROR_CODES = [
  'bad_request',
  'unauthenticated',
  'forbidden',
  'not_found',
  'held_by_other',
  'self_approval',
  'content_changed',
  'approval_required',
  'stale_lease',
  'not_leasable',
  'conflict',
  /** Evidence: the bytes sent are not the sha256 named, or not the content type declared. */
  'hash_mismatch',
  /** Evidence: the bytes named are not stored (upload them first). */
  'blob_missing',
  /** Evidence: the version was replaced or revoked already (by the holder named). */
  'superseded',
  'too_large',
  'internal',
] as const;
export const TeamErrorBody = z.strictObject({
  error: z.strictObject({
    code: z.enum(TEAM_ERROR_CODES),
    message: z.string(),
    holder: Subject.nullable().optional(),
  }),
});
export type TeamErrorCode = (typeof TEAM_ERROR_CODES)[number];
