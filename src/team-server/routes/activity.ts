/**
 * The team activity log: append-only (the database refuses UPDATE, DELETE and TRUNCATE), numbered
 * by the server, each entry chained to the previous entry of its legal entity. Appends take the
 * feed lock first, so the entry read as "previous" is still the last one when this one lands.
 */
import type { FastifyInstance } from 'fastify';
import { sql, type Selectable, type Transaction } from 'kysely';
import { AppendActivityBody, SinceQuery, type ActivityEntry } from '../../shared/team/schemas';
import { entryHash, GENESIS_HASH } from '../activity-chain';
import {
  ANY_ROLE,
  parse,
  recordChange,
  requireRole,
  TeamError,
  type TeamContext,
  EntityParams,
} from '../context';
import type { TeamDb } from '../db';
import { FEED_LOCK } from '../db/migrations/0001-team-schema';
import type { ActivityLogTable, TeamDatabase } from '../db/schema';

export function activityToWire(r: Selectable<ActivityLogTable>): ActivityEntry {
  return {
    seq: r.seq,
    at: r.at.toISOString(),
    actor: r.actor,
    legalEntityId: r.legal_entity_id,
    action: r.action,
    object:
      r.object_kind && r.object_id
        ? { kind: r.object_kind as NonNullable<ActivityEntry['object']>['kind'], id: r.object_id }
        : null,
    detail: r.detail,
    prevHash: r.prev_hash,
    hash: r.hash,
  };
}

export interface NewActivity {
  actor: string;
  legalEntityId: string;
  action: string;
  object: ActivityEntry['object'];
  detail: Record<string, string>;
  /** The workstation's name for the append, if it gave one (see the request_id column). */
  requestId?: string;
}

/** Appends one entry (its own transaction): numbered, linked and hashed under the feed lock. */
export async function appendActivity(db: TeamDb, entry: NewActivity): Promise<ActivityEntry> {
  return db.transaction().execute((trx) => appendActivityIn(trx, entry));
}

/**
 * Appends one entry inside the caller's transaction (so the entry lands with the change it
 * records, or not at all), with its change in the feed. Takes the feed lock: call it last.
 */
export async function appendActivityIn(
  trx: Transaction<TeamDatabase>,
  entry: NewActivity,
): Promise<ActivityEntry> {
  await sql`SELECT pg_advisory_xact_lock(${FEED_LOCK})`.execute(trx);
  const lastSeq = await trx
    .selectFrom('activity_log')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .executeTakeFirst();
  const lastOfEntity = await trx
    .selectFrom('activity_log')
    .select('hash')
    .where('legal_entity_id', '=', entry.legalEntityId)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  const unhashed: Omit<ActivityEntry, 'hash'> = {
    seq: Number(lastSeq?.seq ?? 0) + 1,
    at: new Date().toISOString(),
    actor: entry.actor,
    legalEntityId: entry.legalEntityId,
    action: entry.action,
    object: entry.object,
    detail: entry.detail,
    prevHash: lastOfEntity?.hash ?? GENESIS_HASH,
  };
  const full: ActivityEntry = { ...unhashed, hash: entryHash(unhashed) };
  await trx
    .insertInto('activity_log')
    .values({
      seq: full.seq,
      at: full.at,
      actor: full.actor,
      legal_entity_id: full.legalEntityId,
      action: full.action,
      object_kind: full.object?.kind ?? null,
      object_id: full.object?.id ?? null,
      detail: JSON.stringify(full.detail),
      prev_hash: full.prevHash,
      hash: full.hash,
      request_id: entry.requestId ?? null,
    })
    .execute();
  await recordChange(trx, {
    legalEntityId: full.legalEntityId,
    topic: 'activity',
    objectId: String(full.seq),
    data: full,
  });
  return full;
}

export function registerActivityRoutes(app: FastifyInstance, ctx: TeamContext): void {
  app.post('/v1/activity', async (request, reply) => {
    const caller = ctx.caller(request);
    const body = parse(AppendActivityBody, request.body, 'body');
    await requireRole(ctx.db, caller, body.legalEntityId, ['maker', 'checker', 'admin']);
    const entry: NewActivity = {
      actor: caller.subject,
      legalEntityId: body.legalEntityId,
      action: body.action,
      object: body.object ?? null,
      detail: body.detail,
      requestId: body.id,
    };
    const { stored, created } = await ctx.db.transaction().execute(async (trx) => {
      // Under the feed lock, so a retry racing its first attempt finds it or comes after it.
      await sql`SELECT pg_advisory_xact_lock(${FEED_LOCK})`.execute(trx);
      const seen = body.id
        ? await trx
            .selectFrom('activity_log')
            .selectAll()
            .where('request_id', '=', body.id)
            .executeTakeFirst()
        : undefined;
      if (seen) return { stored: activityToWire(seen), created: false };
      return { stored: await appendActivityIn(trx, entry), created: true };
    });
    if (!created && (stored.actor !== entry.actor || stored.action !== entry.action))
      throw new TeamError(409, 'conflict', `the request id ${body.id ?? ''} names another entry`);
    void reply.status(created ? 201 : 200);
    return stored;
  });

  /** One entity's entries after `since`, oldest first; `next` is the `since` of the next page. */
  app.get('/v1/entities/:entityId/activity', async (request) => {
    const { entityId } = parse(EntityParams, request.params, 'path');
    const { since, limit } = parse(SinceQuery, request.query, 'query');
    await requireRole(ctx.db, ctx.caller(request), entityId, ANY_ROLE);
    const rows = await ctx.db
      .selectFrom('activity_log')
      .selectAll()
      .where('legal_entity_id', '=', entityId)
      .where('seq', '>', since)
      .orderBy('seq')
      .limit(limit)
      .execute();
    const entries = rows.map(activityToWire);
    return { entries, next: entries.length === limit ? (entries.at(-1)?.seq ?? null) : null };
  });
}
