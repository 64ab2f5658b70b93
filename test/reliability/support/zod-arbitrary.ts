/**
 * fast-check arbitraries for IPC fuzzing, derived from a channel's zod schema at run time (so a
 * channel added later is fuzzed without touching the test): values shaped like the schema whose
 * leaves are often hostile (path traversal, huge strings, prototype keys, control characters,
 * numbers at the edges), plus values of no shape at all.
 */
import fc from 'fast-check';
import type { z } from 'zod';

/** Where hostile absolute paths point (a folder the test watches), set by the test. */
export interface HostileContext {
  /** An absolute folder outside the data folder; absolute path strings point into it. */
  outsideDir: string;
  /** Real-looking values (fixture ids, profile ids) so some calls get past validation. */
  plausible: string[];
}

const HUGE = 'A'.repeat(1 << 20);
const VERY_HUGE = 'B'.repeat(8 << 20);

export function hostileStrings(ctx: HostileContext): string[] {
  return [
    '',
    ' ',
    '../../etc/passwd',
    '../../../../../../../../../../etc/passwd',
    '..\\..\\..\\windows\\win.ini',
    './../.././../secret',
    '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
    '....//....//etc/passwd',
    '/etc/passwd',
    `${ctx.outsideDir}/escaped.txt`,
    `${ctx.outsideDir}/../outside-sibling.json`,
    'file:///etc/passwd',
    '\u0000',
    'a\u0000b/../../x',
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    '<script>alert(1)</script>',
    '=HYPERLINK("http://127.0.0.1:1/","x")',
    "'; DROP TABLE rfis; --",
    '${process.env.HOME}',
    '{{7*7}}',
    '\u202egnp.exe',
    '😀'.repeat(50),
    '\r\nSet-Cookie: x=1',
    'http://127.0.0.1:1/',
    'https://127.0.0.1:1/v1',
    'CON',
    'NUL.txt',
    '-1',
    '1e309',
    'NaN',
    HUGE,
    VERY_HUGE,
    ...ctx.plausible,
  ];
}

const hostileNumbers = [
  0,
  -0,
  -1,
  1,
  0.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  Number.MAX_SAFE_INTEGER + 2,
  -Number.MAX_SAFE_INTEGER - 2,
  1e308,
  2 ** 31,
];

/** Objects whose own keys try to pollute prototypes once merged or assigned. */
export function pollutionObjects(): Array<Record<string, unknown>> {
  return [
    JSON.parse('{"__proto__": {"polluted": "yes"}}') as Record<string, unknown>,
    JSON.parse('{"constructor": {"prototype": {"polluted": "yes"}}}') as Record<string, unknown>,
    JSON.parse('{"prototype": {"polluted": "yes"}, "__proto__": null}') as Record<string, unknown>,
    JSON.parse('{"a": {"__proto__": {"polluted": "yes"}}}') as Record<string, unknown>,
  ];
}

/** Adds prototype-pollution keys as own properties (as JSON.parse or structured clone would). */
export function withPollution(value: unknown, which: number): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const payload = { polluted: 'yes' };
  const key = ['__proto__', 'constructor', 'prototype'][which % 3]!;
  Object.defineProperty(copy, key, {
    value: key === 'constructor' ? { prototype: payload } : payload,
    enumerable: true,
    configurable: true,
    writable: true,
  });
  return copy;
}

function deep(depth: number, kind: 'object' | 'array'): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = kind === 'object' ? { a: v } : [v];
  return v;
}

export function hostileValues(ctx: HostileContext): unknown[] {
  return [
    undefined,
    null,
    true,
    0,
    Number.NaN,
    '',
    HUGE,
    [],
    {},
    [undefined],
    new Array(100_000).fill('x'),
    Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i])),
    deep(2_000, 'object'),
    deep(2_000, 'array'),
    new Date(0),
    new Uint8Array(16),
    new Map([['a', 1]]),
    ...pollutionObjects(),
    ...hostileStrings(ctx).slice(0, 12),
  ];
}

type Def = { type: string } & Record<string, unknown>;

function defOf(schema: unknown): Def {
  return (schema as { _zod: { def: Def } })._zod.def;
}

function checksOf(def: Def): Array<Record<string, unknown>> {
  return ((def.checks as Array<{ _zod: { def: Record<string, unknown> } }> | undefined) ?? []).map(
    (c) => c._zod.def,
  );
}

function stringArb(
  def: Def,
  ctx: HostileContext,
  hostile: fc.Arbitrary<string>,
  mode: Mode,
): fc.Arbitrary<string> {
  const checks = checksOf(def);
  const max = checks.find((c) => c.check === 'max_length')?.maximum as number | undefined;
  const min = (checks.find((c) => c.check === 'min_length')?.minimum as number | undefined) ?? 0;
  const pattern = checks.find((c) => c.check === 'string_format' && c.format === 'regex')?.pattern as
    RegExp | undefined;
  const fits = (v: string): boolean =>
    v.length >= min && (max === undefined || v.length <= max) && (!pattern || pattern.test(v));
  const plausible = ctx.plausible.filter(fits);
  if (mode === 'valid') {
    const arbs: Array<fc.Arbitrary<string>> = [];
    if (pattern) arbs.push(fc.stringMatching(pattern).filter(fits));
    else arbs.push(fc.string({ minLength: min, maxLength: Math.max(min, Math.min(max ?? 30, 30)) }));
    if (plausible.length > 0) arbs.push(fc.constantFrom(...plausible));
    return fc.oneof(...arbs);
  }
  const arbs: Array<fc.WeightedArbitrary<string>> = [
    { weight: 3, arbitrary: hostile },
    { weight: 2, arbitrary: fc.string({ maxLength: Math.min(max ?? 40, 40) }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  ];
  if (pattern) arbs.push({ weight: 4, arbitrary: fc.stringMatching(pattern).filter(fits) });
  if (plausible.length > 0) arbs.push({ weight: 2, arbitrary: fc.constantFrom(...plausible) });
  return fc.oneof(...arbs);
}

function numberArb(def: Def, mode: Mode): fc.Arbitrary<unknown> {
  const checks = checksOf(def);
  const lo = checks.find((c) => c.check === 'greater_than')?.value as number | undefined;
  const hi = checks.find((c) => c.check === 'less_than')?.value as number | undefined;
  const valid = fc.integer({
    min: Math.ceil(lo ?? -5),
    max: Math.floor(hi ?? Math.max(5000, (lo ?? 0) + 5000)),
  });
  if (mode === 'valid') return valid;
  return fc.oneof(
    { weight: 3, arbitrary: valid },
    { weight: 1, arbitrary: fc.constantFrom(...hostileNumbers) },
    { weight: 1, arbitrary: fc.double() },
  );
}

/**
 * 'hostile': any leaf may be hostile or of the wrong type; 'valid': leaves follow the schema's
 * own constraints (so the call reaches the handler), with real fixture ids among them.
 */
export type Mode = 'hostile' | 'valid';

/** A value shaped like `schema`, with hostile leaves. */
export function arbitraryFor(
  schema: z.ZodType,
  ctx: HostileContext,
  mode: Mode = 'hostile',
  depth = 0,
): fc.Arbitrary<unknown> {
  const hostileStr = fc.constantFrom(...hostileStrings(ctx));
  const anyHostile = fc.oneof(
    fc.constantFrom(...hostileValues(ctx)),
    fc.anything({ maxDepth: 3, maxKeys: 5, withNullPrototype: true, withBoxedValues: true }),
  );
  if (depth > 6) return anyHostile;
  const def = defOf(schema);
  const inner = (s: unknown): fc.Arbitrary<unknown> => arbitraryFor(s as z.ZodType, ctx, mode, depth + 1);
  const v = mode === 'valid';
  switch (def.type) {
    case 'string':
      return stringArb(def, ctx, hostileStr, mode);
    case 'number':
      return numberArb(def, mode);
    case 'bigint':
      return fc.bigInt();
    case 'boolean':
      return v ? fc.boolean() : fc.oneof(fc.boolean(), fc.constantFrom<unknown>('true', 1, null));
    case 'undefined':
    case 'void':
      if (v) return fc.constant(undefined);
      return fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: anyHostile });
    case 'null':
      if (v) return fc.constant(null);
      return fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: anyHostile });
    case 'literal':
      if (v) return fc.constantFrom(...(def.values as unknown[]));
      return fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...(def.values as unknown[])) },
        { weight: 1, arbitrary: hostileStr },
      );
    case 'enum':
      if (v) return fc.constantFrom(...Object.values(def.entries as Record<string, unknown>));
      return fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...Object.values(def.entries as Record<string, unknown>)) },
        { weight: 1, arbitrary: hostileStr },
      );
    case 'optional':
      return fc.oneof(
        { weight: 1, arbitrary: fc.constant(undefined) },
        { weight: 4, arbitrary: inner(def.innerType) },
      );
    case 'nullable':
      return fc.oneof(
        { weight: 1, arbitrary: fc.constant(null) },
        { weight: 4, arbitrary: inner(def.innerType) },
      );
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return inner(def.innerType);
    case 'pipe':
      return inner(def.in);
    case 'lazy':
      return inner((def.getter as () => unknown)());
    case 'array':
      return fc.array(inner(def.element), { maxLength: depth === 0 ? 25 : 4 });
    case 'tuple':
      return fc.tuple(...(def.items as unknown[]).map(inner));
    case 'union':
      return fc.oneof(...(def.options as unknown[]).map(inner));
    case 'intersection':
      return inner(def.left);
    case 'record':
      if (v)
        return fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }), inner(def.valueType), {
          maxKeys: 3,
        });
      return fc.dictionary(
        fc.oneof(
          fc.string({ maxLength: 10 }),
          fc.constantFrom('__proto__', 'constructor', 'prototype', '../x'),
        ),
        inner(def.valueType),
        { maxKeys: 4 },
      );
    case 'object': {
      const shape = def.shape as Record<string, z.ZodType>;
      const keys = Object.keys(shape);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const k of keys) model[k] = inner(shape[k]);
      const required = keys.filter((k) => {
        const t = defOf(shape[k]).type;
        return t !== 'optional' && t !== 'default';
      });
      const shaped = fc.record(model, { requiredKeys: required });
      if (v) return shaped;
      return fc.oneof(
        { weight: 6, arbitrary: shaped },
        { weight: 1, arbitrary: fc.record(model, { requiredKeys: [] }) },
        {
          weight: 2,
          arbitrary: fc.tuple(shaped, fc.nat(2)).map(([v, which]) => withPollution(v, which)),
        },
        {
          weight: 1,
          arbitrary: fc
            .tuple(shaped, fc.string({ maxLength: 8 }), anyHostile)
            .map(([v, k, x]) => ({ ...(v as object), [k || 'extra']: x })),
        },
      );
    }
    default:
      return v ? fc.constantFrom<unknown>('x', 1, null, {}) : anyHostile;
  }
}

/** The arguments a channel is fuzzed with: shaped by its schema most of the time, anything otherwise. */
export function channelArgs(schema: z.ZodType, ctx: HostileContext): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: arbitraryFor(schema, ctx, 'valid') },
    { weight: 4, arbitrary: arbitraryFor(schema, ctx, 'hostile') },
    { weight: 2, arbitrary: fc.constantFrom(...hostileValues(ctx)) },
    { weight: 1, arbitrary: fc.anything({ maxDepth: 4, withNullPrototype: true }) },
  );
}
