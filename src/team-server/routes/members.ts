/**
 * Who the caller is in the team, and roles per legal entity (set by an entity's admin).
 */
import type { FastifyInstance } from 'fastify';
import { bankId } from '../../shared/api/common';
import { Me, SetRolesBody, Subject, type TeamRole } from '../../shared/team/schemas';
import { z } from 'zod';
import { MembersPage } from '../../shared/team/config';
import { ANY_ROLE, parse, recordChange, requireRole, TeamError, type TeamContext } from '../context';

const MemberParams = z.strictObject({ entityId: bankId, subject: Subject });
const EntityParams = z.strictObject({ entityId: bankId });

export function registerMemberRoutes(app: FastifyInstance, ctx: TeamContext): void {
  app.get('/v1/me', async (request) => {
    const caller = ctx.caller(request);
    const rows = await ctx.db
      .selectFrom('member_roles as m')
      .innerJoin('legal_entities as e', 'e.id', 'm.legal_entity_id')
      .select(['m.legal_entity_id', 'e.name', 'm.role'])
      .where('m.subject', '=', caller.subject)
      .orderBy('e.name')
      .orderBy('m.role')
      .execute();
    const byEntity = new Map<string, { legalEntityId: string; legalEntityName: string; roles: TeamRole[] }>();
    for (const r of rows) {
      const m = byEntity.get(r.legal_entity_id) ?? {
        legalEntityId: r.legal_entity_id,
        legalEntityName: r.name,
        roles: [],
      };
      m.roles.push(r.role as TeamRole);
      byEntity.set(r.legal_entity_id, m);
    }
    return Me.parse({ subject: caller.subject, name: caller.name, memberships: [...byEntity.values()] });
  });

  /** The analysts of an entity with their names and roles (any role): holders are shown by name. */
  app.get('/v1/entities/:entityId/members', async (request) => {
    const { entityId } = parse(EntityParams, request.params, 'path');
    await requireRole(ctx.db, ctx.caller(request), entityId, ANY_ROLE);
    const rows = await ctx.db
      .selectFrom('member_roles as m')
      .innerJoin('analysts as a', 'a.subject', 'm.subject')
      .select(['m.subject', 'a.name', 'm.role'])
      .where('m.legal_entity_id', '=', entityId)
      .orderBy('m.subject')
      .orderBy('m.role')
      .execute();
    const bySubject = new Map<string, { subject: string; name: string | null; roles: TeamRole[] }>();
    for (const r of rows) {
      const m = bySubject.get(r.subject) ?? { subject: r.subject, name: r.name, roles: [] };
      m.roles.push(r.role as TeamRole);
      bySubject.set(r.subject, m);
    }
    return MembersPage.parse({ members: [...bySubject.values()] });
  });

  /** Replaces an analyst's roles in one entity (admin). An admin cannot remove their own admin role. */
  app.put('/v1/entities/:entityId/members/:subject', async (request) => {
    const caller = ctx.caller(request);
    const { entityId, subject } = parse(MemberParams, request.params, 'path');
    const body = parse(SetRolesBody, request.body, 'body');
    await requireRole(ctx.db, caller, entityId, ['admin']);
    const roles = [...new Set(body.roles)];
    if (subject === caller.subject && !roles.includes('admin'))
      throw new TeamError(409, 'conflict', 'an admin cannot remove their own admin role');
    await ctx.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('analysts')
        .values({ subject, name: body.name ?? null })
        .onConflict((oc) => oc.column('subject').doUpdateSet(body.name ? { name: body.name } : { subject }))
        .execute();
      await trx
        .deleteFrom('member_roles')
        .where('legal_entity_id', '=', entityId)
        .where('subject', '=', subject)
        .execute();
      if (roles.length > 0)
        await trx
          .insertInto('member_roles')
          .values(roles.map((role) => ({ legal_entity_id: entityId, subject, role })))
          .execute();
      await recordChange(trx, {
        legalEntityId: entityId,
        topic: 'member',
        objectId: subject,
        data: { subject, roles },
      });
    });
    return { legalEntityId: entityId, subject, roles };
  });
}
