import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvidenceDocument } from '../../src/shared/team/evidence';
import type { ActivityEntry, Change } from '../../src/shared/team/schemas';
import { verifyChain } from '../../src/team-server/activity-chain';
import { ALDER, BIRCH, startTeamStack, type Analyst, type TeamStack } from './support';

/** The shared evidence locker: bytes by sha256, immutable versions, replace and revoke as events. */
let stack: TeamStack;
beforeAll(async () => {
  stack = await startTeamStack();
});
afterAll(async () => stack?.close());

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const pdf = (size = 2000) =>
  Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(size), Buffer.from('\n%%EOF\n')]);

async function putBlob(
  who: Analyst,
  entity: string,
  bytes: Buffer,
  name = sha256(bytes),
  type = 'application/pdf',
) {
  const res = await fetch(`${stack.server.url}/v1/entities/${entity}/evidence/blobs/${name}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${stack.as(who).token}`, 'content-type': type },
    body: bytes,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function download(who: Analyst, entity: string, id: string) {
  const res = await fetch(`${stack.server.url}/v1/entities/${entity}/evidence/${id}/content`, {
    headers: { authorization: `Bearer ${stack.as(who).token}` },
  });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

const meta = (bytes: Buffer, extra: Record<string, unknown> = {}) => ({
  id: randomUUID(),
  sha256: sha256(bytes),
  fileName: 'passport-keller.pdf',
  documentType: 'passport',
  holder: { kind: 'person', name: 'Anna Keller' },
  issuedOn: '2024-03-01',
  expiresOn: '2034-02-28',
  ...extra,
});

async function add(who: Analyst, bytes: Buffer, extra: Record<string, unknown> = {}) {
  expect([200, 201]).toContain((await putBlob(who, ALDER, bytes)).status);
  const res = await stack
    .as(who)
    .post<EvidenceDocument>(`/v1/entities/${ALDER}/evidence`, meta(bytes, extra));
  expect(res.status).toBe(201);
  return res.body;
}

describe('shared evidence locker', () => {
  it('a maker stores a document once by sha256; every analyst of the entity lists and downloads the same bytes', async () => {
    const bytes = pdf(2_500_000); // more than two slices of the streamed download
    const doc = await add('maria.keller', bytes);
    expect(doc).toMatchObject({
      sha256: sha256(bytes),
      size: bytes.length,
      contentType: 'application/pdf',
      status: 'current',
      uploadedBy: 'maria.keller',
      holder: { kind: 'person', name: 'Anna Keller' },
      expiresOn: '2034-02-28',
    });
    // The same bytes again (another analyst, another document) are stored once.
    expect((await putBlob('jonas.weber', ALDER, bytes)).status).toBe(200);
    const blobs = await stack.sql.query(
      'SELECT count(*)::int AS n, max(stored_by) AS by FROM evidence_blobs WHERE sha256 = $1',
      [sha256(bytes)],
    );
    expect(blobs.rows).toEqual([{ n: 1, by: 'maria.keller' }]);

    // Lea is only a checker at Alder: she reads it all but cannot add.
    const listed = await stack
      .as('lea.fischer')
      .get<{ documents: EvidenceDocument[] }>(`/v1/entities/${ALDER}/evidence`);
    expect(listed.body.documents.map((d) => d.id)).toContain(doc.id);
    const { res, bytes: got } = await download('lea.fischer', ALDER, doc.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(`"${doc.sha256}"`);
    expect(sha256(got)).toBe(doc.sha256);
    expect(got.equals(bytes)).toBe(true);
    expect((await putBlob('lea.fischer', ALDER, pdf())).body).toMatchObject({ error: { code: 'forbidden' } });
    // Jonas holds no role at Birch: Birch's locker does not exist for him.
    expect((await stack.as('jonas.weber').get(`/v1/entities/${BIRCH}/evidence`)).status).toBe(404);
    expect((await download('jonas.weber', BIRCH, doc.id)).res.status).toBe(404);

    // A retry with the same id lands once; the same id for other content is refused.
    const again = await stack.as('maria.keller').post(`/v1/entities/${ALDER}/evidence`, {
      ...meta(bytes),
      id: doc.id,
    });
    expect(again.status).toBe(200);
    expect(
      (
        await stack
          .as('maria.keller')
          .post(`/v1/entities/${ALDER}/evidence`, { ...meta(bytes), id: doc.id, fileName: 'x.pdf' })
      ).body,
    ).toMatchObject({ error: { code: 'conflict' } });
    const rows = await stack.sql.query('SELECT count(*)::int AS n FROM evidence_documents WHERE id = $1', [
      doc.id,
    ]);
    expect(rows.rows).toEqual([{ n: 1 }]);
  });

  it('refuses bytes that are not what they claim, and a document naming bytes never stored', async () => {
    const bytes = pdf();
    expect((await putBlob('maria.keller', ALDER, bytes, sha256(pdf()))).body).toMatchObject({
      error: { code: 'hash_mismatch' },
    });
    expect((await putBlob('maria.keller', ALDER, bytes, sha256(bytes), 'image/png')).body).toMatchObject({
      error: { code: 'hash_mismatch' },
    });
    expect((await putBlob('maria.keller', ALDER, bytes, sha256(bytes), 'text/html')).status).toBe(415);
    const missing = await stack.as('maria.keller').post(`/v1/entities/${ALDER}/evidence`, meta(pdf()));
    expect(missing.body).toMatchObject({ error: { code: 'blob_missing' } });
    const huge = Buffer.alloc(25 * 1024 * 1024 + 1);
    expect((await putBlob('maria.keller', ALDER, huge, sha256(huge))).body).toMatchObject({
      error: { code: 'too_large' },
    });
    // The database itself refuses bytes stored under another hash, whoever writes.
    await expect(
      stack.sql.query(
        "INSERT INTO evidence_blobs (sha256, content_type, size, bytes, stored_by) VALUES ($1, 'application/pdf', $2, $3, 'maria.keller')",
        [sha256(pdf()), bytes.length, bytes],
      ),
    ).rejects.toMatchObject({ constraint: 'evidence_blobs_named_by_hash' });
  });

  it('replace and revoke are appended events: of two replacements of one version exactly one lands', async () => {
    const first = await add('maria.keller', pdf());
    const [b, c] = [pdf(), pdf()];
    await putBlob('maria.keller', ALDER, b);
    await putBlob('jonas.weber', ALDER, c);
    const [rb, rc] = await Promise.all([
      stack
        .as('maria.keller')
        .post<EvidenceDocument>(`/v1/entities/${ALDER}/evidence/${first.id}/replace`, meta(b)),
      stack
        .as('jonas.weber')
        .post<EvidenceDocument>(`/v1/entities/${ALDER}/evidence/${first.id}/replace`, meta(c)),
    ]);
    expect([rb.status, rc.status].sort()).toEqual([201, 409]);
    const winner = rb.status === 201 ? rb.body : rc.body;
    const loser = rb.status === 201 ? rc : rb;
    expect(loser.body).toMatchObject({ error: { code: 'superseded', holder: winner.uploadedBy } });
    expect(winner).toMatchObject({ replaces: first.id, status: 'current' });

    const all = await stack
      .as('jonas.weber')
      .get<{ documents: EvidenceDocument[] }>(`/v1/entities/${ALDER}/evidence?status=all`);
    expect(all.body.documents.find((d) => d.id === first.id)).toMatchObject({
      status: 'replaced',
      replacedBy: winner.id,
      endedBy: winner.uploadedBy,
    });
    const current = await stack
      .as('jonas.weber')
      .get<{ documents: EvidenceDocument[] }>(`/v1/entities/${ALDER}/evidence`);
    expect(current.body.documents.map((d) => d.id)).toContain(winner.id);
    expect(current.body.documents.map((d) => d.id)).not.toContain(first.id);

    // Revoke with a reason; again is harmless; a revoked version is never replaced.
    const revoked = await stack
      .as('jonas.weber')
      .post<EvidenceDocument>(`/v1/entities/${ALDER}/evidence/${winner.id}/revoke`, {
        reason: 'passport reported lost',
      });
    expect(revoked.body).toMatchObject({
      status: 'revoked',
      revokeReason: 'passport reported lost',
      endedBy: 'jonas.weber',
    });
    expect(
      (
        await stack
          .as('maria.keller')
          .post(`/v1/entities/${ALDER}/evidence/${winner.id}/revoke`, { reason: 'x' })
      ).status,
    ).toBe(200);
    const late = await stack
      .as('maria.keller')
      .post(`/v1/entities/${ALDER}/evidence/${winner.id}/replace`, meta(c));
    expect(late.body).toMatchObject({ error: { code: 'superseded' } });
    // The revoked version's bytes stay readable (audits, case files).
    expect((await download('lea.fischer', ALDER, winner.id)).res.status).toBe(200);

    const events = await stack.sql.query(
      'SELECT kind, actor FROM evidence_events WHERE document_id = ANY($1) ORDER BY seq',
      [[first.id, winner.id]],
    );
    expect(events.rows).toEqual([
      { kind: 'replaced', actor: winner.uploadedBy },
      { kind: 'revoked', actor: 'jonas.weber' },
    ]);
    // Nobody edits a stored version, its bytes or its events, not even with psql.
    await expect(
      stack.sql.query("UPDATE evidence_documents SET expires_on = '2099-01-01' WHERE id = $1", [first.id]),
    ).rejects.toMatchObject({ code: '23000' });
    await expect(stack.sql.query('DELETE FROM evidence_events')).rejects.toMatchObject({ code: '23000' });
    await expect(
      stack.sql.query("UPDATE evidence_blobs SET content_type = 'image/png' WHERE sha256 = $1", [
        first.sha256,
      ]),
    ).rejects.toMatchObject({ code: '23000' });
    await expect(
      stack.sql.query('DELETE FROM evidence_blobs WHERE sha256 = $1', [first.sha256]),
    ).rejects.toMatchObject({
      code: '23503',
    });
  });

  it('every change reaches the change feed and the chained activity log', async () => {
    const { last } = (await stack.as('lea.fischer').get<{ last: number }>('/v1/changes?since=0')).body;
    const doc = await add('jonas.weber', pdf());
    await stack
      .as('maria.keller')
      .post(`/v1/entities/${ALDER}/evidence/${doc.id}/revoke`, { reason: 'wrong holder' });
    const feed = await stack.as('lea.fischer').get<{ changes: Change[] }>(`/v1/changes?since=${last}`);
    expect(
      feed.body.changes.map((c) => [
        c.topic,
        c.topic === 'activity' ? (c.data as ActivityEntry).action : c.objectId,
      ]),
    ).toEqual([
      ['evidence', doc.id],
      ['activity', 'evidence.added'],
      ['evidence', doc.id],
      ['activity', 'evidence.revoked'],
    ]);
    expect((feed.body.changes[2]!.data as EvidenceDocument).status).toBe('revoked');
    const log = await stack
      .as('lea.fischer')
      .get<{ entries: ActivityEntry[] }>(`/v1/entities/${ALDER}/activity?since=0`);
    expect(verifyChain(log.body.entries)).toBeNull();
    expect(
      log.body.entries
        .filter((e) => e.object?.id === doc.id)
        .map((e) => [e.actor, e.action, e.detail['sha256']]),
    ).toEqual([
      ['jonas.weber', 'evidence.added', doc.sha256],
      ['maria.keller', 'evidence.revoked', doc.sha256],
    ]);
  });

  it('a download re-checks the sha256: bytes changed at rest never arrive whole', async () => {
    const bytes = pdf(1_500_000);
    const doc = await add('maria.keller', bytes);
    // Someone with the owner's rights switches the guards off and flips one byte.
    const c = await stack.sql.connect();
    try {
      await c.query('ALTER TABLE evidence_blobs DROP CONSTRAINT evidence_blobs_named_by_hash');
      await c.query('ALTER TABLE evidence_blobs DISABLE TRIGGER evidence_blobs_immutable');
      await c.query(
        'UPDATE evidence_blobs SET bytes = set_byte(bytes, 100, (get_byte(bytes, 100) + 1) % 256) WHERE sha256 = $1',
        [doc.sha256],
      );
      await c.query('ALTER TABLE evidence_blobs ENABLE TRIGGER evidence_blobs_immutable');
    } finally {
      c.release();
    }
    const res = await fetch(`${stack.server.url}/v1/entities/${ALDER}/evidence/${doc.id}/content`, {
      headers: { authorization: `Bearer ${stack.as('jonas.weber').token}` },
    });
    expect(res.status).toBe(200);
    let received = 0;
    const read = (async () => {
      const reader = res.body!.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return received;
        received += value.length;
      }
    })();
    await expect(read).rejects.toThrow();
    expect(received).toBeLessThan(bytes.length);
  });
});
