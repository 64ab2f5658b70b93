/**
 * Document bytes at rest (files staged for an answer, the evidence locker's copies): sealed with
 * the data key in chunks, so a 200 MB file is written, checked and uploaded a chunk at a time and
 * never sits in memory whole.
 *
 * Layout (binary):
 *
 *   "TDBLOB1\n" | kid length (1 byte) | kid (ASCII) | file id (16 bytes) | nonce prefix (7 bytes)
 *   | chunk size (4 bytes, big-endian) | chunk 0 | chunk 1 | … | chunk n-1
 *
 * Each chunk is AES-256-GCM of `chunk size` plain bytes (the last one fewer, possibly none) and
 * its 16-byte tag. The nonce of chunk i is the prefix, i (4 bytes) and a last-chunk flag (1 byte),
 * and the additional data is the whole header: the STREAM construction (Hoang, Reyhanitabar,
 * Rogaway, Vizár), as Tink's streaming AEAD and age use it. So a chunk changed, moved, dropped,
 * or cut off at the end fails its tag; a blob copied over another one fails on its file id (the
 * hashed path relative to the data folder, as the JSON envelopes bind it, infra/at-rest.ts).
 * Blobs are written once under a fresh name and never rewritten, so no generation is needed.
 *
 * Chunks sit at fixed offsets, so any byte range is read by opening only the chunks it spans
 * (the structure check reads a file's head, tail and PDF cross-reference this way).
 *
 * Without a keychain (the codec's `plain` state) blobs are the plain bytes; while the codec waits
 * for the keychain, sealing throws AtRestWaiting (nothing is ever written plain in its place).
 * Which form a blob has is kept in the sealed record that names it, never guessed from the file.
 */

import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { open, rename, rm, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { AtRestError, AtRestWaiting } from './at-rest-types';
import type { DataKey } from './at-rest-types';
import { privateFileMode } from './durable-file';
import { sha256OfFile } from './file-hash';

/** Plain bytes per sealed chunk: reads of the upload's size (1 MiB), one cipher call each. */
export const BLOB_CHUNK_BYTES = 1024 * 1024;
const TAG = 16;
const MAGIC = Buffer.from('TDBLOB1\n', 'latin1');

/** Reads `length` plain bytes at `offset` (fewer at the end). */
export type ReadAt = (offset: number, length: number) => Promise<Buffer>;

/** Document bytes to upload: their size, a fresh stream of them, and their sha256. */
export interface UploadSource {
  size(): Promise<number>;
  /**
   * A fresh pass over the bytes, chunk by chunk. `hash`: whether the pass hashes what it delivers
   * (for `sentSha256`); by default a picked file's does, a stored blob's only when no sha256 was
   * recorded for it. The outbox asks for it when the sha256 is not `known`.
   *
   * A chunk is the consumer's only until it asks for the next one: a source may read the next
   * chunk into the buffer of the one before (a picked file does, so a 200 MB upload allocates two
   * buffers, not two hundred, and the garbage collector stays out of the way). got's request
   * writer meets this: it asks for the next chunk once the last is written to the socket. A
   * consumer that keeps chunks copies them.
   */
  open(o?: { hash?: boolean }): AsyncIterable<Buffer>;
  sha256(): Promise<string>;
  /**
   * The sha256 the bytes are known to have without reading them (taken when the file was staged
   * or picked, and the file unchanged since by its size and modification time), or null. Bytes
   * with a known sha256 are sent without hashing them again; the bank's receipt is checked
   * against it (rfi-answers/answer-job.ts).
   */
  known?(): Promise<string | null>;
  /**
   * A source that hashes its bytes as they are read for sending: the sha256 of exactly the bytes
   * the last stream delivered, once it was read to its end (null before, when it stopped early,
   * or when it was opened without hashing). Such a source needs no hashing pass of its own.
   */
  sentSha256?(): string | null;
  /** Why the last stream failed when the bytes themselves were refused (changed on disk). */
  failure?(): Error | null;
}

/** Seals bytes as they arrive; everything answered is written in order. */
export interface BlobSealer {
  push(plain: Buffer): Buffer[];
  end(): Buffer[];
}

/** A stored blob opened for reading: plain size, random reads, and a stream of it all. */
export interface BlobReader {
  readonly size: number;
  readAt: ReadAt;
  /**
   * The plain bytes in order, a chunk at a time, read through the descriptor opened with the
   * reader (never the path again): a blob sealed in place meanwhile (infra/blob-reseal.ts renames
   * a sealed copy over a plain one) does not change what an open reader reads.
   */
  chunks(): AsyncGenerator<Buffer>;
  close(): Promise<void>;
}

export interface BlobCodec {
  /** Whether new blobs are sealed (a data key is available). */
  readonly sealing: boolean;
  /** A sealer for the blob that will be stored at `file` (bound into it); throws while waiting. */
  sealer(file: string): BlobSealer;
  /**
   * Opens the blob at `file`, sealed or plain as its record says. `as`: the path the sealed bytes
   * are bound to when they are read from elsewhere (a sealed copy before it is renamed into place).
   */
  open(file: string, sealed: boolean, as?: string): Promise<BlobReader>;
}

function headerOf(kid: string, fid: Buffer, prefix: Buffer): Buffer {
  const k = Buffer.from(kid, 'latin1');
  const size = Buffer.alloc(4);
  size.writeUInt32BE(BLOB_CHUNK_BYTES);
  return Buffer.concat([MAGIC, Buffer.from([k.length]), k, fid, prefix, size]);
}

function nonce(prefix: Buffer, index: number, last: boolean): Buffer {
  const n = Buffer.alloc(12);
  prefix.copy(n, 0);
  n.writeUInt32BE(index, 7);
  n[11] = last ? 1 : 0;
  return n;
}

const fidBytes = (rel: string): Buffer => createHash('sha256').update(rel, 'utf8').digest().subarray(0, 16);

function sealedSealer(key: DataKey, rel: string): BlobSealer {
  const prefix = randomBytes(7);
  const header = headerOf(key.id, fidBytes(rel), prefix);
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let index = 0;
  let started = false;
  const chunk = (plain: Buffer, last: boolean): Buffer => {
    if (index >= 0xffffffff) throw new AtRestError('the document is too large to seal');
    const c = createCipheriv('aes-256-gcm', key.key, nonce(prefix, index++, last));
    c.setAAD(header);
    return Buffer.concat([c.update(plain), c.final(), c.getAuthTag()]);
  };
  const start = (out: Buffer[]): void => {
    if (!started) out.push(header);
    started = true;
  };
  return {
    push(plain) {
      const out: Buffer[] = [];
      start(out);
      if (plain.length === 0) return out;
      pending.push(plain);
      pendingBytes += plain.length;
      // A full chunk is sealed only once more follows: the last chunk must carry the last flag.
      while (pendingBytes > BLOB_CHUNK_BYTES) {
        const all = Buffer.concat(pending);
        out.push(chunk(all.subarray(0, BLOB_CHUNK_BYTES), false));
        const rest = all.subarray(BLOB_CHUNK_BYTES);
        pending = [rest];
        pendingBytes = rest.length;
      }
      return out;
    },
    end() {
      const out: Buffer[] = [];
      start(out);
      out.push(chunk(Buffer.concat(pending), true));
      pending = [];
      pendingBytes = 0;
      return out;
    },
  };
}

const plainSealer = (): BlobSealer => ({ push: (plain) => (plain.length ? [plain] : []), end: () => [] });

async function openPlain(file: string): Promise<BlobReader> {
  const h = await open(file, 'r');
  const { size } = await h.stat();
  return {
    size,
    async readAt(offset, length) {
      const buf = Buffer.alloc(Math.max(0, Math.min(length, size - offset)));
      const { bytesRead } = await h.read(buf, 0, buf.length, Math.max(0, offset));
      return buf.subarray(0, bytesRead);
    },
    async *chunks() {
      // Positional reads on the reader's own descriptor (see BlobReader.chunks).
      for (let at = 0; at < size; at += BLOB_CHUNK_BYTES) {
        const buf = Buffer.allocUnsafe(Math.min(BLOB_CHUNK_BYTES, size - at));
        const { bytesRead } = await h.read(buf, 0, buf.length, at);
        if (bytesRead !== buf.length) throw new AtRestError('the document was cut short while it was read');
        yield buf;
      }
    },
    close: () => h.close(),
  };
}

async function openSealed(key: DataKey, file: string, rel: string): Promise<BlobReader> {
  const h = await open(file, 'r');
  try {
    const { size: stored } = await h.stat();
    const lead = Buffer.alloc(MAGIC.length + 1);
    await h.read(lead, 0, lead.length, 0);
    if (!lead.subarray(0, MAGIC.length).equals(MAGIC)) throw new AtRestError('the document is not sealed');
    const kidLength = lead[MAGIC.length] as number;
    const headerLength = MAGIC.length + 1 + kidLength + 16 + 7 + 4;
    const header = Buffer.alloc(headerLength);
    if ((await h.read(header, 0, headerLength, 0)).bytesRead !== headerLength) {
      throw new AtRestError('the sealed document is truncated');
    }
    const kid = header.subarray(MAGIC.length + 1, MAGIC.length + 1 + kidLength).toString('latin1');
    const fid = header.subarray(MAGIC.length + 1 + kidLength, MAGIC.length + 17 + kidLength);
    const prefix = header.subarray(MAGIC.length + 17 + kidLength, MAGIC.length + 24 + kidLength);
    if (header.readUInt32BE(headerLength - 4) !== BLOB_CHUNK_BYTES) {
      throw new AtRestError('the sealed document has an unknown chunk size');
    }
    if (kid !== key.id) throw new AtRestError('the document was sealed with another data key');
    if (!fid.equals(fidBytes(rel))) {
      throw new AtRestError(`the file holds the sealed bytes of another document, not of ${rel} (swapped)`);
    }
    const body = stored - headerLength;
    const count = Math.max(1, Math.ceil(body / (BLOB_CHUNK_BYTES + TAG)));
    const size = body - count * TAG;
    // The last chunk holds at least its tag: anything shorter was cut.
    if (body - (count - 1) * (BLOB_CHUNK_BYTES + TAG) < TAG) {
      throw new AtRestError('the sealed document is truncated');
    }
    const sealedAt = (i: number): number => headerLength + i * (BLOB_CHUNK_BYTES + TAG);
    const plainLength = (i: number): number =>
      i < count - 1 ? BLOB_CHUNK_BYTES : size - i * BLOB_CHUNK_BYTES;
    const scratch = Buffer.allocUnsafe(BLOB_CHUNK_BYTES + TAG);
    const decrypt = (i: number, sealed: Buffer): Buffer => {
      const n = plainLength(i);
      const d = createDecipheriv('aes-256-gcm', key.key, nonce(prefix, i, i === count - 1), {
        authTagLength: TAG,
      });
      d.setAAD(header);
      d.setAuthTag(sealed.subarray(n, n + TAG));
      try {
        const plain = d.update(sealed.subarray(0, n));
        // GCM's final() answers no bytes (it checks the tag): no copy of the chunk to append it.
        const rest = d.final();
        return rest.length === 0 ? plain : Buffer.concat([plain, rest]);
      } catch {
        throw new AtRestError('the sealed document failed its integrity check (changed or damaged)');
      }
    };
    const readChunk = async (fh: FileHandle, i: number, into: Buffer): Promise<Buffer> => {
      const want = plainLength(i) + TAG;
      const { bytesRead } = await fh.read(into, 0, want, sealedAt(i));
      if (bytesRead !== want) throw new AtRestError('the sealed document is truncated');
      return decrypt(i, into.subarray(0, want));
    };
    return {
      size,
      async readAt(offset, length) {
        const from = Math.max(0, offset);
        const to = Math.min(size, from + length);
        const parts: Buffer[] = [];
        for (let i = Math.floor(from / BLOB_CHUNK_BYTES); i * BLOB_CHUNK_BYTES < to; i++) {
          const plain = await readChunk(h, i, scratch);
          const base = i * BLOB_CHUNK_BYTES;
          parts.push(plain.subarray(Math.max(0, from - base), Math.min(plain.length, to - base)));
        }
        return Buffer.concat(parts);
      },
      async *chunks() {
        // Its own buffer (readAt may run beside it), the reader's descriptor (BlobReader.chunks).
        const into = Buffer.allocUnsafe(BLOB_CHUNK_BYTES + TAG);
        for (let i = 0; i < count; i++) yield await readChunk(h, i, into);
      },
      close: () => h.close(),
    };
  } catch (err) {
    await h.close();
    throw err;
  }
}

export function createBlobCodec(
  key: DataKey | null,
  waiting: string | null,
  rel: (file: string) => string,
): BlobCodec {
  const wait = (): never => {
    throw new AtRestWaiting(waiting ?? 'waiting for the keychain');
  };
  return {
    sealing: key !== null,
    sealer(file) {
      if (key) return sealedSealer(key, rel(file));
      return waiting ? wait() : plainSealer();
    },
    async open(file, sealed, as = file) {
      if (!sealed) return openPlain(file);
      if (!key) {
        if (waiting) wait();
        throw new AtRestError('the document is sealed and no data key is available (keychain not usable)');
      }
      return openSealed(key, file, rel(as));
    },
  };
}

/**
 * Writes a blob at `file` from plain bytes as they come (through `file.part`, fsync'd and renamed
 * into place), answering its plain size and sha256. `limit` refuses a source longer than it
 * (the part is deleted).
 */
export async function writeBlob(
  blobs: BlobCodec,
  file: string,
  source: AsyncIterable<Buffer | Uint8Array>,
  limit = Number.POSITIVE_INFINITY,
): Promise<{ sizeBytes: number; sha256: string; sealed: boolean }> {
  const writer = await blobWriter(blobs, file);
  try {
    for await (const piece of source) {
      await writer.write(Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength));
      if (writer.received > limit) throw new BlobTooLarge(writer.received);
    }
    return await writer.finish();
  } catch (err) {
    await writer.abort();
    throw err;
  }
}

export class BlobTooLarge extends Error {
  constructor(readonly received: number) {
    super('more bytes than allowed');
  }
}

/** A blob being written a piece at a time (dropped files as their chunks arrive). */
export interface BlobWriter {
  readonly received: number;
  write(plain: Buffer): Promise<void>;
  /** Seals the end, fsyncs and renames the part into place. */
  finish(): Promise<{ sizeBytes: number; sha256: string; sealed: boolean }>;
  /** Closes and deletes the part. */
  abort(): Promise<void>;
  /** The part's path (a start-up sweep deletes parts left by a kill). */
  readonly partPath: string;
}

/**
 * `into`: where the finished blob is renamed to, when not `file` itself (a sealed copy written
 * beside a plain blob, bound to the plain blob's path, before it replaces it).
 */
export async function blobWriter(blobs: BlobCodec, file: string, into = file): Promise<BlobWriter> {
  const sealer = blobs.sealer(file);
  const partPath = `${into}.part`;
  const handle = await open(partPath, 'wx', privateFileMode);
  const hash = createHash('sha256');
  let received = 0;
  let closed = false;
  const out = async (buffers: Buffer[]): Promise<void> => {
    for (const b of buffers) await handle.write(b, 0, b.length);
  };
  return {
    partPath,
    get received() {
      return received;
    },
    async write(plain) {
      hash.update(plain);
      received += plain.length;
      await out(sealer.push(plain));
    },
    async finish() {
      await out(sealer.end());
      await handle.sync();
      closed = true;
      await handle.close();
      await rename(partPath, into);
      return { sizeBytes: received, sha256: hash.digest('hex'), sealed: blobs.sealing };
    },
    async abort() {
      if (!closed) await handle.close().catch(() => undefined);
      closed = true;
      await rm(partPath, { force: true });
    },
  };
}

/** A picked file's sha256 as taken when it was picked, with the size and time it had then. */
export interface PickedDigest {
  sha256: string;
  size: number;
  mtimeMs: number;
}

/**
 * The bytes of `file` in chunks of BLOB_CHUNK_BYTES read into two buffers in turn: the next chunk
 * is read while the consumer writes the one before, and a chunk's buffer is read into again only
 * once the consumer has asked for the chunk after it (UploadSource.open). `done` gets the sha256
 * of every byte delivered, once the file was read to its end (never when the pass stopped early).
 */
async function* readReusing(
  file: string,
  hash: ReturnType<typeof createHash> | null,
  done: (sha256: string) => void,
): AsyncGenerator<Buffer> {
  const handle = await open(file, 'r');
  const buffers = [Buffer.allocUnsafeSlow(BLOB_CHUNK_BYTES), Buffer.allocUnsafeSlow(BLOB_CHUNK_BYTES)];
  let position = 0;
  let turn = 0;
  const readInto = (buffer: Buffer) => handle.read(buffer, 0, buffer.length, position);
  let next: ReturnType<typeof readInto> | null = readInto(buffers[0]!);
  try {
    for (;;) {
      const { bytesRead, buffer } = await next;
      next = null;
      if (bytesRead === 0) break;
      position += bytesRead;
      turn ^= 1;
      next = readInto(buffers[turn]!);
      const chunk = buffer.subarray(0, bytesRead);
      hash?.update(chunk);
      yield chunk;
    }
    if (hash) done(hash.digest('hex'));
  } finally {
    // A read still under way (the pass was given up) ends before its descriptor is closed.
    await next?.catch(() => undefined);
    await handle.close();
  }
}

/**
 * A file of the analyst's (a picked path) as an upload source: streamed, and hashed as it is
 * unless its sha256 is known. `digest`: the sha256 taken when the file was picked (awaited while
 * it is still being taken); it is the file's known sha256 while the file keeps that size and
 * modification time.
 */
export function pathSource(file: string, digest?: () => Promise<PickedDigest | null>): UploadSource {
  let sent: string | null = null;
  const known = async (): Promise<string | null> => {
    const d = await digest?.();
    if (!d) return null;
    const s = await stat(file);
    return s.size === d.size && s.mtimeMs === d.mtimeMs ? d.sha256 : null;
  };
  return {
    async size() {
      const s = await stat(file);
      if (!s.isFile()) throw new Error('not a file');
      return s.size;
    },
    // Hashed on the way out, chunk by chunk as the upload reads them: one read of the file, and
    // the audit's sha256 is of the very bytes sent (a second read beside the upload, even on a
    // worker thread, cost a 200 MB answer about a quarter of its speed on two cores). A file
    // whose sha256 is known (taken when it was picked) is not hashed again on the way out.
    open(o = {}) {
      sent = null;
      return readReusing(file, o.hash === false ? null : createHash('sha256'), (sha) => (sent = sha));
    },
    known,
    sentSha256: () => sent,
    sha256: async () => (await known().catch(() => null)) ?? sha256OfFile(file),
  };
}

/** The sha256 of a blob's plain bytes, read to the end; the reader is closed. */
export async function readerSha256(reader: BlobReader): Promise<string> {
  const hash = createHash('sha256');
  try {
    for await (const piece of reader.chunks()) hash.update(piece);
  } finally {
    await reader.close();
  }
  return hash.digest('hex');
}

/**
 * A stored blob as an upload source: decrypted as it is sent (a chunk at a time). `openBlob` is
 * called for each size check and each stream, so a blob sealed in place between two attempts is
 * read in its new form; a stream reads through the one descriptor it opened. Its sha256 is the one
 * recorded when it was stored (the plain bytes'; every chunk's tag vouches that they are the same
 * bytes), or, when none was recorded, that of the bytes the last stream delivered. A blob refused
 * on the way (changed on disk) is told by `failure`.
 */
export function blobSource(openBlob: () => Promise<BlobReader>, sha256: string | null): UploadSource {
  let failed: Error | null = null;
  let sent: string | null = null;
  const source: UploadSource = {
    async size() {
      const r = await openBlob();
      await r.close();
      return r.size;
    },
    open(o = {}) {
      failed = null;
      sent = null;
      const hash = (o.hash ?? sha256 === null) ? createHash('sha256') : null;
      return (async function* plain() {
        try {
          const r = await openBlob();
          try {
            for await (const piece of r.chunks()) {
              hash?.update(piece);
              yield piece;
            }
            if (hash) sent = hash.digest('hex');
          } finally {
            await r.close();
          }
        } catch (err) {
          failed = err instanceof Error ? err : new Error(String(err));
          throw err;
        }
      })();
    },
    sha256: async () => sha256 ?? readerSha256(await openBlob()),
    // Recorded when the bytes were stored; every chunk's tag vouches they are still those bytes.
    known: async () => sha256,
    sentSha256: () => sent,
    failure: () => failed,
  };
  return source;
}
