/**
 * The evidence locker's bytes: stored once per sha256 in PostgreSQL (bytea; why not large objects
 * is in docs/team.md), checked on the way in (the sha256 named, the declared type by the file's
 * signature; the database checks the hash again) and on the way out: a download is read in slices
 * and hashed as it is sent, and the last slice is sent only once the whole hash matched, so a
 * client never receives the complete body of bytes that changed at rest.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sql } from 'kysely';
import type { UploadContentType } from '../shared/catalogue';
import { TeamError } from './context';
import type { TeamDb } from './db';

/** Bytes read from PostgreSQL per query while a download streams. */
export const SLICE_BYTES = 1024 * 1024;

const SIGNATURES: Record<UploadContentType, (b: Buffer) => boolean> = {
  'application/pdf': (b) => b.subarray(0, 5).toString('latin1') === '%PDF-',
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
};

/**
 * Stores `bytes` under `sha256` (once: the same bytes again change nothing) after checking the
 * hash and the declared type; answers whether they were new. Blobs no document came to name
 * within a day are swept here too (a document's bytes are never deleted: its reference holds them).
 */
export async function storeBlob(
  db: TeamDb,
  blob: { sha256: string; contentType: UploadContentType; bytes: Buffer; storedBy: string },
): Promise<boolean> {
  const actual = createHash('sha256').update(blob.bytes).digest('hex');
  if (actual !== blob.sha256)
    throw new TeamError(400, 'hash_mismatch', `the bytes sent have the sha256 ${actual}, not ${blob.sha256}`);
  if (blob.bytes.length === 0) throw new TeamError(400, 'bad_request', 'an empty file is not evidence');
  if (!SIGNATURES[blob.contentType](blob.bytes))
    throw new TeamError(400, 'hash_mismatch', `the bytes sent are not ${blob.contentType}`);
  const inserted = await db
    .insertInto('evidence_blobs')
    .values({
      sha256: blob.sha256,
      content_type: blob.contentType,
      size: blob.bytes.length,
      bytes: blob.bytes,
      stored_by: blob.storedBy,
    })
    .onConflict((oc) => oc.column('sha256').doNothing())
    .returning('sha256')
    .executeTakeFirst();
  await db
    .deleteFrom('evidence_blobs as b')
    .where('b.stored_at', '<', sql<Date>`now() - interval '1 day'`)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('evidence_documents as d').select('d.id').whereRef('d.sha256', '=', 'b.sha256'))),
    )
    .execute();
  return inserted !== undefined;
}

export interface BlobInfo {
  sha256: string;
  size: number;
  contentType: string;
}

/**
 * Streams a stored blob to `res` in slices, hashing as it goes. Resolves true when the whole,
 * verified body was sent; on a mismatch the connection is destroyed before the last slice, so
 * the body is visibly incomplete, and it resolves false.
 */
export async function streamBlob(db: TeamDb, blob: BlobInfo, res: ServerResponse): Promise<boolean> {
  const hash = createHash('sha256');
  let held: Buffer | null = null;
  const write = (chunk: Buffer) =>
    new Promise<void>((resolve, reject) => {
      if (res.destroyed) return reject(new Error('the client went away'));
      if (res.write(chunk)) return resolve();
      const done = (err?: Error) => {
        res.off('drain', onDrain);
        res.off('close', onClose);
        if (err) reject(err);
        else resolve();
      };
      const onDrain = () => done();
      const onClose = () => done(new Error('the client went away'));
      res.on('drain', onDrain);
      res.on('close', onClose);
    });
  for (let offset = 0; offset < blob.size; offset += SLICE_BYTES) {
    const row = await sql<{ chunk: Buffer }>`
      SELECT substring(bytes FROM ${offset + 1} FOR ${SLICE_BYTES}) AS chunk
      FROM evidence_blobs WHERE sha256 = ${blob.sha256}`.execute(db);
    const chunk = row.rows[0]?.chunk;
    if (!chunk || chunk.length === 0) break;
    hash.update(chunk);
    if (held) await write(held);
    held = chunk;
  }
  if (hash.digest('hex') !== blob.sha256 || !held) {
    res.destroy();
    return false;
  }
  res.end(held);
  return true;
}
