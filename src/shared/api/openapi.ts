/**
 * The OpenAPI 3.1 document, built from the route table and the zod schemas (JSON Schema draft
 * 2020-12, which OpenAPI 3.1 uses). `npm run openapi` writes it to docs/openapi.json.
 */
import { z } from 'zod';
import { ErrorBody, CANONICAL_STATUS } from './common';
import { routes, SANDBOX_CONTROL_HEADER, type RouteDef } from './routes';
import { WebhookEvent } from './webhooks';
import { UPLOAD_CONTENT_TYPES } from '../catalogue';

type JsonObject = Record<string, unknown>;

function schemaOf(s: z.ZodType, io: 'input' | 'output'): JsonObject {
  const js = z.toJSONSchema(s, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonObject;
  delete js.$schema;
  return js;
}

function toOpenApiPath(p: string): string {
  return p.replace(/:([A-Za-z]+)/g, '{$1}');
}

function objectParams(s: z.ZodType | undefined, where: 'path' | 'query'): JsonObject[] {
  if (!s) return [];
  const js = schemaOf(s, 'input');
  const props = (js.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set((js.required ?? []) as string[]);
  return Object.entries(props).map(([name, schema]) => {
    const { description, ...rest } = schema;
    return {
      name,
      in: where,
      required: where === 'path' ? true : required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: rest,
    };
  });
}

const ERROR_TEXT: Record<number, string> = {
  400: 'Schema violation; the message names the field',
  401: 'Missing or invalid bearer token',
  403: 'Viewer credential, account of another legal entity, or a bad signed URL',
  404: 'Not found (also during the read-after-create window)',
  409: 'Same Idempotency-Key still in flight',
  413: 'Upload larger than the limit',
  415: 'Content-Type is not application/json',
  422: 'Domain refusal; `reason` says which',
  429: 'Rate limited; see Retry-After',
};

function operation(id: string, def: RouteDef): JsonObject {
  const parameters: JsonObject[] = [...objectParams(def.params, 'path'), ...objectParams(def.query, 'query')];
  if (def.method === 'POST' && def.idempotency !== 'none') {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: def.idempotency === 'required',
      description: '1–255 visible ASCII characters; per credential; retained 24 h',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    });
  }
  const op: JsonObject = {
    operationId: id,
    summary: def.summary,
    tags: [def.tag],
    parameters,
    responses: {},
  };
  if (def.sandboxOnly) op['x-sandbox-only'] = true;
  if (def.auth === 'none' || def.auth === 'signed') op.security = [];
  else if (def.auth === 'control') op.security = [{ sandboxControl: [] }];
  else op['x-required-role'] = def.auth;
  if (def.body === 'binary') {
    op.requestBody = {
      required: true,
      content: Object.fromEntries(
        UPLOAD_CONTENT_TYPES.map((t) => [t, { schema: { type: 'string', format: 'binary' } }]),
      ),
    };
  } else if (def.body) {
    op.requestBody = {
      required: true,
      content: { 'application/json': { schema: schemaOf(def.body, 'input') } },
    };
  }
  const responses: JsonObject = {
    [String(def.successStatus)]: {
      description: 'OK',
      content:
        id === 'downloadDocument'
          ? Object.fromEntries(
              UPLOAD_CONTENT_TYPES.map((t) => [t, { schema: { type: 'string', format: 'binary' } }]),
            )
          : { 'application/json': { schema: schemaOf(def.response, 'output') } },
    },
  };
  const errs = new Set<number>(def.errors);
  if (def.body && def.body !== 'binary') errs.add(415);
  for (const code of [...errs].sort()) {
    responses[String(code)] = {
      description: `${CANONICAL_STATUS[code] ?? ''}: ${ERROR_TEXT[code] ?? ''}`,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
    };
  }
  op.responses = responses;
  return op;
}

export function buildOpenApi(): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const [id, def] of Object.entries(routes) as [string, RouteDef][]) {
    const p = toOpenApiPath(def.path);
    paths[p] ??= {};
    const entry = paths[p];
    if (entry) entry[def.method.toLowerCase()] = operation(id, def);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Treasury Desk bank interface (sandbox)',
      version: '1',
      description:
        'Returns of incoming SWIFT transfers, digital asset exchange quotes, RFIs with documents, webhook configuration, and the sandbox-only control endpoints (x-sandbox-only). Amounts are strings of integer minor units. Errors: {"error": {code, status, message, reason?}}. Generated from src/shared/api by `npm run openapi`.',
    },
    servers: [{ url: 'http://127.0.0.1:4010', description: 'Sandbox (npm run sandbox)' }],
    security: [{ bearer: [] }],
    tags: ['returns', 'crypto', 'transactions', 'rfis', 'documents', 'webhooks', 'sandbox'].map((name) => ({
      name,
    })),
    paths,
    webhooks: {
      rfiEvent: {
        post: {
          summary: 'RFI and question status events (at least once, unordered)',
          parameters: [
            {
              name: 'Service-Signature',
              in: 'header',
              required: true,
              description:
                't=<unix seconds>,v1=<base64 DER ECDSA P-256/SHA-256 signature over the raw body bytes followed by the decimal t>',
              schema: { type: 'string' },
            },
          ],
          requestBody: { content: { 'application/json': { schema: schemaOf(WebhookEvent, 'output') } } },
          responses: {
            '200': { description: 'Any 2xx acknowledges; anything else is retried with backoff' },
          },
        },
      },
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        sandboxControl: {
          type: 'apiKey',
          in: 'header',
          name: SANDBOX_CONTROL_HEADER,
          description:
            'The per-run secret of the sandbox control routes: handed in-process to the app that started it, printed by the CLI (--control-secret sets it).',
        },
      },
      schemas: { ErrorBody: schemaOf(ErrorBody, 'output') },
    },
  };
}
