/**
 * Signed upload/download URLs pointing at the sandbox itself and the streaming PUT: the body is
 * written to disk chunk by chunk while its sha256 is computed, never held in memory; it aborts at
 * the size limit with 413.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SignedUrlQuery, UploadParams } from '../shared/api/documents';
import type { Bank, UrlSigner } from './bank';
import { ApiError } from './errors';
import type { Doc } from './model';
import { sendError, toApiError } from './server';

export function makeSigner(
  key: Buffer,
  baseUrl: () => string,
): UrlSigner & {
  verify(method: 'PUT' | 'GET', id: string, expires: string, sig: string): boolean;
} {
  const mac = (method: string, id: string, expires: string) =>
    createHmac('sha256', key).update(`${method}\n${id}\n${expires}`).digest('base64url');
  return {
    uploadUrl(doc: Doc) {
      const e = String(Math.floor(doc.expiresAt / 1000));
      return `${baseUrl()}/uploads/${encodeURIComponent(doc.id)}?expires=${e}&sig=${mac('PUT', doc.id, e)}`;
    },
    downloadUrl(doc: Doc, expiresAtMs: number) {
      const e = String(Math.floor(expiresAtMs / 1000));
      return `${baseUrl()}/uploads/${encodeURIComponent(doc.id)}?expires=${e}&sig=${mac('GET', doc.id, e)}`;
    },
    verify(method, id, expires, sig) {
      const want = Buffer.from(mac(method, id, expires));
      const got = Buffer.from(sig);
      return want.length === got.length && timingSafeEqual(want, got);
    },
  };
}

function mediaType(h: string | undefined): string {
  return (h ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

export function registerUploads(
  app: FastifyInstance,
  deps: { bank: Bank; dataDir: string; signer: ReturnType<typeof makeSigner> },
): void {
  const { bank, dataDir, signer } = deps;

  const check = (req: FastifyRequest, method: 'PUT' | 'GET'): Doc => {
    const p = UploadParams.safeParse(req.params);
    const q = SignedUrlQuery.safeParse(req.query ?? {});
    if (!p.success) throw new ApiError(404, 'document not found');
    if (!q.success)
      throw new ApiError(403, 'signed URL: missing or malformed expires/sig', 'UPLOAD_URL_INVALID');
    const doc = bank.state.docs.get(p.data.documentID);
    if (!doc) throw new ApiError(404, `document ${p.data.documentID} not found`);
    if (!signer.verify(method, doc.id, q.data.expires, q.data.sig)) {
      throw new ApiError(403, 'signed URL: signature does not match', 'UPLOAD_URL_INVALID');
    }
    if (Number.parseInt(q.data.expires, 10) * 1000 <= bank.state.now()) {
      throw new ApiError(403, 'signed URL: expired; ask for a new upload URL', 'UPLOAD_URL_EXPIRED');
    }
    return doc;
  };

  app.register(async (inst) => {
    inst.removeAllContentTypeParsers();
    inst.addContentTypeParser('*', (_req, payload, done) => done(null, payload));

    inst.put('/uploads/:documentID', async (req: FastifyRequest, reply: FastifyReply) => {
      const doc = check(req, 'PUT');
      if (doc.usedBy !== null) {
        throw new ApiError(422, `document ${doc.id} is already used in a response`, 'DOCUMENT_IN_USE');
      }
      const ct = mediaType(req.headers['content-type']);
      if (ct !== doc.contentType) {
        throw new ApiError(
          400,
          `Content-Type: must be ${doc.contentType} as declared for this upload URL (got ${ct || 'none'})`,
          'CONTENT_TYPE_MISMATCH',
        );
      }
      const max = bank.state.options.maxUploadBytes;
      const declared = req.headers['content-length'];
      if (declared !== undefined && Number(declared) > max) {
        reply.header('connection', 'close');
        throw new ApiError(413, `body: larger than the ${max}-byte limit`, 'UPLOAD_TOO_LARGE');
      }
      const src = req.body as Readable | undefined;
      if (!src || typeof (src as Readable).on !== 'function') {
        throw new ApiError(400, 'body: empty upload');
      }
      doc.attempts++;
      const tmp = path.join(dataDir, `${doc.id}.${doc.attempts}.part`);
      const hash = createHash('sha256');
      let size = 0;
      try {
        await new Promise<void>((resolve, reject) => {
          const out = createWriteStream(tmp);
          let failed = false;
          const fail = (e: unknown) => {
            if (failed) return;
            failed = true;
            out.destroy();
            reject(e);
          };
          src.on('data', (chunk: Buffer) => {
            if (failed) return;
            size += chunk.length;
            if (size > max) {
              reply.header('connection', 'close');
              fail(new ApiError(413, `body: larger than the ${max}-byte limit`, 'UPLOAD_TOO_LARGE'));
              src.resume();
              return;
            }
            hash.update(chunk);
            if (!out.write(chunk)) {
              src.pause();
              out.once('drain', () => src.resume());
            }
          });
          src.on('end', () => {
            if (!failed) out.end(() => resolve());
          });
          src.on('error', fail);
          src.on('close', () => {
            if (!src.readableEnded) fail(new ApiError(400, 'body: upload interrupted'));
          });
          out.on('error', fail);
        });
      } catch (err) {
        await unlink(tmp).catch(() => {});
        throw err;
      }
      if (size === 0) {
        await unlink(tmp).catch(() => {});
        throw new ApiError(400, 'body: empty upload');
      }
      // A re-PUT before use replaces the earlier bytes (a client retrying its upload).
      if (doc.usedBy !== null) {
        await unlink(tmp).catch(() => {});
        throw new ApiError(422, `document ${doc.id} is already used in a response`, 'DOCUMENT_IN_USE');
      }
      const final = path.join(dataDir, `${doc.id}.bin`);
      await rename(tmp, final);
      doc.path = final;
      doc.sizeBytes = size;
      doc.sha256 = hash.digest('hex');
      doc.uploaded = true;
      return reply
        .code(200)
        .type('application/json')
        .header('etag', `"${doc.sha256}"`)
        .send(JSON.stringify({ id: doc.id, size_bytes: size, sha256: doc.sha256 }));
    });

    inst.get('/uploads/:documentID', async (req: FastifyRequest, reply: FastifyReply) => {
      const doc = check(req, 'GET');
      if (!doc.uploaded || !doc.path) throw new ApiError(404, `document ${doc.id} has no content yet`);
      return reply
        .code(200)
        .type(doc.contentType)
        .header('content-length', String(doc.sizeBytes ?? 0))
        .send(createReadStream(doc.path));
    });

    inst.setErrorHandler((err, _req, reply) => {
      if ((err as { code?: string }).code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
        return sendError(
          reply,
          new ApiError(400, 'Content-Type: missing or invalid', 'CONTENT_TYPE_MISMATCH'),
        );
      }
      return sendError(reply, toApiError(err));
    });
  });
}
