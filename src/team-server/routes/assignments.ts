/**
 * RFI assignment. A claim is one conditional upsert: it takes the RFI only if nobody holds it
 * (or the caller already does), so of two concurrent claims PostgreSQL lets exactly one through;
 * the other is told who holds it. Release and reassign name the holder they expect, so a
 * decision made on a stale view changes nothing.
 */
import type { FastifyInstance } from 'fastify';
import { sql, type Selectable, type Transaction } from 'kysely';
import { z } from 'zod';
import { bankId } from '../../shared/api/common';
import { ReassignBody, type Assignment } from '../../shared/team/schemas';
import {
  ANY_ROLE,
  parse,
  recordRow,
  requireRole,
  rolesIn,
  TeamError,
  type TeamContext,
  EntityParams,
} from '../context';
import type { RfiAssignmentsTable, TeamDatabase } from '../db/schema';
import { appendActivityIn } from './activity';

const RfiParams = z.strictObject({ entityId: bankId, rfiId: bankId });

/** A change of holder goes into the team activity log in its own transaction (or not at all). */
async function logged(
  trx: Transaction<TeamDatabase>,
  row: Selectable<RfiAssignmentsTable> | undefined,
  actor: string,
  action: 'rfi.claimed' | 'rfi.released' | 'rfi.reassigned',
  detail: Record<string, string> = {},
): Promise<Selectable<RfiAssignmentsTable> | undefined> {
  if (row)
    await appendActivityIn(trx, {
      actor,
      legalEntityId: row.legal_entity_id,
      action,
      object: { kind: 'rfi', id: row.rfi_id },
      detail,
    });
  return row;
}

function toWire(r: Selectable<RfiAssignmentsTable>): Assignment {
  return {
    legalEntityId: r.legal_entity_id,
    rfiId: r.rfi_id,
    holder: r.holder,
    version: r.version,
    updatedAt: r.updated_at.toISOString(),
  };
}

async function currentHolder(ctx: TeamContext, entityId: string, rfiId: string): Promise<string | null> {
  const row = await ctx.db
    .selectFrom('rfi_assignments')
    .select('holder')
    .where('legal_entity_id', '=', entityId)
    .where('rfi_id', '=', rfiId)
    .executeTakeFirst();
  return row?.holder ?? null;
}

export function registerAssignmentRoutes(app: FastifyInstance, ctx: TeamContext): void {
  app.get('/v1/entities/:entityId/assignments', async (request) => {
    const { entityId } = parse(EntityParams, request.params, 'path');
    await requireRole(ctx.db, ctx.caller(request), entityId, ANY_ROLE);
    const rows = await ctx.db
      .selectFrom('rfi_assignments')
      .selectAll()
      .where('legal_entity_id', '=', entityId)
      .orderBy('rfi_id')
      .execute();
    return { assignments: rows.map(toWire) };
  });

  app.post('/v1/entities/:entityId/rfis/:rfiId/claim', async (request) => {
    const caller = ctx.caller(request);
    const { entityId, rfiId } = parse(RfiParams, request.params, 'path');
    await requireRole(ctx.db, caller, entityId, ['maker']);
    const row = await ctx.db.transaction().execute(async (trx) => {
      const claimed = await trx
        .insertInto('rfi_assignments')
        .values({ legal_entity_id: entityId, rfi_id: rfiId, holder: caller.subject, updated_at: new Date() })
        .onConflict((oc) =>
          oc
            .columns(['legal_entity_id', 'rfi_id'])
            .doUpdateSet({
              holder: (eb) => eb.ref('excluded.holder'),
              version: sql`rfi_assignments.version + 1`,
              updated_at: sql`now()`,
            })
            .where(sql<boolean>`rfi_assignments.holder IS NULL`),
        )
        .returningAll()
        .executeTakeFirst();
      await recordRow(trx, 'assignment', claimed, (r) => r.rfi_id, toWire);
      return logged(trx, claimed, caller.subject, 'rfi.claimed');
    });
    if (row) return toWire(row);
    const holder = await currentHolder(ctx, entityId, rfiId);
    if (holder === caller.subject) {
      const mine = await ctx.db
        .selectFrom('rfi_assignments')
        .selectAll()
        .where('legal_entity_id', '=', entityId)
        .where('rfi_id', '=', rfiId)
        .executeTakeFirstOrThrow();
      return toWire(mine);
    }
    throw new TeamError(409, 'held_by_other', `the RFI is held by ${holder ?? 'someone else'}`, holder);
  });

  app.post('/v1/entities/:entityId/rfis/:rfiId/release', async (request) => {
    const caller = ctx.caller(request);
    const { entityId, rfiId } = parse(RfiParams, request.params, 'path');
    const roles = await requireRole(ctx.db, caller, entityId, ['maker', 'admin']);
    const row = await ctx.db.transaction().execute(async (trx) => {
      let q = trx
        .updateTable('rfi_assignments')
        .set({ holder: null, version: sql`version + 1`, updated_at: sql`now()` })
        .where('legal_entity_id', '=', entityId)
        .where('rfi_id', '=', rfiId)
        .where('holder', 'is not', null);
      if (!roles.has('admin')) q = q.where('holder', '=', caller.subject);
      const released = await q.returningAll().executeTakeFirst();
      await recordRow(trx, 'assignment', released, (r) => r.rfi_id, toWire);
      return logged(trx, released, caller.subject, 'rfi.released');
    });
    if (row) return toWire(row);
    const holder = await currentHolder(ctx, entityId, rfiId);
    if (holder === null)
      return {
        legalEntityId: entityId,
        rfiId,
        holder: null,
        version: 0,
        updatedAt: new Date().toISOString(),
      };
    throw new TeamError(409, 'held_by_other', `the RFI is held by ${holder}`, holder);
  });

  /** Hands an RFI from `from` (null: unassigned) to `to`, a maker; by an admin, or by its holder. */
  app.post('/v1/entities/:entityId/rfis/:rfiId/reassign', async (request) => {
    const caller = ctx.caller(request);
    const { entityId, rfiId } = parse(RfiParams, request.params, 'path');
    const body = parse(ReassignBody, request.body, 'body');
    const roles = await requireRole(ctx.db, caller, entityId, ['maker', 'admin']);
    if (!roles.has('admin') && body.from !== caller.subject)
      throw new TeamError(403, 'forbidden', 'only an admin or the holder reassigns an RFI');
    if (!(await rolesIn(ctx.db, body.to, entityId)).has('maker'))
      throw new TeamError(409, 'conflict', `${body.to} is not a maker of ${entityId}`);
    const row = await ctx.db.transaction().execute(async (trx) => {
      const moved =
        body.from === null
          ? await trx
              .insertInto('rfi_assignments')
              .values({ legal_entity_id: entityId, rfi_id: rfiId, holder: body.to, updated_at: new Date() })
              .onConflict((oc) =>
                oc
                  .columns(['legal_entity_id', 'rfi_id'])
                  .doUpdateSet({
                    holder: body.to,
                    version: sql`rfi_assignments.version + 1`,
                    updated_at: sql`now()`,
                  })
                  .where(sql<boolean>`rfi_assignments.holder IS NULL`),
              )
              .returningAll()
              .executeTakeFirst()
          : await trx
              .updateTable('rfi_assignments')
              .set({ holder: body.to, version: sql`version + 1`, updated_at: sql`now()` })
              .where('legal_entity_id', '=', entityId)
              .where('rfi_id', '=', rfiId)
              .where('holder', '=', body.from)
              .returningAll()
              .executeTakeFirst();
      await recordRow(trx, 'assignment', moved, (r) => r.rfi_id, toWire);
      return logged(trx, moved, caller.subject, 'rfi.reassigned', {
        from: body.from ?? '',
        to: body.to,
      });
    });
    if (row) return toWire(row);
    const holder = await currentHolder(ctx, entityId, rfiId);
    throw new TeamError(
      409,
      'held_by_other',
      `the RFI is held by ${holder ?? 'nobody'}, not ${body.from ?? 'nobody'}`,
      holder,
    );
  });
}
