/**
 * The RFI answer workspace (the answers half of the RFI feature): drafts saved as the analyst
 * types, staged files (native picker or dropped bytes), and the durable outbox that uploads
 * documents and posts responses. The renderer only ever holds opaque file refs issued by main, never a path.
 */

import { z } from 'zod';
import { bankId } from '../../api/common';
import { DOCUMENT_TYPES, UPLOAD_CONTENT_TYPES } from '../../catalogue';
import { channel, event, noArgs } from '../define';
import { profileIdSchema } from './settings';

const rfiId = bankId;
const questionId = rfiId;
const questionType = z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters');
/** An opaque reference to a staged file, issued by main (files.pick / files.stageDropped). */
export const fileRefSchema = z
  .string()
  .regex(/^f_[0-9a-f]{24}$/, 'must be a file reference issued by the app');
const answerId = z.string().regex(/^a_[0-9a-f]{24}$/, 'must be an answer id issued by the app');
export const documentTypeSchema = z.enum(DOCUMENT_TYPES, { error: 'must be a known document type' });
export const uploadContentTypeSchema = z.enum(UPLOAD_CONTENT_TYPES);
export const answerTextSchema = z.string().max(10_000, 'must be at most 10000 characters');

/** A staged file as the renderer sees it: display name, size and checked content type. */
export const stagedFileSchema = z.object({
  ref: z.string(),
  /** Display name only (never used as a path). */
  name: z.string(),
  sizeBytes: z.number().int(),
  contentType: z.string(),
  documentType: z.string(),
});
export type StagedFileView = z.infer<typeof stagedFileSchema>;

export const draftSchema = z.object({
  rfiId: z.string(),
  questionId: z.string(),
  questionType: z.string(),
  text: z.string(),
  files: z.array(stagedFileSchema),
  updatedAt: z.string(),
});
export type DraftView = z.infer<typeof draftSchema>;

export const answerStates = [
  'queued',
  'uploading',
  'sending',
  'verifying',
  'sent',
  'failed',
  'conflict',
] as const;
export type AnswerState = (typeof answerStates)[number];

export const answerErrorSchema = z.object({
  kind: z.string(),
  message: z.string(),
  reason: z.string().optional(),
});

/** What changed on the bank's side when an answer could no longer be sent. */
export const answerConflictSchema = z.object({
  questionStatus: z.string(),
  /** Text of the newest staff or system response on the question, if any. */
  latestStaffResponse: z.string().nullable(),
  detectedAt: z.string(),
});

export const answerViewSchema = z.object({
  id: z.string(),
  rfiId: z.string(),
  questionId: z.string(),
  questionType: z.string(),
  state: z.string(),
  text: z.string(),
  files: z.array(stagedFileSchema),
  /** Bytes sent of all documents / total, while uploading. */
  progress: z.object({ sentBytes: z.number(), totalBytes: z.number() }).nullable(),
  /** The last failure (a retry is scheduled unless the state is failed). */
  lastError: answerErrorSchema.nullable(),
  conflict: answerConflictSchema.nullable(),
  attempts: z.number(),
  nextAttemptAt: z.string().nullable(),
  responseId: z.string().nullable(),
  /** The bank this answer is for: it is sent only there (null for none recorded). */
  bank: z
    .object({ profileId: z.string(), origin: z.string(), legalEntityId: z.string().nullable() })
    .nullable(),
  /** Not sent while another bank is active: it waits for its own. */
  waitingForBank: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type AnswerView = z.infer<typeof answerViewSchema>;

export const uploadLimitsSchema = z.object({
  contentTypes: z.array(z.string()),
  extensions: z.array(z.string()),
  maxBytes: z.number(),
  /** Largest chunk files.stageDropped accepts (bytes before base64). */
  chunkBytes: z.number(),
});

/** What the page says of a file it is about to drop. */
const dropStart = {
  /** Display name from the page; kept for display only, never part of a path. */
  name: z.string().min(1).max(255),
  contentType: z.string().max(100),
  sizeBytes: z.number().int().min(1, 'an empty file cannot be uploaded'),
  documentType: documentTypeSchema,
};

const stageOp = z.discriminatedUnion('op', [
  z.strictObject({
    op: z.literal('begin'),
    ...dropStart,
    /** The profile whose answer the file is for (the RFI row says it): the file is bound to it. */
    profileId: profileIdSchema,
  }),
  /** A file dropped into the evidence locker (locker.add): no answer of any profile takes it. */
  z.strictObject({ op: z.literal('beginForLocker'), ...dropStart }),
  z.strictObject({
    op: z.literal('chunk'),
    stagingId: z.string().regex(/^s_[0-9a-f]{24}$/, 'must be a staging id issued by the app'),
    offset: z.number().int().min(0),
    /** Base64 of at most chunkBytes bytes. */
    data: z
      .string()
      .max(1_400_000, 'chunk too large')
      .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64'),
  }),
  z.strictObject({
    op: z.literal('commit'),
    stagingId: z.string().regex(/^s_[0-9a-f]{24}$/, 'must be a staging id issued by the app'),
  }),
  z.strictObject({
    op: z.literal('abort'),
    stagingId: z.string().regex(/^s_[0-9a-f]{24}$/, 'must be a staging id issued by the app'),
  }),
]);

/**
 * The profile that owns the RFI (the row it was opened from says it): RFI ids are one bank's
 * only, so main acts through this profile alone and refuses an RFI it does not hold.
 */
const owner = { profileId: profileIdSchema };

const draftContent = {
  ...owner,
  rfiId,
  questionId,
  questionType,
  text: answerTextSchema,
  files: z.array(fileRefSchema).max(20, 'at most 20 documents'),
};

export const rfiAnswersChannels = {
  'drafts.get': channel({
    summary: 'The saved drafts of one RFI (every question that has one).',
    args: z.strictObject({ ...owner, rfiId }),
    result: z.object({ drafts: z.array(draftSchema) }),
  }),
  'drafts.save': channel({
    summary: 'Save the draft of one question (atomic write; works offline). Files are refs from main.',
    args: z.strictObject(draftContent),
    result: draftSchema,
  }),
  'drafts.discard': channel({
    summary: 'Delete the draft of one question and the files dropped for it.',
    args: z.strictObject({ ...owner, rfiId, questionId }),
    result: z.null(),
  }),
  'answers.submit': channel({
    summary: 'Save the draft and put the answer in the durable outbox (sent when online).',
    args: z.strictObject(draftContent),
    result: answerViewSchema,
  }),
  'answers.retry': channel({
    summary: 'Run a failed or waiting answer again now.',
    args: z.strictObject({ answerId }),
    result: answerViewSchema,
  }),
  'answers.dismiss': channel({
    summary: 'Remove a failed or conflicting answer from the outbox (its draft is kept).',
    args: z.strictObject({ answerId }),
    result: z.null(),
  }),
  'answers.list': channel({
    summary:
      'Answers in the outbox (of one RFI of one profile, of one RFI at any bank, or all), oldest first.',
    args: z.strictObject({ rfiId: rfiId.optional(), profileId: profileIdSchema.optional() }).optional(),
    result: z.object({ answers: z.array(answerViewSchema) }),
  }),
  'answers.status': channel({
    summary: 'Outbox summary: counts per state and whether the last attempt reached the bank.',
    args: noArgs,
    result: z.object({
      counts: z.record(z.string(), z.number()),
      lastError: answerErrorSchema.nullable(),
      limits: uploadLimitsSchema,
    }),
  }),
  'files.pick': channel({
    summary: 'Native file dialog; the chosen files are checked (type, size) and answered as refs.',
    args: z.strictObject({
      documentType: documentTypeSchema,
      multiple: z.boolean().optional(),
      /** The profile whose answer the files are for (the RFI row says it): the files are bound to it. */
      profileId: profileIdSchema,
    }),
    result: z.object({
      files: z.array(stagedFileSchema),
      /** Files refused, with why (wrong type, too large, unreadable). */
      refused: z.array(z.object({ name: z.string(), message: z.string() })),
    }),
  }),
  'files.stageDropped': channel({
    summary:
      'Stage a dropped file in chunks: begin (for one profile’s answer) or beginForLocker → chunk… → commit (or abort). Size-limited.',
    args: stageOp,
    result: z.object({
      stagingId: z.string().nullable(),
      receivedBytes: z.number(),
      file: stagedFileSchema.nullable(),
    }),
  }),
};

export const rfiAnswersEvents = {
  'answers.changed': event({
    summary: 'An answer in the outbox changed state.',
    payload: answerViewSchema,
  }),
  'answers.progress': event({
    summary: 'Upload progress of an answer (all its documents).',
    payload: z.object({ answerId: z.string(), sentBytes: z.number(), totalBytes: z.number() }),
  }),
};
