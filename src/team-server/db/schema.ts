/**
 * The team database's tables as kysely sees them (the migrations in ./migrations create them).
 * Column names are PostgreSQL's snake_case; the routes map them to the wire's camelCase.
 */
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** numeric(40,0): read as a string by pg, written from a string. */
type Numeric = ColumnType<string, string, string>;

export interface LegalEntitiesTable {
  id: string;
  name: string;
  created_at: Timestamp;
}

export interface AnalystsTable {
  subject: string;
  name: string | null;
  created_at: Timestamp;
}

export interface MemberRolesTable {
  legal_entity_id: string;
  subject: string;
  role: string;
  granted_at: Timestamp;
}

export interface RfiAssignmentsTable {
  legal_entity_id: string;
  rfi_id: string;
  holder: string | null;
  version: Generated<number>;
  updated_at: Timestamp;
}

export interface ApprovalRulesTable {
  id: Generated<string>;
  legal_entity_id: string;
  kind: string;
  rfi_type: string | null;
  above: Numeric | null;
}

export interface ApprovalsTable {
  id: Generated<string>;
  legal_entity_id: string;
  object_kind: string;
  object_id: string;
  content_hash: string;
  content: ColumnType<unknown, string, string>;
  maker: string;
  status: string;
  checker: string | null;
  reason: string | null;
  requested_at: Timestamp;
  decided_at: NullableTimestamp;
}

export interface SendJobsTable {
  id: Generated<string>;
  legal_entity_id: string;
  object_kind: string;
  object_id: string;
  content_hash: string;
  approval_id: string | null;
  idempotency_key: string;
  status: string;
  lease_number: Generated<number>;
  leased_by: string | null;
  workstation: string | null;
  lease_expires_at: NullableTimestamp;
  verify_first: Generated<boolean>;
  bank_reference: string | null;
  last_detail: string | null;
  created_by: string;
  created_at: Timestamp;
  completed_at: NullableTimestamp;
}

export interface ActivityLogTable {
  seq: ColumnType<number, number, never>;
  at: Timestamp;
  actor: string;
  legal_entity_id: string;
  action: string;
  object_kind: string | null;
  object_id: string | null;
  detail: ColumnType<Record<string, string>, string, never>;
  prev_hash: string;
  hash: string;
  /** The workstation's name for the append (a UUID), so a retried append lands once. */
  request_id: ColumnType<string | null, string | null | undefined, never>;
}

export interface ChangesTable {
  /** Assigned by the database (a trigger), in commit order. */
  seq: ColumnType<number, never, never>;
  at: Timestamp;
  legal_entity_id: string;
  topic: string;
  object_id: string;
  data: ColumnType<unknown, string, never>;
}

export interface EvidenceBlobsTable {
  sha256: string;
  content_type: string;
  size: number;
  bytes: Buffer;
  stored_by: string;
  stored_at: Timestamp;
}

/** Plain dates (`YYYY-MM-DD`): pg's date parser is replaced by the text (db/index.ts). */
type PlainDate = ColumnType<string | null, string | null | undefined, never>;

export interface EvidenceDocumentsTable {
  id: string;
  legal_entity_id: string;
  sha256: string;
  file_name: string;
  document_type: string;
  holder_kind: string;
  holder_name: string;
  issued_on: PlainDate;
  expires_on: PlainDate;
  replaces: string | null;
  uploaded_by: string;
  uploaded_at: Timestamp;
}

export interface EvidenceEventsTable {
  seq: Generated<number>;
  legal_entity_id: string;
  document_id: string;
  kind: string;
  successor: string | null;
  reason: string | null;
  actor: string;
  at: Timestamp;
}

export interface InternalNotesTable {
  id: string;
  legal_entity_id: string;
  object_kind: string;
  object_id: string;
  author: string;
  at: Timestamp;
  text: string;
}

export interface PresenceTable {
  legal_entity_id: string;
  object_kind: string;
  object_id: string;
  subject: string;
  activity: string;
  since: Timestamp;
  expires_at: Timestamp;
}

export interface TeamDatabase {
  legal_entities: LegalEntitiesTable;
  analysts: AnalystsTable;
  member_roles: MemberRolesTable;
  rfi_assignments: RfiAssignmentsTable;
  approval_rules: ApprovalRulesTable;
  approvals: ApprovalsTable;
  send_jobs: SendJobsTable;
  activity_log: ActivityLogTable;
  changes: ChangesTable;
  evidence_blobs: EvidenceBlobsTable;
  evidence_documents: EvidenceDocumentsTable;
  evidence_events: EvidenceEventsTable;
  internal_notes: InternalNotesTable;
  presence: PresenceTable;
}
