/**
 * The team server's fastify app: every request but the health check carries an analyst's bearer
 * token (checked against the OpenID provider's keys), every body is validated with the shared
 * zod schemas, and every failure answers `{ error: { code, message } }` with a stable code.
 * It keeps no state of its own: any number of them can serve one database.
 */
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { AuthError, type Caller, type TokenVerifier } from './auth';
import { TeamError, type TeamContext } from './context';
import type { TeamDb } from './db';
import type { ChangeHub } from './hub';
import { registerActivityRoutes } from './routes/activity';
import { registerApprovalRoutes } from './routes/approvals';
import { registerAssignmentRoutes } from './routes/assignments';
import { registerChangeRoutes } from './routes/changes';
import { registerEvidenceRoutes } from './routes/evidence';
import { registerMemberRoutes } from './routes/members';
import { registerNotesAndPresence } from './routes/notes';
import { registerSendJobRoutes } from './routes/send-jobs';
import type { TeamConfig } from '../shared/team/config';

export interface TeamServerDeps {
  db: TeamDb;
  verifier: TokenVerifier;
  hub: ChangeHub;
  leaseSeconds: number;
  /** Seconds a presence beat keeps an analyst present. */
  presenceSeconds?: number;
  /** What `GET /v1/config` tells a workstation (issuer, client id, audience): public, no token. */
  publicConfig: TeamConfig;
  logger?: boolean;
  /** PEM key and certificate: the server speaks https itself (else put a TLS proxy in front). */
  https?: { key: string; cert: string };
}

const callers = new WeakMap<FastifyRequest, Caller>();

export function buildTeamServer(deps: TeamServerDeps): FastifyInstance {
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: 1024 * 1024,
    trustProxy: true,
    ...(deps.https ? { https: deps.https } : {}),
  }) as unknown as FastifyInstance;
  /** Analysts already recorded by this process (a cache: the upsert is idempotent). */
  const known = new Set<string>();

  app.addHook('onRequest', async (request) => {
    if (request.url === '/healthz' || request.url === '/v1/config') return;
    let caller: Caller;
    try {
      caller = await deps.verifier.verify(request.headers.authorization);
    } catch (err) {
      if (err instanceof AuthError) throw new TeamError(401, 'unauthenticated', err.message);
      throw err;
    }
    if (!known.has(caller.subject)) {
      await deps.db
        .insertInto('analysts')
        .values({ subject: caller.subject, name: caller.name })
        .onConflict((oc) =>
          oc.column('subject').doUpdateSet({ name: sql`coalesce(excluded.name, analysts.name)` }),
        )
        .execute();
      known.add(caller.subject);
    }
    callers.set(request, caller);
  });

  app.setErrorHandler((err, request, reply) => {
    if (err instanceof TeamError) {
      const error: Record<string, unknown> = { code: err.code, message: err.message };
      if (err.holder !== undefined) error['holder'] = err.holder;
      if (err.status === 401) void reply.header('www-authenticate', 'Bearer');
      return reply.status(err.status).send({ error });
    }
    const status = (err as { statusCode?: number }).statusCode;
    if (status === 413)
      return reply.status(413).send({ error: { code: 'too_large', message: (err as Error).message } });
    if (typeof status === 'number' && status >= 400 && status < 500)
      return reply.status(status).send({ error: { code: 'bad_request', message: (err as Error).message } });
    request.log.error(err);
    return reply
      .status(500)
      .send({ error: { code: 'internal', message: 'the team server failed; try again' } });
  });

  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send({
      error: { code: 'not_found', message: `no route ${request.method} ${request.url.split('?')[0]}` },
    }),
  );

  const ctx: TeamContext = {
    db: deps.db,
    leaseSeconds: deps.leaseSeconds,
    presenceSeconds: deps.presenceSeconds ?? 30,
    caller(request) {
      const c = callers.get(request);
      if (!c) throw new TeamError(401, 'unauthenticated', 'a bearer token is required');
      return c;
    },
  };

  app.get('/healthz', async () => {
    await sql`SELECT 1`.execute(deps.db);
    return { ok: true };
  });
  app.get('/v1/config', async () => deps.publicConfig);
  registerMemberRoutes(app, ctx);
  registerAssignmentRoutes(app, ctx);
  registerApprovalRoutes(app, ctx);
  registerSendJobRoutes(app, ctx);
  registerActivityRoutes(app, ctx);
  registerEvidenceRoutes(app, ctx);
  registerNotesAndPresence(app, ctx);
  registerChangeRoutes(app, ctx, deps.hub);
  return app;
}
