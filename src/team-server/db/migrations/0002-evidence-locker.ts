/**
 * The shared evidence locker. Bytes are stored once per sha256 (`evidence_blobs`, a bytea the
 * database itself checks against its name: `sha256(bytes)` must be the key, and the row is never
 * updated); a document version (`evidence_documents`) names the bytes with holder, type and
 * expiry and is never updated or deleted either; replacing or revoking a version is an appended
 * event (`evidence_events`), at most one per version, so of two analysts ending the same version
 * at once exactly one does. A version replaces at most one earlier version of the same entity.
 */
import { sql, type Kysely } from 'kysely';

/** The largest document the locker stores: the bank's own upload limit (25 MiB). */
export const EVIDENCE_MAX_BYTES = 25 * 1024 * 1024;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE evidence_blobs (
      sha256 text PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
      content_type text NOT NULL CHECK (content_type IN ('application/pdf', 'image/png', 'image/jpeg')),
      size integer NOT NULL CHECK (size > 0 AND size <= ${sql.lit(EVIDENCE_MAX_BYTES)}),
      bytes bytea NOT NULL,
      stored_by text NOT NULL REFERENCES analysts(subject),
      stored_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT evidence_blobs_size_matches CHECK (octet_length(bytes) = size),
      CONSTRAINT evidence_blobs_named_by_hash CHECK (encode(sha256(bytes), 'hex') = sha256)
    );
    -- PDF, PNG and JPEG are compressed already: store the bytes as they are, which also lets a
    -- reader take them in slices (substring) without decompressing the whole value.
    ALTER TABLE evidence_blobs ALTER COLUMN bytes SET STORAGE EXTERNAL;
    CREATE TRIGGER evidence_blobs_immutable BEFORE UPDATE ON evidence_blobs
      FOR EACH ROW EXECUTE FUNCTION refuse_change();

    CREATE TABLE evidence_documents (
      id uuid PRIMARY KEY,
      legal_entity_id text NOT NULL REFERENCES legal_entities(id),
      sha256 text NOT NULL REFERENCES evidence_blobs(sha256),
      file_name text NOT NULL CHECK (length(file_name) BETWEEN 1 AND 255),
      document_type text NOT NULL,
      holder_kind text NOT NULL CHECK (holder_kind IN ('person', 'company')),
      holder_name text NOT NULL CHECK (length(trim(holder_name)) > 0),
      issued_on date,
      expires_on date,
      replaces uuid,
      uploaded_by text NOT NULL REFERENCES analysts(subject),
      uploaded_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT evidence_documents_entity_id UNIQUE (legal_entity_id, id),
      CONSTRAINT evidence_documents_replaces_same_entity FOREIGN KEY (legal_entity_id, replaces)
        REFERENCES evidence_documents (legal_entity_id, id),
      CONSTRAINT evidence_documents_replaced_once UNIQUE (replaces),
      CONSTRAINT evidence_documents_dates CHECK (expires_on IS NULL OR issued_on IS NULL OR expires_on >= issued_on)
    );
    CREATE INDEX evidence_documents_by_entity ON evidence_documents (legal_entity_id, uploaded_at);
    CREATE INDEX evidence_documents_by_sha256 ON evidence_documents (sha256);
    CREATE TRIGGER evidence_documents_append_only BEFORE UPDATE OR DELETE ON evidence_documents
      FOR EACH ROW EXECUTE FUNCTION refuse_change();
    CREATE TRIGGER evidence_documents_no_truncate BEFORE TRUNCATE ON evidence_documents
      FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

    CREATE TABLE evidence_events (
      seq bigserial PRIMARY KEY,
      legal_entity_id text NOT NULL,
      document_id uuid NOT NULL,
      kind text NOT NULL CHECK (kind IN ('replaced', 'revoked')),
      successor uuid,
      reason text,
      actor text NOT NULL REFERENCES analysts(subject),
      at timestamptz NOT NULL DEFAULT now(),
      FOREIGN KEY (legal_entity_id, document_id) REFERENCES evidence_documents (legal_entity_id, id),
      FOREIGN KEY (legal_entity_id, successor) REFERENCES evidence_documents (legal_entity_id, id),
      CONSTRAINT evidence_events_end_once UNIQUE (document_id),
      CONSTRAINT evidence_events_successor CHECK ((kind = 'replaced') = (successor IS NOT NULL)),
      CONSTRAINT evidence_events_revoke_reason CHECK (kind <> 'revoked' OR length(trim(coalesce(reason, ''))) > 0)
    );
    CREATE TRIGGER evidence_events_append_only BEFORE UPDATE OR DELETE ON evidence_events
      FOR EACH ROW EXECUTE FUNCTION refuse_change();
    CREATE TRIGGER evidence_events_no_truncate BEFORE TRUNCATE ON evidence_events
      FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE evidence_events, evidence_documents, evidence_blobs CASCADE`.execute(db);
}
