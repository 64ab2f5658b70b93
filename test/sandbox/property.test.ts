/**
 * Property test: malformed bodies, headers and paths thrown at every route. Whatever comes in, the
 * sandbox never answers 5xx, always answers the api-gaps error body on a refusal, and a refusal
 * changes no state.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index';
import { ErrorBody, routes } from '../../src/shared/api';
import { fx, start, type Json } from './helpers';

let sb: RunningSandbox;
let f: ReturnType<typeof fx>;

beforeAll(async () => {
  sb = await start();
  f = fx(sb);
});
afterAll(async () => {
  await sb.close();
});

async function snapshot(): Promise<string> {
  const get = async (p: string, token?: string) => {
    const r = await fetch(`${sb.url}${p}`, {
      headers: token ? { authorization: `Bearer ${token}` } : sb.controlHeaders(),
    });
    return r.text();
  };
  const parts = await Promise.all([
    get('/v1/sandbox/transactions'),
    get('/v1/sandbox/accounts'),
    get('/v1/rfis?page_size=500', f.adminA),
    get('/v1/rfis?page_size=500', f.adminB),
    get('/v1/webhook/url', f.adminA),
    get('/v1/webhook/url', f.viewerA),
    get('/v1/webhook/url', f.adminB),
    get('/v1/sandbox/clock').then((t) => String((JSON.parse(t) as Json).offset_seconds)),
  ]);
  return parts.join('\n');
}

function examples(): Record<string, Json> {
  const usd = f.acc(f.a, 'USD').id;
  const usdt = f.acc(f.a, 'ETHEREUM-USDT').id;
  const tx = f.a.incoming_transfers[0]?.transaction_id ?? '';
  const rfi = f.a.rfi_ids[0] ?? '';
  return {
    createReturnIntent: {
      transfer_return_type: 'SWIFT_FI_TO_FI_RETURN',
      transaction_id: tx,
      return_amount: '100',
      status_reason_code: 'FOCR',
    },
    confirmReturn: { transaction_id: tx },
    createCryptoOrder: {
      side: 'buy',
      priority: 'instant',
      rail: 'rfq',
      symbol: 'USDT-USD',
      base_asset: 'ETHEREUM-USDT',
      quote_asset: 'USD',
      requested_asset: 'ETHEREUM-USDT',
      requested_amount: '1000000',
      customer_pays_account_id: usd,
      customer_receives_account_id: usdt,
    },
    confirmCryptoOrder: { transaction_id: tx },
    submitRfiResponse: {
      question_type: 'transaction.purpose',
      'transaction.purpose': { response_text: 'x', document_ids: [] },
    },
    createUploadUrl: { related_id: rfi, content_type: 'application/pdf', document_type: 'other' },
    setWebhookUrl: { webhook_url: 'http://127.0.0.1:9/hook' },
    advanceClock: { advance_seconds: 1 },
    createIncomingTransfer: { amount: '100' },
    staffCreateRfi: {
      type: 'account',
      related_id: usd,
      questions: [{ question_type: 'a.b', question_text: 'q' }],
    },
    staffQuestionAction: { action: 'approve' },
    staffAdminResponse: { response_text: 'x' },
    staffRfiAction: { action: 'approve' },
  };
}

const headerSafe = fc.string({ maxLength: 40 }).filter((s) => /^[\x20-\x7e]*$/.test(s));
const weirdSegment = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom(
    '..',
    '.',
    '%',
    '%00',
    '%E0%A4%A',
    '~',
    'a'.repeat(300),
    '\u{1F4A9}',
    '__proto__',
    'constructor',
  ),
);

function pathFor(template: string, ids: string[]): fc.Arbitrary<string> {
  const params = template.match(/:[A-Za-z]+/g) ?? [];
  if (params.length === 0) {
    return fc.oneof(
      fc.constant(template),
      fc.constant(`${template}/`),
      weirdSegment.map((s) => `${template}?${encodeURIComponent(s)}=${encodeURIComponent(s)}`),
      fc.constant(`${template}?page_size=-1&page_token=%FF`),
    );
  }
  const seg = fc.oneof(
    fc.constantFrom(...ids),
    weirdSegment.map((s) => encodeURIComponent(s)),
    weirdSegment.map((s) => s.replace(/[/?#]/g, '')),
  );
  return fc.array(seg, { minLength: params.length, maxLength: params.length }).map((vals) => {
    let p = template;
    params.forEach((name, i) => (p = p.replace(name, vals[i] ?? '')));
    return p;
  });
}

function bodyFor(example: Json | undefined): fc.Arbitrary<string | undefined> {
  const mutated = example
    ? fc
        .tuple(fc.constantFrom(...Object.keys(example)), fc.anything({ maxDepth: 2 }), fc.boolean())
        .map(([k, v, drop]) => {
          const copy: Json = { ...example };
          if (drop) delete copy[k];
          else copy[k] = v;
          return JSON.stringify(copy) ?? 'null';
        })
    : fc.constant('{}');
  return fc.oneof(
    fc.constant(undefined),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null'),
    fc.string({ maxLength: 60 }),
    fc.constantFrom('{', '[]', 'null', '""', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}'),
    mutated,
  );
}

describe('property: malformed requests at every route', () => {
  it('never 5xx, refusals in the api-gaps body, no state change on refusal', async () => {
    const ex = examples();
    const ids = [
      f.a.incoming_transfers[0]?.transaction_id ?? 'x',
      f.b.incoming_transfers[0]?.transaction_id ?? 'x',
      f.a.rfi_ids[0] ?? 'x',
      f.b.rfi_ids[0] ?? 'x',
      'rfq_x',
      'doc_x',
    ];
    const tokens = [f.adminA, f.viewerA, f.adminB];
    const targets = Object.entries(routes).filter(([id]) => id !== 'staffBulkRfis');
    let requests = 0;
    for (const [id, def] of targets) {
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            method: fc.oneof(
              { weight: 4, arbitrary: fc.constant(def.method) },
              { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS') },
            ),
            path: pathFor(def.path, ids),
            auth: fc.oneof(
              fc.constant(undefined),
              fc.constantFrom(...tokens).map((t) => `Bearer ${t}`),
              headerSafe,
              headerSafe.map((s) => `Bearer ${s}`),
            ),
            contentType: fc.oneof(
              fc.constant('application/json'),
              fc.constant(undefined),
              fc.constantFrom(
                'text/plain',
                'application/pdf',
                'application/json; charset=latin1',
                'multipart/form-data',
              ),
              headerSafe,
            ),
            idem: fc.oneof(fc.constant(undefined), headerSafe, fc.constant('k'.repeat(300))),
            body: bodyFor(ex[id]),
          }),
          async (req) => {
            const before = await snapshot();
            const headers: Record<string, string> = {};
            if (req.auth !== undefined) headers.authorization = req.auth;
            if (req.contentType !== undefined) headers['content-type'] = req.contentType;
            if (req.idem !== undefined) headers['idempotency-key'] = req.idem;
            const hasBody = req.body !== undefined && req.method !== 'GET';
            let res: Response;
            try {
              res = await fetch(`${sb.url}${req.path}`, {
                method: req.method,
                headers,
                body: hasBody ? req.body : undefined,
              });
            } catch (e) {
              // the client refused to build the request (e.g. invalid URL); nothing reached the server
              expect(String(e)).toMatch(/TypeError|Invalid|fetch failed/i);
              return;
            }
            requests++;
            const text = await res.text();
            expect(res.status, `${req.method} ${req.path} → ${res.status} ${text}`).toBeLessThan(500);
            if (res.status >= 400) {
              {
                const parsed = ErrorBody.safeParse(JSON.parse(text));
                expect(parsed.success, text).toBe(true);
                expect(parsed.data?.error.code).toBe(String(res.status));
              }
              expect(await snapshot()).toBe(before);
            }
          },
        ),
        { numRuns: 20, seed: Number(process.env.FC_SEED ?? 4242) },
      );
    }
    expect(requests).toBeGreaterThan(targets.length * 15);
  }, 240_000);
});
