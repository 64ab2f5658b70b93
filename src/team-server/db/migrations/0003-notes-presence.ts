/**
 * Internal notes and presence. A note on an RFI, a return or an exchange order is the team's own
 * (never sent to the bank): append-only, its author and time set by the server. Presence ("Maria
 * is viewing this RFI") is a heartbeat with a short expiry, kept in an UNLOGGED table: it needs no
 * crash safety or replication (after a crash everyone is simply absent until their next
 * heartbeat), and so costs no WAL at every heartbeat. Each heartbeat NOTIFYs `team_presence`.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE internal_notes (
      id uuid PRIMARY KEY,
      legal_entity_id text NOT NULL REFERENCES legal_entities(id),
      object_kind text NOT NULL CHECK (object_kind IN ('rfi', 'return', 'exchange')),
      object_id text NOT NULL,
      author text NOT NULL REFERENCES analysts(subject),
      at timestamptz NOT NULL DEFAULT now(),
      text text NOT NULL CHECK (length(trim(text)) > 0 AND length(text) <= 10000)
    );
    CREATE INDEX internal_notes_by_object ON internal_notes (legal_entity_id, object_kind, object_id, at);
    CREATE TRIGGER internal_notes_append_only BEFORE UPDATE OR DELETE ON internal_notes
      FOR EACH ROW EXECUTE FUNCTION refuse_change();
    CREATE TRIGGER internal_notes_no_truncate BEFORE TRUNCATE ON internal_notes
      FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

    CREATE UNLOGGED TABLE presence (
      legal_entity_id text NOT NULL REFERENCES legal_entities(id),
      object_kind text NOT NULL CHECK (object_kind IN ('rfi', 'return', 'exchange')),
      object_id text NOT NULL,
      subject text NOT NULL REFERENCES analysts(subject),
      activity text NOT NULL CHECK (activity IN ('viewing', 'editing')),
      since timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (legal_entity_id, object_kind, object_id, subject)
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE presence, internal_notes`.execute(db);
}
