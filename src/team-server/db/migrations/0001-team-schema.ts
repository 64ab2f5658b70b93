/**
 * The team schema. The rules that must hold whatever server (or person with psql) writes are
 * the database's own: roles and statuses are CHECKed, nobody approves their own content
 * (`approvals_no_self_approval`), an approval's content and maker never change (a new content is
 * a new approval), one live approval and one send job per object, the activity log and the
 * change feed are append-only, each activity entry links to the previous one of its legal entity, and change
 * numbers are handed out in commit order (so "changes since N" never skips a late commit).
 */
import { sql, type Kysely } from 'kysely';

/** The advisory lock that orders appends to the activity log and the change feed. */
export const FEED_LOCK = 27_001;
export const GENESIS_HASH = '0'.repeat(64);

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE legal_entities (
      id text PRIMARY KEY,
      name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE analysts (
      subject text PRIMARY KEY,
      name text,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE member_roles (
      legal_entity_id text NOT NULL REFERENCES legal_entities(id),
      subject text NOT NULL REFERENCES analysts(subject),
      role text NOT NULL CHECK (role IN ('maker', 'checker', 'admin', 'viewer')),
      granted_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (legal_entity_id, subject, role)
    );

    CREATE TABLE rfi_assignments (
      legal_entity_id text NOT NULL REFERENCES legal_entities(id),
      rfi_id text NOT NULL,
      holder text REFERENCES analysts(subject),
      version integer NOT NULL DEFAULT 1,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (legal_entity_id, rfi_id)
    );

    CREATE TABLE approval_rules (
      id bigserial PRIMARY KEY,
      legal_entity_id text NOT NULL REFERENCES legal_entities(id),
      kind text NOT NULL CHECK (kind IN ('rfi_answer', 'return', 'exchange')),
      rfi_type text,
      above numeric(40, 0) CHECK (above >= 0),
      CHECK ((kind = 'rfi_answer' AND above IS NULL) OR (kind <> 'rfi_answer' AND above IS NOT NULL AND rfi_type IS NULL))
    );
    CREATE INDEX approval_rules_entity ON approval_rules (legal_entity_id);

    CREATE TABLE approvals (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      legal_entity_id text NOT NULL REFERENCES legal_entities(id),
      object_kind text NOT NULL CHECK (object_kind IN ('rfi_answer', 'return', 'exchange')),
      object_id text NOT NULL,
      content_hash text NOT NULL CHECK (content_hash ~ '^[0-9a-f]{64}$'),
      content jsonb NOT NULL,
      maker text NOT NULL REFERENCES analysts(subject),
      status text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'cleared')),
      checker text REFERENCES analysts(subject),
      reason text,
      requested_at timestamptz NOT NULL DEFAULT now(),
      decided_at timestamptz,
      CONSTRAINT approvals_no_self_approval CHECK (checker IS NULL OR checker <> maker),
      CONSTRAINT approvals_decision_has_checker CHECK (status NOT IN ('approved', 'rejected') OR checker IS NOT NULL),
      CONSTRAINT approvals_rejection_has_reason CHECK (status <> 'rejected' OR length(trim(coalesce(reason, ''))) > 0)
    );
    CREATE UNIQUE INDEX approvals_one_live_per_object ON approvals (legal_entity_id, object_kind, object_id)
      WHERE status IN ('pending', 'approved');

    CREATE FUNCTION approvals_content_is_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.content_hash <> OLD.content_hash OR NEW.content <> OLD.content OR NEW.maker <> OLD.maker
         OR NEW.object_kind <> OLD.object_kind OR NEW.object_id <> OLD.object_id
         OR NEW.legal_entity_id <> OLD.legal_entity_id THEN
        RAISE EXCEPTION 'an approval''s content and maker never change: new content is a new approval'
          USING ERRCODE = 'integrity_constraint_violation';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER approvals_content_is_immutable BEFORE UPDATE ON approvals
      FOR EACH ROW EXECUTE FUNCTION approvals_content_is_immutable();

    CREATE TABLE send_jobs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      legal_entity_id text NOT NULL REFERENCES legal_entities(id),
      object_kind text NOT NULL CHECK (object_kind IN ('rfi_answer', 'return', 'exchange')),
      object_id text NOT NULL,
      content_hash text NOT NULL CHECK (content_hash ~ '^[0-9a-f]{64}$'),
      approval_id uuid REFERENCES approvals(id),
      idempotency_key text NOT NULL UNIQUE,
      status text NOT NULL CHECK (status IN ('queued', 'leased', 'done', 'failed')),
      lease_number integer NOT NULL DEFAULT 0 CHECK (lease_number >= 0),
      leased_by text REFERENCES analysts(subject),
      workstation text,
      lease_expires_at timestamptz,
      verify_first boolean NOT NULL DEFAULT false,
      bank_reference text,
      last_detail text,
      created_by text NOT NULL REFERENCES analysts(subject),
      created_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz,
      CONSTRAINT send_jobs_one_per_object UNIQUE (legal_entity_id, object_kind, object_id),
      CONSTRAINT send_jobs_lease_has_holder CHECK (status <> 'leased' OR (leased_by IS NOT NULL AND lease_expires_at IS NOT NULL))
    );
    CREATE INDEX send_jobs_leasable ON send_jobs (created_at) WHERE status IN ('queued', 'leased');

    CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation';
    END $$;

    CREATE TABLE activity_log (
      seq bigint PRIMARY KEY CHECK (seq > 0),
      at timestamptz NOT NULL,
      actor text NOT NULL REFERENCES analysts(subject),
      legal_entity_id text NOT NULL REFERENCES legal_entities(id),
      action text NOT NULL,
      object_kind text,
      object_id text,
      detail jsonb NOT NULL,
      prev_hash text NOT NULL CHECK (prev_hash ~ '^[0-9a-f]{64}$'),
      hash text NOT NULL UNIQUE CHECK (hash ~ '^[0-9a-f]{64}$')
    );
    CREATE INDEX activity_log_entity ON activity_log (legal_entity_id, seq);
    CREATE FUNCTION activity_log_links() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE last_seq bigint; last_hash text;
    BEGIN
      PERFORM pg_advisory_xact_lock(${sql.lit(FEED_LOCK)});
      SELECT max(seq) INTO last_seq FROM activity_log;
      SELECT hash INTO last_hash FROM activity_log WHERE legal_entity_id = NEW.legal_entity_id ORDER BY seq DESC LIMIT 1;
      IF NEW.seq <> coalesce(last_seq, 0) + 1 OR NEW.prev_hash <> coalesce(last_hash, ${sql.lit(GENESIS_HASH)}) THEN
        RAISE EXCEPTION 'activity entry % does not follow entry %', NEW.seq, coalesce(last_seq, 0)
          USING ERRCODE = 'integrity_constraint_violation';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER activity_log_links BEFORE INSERT ON activity_log
      FOR EACH ROW EXECUTE FUNCTION activity_log_links();
    CREATE TRIGGER activity_log_append_only BEFORE UPDATE OR DELETE ON activity_log
      FOR EACH ROW EXECUTE FUNCTION refuse_change();
    CREATE TRIGGER activity_log_no_truncate BEFORE TRUNCATE ON activity_log
      FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

    CREATE SEQUENCE changes_seq;
    CREATE TABLE changes (
      seq bigint PRIMARY KEY,
      at timestamptz NOT NULL DEFAULT now(),
      legal_entity_id text NOT NULL REFERENCES legal_entities(id),
      topic text NOT NULL,
      object_id text NOT NULL,
      data jsonb NOT NULL
    );
    CREATE INDEX changes_entity ON changes (legal_entity_id, seq);
    CREATE FUNCTION changes_number() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- Held to commit: the next writer numbers after this one commits, so numbers follow commits.
      PERFORM pg_advisory_xact_lock(${sql.lit(FEED_LOCK)});
      NEW.seq := nextval('changes_seq');
      RETURN NEW;
    END $$;
    CREATE TRIGGER changes_number BEFORE INSERT ON changes
      FOR EACH ROW EXECUTE FUNCTION changes_number();
    CREATE FUNCTION changes_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('team_changes', json_build_object('seq', NEW.seq, 'legalEntityId', NEW.legal_entity_id)::text);
      RETURN NULL;
    END $$;
    CREATE TRIGGER changes_notify AFTER INSERT ON changes
      FOR EACH ROW EXECUTE FUNCTION changes_notify();
    CREATE TRIGGER changes_append_only BEFORE UPDATE OR DELETE ON changes
      FOR EACH ROW EXECUTE FUNCTION refuse_change();
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TABLE changes, activity_log, send_jobs, approvals, approval_rules, rfi_assignments,
      member_roles, analysts, legal_entities CASCADE;
    DROP SEQUENCE changes_seq;
    DROP FUNCTION changes_notify, changes_number, activity_log_links, refuse_change, approvals_content_is_immutable;
  `.execute(db);
}
