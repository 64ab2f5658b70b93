/**
 * Two guarantees a workstation coming back from a fault relies on:
 *
 * - Change numbers without gaps. A number taken from a sequence is lost when its transaction
 *   rolls back (a conflict, a PostgreSQL restart mid-transaction), so a reader could not tell a
 *   hole from a change it missed. The feed's writers already hold the feed lock to commit, so the
 *   next number is simply the last committed one plus one: a rolled-back writer's number is taken
 *   by the next, and a workstation that sees N then N+2 knows it missed N+1.
 * - An activity entry sent twice lands once. The workstation names each entry it appends (a UUID
 *   it makes, `request_id`), so an append retried after a lost answer (the team server or the
 *   network went away after the commit) answers the entry already stored.
 */
import { sql, type Kysely } from 'kysely';
import { FEED_LOCK } from './0001-team-schema';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION changes_number() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- Held to commit: the next writer numbers after this one commits, so numbers follow
      -- commits, and a writer that rolls back leaves its number to the next (no gaps).
      PERFORM pg_advisory_xact_lock(${sql.lit(FEED_LOCK)});
      NEW.seq := coalesce((SELECT max(seq) FROM changes), 0) + 1;
      RETURN NEW;
    END $$;
    DROP SEQUENCE changes_seq;

    ALTER TABLE activity_log ADD COLUMN request_id uuid;
    CREATE UNIQUE INDEX activity_log_request_id ON activity_log (request_id) WHERE request_id IS NOT NULL;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX activity_log_request_id;
    ALTER TABLE activity_log DROP COLUMN request_id;
    CREATE SEQUENCE changes_seq;
    SELECT setval('changes_seq', coalesce((SELECT max(seq) FROM changes), 0) + 1, false);
    CREATE OR REPLACE FUNCTION changes_number() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock(${sql.lit(FEED_LOCK)});
      NEW.seq := nextval('changes_seq');
      RETURN NEW;
    END $$;
  `.execute(db);
}
