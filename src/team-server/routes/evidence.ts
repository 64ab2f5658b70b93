/**
 * The shared evidence locker: a maker or admin uploads the bytes (stored once by sha256), then
 * names them as a document version with holder, type and expiry; every analyst with a role in the
 * legal entity lists and downloads them. A version never changes: replacing or revoking it is an
 * event appended after it, once per version (the database's unique index decides between two
 * analysts ending the same version at once). Each change lands in the change feed and the
 * activity log in the same transaction.
 */
import type { FastifyInstance } from 'fastify';
import type { Transaction } from 'kysely';
import { z } from 'zod';
import { bankId } from '../../shared/api/common';
import {
  DEFAULT_MAX_UPLOAD_BYTES,
  UPLOAD_CONTENT_TYPES,
  type UploadContentType,
} from '../../shared/catalogue';
import {
  AddEvidenceBody,
  EvidenceListQuery,
  RevokeEvidenceBody,
  type EvidenceDocument,
} from '../../shared/team/evidence';
import { Sha256Hex } from '../../shared/team/schemas';
import {
  ANY_ROLE,
  parse,
  recordChange,
  requireRole,
  sqlState,
  TeamError,
  type TeamContext,
  EntityParams,
} from '../context';
import type { TeamDb } from '../db';
import type { TeamDatabase } from '../db/schema';
import { storeBlob, streamBlob } from '../evidence-blobs';
import { appendActivityIn } from './activity';

const BlobParams = z.strictObject({ entityId: bankId, sha256: Sha256Hex });
const DocParams = z.strictObject({ entityId: bankId, documentId: z.uuid() });
const UPLOADERS = ['maker', 'admin'] as const;

type Db = TeamDb | Transaction<TeamDatabase>;

/** Every version with its bytes' size and type and how it ended (if it did); never the bytes. */
function documents(db: Db) {
  return db
    .selectFrom('evidence_documents as d')
    .innerJoin('evidence_blobs as b', 'b.sha256', 'd.sha256')
    .leftJoin('evidence_events as e', 'e.document_id', 'd.id')
    .select([
      'd.id',
      'd.legal_entity_id',
      'd.sha256',
      'b.size',
      'b.content_type',
      'd.file_name',
      'd.document_type',
      'd.holder_kind',
      'd.holder_name',
      'd.issued_on',
      'd.expires_on',
      'd.replaces',
      'd.uploaded_by',
      'd.uploaded_at',
      'e.kind as ended_kind',
      'e.actor as ended_by',
      'e.at as ended_at',
      'e.successor',
      'e.reason',
    ]);
}
type DocRow = Awaited<ReturnType<ReturnType<typeof documents>['executeTakeFirstOrThrow']>>;

export function evidenceToWire(r: DocRow): EvidenceDocument {
  return {
    id: r.id,
    legalEntityId: r.legal_entity_id,
    sha256: r.sha256,
    size: r.size,
    contentType: r.content_type as UploadContentType,
    fileName: r.file_name,
    documentType: r.document_type,
    holder: { kind: r.holder_kind as 'person' | 'company', name: r.holder_name },
    issuedOn: r.issued_on,
    expiresOn: r.expires_on,
    replaces: r.replaces,
    uploadedBy: r.uploaded_by,
    uploadedAt: r.uploaded_at.toISOString(),
    status: r.ended_kind === 'replaced' ? 'replaced' : r.ended_kind === 'revoked' ? 'revoked' : 'current',
    endedBy: r.ended_by,
    endedAt: r.ended_at ? r.ended_at.toISOString() : null,
    replacedBy: r.successor,
    revokeReason: r.reason,
  };
}

async function loadDocument(db: Db, entityId: string, id: string): Promise<EvidenceDocument> {
  const row = await documents(db)
    .where('d.legal_entity_id', '=', entityId)
    .where('d.id', '=', id)
    .executeTakeFirst();
  if (!row) throw new TeamError(404, 'not_found', `no document ${id} in ${entityId}`);
  return evidenceToWire(row);
}

function sameVersion(doc: EvidenceDocument, body: AddEvidenceBody, replaces: string | null): boolean {
  return (
    doc.sha256 === body.sha256 &&
    doc.fileName === body.fileName &&
    doc.documentType === body.documentType &&
    doc.holder.kind === body.holder.kind &&
    doc.holder.name === body.holder.name &&
    doc.issuedOn === body.issuedOn &&
    doc.expiresOn === body.expiresOn &&
    doc.replaces === replaces
  );
}

function superseded(doc: EvidenceDocument): TeamError {
  return new TeamError(
    409,
    'superseded',
    doc.status === 'replaced'
      ? `this version was replaced by ${doc.replacedBy ?? 'another'}: read the locker again`
      : 'this version was revoked',
    doc.endedBy,
  );
}

/** Records a version (new, or replacing `replaces`) with its event, changes and activity entry. */
async function addVersion(
  ctx: TeamContext,
  subject: string,
  entityId: string,
  body: AddEvidenceBody,
  replaces: string | null,
): Promise<{ doc: EvidenceDocument; created: boolean }> {
  const existing = await documents(ctx.db).where('d.id', '=', body.id).executeTakeFirst();
  if (existing) {
    const doc = evidenceToWire(existing);
    if (doc.legalEntityId === entityId && sameVersion(doc, body, replaces)) return { doc, created: false };
    throw new TeamError(409, 'conflict', `the document id ${body.id} names another version`);
  }
  try {
    const doc = await ctx.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('evidence_documents')
        .values({
          id: body.id,
          legal_entity_id: entityId,
          sha256: body.sha256,
          file_name: body.fileName,
          document_type: body.documentType,
          holder_kind: body.holder.kind,
          holder_name: body.holder.name,
          issued_on: body.issuedOn,
          expires_on: body.expiresOn,
          replaces,
          uploaded_by: subject,
        })
        .execute();
      if (replaces)
        await trx
          .insertInto('evidence_events')
          .values({
            legal_entity_id: entityId,
            document_id: replaces,
            kind: 'replaced',
            successor: body.id,
            actor: subject,
          })
          .execute();
      const added = await loadDocument(trx, entityId, body.id);
      if (replaces) {
        const old = await loadDocument(trx, entityId, replaces);
        await recordChange(trx, { legalEntityId: entityId, topic: 'evidence', objectId: old.id, data: old });
      }
      await recordChange(trx, {
        legalEntityId: entityId,
        topic: 'evidence',
        objectId: added.id,
        data: added,
      });
      await appendActivityIn(trx, {
        actor: subject,
        legalEntityId: entityId,
        action: replaces ? 'evidence.replaced' : 'evidence.added',
        object: { kind: 'evidence', id: added.id },
        detail: {
          sha256: added.sha256,
          documentType: added.documentType,
          size: String(added.size),
          ...(added.expiresOn ? { expiresOn: added.expiresOn } : {}),
          ...(replaces ? { replaces } : {}),
        },
      });
      return added;
    });
    return { doc, created: true };
  } catch (err) {
    const state = sqlState(err);
    const constraint = String((err as { constraint?: string }).constraint);
    if (state === '23503' && constraint.includes('sha256'))
      throw new TeamError(409, 'blob_missing', `no bytes stored for ${body.sha256}: upload them first`);
    if (state === '23505' && replaces) throw superseded(await loadDocument(ctx.db, entityId, replaces));
    if (state === '23505') return addVersion(ctx, subject, entityId, body, replaces);
    throw err;
  }
}

function registerWrites(app: FastifyInstance, ctx: TeamContext): void {
  app.addContentTypeParser(
    [...UPLOAD_CONTENT_TYPES],
    { parseAs: 'buffer', bodyLimit: DEFAULT_MAX_UPLOAD_BYTES },
    (_request, body, done) => done(null, body),
  );

  /** The bytes, named by their sha256 (idempotent: the same bytes again change nothing). */
  app.put(
    '/v1/entities/:entityId/evidence/blobs/:sha256',
    { bodyLimit: DEFAULT_MAX_UPLOAD_BYTES },
    async (request, reply) => {
      const caller = ctx.caller(request);
      const { entityId, sha256 } = parse(BlobParams, request.params, 'path');
      await requireRole(ctx.db, caller, entityId, UPLOADERS);
      const type = String(request.headers['content-type'] ?? '')
        .split(';')[0]
        ?.trim();
      const contentType = UPLOAD_CONTENT_TYPES.find((t) => t === type);
      if (!contentType || !Buffer.isBuffer(request.body))
        throw new TeamError(400, 'bad_request', `send the bytes as ${UPLOAD_CONTENT_TYPES.join(', ')}`);
      const created = await storeBlob(ctx.db, {
        sha256,
        contentType,
        bytes: request.body,
        storedBy: caller.subject,
      });
      void reply.status(created ? 201 : 200);
      return { sha256, size: request.body.length, contentType };
    },
  );

  app.post('/v1/entities/:entityId/evidence', async (request, reply) => {
    const caller = ctx.caller(request);
    const { entityId } = parse(EntityParams, request.params, 'path');
    const body = parse(AddEvidenceBody, request.body, 'body');
    await requireRole(ctx.db, caller, entityId, UPLOADERS);
    const { doc, created } = await addVersion(ctx, caller.subject, entityId, body, null);
    void reply.status(created ? 201 : 200);
    return doc;
  });

  app.post('/v1/entities/:entityId/evidence/:documentId/replace', async (request, reply) => {
    const caller = ctx.caller(request);
    const { entityId, documentId } = parse(DocParams, request.params, 'path');
    const body = parse(AddEvidenceBody, request.body, 'body');
    await requireRole(ctx.db, caller, entityId, UPLOADERS);
    const old = await loadDocument(ctx.db, entityId, documentId);
    if (old.status !== 'current' && old.replacedBy !== body.id) throw superseded(old);
    const { doc, created } = await addVersion(ctx, caller.subject, entityId, body, documentId);
    void reply.status(created ? 201 : 200);
    return doc;
  });

  app.post('/v1/entities/:entityId/evidence/:documentId/revoke', async (request) => {
    const caller = ctx.caller(request);
    const { entityId, documentId } = parse(DocParams, request.params, 'path');
    const { reason } = parse(RevokeEvidenceBody, request.body, 'body');
    await requireRole(ctx.db, caller, entityId, UPLOADERS);
    const before = await loadDocument(ctx.db, entityId, documentId);
    if (before.status === 'revoked') return before;
    if (before.status === 'replaced') throw superseded(before);
    try {
      return await ctx.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('evidence_events')
          .values({
            legal_entity_id: entityId,
            document_id: documentId,
            kind: 'revoked',
            reason,
            actor: caller.subject,
          })
          .execute();
        const doc = await loadDocument(trx, entityId, documentId);
        await recordChange(trx, { legalEntityId: entityId, topic: 'evidence', objectId: doc.id, data: doc });
        await appendActivityIn(trx, {
          actor: caller.subject,
          legalEntityId: entityId,
          action: 'evidence.revoked',
          object: { kind: 'evidence', id: doc.id },
          detail: { sha256: doc.sha256, documentType: doc.documentType },
        });
        return doc;
      });
    } catch (err) {
      if (sqlState(err) !== '23505') throw err;
      const now = await loadDocument(ctx.db, entityId, documentId);
      if (now.status === 'revoked') return now;
      throw superseded(now);
    }
  });
}

function registerReads(app: FastifyInstance, ctx: TeamContext): void {
  app.get('/v1/entities/:entityId/evidence', async (request) => {
    const { entityId } = parse(EntityParams, request.params, 'path');
    const { status } = parse(EvidenceListQuery, request.query, 'query');
    await requireRole(ctx.db, ctx.caller(request), entityId, ANY_ROLE);
    let q = documents(ctx.db).where('d.legal_entity_id', '=', entityId);
    if (status === 'current') q = q.where('e.seq', 'is', null);
    const rows = await q.orderBy('d.uploaded_at').orderBy('d.id').execute();
    return { documents: rows.map(evidenceToWire) };
  });

  app.get('/v1/entities/:entityId/evidence/:documentId', async (request) => {
    const { entityId, documentId } = parse(DocParams, request.params, 'path');
    await requireRole(ctx.db, ctx.caller(request), entityId, ANY_ROLE);
    return loadDocument(ctx.db, entityId, documentId);
  });

  /** The bytes, streamed and checked against the sha256 as they go (any version, for audits). */
  app.get('/v1/entities/:entityId/evidence/:documentId/content', async (request, reply) => {
    const { entityId, documentId } = parse(DocParams, request.params, 'path');
    await requireRole(ctx.db, ctx.caller(request), entityId, ANY_ROLE);
    const doc = await loadDocument(ctx.db, entityId, documentId);
    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': doc.contentType,
      'content-length': String(doc.size),
      etag: `"${doc.sha256}"`,
      'repr-digest': `sha-256=:${Buffer.from(doc.sha256, 'hex').toString('base64')}:`,
      'cache-control': 'private, no-store',
      'x-content-type-options': 'nosniff',
      'content-disposition': 'attachment',
    });
    const ok = await streamBlob(ctx.db, doc, reply.raw).catch(() => false);
    if (!ok)
      request.log.error(
        { entityId, documentId, sha256: doc.sha256 },
        'evidence bytes do not match their sha256 (or the client left): download cut',
      );
  });
}

export function registerEvidenceRoutes(app: FastifyInstance, ctx: TeamContext): void {
  registerWrites(app, ctx);
  registerReads(app, ctx);
}
