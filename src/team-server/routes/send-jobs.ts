/**
 * Exactly one send. Approved content becomes one send job per object with one idempotency key
 * the bank sees on every attempt. One workstation at a time holds its lease: leasing takes the
 * row with `FOR UPDATE SKIP LOCKED` (a concurrent leaser skips it rather than waiting) and bumps
 * the lease number; recording the result names that number, so a holder whose lease expired and
 * was taken over can no longer record anything. A job leased again after an expired lease or an
 * unknown outcome says `verifyFirst`: the next holder re-reads the bank before any write.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql, type Selectable, type Transaction } from 'kysely';
import { z } from 'zod';
import {
  CompleteBody,
  CreateSendJobBody,
  LeaseBody,
  RenewBody,
  type SendJob,
} from '../../shared/team/schemas';
import { approvalRequired } from '../approval-rules';
import {
  ANY_ROLE,
  contentHash,
  EntityParams,
  entitiesOf,
  parse,
  recordRow,
  requireRole,
  sqlState,
  TeamError,
  type TeamContext,
} from '../context';
import type { SendJobsTable, TeamDatabase } from '../db/schema';
import { appendActivityIn } from './activity';
import { loadRules } from './approvals';

const IdParams = z.strictObject({ id: z.uuid() });
const SENDERS = ['maker', 'checker'] as const;

function toWire(r: Selectable<SendJobsTable>): SendJob {
  return {
    id: r.id,
    legalEntityId: r.legal_entity_id,
    object: { kind: r.object_kind as SendJob['object']['kind'], id: r.object_id },
    contentHash: r.content_hash,
    idempotencyKey: r.idempotency_key,
    status: r.status as SendJob['status'],
    leaseNumber: r.lease_number,
    leasedBy: r.leased_by,
    leaseExpiresAt: r.lease_expires_at ? r.lease_expires_at.toISOString() : null,
    verifyFirst: r.verify_first,
    bankReference: r.bank_reference,
    detail: r.status === 'failed' ? r.last_detail : null,
    createdBy: r.created_by,
  };
}

/** Leases the oldest leasable job among `entities` (or that one job): queued, or leased and expired. */
async function lease(
  ctx: TeamContext,
  subject: string,
  workstation: string,
  entities: string[],
  jobId?: string,
) {
  if (entities.length === 0) return undefined;
  return ctx.db.transaction().execute(async (trx) => {
    let pick = trx
      .selectFrom('send_jobs')
      .select('id')
      .where('legal_entity_id', 'in', entities)
      .where((eb) =>
        eb.or([
          eb('status', '=', 'queued'),
          eb.and([eb('status', '=', 'leased'), eb('lease_expires_at', '<', sql<Date>`now()`)]),
        ]),
      )
      .orderBy('created_at')
      .limit(1)
      .forUpdate()
      .skipLocked();
    if (jobId) pick = pick.where('id', '=', jobId);
    const leased = await trx
      .updateTable('send_jobs')
      .set({
        status: 'leased',
        verify_first: sql`verify_first OR lease_number > 0`,
        lease_number: sql`lease_number + 1`,
        leased_by: subject,
        workstation,
        lease_expires_at: sql`now() + make_interval(secs => ${ctx.leaseSeconds})`,
      })
      .where('id', '=', (eb) => eb.selectFrom(pick.as('p')).select('p.id'))
      .returningAll()
      .executeTakeFirst();
    return recordRow(trx, 'send_job', leased, (r) => r.object_id, toWire);
  });
}

export function registerSendJobRoutes(app: FastifyInstance, ctx: TeamContext): void {
  /** Queues the send of approved content (idempotent: the same content answers the same job). */
  app.post('/v1/send-jobs', async (request, reply) => {
    const caller = ctx.caller(request);
    const { legalEntityId: entityId, objectId, content } = parse(CreateSendJobBody, request.body, 'body');
    await requireRole(ctx.db, caller, entityId, SENDERS);
    const hash = contentHash(content);
    let approvalId: string | null = null;
    if (approvalRequired(await loadRules(ctx, entityId), content)) {
      const approved = await ctx.db
        .selectFrom('approvals')
        .select('id')
        .where('legal_entity_id', '=', entityId)
        .where('object_kind', '=', content.kind)
        .where('object_id', '=', objectId)
        .where('status', '=', 'approved')
        .where('content_hash', '=', hash)
        .executeTakeFirst();
      if (!approved)
        throw new TeamError(
          409,
          'approval_required',
          'this content needs a checker’s approval before it is sent',
        );
      approvalId = approved.id;
    }
    const created = await ctx.db
      .transaction()
      .execute(async (trx) => {
        const row = await trx
          .insertInto('send_jobs')
          .values({
            legal_entity_id: entityId,
            object_kind: content.kind,
            object_id: objectId,
            content_hash: hash,
            approval_id: approvalId,
            idempotency_key: randomUUID(),
            status: 'queued',
            created_by: caller.subject,
            created_at: new Date(),
          })
          .onConflict((oc) => oc.constraint('send_jobs_one_per_object').doNothing())
          .returningAll()
          .executeTakeFirst();
        return recordRow(trx, 'send_job', row, (r) => r.object_id, toWire);
      })
      .catch((err: unknown) => {
        if (sqlState(err) === '23505')
          throw new TeamError(409, 'conflict', 'a send job for this object exists');
        throw err;
      });
    if (created) {
      void reply.status(201);
      return toWire(created);
    }
    const existing = await ctx.db
      .selectFrom('send_jobs')
      .selectAll()
      .where('legal_entity_id', '=', entityId)
      .where('object_kind', '=', content.kind)
      .where('object_id', '=', objectId)
      .executeTakeFirstOrThrow();
    if (existing.content_hash !== hash)
      throw new TeamError(409, 'content_changed', 'this object is already queued with other content');
    return toWire(existing);
  });

  app.get('/v1/send-jobs/:id', async (request) => {
    const { id } = parse(IdParams, request.params, 'path');
    const row = await ctx.db.selectFrom('send_jobs').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new TeamError(404, 'not_found', `no send job ${id}`);
    await requireRole(ctx.db, ctx.caller(request), row.legal_entity_id, ANY_ROLE);
    return toWire(row);
  });

  /**
   * The entity's jobs not finished (queued, or leased: the lease may have expired), so a
   * workstation can choose one it is able to send before leasing it.
   */
  app.get('/v1/entities/:entityId/send-jobs', async (request) => {
    const { entityId } = parse(EntityParams, request.params, 'path');
    await requireRole(ctx.db, ctx.caller(request), entityId, ANY_ROLE);
    const rows = await ctx.db
      .selectFrom('send_jobs')
      .selectAll()
      .where('legal_entity_id', '=', entityId)
      .where('status', 'in', ['queued', 'leased'])
      .orderBy('created_at')
      .limit(500)
      .execute();
    return { jobs: rows.map(toWire) };
  });

  /** The next job the caller may send, if any: `{ job: null }` when there is none free. */
  app.post('/v1/send-jobs/lease', async (request) => {
    const caller = ctx.caller(request);
    const { workstation } = parse(LeaseBody, request.body, 'body');
    const leased = await lease(
      ctx,
      caller.subject,
      workstation,
      await entitiesOf(ctx.db, caller.subject, SENDERS),
    );
    return { job: leased ? toWire(leased) : null };
  });

  app.post('/v1/send-jobs/:id/lease', async (request) => {
    const caller = ctx.caller(request);
    const { id } = parse(IdParams, request.params, 'path');
    const { workstation } = parse(LeaseBody, request.body, 'body');
    const row = await ctx.db
      .selectFrom('send_jobs')
      .select('legal_entity_id')
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) throw new TeamError(404, 'not_found', `no send job ${id}`);
    await requireRole(ctx.db, caller, row.legal_entity_id, SENDERS);
    const leased = await lease(ctx, caller.subject, workstation, [row.legal_entity_id], id);
    if (!leased)
      throw new TeamError(409, 'not_leasable', 'another workstation holds this send, or it is finished');
    return toWire(leased);
  });

  /**
   * Renews a held lease while its send is under way (a large upload, a slow bank): the expiry moves
   * to a full lease from now. Refused unless the caller still holds that lease number: a lease
   * taken over meanwhile is not given back, and its old holder stops before its next bank write.
   * An expired lease nobody took over yet may be renewed (nobody else can have written under it).
   */
  app.post('/v1/send-jobs/:id/renew', async (request) => {
    const caller = ctx.caller(request);
    const { id } = parse(IdParams, request.params, 'path');
    const { leaseNumber } = parse(RenewBody, request.body, 'body');
    const renewed = await ctx.db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('send_jobs')
        .set({ lease_expires_at: sql`now() + make_interval(secs => ${ctx.leaseSeconds})` })
        .where('id', '=', id)
        .where('status', '=', 'leased')
        .where('lease_number', '=', leaseNumber)
        .where('leased_by', '=', caller.subject)
        .returningAll()
        .executeTakeFirst();
      // On the feed too: other workstations see the lease is live and do not try to take it.
      return recordRow(trx, 'send_job', row, (r) => r.object_id, toWire);
    });
    if (renewed) return toWire(renewed);
    throw await staleLease(ctx, id, leaseNumber);
  });

  /** Records a leased send's outcome; refused unless the caller still holds that lease number. */
  app.post('/v1/send-jobs/:id/complete', async (request) => {
    const caller = ctx.caller(request);
    const { id } = parse(IdParams, request.params, 'path');
    const body = parse(CompleteBody, request.body, 'body');
    const ambiguous = body.outcome === 'ambiguous';
    // Not sent: nothing reached the bank, so the job is queued again as it was (no check owed).
    const unsent = body.outcome === 'unsent';
    const requeue = ambiguous || unsent;
    const row = await ctx.db.transaction().execute(async (trx) => {
      const done = await trx
        .updateTable('send_jobs')
        .set({
          status: body.outcome === 'sent' ? 'done' : requeue ? 'queued' : 'failed',
          verify_first: ambiguous ? true : sql`verify_first`,
          lease_expires_at: requeue ? null : sql`lease_expires_at`,
          bank_reference: unsent ? sql`bank_reference` : (body.bankReference ?? null),
          last_detail: body.detail ?? null,
          completed_at: requeue ? null : sql`now()`,
        })
        .where('id', '=', id)
        .where('status', '=', 'leased')
        .where('lease_number', '=', body.leaseNumber)
        .where('leased_by', '=', caller.subject)
        .returningAll()
        .executeTakeFirst();
      await recordRow(trx, 'send_job', done, (r) => r.object_id, toWire);
      // How the send ended is the team's to know: sent (with the bank's reference), or not sent
      // and why. An ambiguous outcome is not an end: the job is queued again, verified first.
      if (done && !requeue)
        await appendActivityIn(trx, {
          actor: caller.subject,
          legalEntityId: done.legal_entity_id,
          action: `send.${body.outcome}`,
          object: { kind: done.object_kind as SendJob['object']['kind'], id: done.object_id },
          detail: {
            ...(await rfiOf(trx, done.approval_id)),
            ...(body.outcome === 'sent'
              ? body.bankReference
                ? { bankReference: body.bankReference }
                : {}
              : { reason: body.detail ?? '' }),
            leaseNumber: String(done.lease_number),
          },
        });
      return done;
    });
    if (row) return toWire(row);
    throw await staleLease(ctx, id, body.leaseNumber);
  });
}

/** The RFI an answer's send is for (named in its activity entry, so the RFI's log shows it). */
async function rfiOf(trx: Transaction<TeamDatabase>, approvalId: string | null): Promise<{ rfiId?: string }> {
  if (!approvalId) return {};
  const a = await trx
    .selectFrom('approvals')
    .select(sql<string | null>`content->>'rfiId'`.as('rfi_id'))
    .where('id', '=', approvalId)
    .executeTakeFirst();
  return a?.rfi_id ? { rfiId: a.rfi_id } : {};
}

/** The refusal of a lease number no longer held (or a job that is not there). */
async function staleLease(ctx: TeamContext, id: string, leaseNumber: number): Promise<TeamError> {
  const now = await ctx.db
    .selectFrom('send_jobs')
    .select(['lease_number', 'status'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!now) return new TeamError(404, 'not_found', `no send job ${id}`);
  return new TeamError(
    409,
    'stale_lease',
    `lease ${leaseNumber} is no longer held (the job is ${now.status}, lease ${now.lease_number})`,
  );
}
