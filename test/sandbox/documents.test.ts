import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index';
import { DocumentInfo, Rfi, SandboxDocument, UploadUrlResponse } from '../../src/shared/api';
import { client, err, fx, start, type Json } from './helpers';

let sb: RunningSandbox;
let c: ReturnType<typeof client>;
let f: ReturnType<typeof fx>;

beforeAll(async () => {
  sb = await start({ uploadUrlTtlSeconds: 60, maxUploadBytes: 64 * 1024 });
  c = client(sb);
  f = fx(sb);
});
afterAll(async () => {
  await sb.close();
});

async function newRfi(): Promise<{ id: string; qid: string }> {
  const r = await c('POST', '/v1/sandbox/rfis', {
    body: {
      legal_entity_id: f.a.id,
      type: 'nominal_sub_account_kyc',
      related_id: f.acc(f.a, 'USD').id,
      questions: [{ question_type: 'identification.individual.passport', question_text: 'Passport please' }],
    },
  });
  const rfi = Rfi.parse(r.body);
  return { id: rfi.id, qid: rfi.questions[0]?.id ?? '' };
}

async function uploadUrl(related_id: string, content_type = 'application/pdf', token = f.adminA) {
  const r = await c('POST', '/v1/documents/upload-url', {
    token,
    body: { related_id, content_type, document_type: 'passport' },
  });
  return r;
}

const put = (url: string, body: Uint8Array | string, contentType?: string) =>
  fetch(url, { method: 'PUT', body, headers: contentType ? { 'content-type': contentType } : {} });

describe('documents', () => {
  it('signed URL → PUT stores the exact bytes with their sha256 → the response accepts the document id', async () => {
    const rfi = await newRfi();
    const r = await uploadUrl(rfi.id);
    expect(r.status).toBe(200);
    const u = UploadUrlResponse.parse(r.body);
    expect(u.url.startsWith(`${sb.url}/uploads/${u.id}?`)).toBe(true);
    expect(u.url).toMatch(/[?&]expires=\d+/);
    expect(u.url).toMatch(/[?&]sig=[A-Za-z0-9_-]+/);
    expect(Date.parse(u.expires_at) - Date.now()).toBeGreaterThan(55_000);
    expect(Date.parse(u.expires_at) - Date.now()).toBeLessThanOrEqual(60_000);

    const bytes = randomBytes(40_000);
    const res = await put(u.url, bytes, 'application/pdf');
    expect(res.status).toBe(200);
    const sha = createHash('sha256').update(bytes).digest('hex');
    expect(await res.json()).toEqual({ id: u.id, size_bytes: 40_000, sha256: sha });

    const stored = SandboxDocument.parse((await c('GET', `/v1/sandbox/documents/${u.id}`)).body);
    expect(stored).toMatchObject({
      id: u.id,
      sha256: sha,
      size_bytes: 40_000,
      content_type: 'application/pdf',
      related_id: rfi.id,
      uploaded: true,
    });

    const info = DocumentInfo.parse((await c('GET', `/v1/documents/${u.id}`, { token: f.viewerA })).body);
    expect(info).toMatchObject({ id: u.id, content_type: 'application/pdf', size_bytes: 40_000 });
    const dl = await fetch(info.url);
    expect(dl.status).toBe(200);
    expect(dl.headers.get('content-type')).toContain('application/pdf');
    expect(Buffer.from(await dl.arrayBuffer()).equals(bytes)).toBe(true);

    const resp = await c('POST', `/v1/rfis/${rfi.id}/questions/${rfi.qid}/responses`, {
      token: f.adminA,
      body: {
        question_type: 'identification.individual.passport',
        'identification.individual.passport': { response_text: '', document_ids: [u.id] },
      },
    });
    expect(resp.status, resp.text).toBe(200);
    const after = Rfi.parse((await c('GET', `/v1/rfis/${rfi.id}`, { token: f.adminA })).body);
    expect(after.questions[0]?.question_data.document_ids).toEqual([u.id]);
    // once used, the document cannot be replaced
    const reput = await put(u.url, 'x', 'application/pdf');
    expect(reput.status).toBe(422);
    expect(((await reput.json()) as { error: Json }).error.reason).toBe('DOCUMENT_IN_USE');
  });

  it('a re-PUT before use replaces the bytes (client retry); a streamed chunked body works', async () => {
    const rfi = await newRfi();
    const u = UploadUrlResponse.parse((await uploadUrl(rfi.id, 'image/png')).body);
    expect((await put(u.url, 'first', 'image/png')).status).toBe(200);
    const chunks = [randomBytes(10_000), randomBytes(20_000)];
    const stream = new ReadableStream<Uint8Array>({
      start(ctrl) {
        for (const ch of chunks) ctrl.enqueue(ch);
        ctrl.close();
      },
    });
    const res = await fetch(u.url, {
      method: 'PUT',
      body: stream,
      headers: { 'content-type': 'image/png' },
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(200);
    const sha = createHash('sha256').update(Buffer.concat(chunks)).digest('hex');
    const stored = SandboxDocument.parse((await c('GET', `/v1/sandbox/documents/${u.id}`)).body);
    expect(stored.sha256).toBe(sha);
    expect(stored.size_bytes).toBe(30_000);
  });

  it('streams a large body (20 MB, default 25 MB limit) to disk with the right sha256', async () => {
    const s2 = await start();
    try {
      const c2 = client(s2);
      const f2 = fx(s2);
      const rfiId = f2.a.rfi_ids[0] ?? '';
      const u = UploadUrlResponse.parse(
        (
          await c2('POST', '/v1/documents/upload-url', {
            token: f2.adminA,
            body: { related_id: rfiId, content_type: 'application/pdf', document_type: 'other' },
          })
        ).body,
      );
      const chunk = randomBytes(64 * 1024);
      const hash = createHash('sha256');
      let sent = 0;
      const total = 20 * 1024 * 1024;
      const stream = new ReadableStream<Uint8Array>({
        pull(ctrl) {
          if (sent >= total) return ctrl.close();
          hash.update(chunk);
          sent += chunk.length;
          ctrl.enqueue(chunk);
        },
      });
      const res = await fetch(u.url, {
        method: 'PUT',
        body: stream,
        headers: { 'content-type': 'application/pdf' },
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(200);
      expect(res.headers.get('date')).toBeTruthy();
      const stored = SandboxDocument.parse((await c2('GET', `/v1/sandbox/documents/${u.id}`)).body);
      expect(stored.size_bytes).toBe(total);
      expect(stored.sha256).toBe(hash.digest('hex'));
    } finally {
      await s2.close();
    }
  });

  it('Content-Type mismatch → 400 CONTENT_TYPE_MISMATCH; nothing stored', async () => {
    const rfi = await newRfi();
    const u = UploadUrlResponse.parse((await uploadUrl(rfi.id)).body);
    for (const ct of ['image/png', undefined]) {
      const res = await put(u.url, 'abc', ct);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: Json };
      expect(body.error).toMatchObject({
        code: '400',
        status: 'INVALID_ARGUMENT',
        reason: 'CONTENT_TYPE_MISMATCH',
      });
    }
    expect(SandboxDocument.parse((await c('GET', `/v1/sandbox/documents/${u.id}`)).body).uploaded).toBe(
      false,
    );
    // parameters of the media type are tolerated
    expect((await put(u.url, 'abc', 'Application/PDF; name=x')).status).toBe(200);
  });

  it('after expires_at (clock) → 403 UPLOAD_URL_EXPIRED; a tampered signature → 403 UPLOAD_URL_INVALID', async () => {
    const rfi = await newRfi();
    const u = UploadUrlResponse.parse((await uploadUrl(rfi.id)).body);
    const tampered = u.url.replace(/sig=[^&]+/, 'sig=AAAA');
    const t = await put(tampered, 'abc', 'application/pdf');
    expect(t.status).toBe(403);
    expect(((await t.json()) as { error: Json }).error.reason).toBe('UPLOAD_URL_INVALID');
    const longer = u.url.replace(/expires=(\d+)/, (_m, e: string) => `expires=${Number(e) + 3600}`);
    expect((await put(longer, 'abc', 'application/pdf')).status).toBe(403);
    await c('POST', '/v1/sandbox/clock', { body: { advance_seconds: 61 } });
    const res = await put(u.url, 'abc', 'application/pdf');
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: Json }).error).toMatchObject({
      code: '403',
      reason: 'UPLOAD_URL_EXPIRED',
    });
    expect(SandboxDocument.parse((await c('GET', `/v1/sandbox/documents/${u.id}`)).body).uploaded).toBe(
      false,
    );
  });

  it('over the size limit → 413 (declared length and streamed body); an empty body → 400', async () => {
    const rfi = await newRfi();
    const u = UploadUrlResponse.parse((await uploadUrl(rfi.id)).body);
    const big = await put(u.url, randomBytes(64 * 1024 + 1), 'application/pdf');
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: Json }).error).toMatchObject({
      code: '413',
      reason: 'UPLOAD_TOO_LARGE',
    });
    const stream = new ReadableStream<Uint8Array>({
      start(ctrl) {
        for (let i = 0; i < 5; i++) ctrl.enqueue(randomBytes(16 * 1024));
        ctrl.close();
      },
    });
    const chunked = await fetch(u.url, {
      method: 'PUT',
      body: stream,
      headers: { 'content-type': 'application/pdf' },
      duplex: 'half',
    } as RequestInit).catch((e: unknown) => e);
    if (chunked instanceof Response) expect(chunked.status).toBe(413);
    expect(SandboxDocument.parse((await c('GET', `/v1/sandbox/documents/${u.id}`)).body).uploaded).toBe(
      false,
    );
    const empty = await put(u.url, '', 'application/pdf');
    expect(empty.status).toBe(400);
  });

  it('upload-url refusals: 400 content type / document type, 404 RFI of another entity, 403 viewer', async () => {
    const rfi = await newRfi();
    const bad = await uploadUrl(rfi.id, 'text/html');
    expect(bad.status).toBe(400);
    expect(err(bad).message).toContain('content_type: must be one of application/pdf, image/png, image/jpeg');
    const dt = await c('POST', '/v1/documents/upload-url', {
      token: f.adminA,
      body: { related_id: rfi.id, content_type: 'image/png', document_type: 'selfie' },
    });
    expect(err(dt).message).toContain('document_type');
    expect((await uploadUrl(rfi.id, 'application/pdf', f.adminB)).status).toBe(404);
    expect((await uploadUrl(rfi.id, 'application/pdf', f.viewerA)).status).toBe(403);
    expect((await c('GET', '/v1/documents/doc_missing', { token: f.adminA })).status).toBe(404);
  });

  it('a document of another RFI or not yet uploaded is refused with DOCUMENT_NOT_UPLOADED', async () => {
    const r1 = await newRfi();
    const r2 = await newRfi();
    const u1 = UploadUrlResponse.parse((await uploadUrl(r1.id)).body);
    const send = (rfi: { id: string; qid: string }, id: string) =>
      c('POST', `/v1/rfis/${rfi.id}/questions/${rfi.qid}/responses`, {
        token: f.adminA,
        body: {
          question_type: 'identification.individual.passport',
          'identification.individual.passport': { response_text: '', document_ids: [id] },
        },
      });
    expect(err(await send(r1, u1.id)).reason).toBe('DOCUMENT_NOT_UPLOADED');
    await put(u1.url, 'pdf', 'application/pdf');
    expect(err(await send(r2, u1.id)).reason).toBe('DOCUMENT_NOT_UPLOADED');
    expect((await send(r1, u1.id)).status).toBe(200);
  });
});
