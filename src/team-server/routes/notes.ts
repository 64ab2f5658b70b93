/**
 * Internal notes and presence on RFIs, returns and exchange orders. A note is the team's own
 * (never sent to the bank): append-only, its author the caller and its time the server's; the
 * workstation names it (a UUID), so a note queued offline and sent twice lands once. Notes enter
 * the change feed. Presence is a heartbeat with a short expiry (presence.ts), pushed on the event
 * stream and readable per object or per entity.
 */
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import {
  AddNoteBody,
  HeartbeatBody,
  LeaveBody,
  NotesQuery,
  PresenceQuery,
  type Note,
  type ObjectPresence,
  type TeamObjectRef,
} from '../../shared/team/notes';
import {
  ANY_ROLE,
  parse,
  recordChange,
  requireRole,
  sqlState,
  TeamError,
  type TeamContext,
  EntityParams,
} from '../context';
import type { TeamDb } from '../db';
import { beat, readPresence } from '../presence';
import { appendActivityIn } from './activity';

const WRITERS = ['maker', 'checker', 'admin'] as const;

function notes(db: TeamDb) {
  return db
    .selectFrom('internal_notes as n')
    .innerJoin('analysts as a', 'a.subject', 'n.author')
    .select([
      'n.id',
      'n.legal_entity_id',
      'n.object_kind',
      'n.object_id',
      'n.author',
      'a.name',
      'n.at',
      'n.text',
    ]);
}
type NoteRow = Awaited<ReturnType<ReturnType<typeof notes>['executeTakeFirstOrThrow']>>;

function noteToWire(r: NoteRow): Note {
  return {
    id: r.id,
    legalEntityId: r.legal_entity_id,
    object: { kind: r.object_kind as Note['object']['kind'], id: r.object_id },
    author: r.author,
    authorName: r.name,
    at: r.at.toISOString(),
    text: r.text,
  };
}

function registerNoteRoutes(app: FastifyInstance, ctx: TeamContext): void {
  app.post('/v1/entities/:entityId/notes', async (request, reply) => {
    const caller = ctx.caller(request);
    const { entityId } = parse(EntityParams, request.params, 'path');
    const body = parse(AddNoteBody, request.body, 'body');
    await requireRole(ctx.db, caller, entityId, WRITERS);
    const same = (n: Note) =>
      n.legalEntityId === entityId &&
      n.author === caller.subject &&
      n.object.kind === body.object.kind &&
      n.object.id === body.object.id &&
      n.text === body.text;
    const existing = async (): Promise<Note | null> => {
      const row = await notes(ctx.db).where('n.id', '=', body.id).executeTakeFirst();
      if (!row) return null;
      const note = noteToWire(row);
      if (!same(note)) throw new TeamError(409, 'conflict', `the note id ${body.id} names another note`);
      return note;
    };
    const before = await existing();
    if (before) return before;
    try {
      const note = await ctx.db.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto('internal_notes')
          .values({
            id: body.id,
            legal_entity_id: entityId,
            object_kind: body.object.kind,
            object_id: body.object.id,
            author: caller.subject,
            at: sql`now()`,
            text: body.text,
          })
          .returning('at')
          .executeTakeFirstOrThrow();
        const name = await trx
          .selectFrom('analysts')
          .select('name')
          .where('subject', '=', caller.subject)
          .executeTakeFirst();
        const added: Note = {
          id: body.id,
          legalEntityId: entityId,
          object: body.object,
          author: caller.subject,
          authorName: name?.name ?? null,
          at: row.at.toISOString(),
          text: body.text,
        };
        await recordChange(trx, {
          legalEntityId: entityId,
          topic: 'note',
          objectId: body.object.id,
          data: added,
        });
        // The log says that a note was written and by whom; its words stay in the note.
        await appendActivityIn(trx, {
          actor: caller.subject,
          legalEntityId: entityId,
          action: 'note.added',
          object: body.object,
          detail: { note: body.id },
        });
        return added;
      });
      void reply.status(201);
      return note;
    } catch (err) {
      if (sqlState(err) !== '23505') throw err;
      const raced = await existing();
      if (raced) return raced;
      throw err;
    }
  });

  /** One object's notes, oldest first. */
  app.get('/v1/entities/:entityId/notes', async (request) => {
    const { entityId } = parse(EntityParams, request.params, 'path');
    const { kind, objectId } = parse(NotesQuery, request.query, 'query');
    await requireRole(ctx.db, ctx.caller(request), entityId, ANY_ROLE);
    const rows = await notes(ctx.db)
      .where('n.legal_entity_id', '=', entityId)
      .where('n.object_kind', '=', kind)
      .where('n.object_id', '=', objectId)
      .orderBy('n.at')
      .orderBy('n.id')
      .execute();
    return { notes: rows.map(noteToWire) };
  });
}

function registerPresenceRoutes(app: FastifyInstance, ctx: TeamContext): void {
  /** A beat: the caller is at the object (viewing or editing) for the next presence time. */
  app.put('/v1/entities/:entityId/presence', async (request): Promise<ObjectPresence> => {
    const caller = ctx.caller(request);
    const { entityId } = parse(EntityParams, request.params, 'path');
    const { object, activity } = parse(HeartbeatBody, request.body, 'body');
    await requireRole(ctx.db, caller, entityId, ANY_ROLE);
    await beat(ctx.db, {
      legalEntityId: entityId,
      object,
      subject: caller.subject,
      activity,
      seconds: ctx.presenceSeconds,
    });
    return readPresence(ctx.db, entityId, object);
  });

  app.post('/v1/entities/:entityId/presence/leave', async (request): Promise<ObjectPresence> => {
    const caller = ctx.caller(request);
    const { entityId } = parse(EntityParams, request.params, 'path');
    const { object } = parse(LeaveBody, request.body, 'body');
    await requireRole(ctx.db, caller, entityId, ANY_ROLE);
    await beat(ctx.db, {
      legalEntityId: entityId,
      object,
      subject: caller.subject,
      activity: null,
      seconds: 0,
    });
    return readPresence(ctx.db, entityId, object);
  });

  /** Who is at one object (`kind` and `objectId`), or at every object of the entity. */
  app.get('/v1/entities/:entityId/presence', async (request) => {
    const { entityId } = parse(EntityParams, request.params, 'path');
    const query = parse(PresenceQuery, request.query, 'query');
    await requireRole(ctx.db, ctx.caller(request), entityId, ANY_ROLE);
    if (query.kind && query.objectId)
      return { objects: [await readPresence(ctx.db, entityId, { kind: query.kind, id: query.objectId })] };
    if (query.kind || query.objectId)
      throw new TeamError(400, 'bad_request', 'name both kind and objectId, or neither');
    const at = await ctx.db
      .selectFrom('presence')
      .select(['object_kind', 'object_id'])
      .distinct()
      .where('legal_entity_id', '=', entityId)
      .where('expires_at', '>', sql<Date>`now()`)
      .orderBy('object_kind')
      .orderBy('object_id')
      .limit(500)
      .execute();
    return {
      objects: await Promise.all(
        at.map((o) =>
          readPresence(ctx.db, entityId, { kind: o.object_kind as TeamObjectRef['kind'], id: o.object_id }),
        ),
      ),
    };
  });
}

export function registerNotesAndPresence(app: FastifyInstance, ctx: TeamContext): void {
  registerNoteRoutes(app, ctx);
  registerPresenceRoutes(app, ctx);
}
