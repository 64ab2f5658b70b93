/**
 * Schemas of RFIs: the RFI record, listing, answering a question, and the sandbox-only staff
 * requests that create RFIs and act on them.
 */

import { z } from 'zod';
import { RFI_STATUSES, RFI_TYPES } from '../catalogue';
import { freeText, id, timestampOut, tolerantEnum, msg } from './common';

export const RfiStatus = tolerantEnum(RFI_STATUSES);
export const RfiType = tolerantEnum(RFI_TYPES);

/** What a response holds under its question-type key. */
export const ResponseContent = z.strictObject({
  response_text: z.string({ error: msg('must be a string') }).max(10_000, 'must be at most 10000 characters'),
  document_ids: z
    .array(id, { error: msg('must be an array of document ids') })
    .max(20, 'at most 20 documents'),
});
export const ResponseContentOut = z.looseObject({
  response_text: z.string(),
  document_ids: z.array(z.string()),
});

/** Response object (spec 2.5). `response` is keyed by the question type. */
export const RfiResponse = z.looseObject({
  id: z.string(),
  question_id: z.string(),
  responder_type: tolerantEnum(['customer', 'staff', 'system']),
  response: z.record(z.string(), ResponseContentOut),
  created_at: timestampOut,
  updated_at: timestampOut,
});
export type RfiResponse = z.infer<typeof RfiResponse>;

/**
 * The spec names only the question's id and type (2.5); the rest is the public shape recorded in docs/api-decisions.md.
 * A bank that leaves those fields out still parses: they default to empty.
 */
export const RfiQuestion = z.looseObject({
  id: z.string(),
  status: RfiStatus,
  question_type: z.string(),
  question_data: z
    .looseObject({
      question_text: z.string().default(''),
      comment: z.string().default(''),
      document_ids: z.array(z.string()).default([]),
    })
    .default({ question_text: '', comment: '', document_ids: [] }),
  created_at: timestampOut,
  updated_at: timestampOut,
  responses: z.array(RfiResponse).default([]),
});
export type RfiQuestion = z.infer<typeof RfiQuestion>;

/** Spec 2.5 names id, type, status, dates, questions and responses; the rest defaults when absent. */
export const Rfi = z.looseObject({
  id: z.string(),
  type: RfiType,
  related_id: z.string().default(''),
  legal_entity_id: z.string().default(''),
  description: z.string().default(''),
  status: RfiStatus,
  created_at: timestampOut,
  updated_at: timestampOut,
  questions: z.array(RfiQuestion),
});
export type Rfi = z.infer<typeof Rfi>;

const csv = (what: string) =>
  z
    .string({ error: msg('must be a comma-separated list') })
    .max(20_000)
    .regex(/^[^,]+(,[^,]+)*$/, `must be a comma-separated list of ${what}`)
    .meta({ description: `Comma-separated list of ${what}` });

export const ListRfisQuery = z.strictObject({
  ids: csv('RFI ids').optional(),
  types: csv('RFI types').optional(),
  status: csv('statuses').optional(),
  related_id: id.optional(),
  updated_since: z.iso
    .datetime({ offset: true, error: msg('must be an ISO 8601 date-time') })
    .optional()
    .meta({ description: 'Extension: only RFIs updated strictly after this time' }),
  page_size: z
    .string({ error: msg('must be an integer between 1 and 500') })
    .regex(/^[1-9][0-9]{0,2}$/, 'must be an integer between 1 and 500')
    .refine((s) => Number.parseInt(s, 10) <= 500, 'must be an integer between 1 and 500')
    .optional()
    .meta({ description: 'Default 100, max 500' }),
  page_token: z
    .string({ error: msg('must be a string') })
    .max(200)
    .optional(),
});
export type ListRfisQuery = z.infer<typeof ListRfisQuery>;

export const RfiList = z.looseObject({
  data: z.array(Rfi),
  next_page_token: z.string().nullable(),
});

export const RfiParams = z.strictObject({ rfiID: id });
export const QuestionParams = z.strictObject({ rfiID: id, questionID: id });

/**
 * Body of POST /v1/rfis/:rfiID/questions/:questionID/responses: `question_type` and one field
 * named exactly as that type holding {response_text, document_ids}.
 */
export const RfiResponseRequest = z
  .looseObject({
    question_type: z
      .string({ error: msg('must be a string') })
      .min(1, 'must not be empty')
      .max(128, 'must be at most 128 characters'),
  })
  .superRefine((v, ctx) => {
    const keys = Object.keys(v).filter((k) => k !== 'question_type');
    if (!keys.includes(v.question_type)) {
      ctx.addIssue({
        code: 'custom',
        path: [v.question_type],
        message: `required: an object {response_text, document_ids} named as the question_type`,
      });
    }
    for (const k of keys) {
      if (k !== v.question_type) {
        ctx.addIssue({
          code: 'custom',
          path: [k],
          message: 'unknown field (only the question_type key is allowed)',
        });
        continue;
      }
      const r = ResponseContent.safeParse(v[k]);
      if (!r.success) {
        for (const iss of r.error.issues) {
          ctx.addIssue({ code: 'custom', path: [k, ...iss.path], message: iss.message });
        }
      }
    }
  })
  .meta({
    description: 'question_type plus one field named exactly as the question type',
    additionalProperties: (() => {
      const js = z.toJSONSchema(ResponseContent, { io: 'input' }) as Record<string, unknown>;
      delete js.$schema;
      return js;
    })(),
  });
export type RfiResponseRequest = z.infer<typeof RfiResponseRequest>;

// ---- Staff side (sandbox only) ----

export const CreateRfiRequest = z.strictObject({
  legal_entity_id: id.optional().meta({ description: 'Sandbox: defaults to the owner of related_id' }),
  type: z.enum(RFI_TYPES, { error: msg(`must be one of ${RFI_TYPES.join(', ')}`) }),
  related_id: id,
  description: freeText(2000).optional(),
  questions: z
    .array(
      z.strictObject({
        question_type: z
          .string({ error: msg('must be a string') })
          .regex(/^[a-z_]+(\.[a-z_]+)+$/, 'must look like category.subject'),
        question_text: freeText(2000),
        comment: freeText(2000).optional(),
      }),
      { error: msg('must be an array of questions') },
    )
    .min(1, 'at least one question')
    .max(50, 'at most 50 questions'),
});

export const BulkRfisRequest = z.strictObject({
  count: z
    .int({ error: msg('must be an integer') })
    .min(1, 'must be at least 1')
    .max(100_000, 'at most 100000'),
  legal_entity_id: id.optional(),
});
export const BulkRfisResponse = z.looseObject({
  created: z.number(),
  first_id: z.string(),
  last_id: z.string(),
});

export const QuestionActionRequest = z.strictObject({
  action: z.enum(['approve', 'reject', 'close'], { error: msg('must be approve, reject or close') }),
  response_text: freeText(10_000).optional(),
});
export const AdminResponseRequest = z.strictObject({
  response_text: freeText(10_000),
  document_ids: z.array(id).max(20).optional(),
});
export const RfiActionRequest = z.strictObject({
  action: z.enum(['approve', 'reject', 'close'], { error: msg('must be approve, reject or close') }),
});
