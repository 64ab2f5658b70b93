/**
 * The team's shared evidence locker, for the workstation: the current documents of each legal
 * entity of the analyst's team (read from the team server, kept current by the change feed's
 * `evidence` changes), a document of the analyst's own locker shared to the team (its bytes
 * uploaded by their sha256, then the version naming them; queued in the share outbox while the
 * server is away and shown as pending), and a shared document's bytes for an answer, checked
 * against the sha256 the team server names before anything uses them.
 */
import { createHash, randomUUID } from 'node:crypto';
import { EvidenceDocument, EvidenceList, StoredBlob } from '../../shared/team/evidence';
import type { Change } from '../../shared/team/schemas';
import { AppFailure } from '../../shared/ipc/errors';
import type { Logger } from '../infra/log';
import { TeamApiError, TeamUnreachable, type TeamHttp } from './api';
import type { PersonView } from './notes';
import type { ShareJob, ShareOutbox } from './share-outbox';

/** A document of the analyst's own locker, as it is shared (read in main, never by the page). */
export interface LocalDocument {
  lockerId: string;
  fileName: string;
  contentType: string;
  documentType: string;
  holder: { kind: 'person' | 'company'; name: string };
  issuedOn: string | null;
  expiresOn: string | null;
  bytes: Buffer;
}

export interface SharedDocumentView {
  id: string;
  fileName: string;
  documentType: string;
  holder: { kind: 'person' | 'company'; name: string };
  issuedOn: string | null;
  expiresOn: string | null;
  sizeBytes: number;
  sha256: string;
  addedBy: PersonView;
  addedAt: string;
  /** Shared here, waiting for the team server. */
  pending: boolean;
}

export interface TeamEvidenceDeps {
  http: TeamHttp;
  log: Logger;
  outbox: ShareOutbox;
  me(): string | null;
  nameOf(legalEntityId: string, subject: string): string;
  /** The analyst's own locker document (its current version's bytes, checked by the locker). */
  readLocal(lockerId: string): Promise<LocalDocument>;
  onChange(legalEntityId: string): void;
}

export interface TeamEvidence {
  /** The entity's current shared documents (the last ones read when the server is away). */
  list(legalEntityId: string): Promise<{ documents: SharedDocumentView[]; offline: boolean }>;
  share(legalEntityId: string, lockerId: string): Promise<SharedDocumentView>;
  /** A shared document's bytes, whose sha256 is the one the team server names. */
  download(legalEntityId: string, documentId: string): Promise<{ document: EvidenceDocument; bytes: Buffer }>;
  send(job: ShareJob): Promise<void>;
  apply(change: Change): void;
  clear(): void;
}

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const base = (legalEntityId: string): string => `/v1/entities/${encodeURIComponent(legalEntityId)}/evidence`;

export function createTeamEvidence(deps: TeamEvidenceDeps): TeamEvidence {
  const known = new Map<string, Map<string, EvidenceDocument>>();

  const person = (legalEntityId: string, subject: string): PersonView => ({
    subject,
    name: deps.nameOf(legalEntityId, subject),
    isYou: subject === deps.me(),
  });
  const remember = (d: EvidenceDocument): void => {
    const m = known.get(d.legalEntityId) ?? new Map<string, EvidenceDocument>();
    if (d.status === 'current') m.set(d.id, d);
    else m.delete(d.id);
    known.set(d.legalEntityId, m);
  };
  const views = (legalEntityId: string): SharedDocumentView[] => {
    const stored = [...(known.get(legalEntityId)?.values() ?? [])].map((d): SharedDocumentView => ({
      id: d.id,
      fileName: d.fileName,
      documentType: d.documentType,
      holder: d.holder,
      issuedOn: d.issuedOn,
      expiresOn: d.expiresOn,
      sizeBytes: d.size,
      sha256: d.sha256,
      addedBy: person(legalEntityId, d.uploadedBy),
      addedAt: d.uploadedAt,
      pending: false,
    }));
    const ids = new Set(stored.map((d) => d.id));
    const waiting = deps.outbox
      .pending()
      .filter((j): j is ShareJob => j.what === 'share' && j.legalEntityId === legalEntityId && !ids.has(j.id))
      .map((j): SharedDocumentView => ({
        id: j.id,
        fileName: j.fileName,
        documentType: j.documentType,
        holder: { kind: j.holderKind, name: j.holderName },
        issuedOn: j.issuedOn,
        expiresOn: j.expiresOn,
        sizeBytes: j.sizeBytes,
        sha256: j.sha256,
        addedBy: person(legalEntityId, j.subject),
        addedAt: j.createdAt,
        pending: true,
      }));
    return [...stored, ...waiting].sort(
      (a, b) =>
        (a.expiresOn ?? '9999').localeCompare(b.expiresOn ?? '9999') || a.fileName.localeCompare(b.fileName),
    );
  };

  const service: TeamEvidence = {
    async list(legalEntityId) {
      try {
        const page = await deps.http.call('GET', `${base(legalEntityId)}?status=current`, EvidenceList);
        known.set(legalEntityId, new Map(page.documents.map((d) => [d.id, d])));
        return { documents: views(legalEntityId), offline: false };
      } catch (err) {
        if (!(err instanceof TeamUnreachable)) throw err;
        return { documents: views(legalEntityId), offline: true };
      }
    },
    async share(legalEntityId, lockerId) {
      const subject = deps.me() ?? '';
      const local = await deps.readLocal(lockerId);
      const now = new Date().toISOString();
      const job: ShareJob = {
        id: randomUUID(),
        createdAt: now,
        updatedAt: now,
        failures: 0,
        nextAttemptAt: null,
        what: 'share',
        legalEntityId,
        lockerId,
        sha256: sha256(local.bytes),
        fileName: local.fileName,
        documentType: local.documentType,
        holderKind: local.holder.kind,
        holderName: local.holder.name,
        issuedOn: local.issuedOn,
        expiresOn: local.expiresOn,
        sizeBytes: local.bytes.length,
        subject,
      };
      await deps.outbox.submit(job);
      return views(legalEntityId).find((d) => d.id === job.id) ?? views(legalEntityId)[0]!;
    },
    async send(job) {
      // The bytes are read again: what is sent is what the locker holds and the job names.
      const local = await deps.readLocal(job.lockerId);
      if (sha256(local.bytes) !== job.sha256)
        throw new TeamApiError(
          409,
          'conflict',
          `“${job.fileName}” changed in your locker after you shared it; share it again.`,
        );
      await deps.http
        .bytes(
          'PUT',
          `${base(job.legalEntityId)}/blobs/${job.sha256}`,
          { 'content-type': local.contentType },
          local.bytes,
        )
        .then((answer) => StoredBlob.parse(JSON.parse(Buffer.from(answer).toString('utf8'))));
      const doc = await deps.http.call('POST', base(job.legalEntityId), EvidenceDocument, {
        id: job.id,
        sha256: job.sha256,
        fileName: job.fileName,
        documentType: job.documentType,
        holder: { kind: job.holderKind, name: job.holderName },
        issuedOn: job.issuedOn,
        expiresOn: job.expiresOn,
      });
      remember(doc);
    },
    async download(legalEntityId, documentId) {
      const doc = await deps.http.call(
        'GET',
        `${base(legalEntityId)}/${encodeURIComponent(documentId)}`,
        EvidenceDocument,
      );
      if (doc.status !== 'current')
        throw new AppFailure({
          kind: 'conflict',
          reason: 'EVIDENCE_SUPERSEDED',
          message: `“${doc.fileName}” was ${doc.status} in the team’s locker; use its current version.`,
        });
      const bytes = Buffer.from(
        await deps.http.bytes('GET', `${base(legalEntityId)}/${encodeURIComponent(documentId)}/content`, {}),
      );
      if (bytes.length !== doc.size || sha256(bytes) !== doc.sha256) {
        deps.log.warn('team: shared evidence bytes do not match their sha256', { documentId });
        throw new AppFailure({
          kind: 'server',
          reason: 'EVIDENCE_HASH_MISMATCH',
          message: `“${doc.fileName}” arrived from the team server damaged (its sha256 does not match); nothing was used. Try again.`,
        });
      }
      return { document: doc, bytes };
    },
    apply(change) {
      if (change.topic !== 'evidence') return;
      const d = EvidenceDocument.safeParse(change.data);
      if (d.success) remember(d.data);
      deps.onChange(change.legalEntityId);
    },
    clear() {
      known.clear();
    },
  };
  return service;
}
