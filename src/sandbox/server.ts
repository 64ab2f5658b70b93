/**
 * The fastify server: registers every route of the shared route table, authenticates, validates
 * with the shared zod schemas, applies Idempotency-Key rules and answers errors in the error
 * body of docs/api-decisions.md. Every response carries a Date header in sandbox time.
 */
import { createServer } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { z } from 'zod';
import {
  IDEMPOTENCY_KEY_RE,
  routes,
  SANDBOX_CONTROL_HEADER,
  type RouteDef,
  type RouteId,
  type RouteInput,
} from '../shared/api/routes';
import type { Bank } from './bank';
import type { Clock } from './clock';
import { ApiError, errorBody } from './errors';
import { controlSecretMatches, hostAllowed } from './guard';
import { canonicalJson, IdempotencyStore } from './idempotency';
import type { Credential } from './model';
import type { SandboxOptions } from './options';
import type { WebhookSender } from './webhooks';

/** A handler answer already serialized as JSON. */
export class RawJson {
  constructor(readonly json: string) {}
}

export interface HandlerCtx<R extends RouteDef> {
  cred: Credential;
  input: RouteInput<R>;
  idempotencyKey: string | null;
  request: FastifyRequest;
  reply: FastifyReply;
}

export type Handler<R extends RouteDef> = (ctx: HandlerCtx<R>) => unknown;
export type HandlerMap = { [K in RouteId]?: Handler<(typeof routes)[K]> };

export interface ServerDeps {
  bank: Bank;
  clock: Clock;
  options: SandboxOptions;
  webhooks: WebhookSender;
  handlers: HandlerMap;
  /** Registers routes outside the JSON pipeline (signed-URL uploads). */
  registerRaw?: (app: FastifyInstance) => void;
  /** The secret of the routes with auth `control`. */
  controlSecret: string;
  /** The accepted Host header values (known once the server listens). */
  allowedHosts(): ReadonlySet<string>;
}

type Issue = { path: PropertyKey[]; message: string; code: string; keys?: string[]; input?: unknown };

/** `field: message` for the first issue, e.g. `return_amount: must be a positive integer string…`. */
export function describeIssues(issues: readonly Issue[], location: string): string {
  const parts = issues.slice(0, 3).map((i) => {
    if (i.code === 'unrecognized_keys' && i.keys) {
      const base = i.path.map(String).join('.');
      return i.keys.map((k) => `${base ? `${base}.` : ''}${k}: unknown field`).join('; ');
    }
    const p = i.path.map(String).join('.');
    return `${p || location}: ${i.message}`;
  });
  return parts.join('; ');
}

const errorMap = (iss: { code: string; input?: unknown; expected?: string }): string | undefined => {
  if (iss.code === 'invalid_type' && iss.input === undefined) return 'required';
  if (iss.code === 'invalid_type' && iss.expected)
    return `must be ${iss.expected === 'object' ? 'an object' : `a ${iss.expected}`}`;
  return undefined;
};

function parseWith<S extends z.ZodType>(schema: S, data: unknown, location: string): z.infer<S> {
  const r = schema.safeParse(data, { error: errorMap as never });
  if (!r.success) throw new ApiError(400, describeIssues(r.error.issues as Issue[], location));
  return r.data;
}

class RateLimiter {
  private buckets = new Map<string, { tokens: number; at: number }>();
  constructor(
    private readonly rps: number,
    private readonly burst: number,
  ) {}

  /** Milliseconds to wait, or 0 when the request may pass. */
  take(key: string): number {
    const now = Date.now();
    const b = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.rps);
    b.at = now;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - b.tokens) / this.rps) * 1000);
  }
}

export function sendError(reply: FastifyReply, err: ApiError): FastifyReply {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply.code(err.statusCode).type('application/json').send(JSON.stringify(err.body()));
}

/** Any thrown value → the error body of docs/api-decisions.md (fastify's own errors included); unknown → 500. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const e = err as { statusCode?: number; code?: string; message?: string };
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'Content-Type: must be application/json');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError(400, 'body: invalid JSON');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError(400, 'body: empty JSON body');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'body: too large');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError(400, 'Content-Length: does not match the body');
  }
  if (err instanceof SyntaxError) return new ApiError(400, 'body: invalid JSON');
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new ApiError(e.statusCode, `request: ${e.message ?? 'bad request'}`);
  }
  console.error('[sandbox] internal error', err);
  return new ApiError(500, 'internal error');
}

export function buildServer(deps: ServerDeps): FastifyInstance {
  const { bank, clock, options } = deps;
  const app = Fastify({
    // The Host header is checked before fastify routes anything (DNS rebinding).
    serverFactory: (handler) =>
      createServer((req, res) => {
        if (hostAllowed(req.headers.host, deps.allowedHosts())) {
          handler(req, res);
          return;
        }
        req.resume();
        const text = JSON.stringify(
          errorBody(
            421,
            'Host: this sandbox answers only to its loopback address (127.0.0.1, localhost or [::1] with its port)',
            'HOST_NOT_ALLOWED',
          ),
        );
        res.writeHead(421, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
          date: new Date(clock.now()).toUTCString(),
          connection: 'close',
        });
        res.end(text);
      }),
    logger: options.logRequests ? { level: 'info' } : false,
    bodyLimit: 1024 * 1024,
    routerOptions: { maxParamLength: 200 },
    forceCloseConnections: true,
    frameworkErrors: (err, _req, reply) => {
      void sendError(reply, new ApiError(400, `request: ${err.message}`));
    },
  });
  const idem = new IdempotencyStore(clock, options.idempotencyRetentionSeconds * 1000);
  const limiter = options.rateLimit
    ? new RateLimiter(options.rateLimit.requestsPerSecond, options.rateLimit.burst)
    : null;

  app.removeContentTypeParser('text/plain');

  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('date', new Date(clock.now()).toUTCString());
    return payload;
  });

  if (limiter) {
    app.addHook('onRequest', async (req, reply) => {
      const auth = req.headers.authorization;
      const key = typeof auth === 'string' && auth.length < 400 ? auth : `ip:${req.ip}`;
      const wait = limiter.take(key);
      if (wait > 0) {
        const secs = Math.max(1, Math.ceil(wait / 1000));
        await sendError(
          reply,
          new ApiError(429, `rate limit exceeded; retry after ${secs} s`, 'RATE_LIMITED', {
            'retry-after': String(secs),
          }),
        );
      }
    });
  }

  app.setNotFoundHandler((req, reply) => {
    void sendError(reply, new ApiError(404, `no route ${req.method} ${req.url.split('?')[0] ?? ''}`));
  });

  app.setErrorHandler((err: unknown, _req, reply) => sendError(reply, toApiError(err)));

  const authenticate = (req: FastifyRequest, def: RouteDef): Credential | null => {
    if (def.auth === 'none' || def.auth === 'signed') return null;
    if (def.auth === 'control') {
      const given = req.headers[SANDBOX_CONTROL_HEADER.toLowerCase()];
      if (!controlSecretMatches(given, deps.controlSecret)) {
        throw new ApiError(
          403,
          `${SANDBOX_CONTROL_HEADER}: sandbox control routes need the secret given to whoever started the sandbox`,
          'SANDBOX_CONTROL_SECRET',
        );
      }
      return null;
    }
    const h = req.headers.authorization;
    if (typeof h !== 'string' || h === '') throw new ApiError(401, 'Authorization: missing bearer token');
    const m = /^Bearer ([\x21-\x7e]+)$/i.exec(h);
    const cred = m?.[1] ? bank.state.credentials.get(m[1]) : undefined;
    if (!cred) throw new ApiError(401, 'Authorization: invalid or expired token');
    if (def.auth === 'admin' && cred.role !== 'admin') {
      throw new ApiError(403, `this operation needs an admin credential; yours is ${cred.role}`);
    }
    return cred;
  };

  const sandboxCred: Credential = {
    token: '',
    name: 'sandbox staff',
    legalEntityId: '',
    role: 'admin',
    user: { id: 'staff', first_name: 'Sandbox', last_name: 'Staff' },
    webhookUrl: '',
    createdAt: 0,
    updatedAt: 0,
  };

  for (const id of Object.keys(routes) as RouteId[]) {
    const def: RouteDef = routes[id];
    if (def.auth === 'signed') continue;
    const handler = deps.handlers[id] as Handler<RouteDef> | undefined;
    if (!handler) continue;
    app.route({
      method: def.method,
      url: def.path,
      handler: async (req, reply) => {
        const cred = authenticate(req, def) ?? sandboxCred;
        let idempotencyKey: string | null = null;
        if (def.method === 'POST' && def.idempotency !== 'none') {
          const raw = req.headers['idempotency-key'];
          if (Array.isArray(raw)) throw new ApiError(400, 'Idempotency-Key: send the header once');
          if (raw === undefined) {
            if (def.idempotency === 'required') throw new ApiError(400, 'Idempotency-Key: required header');
          } else if (!IDEMPOTENCY_KEY_RE.test(raw)) {
            throw new ApiError(400, 'Idempotency-Key: must be 1 to 255 visible ASCII characters');
          } else idempotencyKey = raw;
        }
        const input = {
          params: def.params ? parseWith(def.params, req.params, 'path') : {},
          query: def.query ? parseWith(def.query, req.query ?? {}, 'query') : {},
          body:
            def.body && def.body !== 'binary'
              ? parseWith(def.body, req.body === undefined ? undefined : req.body, 'body')
              : undefined,
        } as RouteInput<RouteDef>;

        let idemKey: string | null = null;
        if (idempotencyKey !== null) {
          const start = idem.begin(
            `${cred.token}`,
            idempotencyKey,
            `${id}\u0000${canonicalJson(req.params)}\u0000${canonicalJson(req.body ?? null)}`,
          );
          if (start.kind === 'replay') {
            reply.header('idempotent-replayed', 'true');
            return reply.code(start.status).type('application/json').send(start.body);
          }
          idemKey = start.mapKey;
        }
        try {
          if (def.idempotency === 'required' && options.writeDelayMs > 0) {
            await new Promise((r) => setTimeout(r, options.writeDelayMs));
          }
          const result = await handler({ cred, input, idempotencyKey, request: req, reply });
          const json = result instanceof RawJson ? result.json : JSON.stringify(result);
          if (options.validateResponses) {
            const r = def.response.safeParse(JSON.parse(json));
            if (!r.success) {
              throw new ApiError(
                500,
                `sandbox bug: response of ${id} does not match its schema: ${r.error.message}`,
              );
            }
          }
          if (idemKey !== null) idem.complete(idemKey, def.successStatus, json);
          return reply.code(def.successStatus).type('application/json').send(json);
        } catch (err) {
          if (idemKey !== null) idem.abort(idemKey);
          throw err;
        }
      },
    });
  }

  deps.registerRaw?.(app);
  return app;
}
