/**
 * The change feed: every team change has a number, in commit order. A workstation that was away
 * asks for the changes after the last number it saw (`GET /v1/changes?since=`); one that is
 * online keeps a server-sent event stream open (`GET /v1/changes/stream`, resumable with
 * `Last-Event-ID`), fed through PostgreSQL LISTEN/NOTIFY. Each shows only the legal entities
 * where the analyst holds a role (as of when the stream opened). The stream also carries
 * `presence` events (who is at an object now), without an id: they are not replayed.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SinceQuery, type Change } from '../../shared/team/schemas';
import { entitiesOf, parse, type TeamContext } from '../context';
import { readChanges, type ChangeHub, type Subscriber } from '../hub';

const StreamQuery = z.strictObject({ since: z.coerce.number().int().nonnegative().optional() });
const HEARTBEAT_MS = 15_000;

export function registerChangeRoutes(app: FastifyInstance, ctx: TeamContext, hub: ChangeHub): void {
  app.get('/v1/changes', async (request) => {
    const caller = ctx.caller(request);
    const { since, limit } = parse(SinceQuery, request.query, 'query');
    const changes = await readChanges(ctx.db, await entitiesOf(ctx.db, caller.subject), since, limit);
    return { changes, last: changes.at(-1)?.seq ?? since };
  });

  app.get('/v1/changes/stream', async (request, reply) => {
    const caller = ctx.caller(request);
    const query = parse(StreamQuery, request.query, 'query');
    const lastEventId = request.headers['last-event-id'];
    const resume =
      typeof lastEventId === 'string' && /^[0-9]{1,15}$/.test(lastEventId) ? Number(lastEventId) : undefined;
    const entities = new Set(await entitiesOf(ctx.db, caller.subject));
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write(': team change feed\n\n');
    const subscriber: Subscriber = {
      entities,
      last: resume ?? query.since ?? 0,
      send(changes: Change[]) {
        for (const c of changes) res.write(`id: ${c.seq}\nevent: change\ndata: ${JSON.stringify(c)}\n\n`);
      },
      // No id: presence is not part of the numbered feed, so it leaves Last-Event-ID alone.
      presence(p) {
        res.write(`event: presence\ndata: ${JSON.stringify(p)}\n\n`);
      },
    };
    const unsubscribe = hub.subscribe(subscriber);
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
    const end = () => {
      clearInterval(heartbeat);
      unsubscribe();
    };
    request.raw.on('close', end);
    res.on('error', end);
  });
}
