import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index';
import { buildOpenApi, routes } from '../../src/shared/api';
import { client, fx, start } from './helpers';

type Doc = {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        parameters: { name: string; in: string }[];
        responses: Record<string, { content?: Record<string, { schema: object }> }>;
      }
    >
  >;
};

const doc = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as Doc;

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await start();
});
afterAll(async () => {
  await sb.close();
});

function op(id: string) {
  for (const methods of Object.values(doc.paths))
    for (const o of Object.values(methods)) if (o.operationId === id) return o;
  throw new Error(`no operation ${id}`);
}

describe('OpenAPI 3.1 export', () => {
  it('docs/openapi.json is up to date with the schemas (npm run openapi)', () => {
    expect(doc).toEqual(JSON.parse(JSON.stringify(buildOpenApi())));
    expect(doc.openapi).toBe('3.1.0');
  });

  it('has every route of the table with its path parameters and Idempotency-Key where required', () => {
    for (const [id, def] of Object.entries(routes)) {
      const o = op(id);
      const names = o.parameters.map((p) => p.name);
      for (const m of def.path.matchAll(/:([A-Za-z]+)/g)) expect(names, id).toContain(m[1]);
      if (def.idempotency === 'required') expect(names, id).toContain('Idempotency-Key');
    }
  });

  it('live sandbox responses validate against the exported JSON Schemas', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const c = client(sb);
    const f = fx(sb);
    const check = async (id: string, path: string, token?: string) => {
      const schema = op(id).responses['200']?.content?.['application/json']?.schema;
      if (!schema) throw new Error(`no schema for ${id}`);
      const validate = ajv.compile(schema);
      const r = await c('GET', path, { token });
      expect(r.status).toBe(200);
      const ok = validate(r.body);
      expect(ok, `${id}: ${JSON.stringify(validate.errors)}`).toBe(true);
    };
    await check('getTransaction', `/v1/transactions/${f.a.incoming_transfers[0]?.transaction_id}`, f.adminA);
    await check('listRfis', '/v1/rfis', f.adminA);
    await check('getRfi', `/v1/rfis/${f.a.rfi_ids[1]}`, f.adminA);
    await check('getWebhookUrl', '/v1/webhook/url', f.viewerA);
    await check('getFixtures', '/v1/sandbox/fixtures');
    await check('listSandboxTransactions', '/v1/sandbox/transactions');
  });
});
