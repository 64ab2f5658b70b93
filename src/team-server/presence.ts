/**
 * Presence: who is viewing or editing an object now. Each workstation beats every few seconds
 * while the analyst has the object open; a beat keeps them present for the presence time
 * (`presenceSeconds`, 30 s by default), so a workstation that vanished drops out without anyone
 * saying so. Rows live in PostgreSQL (any server process answers any beat), each beat NOTIFYs
 * `team_presence`, and every process pushes the object's current presence to the event streams
 * of that legal entity (`hub.ts`). Not part of the numbered change feed: a presence is worth
 * nothing a minute later, so it is never replayed to a workstation catching up.
 */
import { sql } from 'kysely';
import type { ObjectPresence, TeamObjectRef } from '../shared/team/notes';
import type { TeamDb } from './db';

export const PRESENCE_CHANNEL = 'team_presence';

export async function readPresence(
  db: TeamDb,
  legalEntityId: string,
  object: TeamObjectRef,
): Promise<ObjectPresence> {
  const rows = await db
    .selectFrom('presence as p')
    .innerJoin('analysts as a', 'a.subject', 'p.subject')
    .select(['p.subject', 'a.name', 'p.activity', 'p.since', 'p.expires_at', sql<Date>`now()`.as('now')])
    .where('p.legal_entity_id', '=', legalEntityId)
    .where('p.object_kind', '=', object.kind)
    .where('p.object_id', '=', object.id)
    .where('p.expires_at', '>', sql<Date>`now()`)
    .orderBy('p.since')
    .orderBy('p.subject')
    .execute();
  return {
    legalEntityId,
    object,
    present: rows.map((r) => ({
      subject: r.subject,
      name: r.name,
      activity: r.activity as 'viewing' | 'editing',
      since: r.since.toISOString(),
      expiresAt: r.expires_at.toISOString(),
    })),
    at: (rows[0]?.now ?? new Date()).toISOString(),
  };
}

/** Records a beat (or, with `activity` null, a leave) and announces it, in one transaction. */
export async function beat(
  db: TeamDb,
  p: {
    legalEntityId: string;
    object: TeamObjectRef;
    subject: string;
    activity: 'viewing' | 'editing' | null;
    seconds: number;
  },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const here = trx
      .deleteFrom('presence')
      .where('legal_entity_id', '=', p.legalEntityId)
      .where('object_kind', '=', p.object.kind)
      .where('object_id', '=', p.object.id);
    if (p.activity === null) await here.where('subject', '=', p.subject).execute();
    else {
      // Whoever expired at this object is gone for good: their rows go with the next beat here.
      await here.where('expires_at', '<=', sql<Date>`now()`).execute();
      await trx
        .insertInto('presence')
        .values({
          legal_entity_id: p.legalEntityId,
          object_kind: p.object.kind,
          object_id: p.object.id,
          subject: p.subject,
          activity: p.activity,
          since: sql`now()`,
          expires_at: sql`now() + make_interval(secs => ${p.seconds})`,
        })
        .onConflict((oc) =>
          oc.columns(['legal_entity_id', 'object_kind', 'object_id', 'subject']).doUpdateSet({
            since: sql`CASE WHEN presence.activity <> excluded.activity THEN now() ELSE presence.since END`,
            activity: (eb) => eb.ref('excluded.activity'),
            expires_at: (eb) => eb.ref('excluded.expires_at'),
          }),
        )
        .execute();
    }
    const payload = JSON.stringify({ legalEntityId: p.legalEntityId, kind: p.object.kind, id: p.object.id });
    await sql`SELECT pg_notify(${PRESENCE_CHANNEL}, ${payload})`.execute(trx);
  });
}
