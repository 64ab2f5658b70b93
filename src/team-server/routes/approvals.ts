/**
 * Approval rules (set by an entity's admin) and four-eyes approvals. An approval covers one
 * content by its hash: asking again with other content clears the live approval and opens a
 * new one; a checker decides on the hash they read, so a decision never covers content they did
 * not see. Nobody decides on their own content: the server refuses it, and so does the database
 * (`approvals_no_self_approval`) if a server check were ever missed.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql, type Selectable, type Transaction } from 'kysely';
import { z } from 'zod';
import { bankId } from '../../shared/api/common';
import {
  ApprovalContent,
  ApprovalRules,
  ApprovalStatus,
  ApproveBody,
  RejectBody,
  RequestApprovalBody,
  type Approval,
} from '../../shared/team/schemas';
import { approvalRequired, ruleFromRow } from '../approval-rules';
import {
  ANY_ROLE,
  contentHash,
  parse,
  recordChange,
  recordRow,
  requireRole,
  sqlState,
  TeamError,
  type TeamContext,
  EntityParams,
} from '../context';
import type { ApprovalsTable, TeamDatabase } from '../db/schema';
import { appendActivityIn } from './activity';

const IdParams = z.strictObject({ id: z.uuid() });
const ListQuery = z.strictObject({ status: ApprovalStatus.optional(), objectId: bankId.optional() });

export function approvalToWire(r: Selectable<ApprovalsTable>): Approval {
  return {
    id: r.id,
    legalEntityId: r.legal_entity_id,
    object: { kind: r.object_kind as Approval['object']['kind'], id: r.object_id },
    contentHash: r.content_hash,
    content: ApprovalContent.parse(r.content),
    maker: r.maker,
    status: r.status as Approval['status'],
    checker: r.checker,
    reason: r.reason,
    requestedAt: r.requested_at.toISOString(),
    decidedAt: r.decided_at ? r.decided_at.toISOString() : null,
  };
}

/**
 * An approval's step in the team log, written in the same transaction as the step: who asked,
 * approved or rejected which content (by its hash), and the RFI an answer's approval is about, so
 * the RFI's own log shows its four-eyes trail.
 */
async function logApprovalStep(
  trx: Transaction<TeamDatabase>,
  actor: string,
  row: Selectable<ApprovalsTable>,
  action: 'approval.requested' | 'approval.approved' | 'approval.rejected',
): Promise<void> {
  const content = ApprovalContent.parse(row.content);
  await appendActivityIn(trx, {
    actor,
    legalEntityId: row.legal_entity_id,
    action,
    object: { kind: row.object_kind as Approval['object']['kind'], id: row.object_id },
    detail: {
      ...('rfiId' in content ? { rfiId: content.rfiId } : {}),
      contentHash: row.content_hash,
      ...(action === 'approval.rejected' && row.reason ? { reason: row.reason } : {}),
      ...(action !== 'approval.requested' ? { maker: row.maker } : {}),
    },
  });
}

export async function loadRules(ctx: Pick<TeamContext, 'db'>, entityId: string) {
  const rows = await ctx.db
    .selectFrom('approval_rules')
    .selectAll()
    .where('legal_entity_id', '=', entityId)
    .orderBy('id')
    .execute();
  return rows.map(ruleFromRow);
}

function refuseSelfApproval(err: unknown): never {
  if (
    sqlState(err) === '23514' &&
    String((err as { constraint?: string }).constraint) === 'approvals_no_self_approval'
  )
    throw new TeamError(403, 'self_approval', 'nobody approves their own content');
  throw err;
}

async function loadApproval(ctx: TeamContext, id: string) {
  const row = await ctx.db.selectFrom('approvals').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw new TeamError(404, 'not_found', `no approval ${id}`);
  return row;
}

function registerRuleRoutes(app: FastifyInstance, ctx: TeamContext): void {
  app.get('/v1/entities/:entityId/approval-rules', async (request) => {
    const { entityId } = parse(EntityParams, request.params, 'path');
    await requireRole(ctx.db, ctx.caller(request), entityId, ANY_ROLE);
    return { rules: await loadRules(ctx, entityId) };
  });

  app.put('/v1/entities/:entityId/approval-rules', async (request) => {
    const { entityId } = parse(EntityParams, request.params, 'path');
    const body = parse(ApprovalRules, request.body, 'body');
    await requireRole(ctx.db, ctx.caller(request), entityId, ['admin']);
    await ctx.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('approval_rules').where('legal_entity_id', '=', entityId).execute();
      if (body.rules.length > 0)
        await trx
          .insertInto('approval_rules')
          .values(
            body.rules.map((r) => ({
              legal_entity_id: entityId,
              kind: r.kind,
              rfi_type: r.kind === 'rfi_answer' ? r.rfiType : null,
              above: r.kind === 'rfi_answer' ? null : r.above,
            })),
          )
          .execute();
      await recordChange(trx, {
        legalEntityId: entityId,
        topic: 'approval_rules',
        objectId: entityId,
        data: body,
      });
    });
    return { rules: await loadRules(ctx, entityId) };
  });

  app.post('/v1/entities/:entityId/approval-rules/evaluate', async (request) => {
    const { entityId } = parse(EntityParams, request.params, 'path');
    const content = parse(ApprovalContent, request.body, 'body');
    await requireRole(ctx.db, ctx.caller(request), entityId, ANY_ROLE);
    return {
      required: approvalRequired(await loadRules(ctx, entityId), content),
      contentHash: contentHash(content),
    };
  });
}

async function decide(
  ctx: TeamContext,
  request: FastifyRequest,
  decision: { status: 'approved' } | { status: 'rejected'; reason: string },
  seenHash: string,
): Promise<Approval> {
  const caller = ctx.caller(request);
  const { id } = parse(IdParams, request.params, 'path');
  const current = await loadApproval(ctx, id);
  await requireRole(ctx.db, caller, current.legal_entity_id, ['checker']);
  if (current.maker === caller.subject)
    throw new TeamError(403, 'self_approval', 'nobody approves their own content');
  const row = await ctx.db
    .transaction()
    .execute(async (trx) => {
      const decided = await trx
        .updateTable('approvals')
        .set({
          status: decision.status,
          checker: caller.subject,
          reason: decision.status === 'rejected' ? decision.reason : null,
          decided_at: sql`now()`,
        })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .where('content_hash', '=', seenHash)
        .returningAll()
        .executeTakeFirst();
      if (decided) await logApprovalStep(trx, caller.subject, decided, `approval.${decision.status}`);
      return recordRow(trx, 'approval', decided, (r) => r.object_id, approvalToWire);
    })
    .catch(refuseSelfApproval);
  if (row) return approvalToWire(row);
  const now = await loadApproval(ctx, id);
  if (now.content_hash !== seenHash || now.status === 'cleared')
    throw new TeamError(409, 'content_changed', 'the content changed since you read it: read it again');
  throw new TeamError(409, 'conflict', `the approval is already ${now.status}`);
}

export function registerApprovalRoutes(app: FastifyInstance, ctx: TeamContext): void {
  registerRuleRoutes(app, ctx);

  app.post('/v1/approvals', async (request, reply) => {
    const caller = ctx.caller(request);
    const body = parse(RequestApprovalBody, request.body, 'body');
    const { legalEntityId: entityId, objectId, content } = body;
    await requireRole(ctx.db, caller, entityId, ['maker']);
    const hash = contentHash(content);
    const result = await ctx.db
      .transaction()
      .execute(async (trx) => {
        const sending = await trx
          .selectFrom('send_jobs')
          .select('status')
          .where('legal_entity_id', '=', entityId)
          .where('object_kind', '=', content.kind)
          .where('object_id', '=', objectId)
          .where('status', '<>', 'failed')
          .executeTakeFirst();
        if (sending)
          throw new TeamError(
            409,
            'conflict',
            `the ${content.kind} is already being sent (${sending.status})`,
          );
        const live = await trx
          .selectFrom('approvals')
          .selectAll()
          .where('legal_entity_id', '=', entityId)
          .where('object_kind', '=', content.kind)
          .where('object_id', '=', objectId)
          .where('status', 'in', ['pending', 'approved'])
          .forUpdate()
          .executeTakeFirst();
        if (live?.content_hash === hash) return { row: live, created: false };
        if (live) {
          const cleared = await trx
            .updateTable('approvals')
            .set({ status: 'cleared', decided_at: sql`now()` })
            .where('id', '=', live.id)
            .returningAll()
            .executeTakeFirstOrThrow();
          await recordRow(trx, 'approval', cleared, (r) => r.object_id, approvalToWire);
        }
        const row = await trx
          .insertInto('approvals')
          .values({
            legal_entity_id: entityId,
            object_kind: content.kind,
            object_id: objectId,
            content_hash: hash,
            content: JSON.stringify(content),
            maker: caller.subject,
            status: 'pending',
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        await recordRow(trx, 'approval', row, (r) => r.object_id, approvalToWire);
        await logApprovalStep(trx, caller.subject, row, 'approval.requested');
        return { row, created: true };
      })
      .catch((err: unknown) => {
        if (sqlState(err) === '23505')
          throw new TeamError(
            409,
            'conflict',
            'another approval request for this object came first: read it again',
          );
        throw err;
      });
    void reply.status(result.created ? 201 : 200);
    return approvalToWire(result.row);
  });

  app.get('/v1/approvals/:id', async (request) => {
    const { id } = parse(IdParams, request.params, 'path');
    const row = await loadApproval(ctx, id);
    await requireRole(ctx.db, ctx.caller(request), row.legal_entity_id, ANY_ROLE);
    return approvalToWire(row);
  });

  app.get('/v1/entities/:entityId/approvals', async (request) => {
    const { entityId } = parse(EntityParams, request.params, 'path');
    const query = parse(ListQuery, request.query, 'query');
    await requireRole(ctx.db, ctx.caller(request), entityId, ANY_ROLE);
    return { approvals: (await listApprovals(ctx.db, entityId, query)).map(approvalToWire) };
  });

  app.post('/v1/approvals/:id/approve', async (request) => {
    const body = parse(ApproveBody, request.body, 'body');
    return decide(ctx, request, { status: 'approved' }, body.contentHash);
  });

  app.post('/v1/approvals/:id/reject', async (request) => {
    const body = parse(RejectBody, request.body, 'body');
    return decide(ctx, request, { status: 'rejected', reason: body.reason }, body.contentHash);
  });
}

/** Decided approvals a list holds beside the live ones (the feed keeps a workstation current after). */
const RECENT_DECIDED = 500;
/** A bound on live approvals, far above what a team keeps waiting. */
const LIVE_BOUND = 5_000;

/**
 * An entity's approvals as a workstation reads them when it connects, oldest first: every live one
 * (waiting for a checker, or approved with its send not finished, so a fresh workstation can decide
 * and send it however old it is), then the newest decided ones; never the oldest page of a long
 * history. Filtered (by status or object): the newest matches.
 */
async function listApprovals(
  db: TeamContext['db'],
  entityId: string,
  query: z.infer<typeof ListQuery>,
): Promise<Array<Selectable<ApprovalsTable>>> {
  const base = db.selectFrom('approvals').selectAll().where('legal_entity_id', '=', entityId);
  const newest = (q: typeof base, limit: number) => q.orderBy('requested_at', 'desc').limit(limit).execute();
  if (query.status || query.objectId) {
    let q = base;
    if (query.status) q = q.where('status', '=', query.status);
    if (query.objectId) q = q.where('object_id', '=', query.objectId);
    return (await newest(q, RECENT_DECIDED)).reverse();
  }
  const [live, recent] = await Promise.all([
    newest(
      base.where((eb) =>
        eb.or([
          eb('status', '=', 'pending'),
          eb.and([
            eb('status', '=', 'approved'),
            eb.not(
              eb.exists(
                eb
                  .selectFrom('send_jobs')
                  .select('send_jobs.id')
                  .whereRef('send_jobs.approval_id', '=', 'approvals.id')
                  .where('send_jobs.status', 'in', ['done', 'failed']),
              ),
            ),
          ]),
        ]),
      ),
      LIVE_BOUND,
    ),
    newest(base, RECENT_DECIDED),
  ]);
  const byId = new Map([...live, ...recent].map((r) => [r.id, r]));
  return [...byId.values()].sort((x, y) => x.requested_at.getTime() - y.requested_at.getTime());
}
