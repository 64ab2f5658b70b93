/**
 * Reading one RFI record (from a page of the bank's listing, or from the cache's files) as the
 * shared `Rfi` schema reads it, cheaply.
 *
 * A full sync reads 10,000 records; zod's check of each (its compiled fast path included) was
 * about half of what a full sync costs beyond fetching and parsing its pages. Nearly every record
 * already has the schema's output shape (every field present, of its type), and such a record is
 * what the schema would answer for it, field for field. So a record is first tried against a
 * validator ajv compiles from the schema's own JSON Schema for its OUTPUT (`z.toJSONSchema`, io
 * "output": fields with a default are required there): one that passes is taken as it is; any
 * other (a field missing that has a default, a malformed or hostile record) goes through zod,
 * which fills the defaults or refuses it with its issues, as before. The fast path never accepts
 * what zod refuses: it is derived from the same schema, and the schema has no check JSON Schema
 * cannot state (the conversion is told to throw on one; test/unit/rfi-records.test.ts compares both
 * paths on generated records, malformed ones included). A record with a key named `__proto__`
 * anywhere is also left to zod.
 */

import Ajv2020, { _ } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { Rfi } from '../../shared/api/rfis';

type Accepts = (value: unknown) => boolean;

let accepts: Accepts | null = null;

/** The output-shape validator, compiled on first use (a few ms; not at start-up). */
function outputShape(): Accepts {
  if (accepts) return accepts;
  const schema = withNoProtoKey(z.toJSONSchema(Rfi, { io: 'output', unrepresentable: 'throw' }));
  // Formats are annotations in the zod schema (timestamps are any string): not checked here either.
  const ajv = new Ajv2020({ allErrors: false, validateFormats: false });
  ajv.addKeyword({
    keyword: NO_PROTO_KEY,
    type: 'object',
    schemaType: 'boolean',
    code: (cxt) => {
      if (cxt.schema === true) cxt.fail(_`Object.prototype.hasOwnProperty.call(${cxt.data}, "__proto__")`);
    },
  });
  const validate = ajv.compile(schema as JsonSchema);
  accepts = (value) => validate(value);
  return accepts;
}

type JsonSchema = { [keyword: string]: unknown };

/**
 * The schema with every object it describes refusing an own key named `__proto__` (JSON.parse
 * makes one; zod's copy leaves it out): such a record is left to zod, as every record was before.
 * A keyword of our own, compiled inline to one hasOwnProperty per object (the same rule written as
 * `propertyNames` made ajv visit every key: three times slower).
 */
const NO_PROTO_KEY = 'noProtoKey';

function withNoProtoKey(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withNoProtoKey);
  if (!node || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === 'default' ? v : withNoProtoKey(v);
  if (out['type'] === 'object') out[NO_PROTO_KEY] = true;
  return out;
}

/** True when the record has the schema's output shape as it is (taken without a copy). */
export function hasRfiShape(raw: unknown): raw is Rfi {
  return outputShape()(raw);
}

/** One record read as `Rfi.safeParse` reads it: the record itself when it has the output shape. */
export function readRfi(raw: unknown): z.ZodSafeParseResult<Rfi> {
  if (hasRfiShape(raw)) return { success: true, data: raw };
  return Rfi.safeParse(raw);
}
