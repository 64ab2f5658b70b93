/**
 * Registers legal entities and analysts' roles directly in the team database: how a new team
 * gets its first admin (`npm run team-server -- bootstrap`; after that, admins set roles through
 * the API), and the demo team of `npm run team:dev` and the tests.
 */
import type { TeamRole } from '../shared/team/schemas';
import type { TeamDb } from './db';

export interface TeamSeed {
  entities: readonly { id: string; name: string }[];
  members: readonly { subject: string; name: string; legalEntityId: string; roles: readonly TeamRole[] }[];
}

export async function seedTeam(db: TeamDb, seed: TeamSeed): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const e of seed.entities)
      await trx
        .insertInto('legal_entities')
        .values({ id: e.id, name: e.name })
        .onConflict((oc) => oc.column('id').doUpdateSet({ name: e.name }))
        .execute();
    for (const m of seed.members) {
      await trx
        .insertInto('analysts')
        .values({ subject: m.subject, name: m.name })
        .onConflict((oc) => oc.column('subject').doUpdateSet({ name: m.name }))
        .execute();
      for (const role of m.roles)
        await trx
          .insertInto('member_roles')
          .values({ legal_entity_id: m.legalEntityId, subject: m.subject, role })
          .onConflict((oc) => oc.doNothing())
          .execute();
    }
  });
}
