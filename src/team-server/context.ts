/**
 * What every route shares: the database, the caller (from the bearer token), typed errors, role
 * checks against the team database and the change feed writer.
 */
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { sql, type Transaction } from 'kysely';
import { z } from 'zod';
import { bankId } from '../shared/api/common';
import { canonicalJson } from '../shared/team/canonical';
import { TEAM_ROLES, type Change, type TeamErrorCode, type TeamRole } from '../shared/team/schemas';
import type { Caller } from './auth';
import type { TeamDb } from './db';
import type { TeamDatabase } from './db/schema';

export class TeamError extends Error {
  constructor(
    readonly status: number,
    readonly code: TeamErrorCode,
    message: string,
    readonly holder?: string | null,
  ) {
    super(message);
  }
}

export interface TeamContext {
  db: TeamDb;
  /** The caller of a request (set by the auth hook). */
  caller(request: FastifyRequest): Caller;
  /** Seconds a send lease lasts. */
  leaseSeconds: number;
  /** Seconds a presence beat keeps an analyst present. */
  presenceSeconds: number;
}

/** The path of every route under one legal entity: `/v1/entities/:entityId/…`. */
export const EntityParams = z.strictObject({ entityId: bankId });

export function parse<S extends z.ZodType>(schema: S, data: unknown, where: string): z.infer<S> {
  const r = schema.safeParse(data);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const path = issue?.path.map(String).join('.') || where;
  throw new TeamError(400, 'bad_request', `${path}: ${issue?.message ?? 'invalid'}`);
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The hash an approval covers: sha256 of the content's canonical JSON. */
export function contentHash(content: unknown): string {
  return sha256Hex(canonicalJson(content));
}

export async function rolesIn(db: TeamDb, subject: string, legalEntityId: string): Promise<Set<TeamRole>> {
  const rows = await db
    .selectFrom('member_roles')
    .select('role')
    .where('subject', '=', subject)
    .where('legal_entity_id', '=', legalEntityId)
    .execute();
  return new Set(rows.map((r) => r.role as TeamRole));
}

/** Any role: who may read an entity's team data. */
export const ANY_ROLE: readonly TeamRole[] = TEAM_ROLES;

/** Refuses unless the caller holds one of `roles` in the entity (viewer reads only). */
export async function requireRole(
  db: TeamDb,
  caller: Caller,
  legalEntityId: string,
  roles: readonly TeamRole[],
): Promise<Set<TeamRole>> {
  const held = await rolesIn(db, caller.subject, legalEntityId);
  if (held.size === 0) throw new TeamError(404, 'not_found', `no legal entity ${legalEntityId} for you`);
  if (!roles.some((r) => held.has(r)))
    throw new TeamError(403, 'forbidden', `needs the role ${roles.join(' or ')} in ${legalEntityId}`);
  return held;
}

/** The entities where the caller holds any role (what their feed and activity may show). */
export async function entitiesOf(
  db: TeamDb,
  subject: string,
  roles?: readonly TeamRole[],
): Promise<string[]> {
  let q = db.selectFrom('member_roles').select('legal_entity_id').distinct().where('subject', '=', subject);
  if (roles) q = q.where('role', 'in', [...roles]);
  return (await q.execute()).map((r) => r.legal_entity_id);
}

/**
 * Adds one change to the feed, in the writer's transaction: it is numbered at insert (after the
 * previous writer committed) and announced by NOTIFY when the transaction commits. Call it last
 * in a transaction, so the feed's lock is held briefly.
 */
export async function recordChange(
  trx: Transaction<TeamDatabase>,
  change: Pick<Change, 'legalEntityId' | 'topic' | 'objectId' | 'data'>,
): Promise<void> {
  await trx
    .insertInto('changes')
    .values({
      legal_entity_id: change.legalEntityId,
      topic: change.topic,
      object_id: change.objectId,
      data: JSON.stringify(change.data ?? null),
    })
    .execute();
}

/**
 * Records a row a statement just changed (if it changed one) as a change of `topic`, keyed by
 * the row's entity and object, with the row's wire form as data; answers the row.
 */
export async function recordRow<R extends { legal_entity_id: string }>(
  trx: Transaction<TeamDatabase>,
  topic: Change['topic'],
  row: R | undefined,
  objectId: (r: R) => string,
  wire: (r: R) => unknown,
): Promise<R | undefined> {
  if (row)
    await recordChange(trx, {
      legalEntityId: row.legal_entity_id,
      topic,
      objectId: objectId(row),
      data: wire(row),
    });
  return row;
}

/** PostgreSQL's SQLSTATE of a failed query, if it is one. */
export function sqlState(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string'
    ? err.code
    : undefined;
}

export const now = sql<Date>`now()`;
