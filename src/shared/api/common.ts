/**
 * Building blocks of the bank interface schemas: error messages, tolerant enums, ids, amounts in
 * minor units, timestamps and the error body.
 */

import { z } from 'zod';

/** A schema-level error message that still says `required` when the field is missing. */
export function msg(text: string): (iss: { input?: unknown }) => string {
  return (iss) => (iss.input === undefined ? 'required' : text);
}

/** A response-side enum: the known values are listed, any other string still parses (docs/api-decisions.md). */
export function tolerantEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z.union([z.enum(values), z.string()]);
}

/** Timestamp as read from the server: any string (tolerant), documented as date-time. */
export const timestampOut = z.string().meta({ format: 'date-time' });

/** Positive integer string of minor units (requests). */
export const positiveMinor = z
  .string({ error: msg('must be a positive integer string of minor units') })
  .regex(/^[1-9][0-9]*$/, 'must be a positive integer string of minor units')
  .max(40, 'must be a positive integer string of minor units')
  .meta({ description: 'Integer amount in minor units, as a string', example: '125000' });

/** Non-negative integer string of minor units (responses). */
export const minorOut = z
  .string()
  .regex(/^(0|[1-9][0-9]*)$/)
  .meta({ description: 'Integer amount in minor units, as a string' });

/** An identifier in a path or body: 1–128 visible ASCII characters. */
export const id = z
  .string({ error: msg('must be a string') })
  .min(1, 'must not be empty')
  .max(128, 'must be at most 128 characters')
  .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII characters');

/**
 * An id that becomes a path segment (transaction, RFI, question, document): 1–128 letters,
 * digits, `_`, `-`, `.`, `:` or `~`, not starting with a dot, so it can never be `.` or `..`
 * (which a URL resolves as "this" or "the parent" folder) nor contain `/`, `%`, `?` or `#`.
 */
export const BANK_ID_RE = /^[A-Za-z0-9_:~-][A-Za-z0-9_.:~-]{0,127}$/;
export const BANK_ID_RULE =
  'must be 1 to 128 letters, digits, "_", "-", ".", ":" or "~", not starting with a dot';
export const bankId = z.string({ error: msg('must be a string') }).regex(BANK_ID_RE, BANK_ID_RULE);

export const freeText = (max = 2000) =>
  z.string({ error: msg('must be a string') }).max(max, `must be at most ${max} characters`);

/** Error body (docs/api-decisions.md): code is the HTTP status as a string. */
export const ErrorBody = z.looseObject({
  error: z.looseObject({
    code: z.string(),
    status: z.string(),
    message: z.string(),
    reason: z.string().optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export const CANONICAL_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'INVALID_ARGUMENT',
  409: 'ABORTED',
  413: 'OUT_OF_RANGE',
  415: 'INVALID_ARGUMENT',
  421: 'PERMISSION_DENIED',
  422: 'FAILED_PRECONDITION',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/** `{transaction_id}`: the answer of every creating/confirming/cancelling call. */
export const TransactionIdBody = z.strictObject({ transaction_id: id });
export const TransactionIdResponse = z.looseObject({ transaction_id: z.string() });

export const Empty = z.strictObject({});
