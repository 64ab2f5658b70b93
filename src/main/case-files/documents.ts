/**
 * A case file's documents: which documents an RFI holds (each with who sent it), and one
 * document streamed from the bank's signed download URL to a private temp file, hashed on the way
 * (memory stays flat whatever its size).
 */

import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Rfi } from '../../shared/api/rfis';
import { AppFailure } from '../../shared/ipc/errors';
import type { BankClient } from '../bank/client';
import { privateFileMode } from '../infra/durable-file';
import type { BlobCodec } from '../infra/sealed-blob';
import type { JournalUpload } from './journal';

export interface DocRef {
  documentId: string;
  rfiId: string;
  questionId: string | null;
  /** Who sent it: customer, staff, system, or the question itself (a staff attachment). */
  from: string;
  at: string;
}

export interface DocInfo extends DocRef {
  name: string;
  documentType: string | null;
  contentType: string;
  sizeBytes: number | null;
  sha256: string | null;
  uploadedAt: string | null;
  problem: string | null;
  file: string | null;
}

export type DocumentBank = Pick<BankClient, 'getDocument' | 'downloadDocument'>;

/** A response's text (its parts joined) and the documents it sent. */
export const textOf = (
  r: Rfi['questions'][number]['responses'][number],
): { text: string; documentIds: string[] } => {
  const parts = Object.values(r.response);
  return {
    text: parts.map((p) => p.response_text).join('\n'),
    documentIds: parts.flatMap((p) => p.document_ids),
  };
};

/** A file name part: no folders, no control characters, short. */
export function cleanName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? name;
  // eslint-disable-next-line no-control-regex
  return base.replace(/[\u0000-\u001f\u007f:*?"<>|]/g, '_').slice(0, 120) || 'document';
}

const extensionOf = (contentType: string): string =>
  contentType === 'application/pdf'
    ? 'pdf'
    : contentType === 'image/png'
      ? 'png'
      : contentType === 'image/jpeg'
        ? 'jpg'
        : 'bin';

/** Every document an RFI holds, once each: a question's attachments and what each response sent. */
export function documentRefs(rfi: Rfi): DocRef[] {
  const refs = new Map<string, DocRef>();
  for (const q of rfi.questions) {
    for (const id of q.question_data?.document_ids ?? []) {
      if (!refs.has(id))
        refs.set(id, {
          documentId: id,
          rfiId: rfi.id,
          questionId: q.id,
          from: 'question',
          at: q.created_at,
        });
    }
    for (const r of q.responses) {
      for (const id of textOf(r).documentIds) {
        // A document a response sent is that responder's, even when the question lists it too.
        if (!refs.has(id) || refs.get(id)!.from === 'question')
          refs.set(id, {
            documentId: id,
            rfiId: rfi.id,
            questionId: q.id,
            from: r.responder_type,
            at: r.created_at,
          });
      }
    }
  }
  return [...refs.values()];
}

/** Streams one document from the bank to a temp file in `tmpDir`, hashing it; answers the temp file. */
export async function fetchDocument(
  ref: DocRef,
  known: JournalUpload | undefined,
  bank: DocumentBank,
  tmpDir: string,
  blobs: BlobCodec | null = null,
): Promise<{ info: DocInfo; temp: { file: string; sealed: boolean } | null }> {
  const info: DocInfo = {
    ...ref,
    name: known?.name ?? ref.documentId,
    documentType: known?.documentType ?? null,
    contentType: known?.contentType ?? 'application/octet-stream',
    sizeBytes: known?.sizeBytes ?? null,
    sha256: null,
    uploadedAt: known?.uploadedAt ?? null,
    problem: null,
    file: null,
  };
  let meta: Awaited<ReturnType<DocumentBank['getDocument']>>;
  try {
    meta = await bank.getDocument(ref.documentId);
  } catch (err) {
    info.problem = `not readable at the bank (${err instanceof AppFailure ? err.message : 'error'})`;
    return { info, temp: null };
  }
  info.contentType = meta.content_type;
  info.sizeBytes = meta.size_bytes;
  if (!known) info.name = `${ref.documentId}.${extensionOf(meta.content_type)}`;
  if (!meta.url) {
    info.problem = 'never uploaded (the bank holds no bytes)';
    return { info, temp: null };
  }
  const temp = path.join(tmpDir, `${randomBytes(12).toString('hex')}.part`);
  const hash = createHash('sha256');
  let bytes = 0;
  // Sealed with the data key as it arrives (bound to the temp file's path): a bank document never
  // sits in the data folder in clear, even while the export runs.
  const sealer = blobs?.sealing ? blobs.sealer(temp) : null;
  try {
    const body = await bank.downloadDocument(meta.url);
    await pipeline(
      body,
      new Transform({
        transform(chunk: Buffer, _enc, done) {
          hash.update(chunk);
          bytes += chunk.length;
          if (!sealer) return done(null, chunk);
          for (const out of sealer.push(chunk)) this.push(out);
          done();
        },
        flush(done) {
          if (sealer) for (const out of sealer.end()) this.push(out);
          done();
        },
      }),
      createWriteStream(temp, { mode: privateFileMode }),
    );
  } catch (err) {
    await rm(temp, { force: true });
    info.problem = `could not be downloaded (${err instanceof AppFailure ? err.message : 'error'})`;
    return { info, temp: null };
  }
  info.sha256 = hash.digest('hex');
  info.sizeBytes = bytes;
  if (known && known.sha256 && known.sha256 !== info.sha256) {
    info.problem = `the bank's bytes differ from what this workstation uploaded (sha256 ${known.sha256})`;
  }
  return { info, temp: { file: temp, sealed: sealer !== null } };
}
