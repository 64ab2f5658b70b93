import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rfi } from '../../src/shared/api/rfis';
import { hasRfiShape, readRfi } from '../../src/main/rfis/rfi-records';

/**
 * The cheap path of reading an RFI record (a validator compiled from the schema's output shape)
 * must never take a record zod refuses, nor one zod would answer differently: checked on generated
 * records of the bank's shape, then broken at random places (a field removed, of another type,
 * null, an array for an object, unknown and prototype keys), as a differing or hostile bank would.
 */
const str = fc.string({ maxLength: 12 });
const stamp = fc
  .integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 })
  .map((ms) => new Date(ms).toISOString());
const status = fc.constantFrom('action_required', 'pending_review', 'approved', 'closed', 'new_status');
const ids = fc.array(str, { maxLength: 3 });
const response = fc.record({
  id: str,
  question_id: str,
  responder_type: fc.constantFrom('customer', 'staff', 'system', 'robot'),
  response: fc.dictionary(str, fc.record({ response_text: str, document_ids: ids }), { maxKeys: 2 }),
  created_at: stamp,
  updated_at: stamp,
});
const question = fc.record({
  id: str,
  status,
  question_type: str,
  question_data: fc.record({ question_text: str, comment: str, document_ids: ids }),
  created_at: stamp,
  updated_at: stamp,
  responses: fc.array(response, { maxLength: 2 }),
});
const rfi = fc.record({
  id: str,
  type: fc.constantFrom('transaction', 'account', 'something_new'),
  related_id: str,
  legal_entity_id: str,
  description: str,
  status,
  created_at: stamp,
  updated_at: stamp,
  questions: fc.array(question, { maxLength: 3 }),
});

/** Every place in a JSON value (as a path of keys), the root included. */
function places(value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  const out = [at];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...places(v, [...at, i])));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) out.push(...places(v, [...at, k]));
  return out;
}

const replacement = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.integer(),
  fc.boolean(),
  str,
  fc.constant([]),
  fc.constant({}),
  fc.constant([1, 'x']),
);
const mutation = fc.record({
  kind: fc.constantFrom('remove', 'replace', 'extra key', 'prototype key'),
  where: fc.nat(),
  value: replacement,
  key: fc.constantFrom('extra', 'constructor', 'toString'),
});

type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

/** A record parsed from JSON (as from a page), then broken at one or more places. */
function broken(base: unknown, mutations: Mutation[]): unknown {
  let root: unknown = JSON.parse(JSON.stringify(base));
  for (const m of mutations) {
    const all = places(root);
    const path = all[m.where % all.length]!;
    if (path.length === 0) {
      if (m.kind === 'replace') root = structuredClone(m.value);
      continue;
    }
    let parent = root as Record<string | number, unknown>;
    for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
    const last = path[path.length - 1]!;
    const target = parent[last];
    if (m.kind === 'remove') {
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
    } else if (m.kind === 'replace') parent[last] = structuredClone(m.value);
    else if (target && typeof target === 'object' && !Array.isArray(target)) {
      if (m.kind === 'extra key') (target as Record<string, unknown>)[m.key] = structuredClone(m.value);
      // As JSON.parse makes it: an own key named __proto__, not a prototype.
      else {
        const rest = JSON.stringify(target).slice(1);
        parent[last] = JSON.parse(`{"__proto__":{"polluted":1}${rest === '}' ? '' : ','}${rest}`);
      }
    }
  }
  return root;
}

describe('reading RFI records (the cheap path beside zod)', () => {
  it('takes a record of the output shape as it is, and what zod answers for it is the same record', () => {
    fc.assert(
      fc.property(rfi, (r) => {
        const raw = JSON.parse(JSON.stringify(r)) as unknown;
        expect(hasRfiShape(raw)).toBe(true);
        const read = readRfi(raw);
        expect(read.success && read.data).toBe(raw);
        expect(Rfi.parse(raw)).toEqual(raw);
      }),
      { numRuns: 300 },
    );
  });

  it('never takes a record zod refuses or would answer differently, whatever is broken in it', () => {
    let refused = 0;
    let fast = 0;
    fc.assert(
      fc.property(rfi, fc.array(mutation, { minLength: 1, maxLength: 3 }), (r, ms) => {
        const raw = broken(r, ms);
        const byZod = Rfi.safeParse(raw);
        const read = readRfi(raw);
        expect(read.success).toBe(byZod.success);
        if (byZod.success && read.success) expect(read.data).toEqual(byZod.data);
        else refused++;
        if (hasRfiShape(raw)) {
          fast++;
          expect(byZod.success).toBe(true);
          expect(byZod.data).toEqual(raw);
        }
      }),
      { numRuns: 2000 },
    );
    // The generator reaches both sides: refused records and records the cheap path takes.
    expect(refused).toBeGreaterThan(100);
    expect(fast).toBeGreaterThan(100);
  });

  it('fills the defaults of a record that leaves them out, through zod', () => {
    const raw = {
      id: 'rfi_1',
      type: 'account',
      status: 'action_required',
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
      questions: [
        { id: 'q', status: 'action_required', question_type: 't', created_at: 'x', updated_at: 'x' },
      ],
    };
    expect(hasRfiShape(raw)).toBe(false);
    const read = readRfi(raw);
    expect(read.success && read.data).toMatchObject({
      related_id: '',
      description: '',
      questions: [{ responses: [], question_data: { question_text: '', document_ids: [] } }],
    });
  });
});
