/**
 * Encryption of data files at rest: the one place that seals and opens their content.
 *
 * A sealed file is one JSON envelope:
 *
 *   {"tdAtRest":2,"alg":"A256GCM","kid":"<key id>","fid":"<file id>","gen":<n>,
 *    "iv":"<base64, 12 bytes>","tag":"<base64, 16 bytes>","data":"<base64>"}
 *
 * AES-256-GCM from node:crypto with a random 96-bit IV per write; the authentication tag is
 * checked on every read. The additional authenticated data is the whole header: format,
 * algorithm, key id, the file id (the first 128 bits of the SHA-256 of the file's path relative to
 * the data folder: the path itself, which names legal entities and banks, is never written in
 * clear) and its generation. So a changed
 * header fails like changed data, a sealed file copied over another one is refused ("swapped"),
 * and an older copy of the same file is refused ("rolled back") because its generation is below
 * the one the generation index (infra/generations.ts, itself pinned by a counter in the keychain)
 * last saw written. Format 1 envelopes (header without path or generation) are read only for a
 * file the index has never seen sealed, once, and rewritten in format 2.
 *
 * The codec is in one of three states:
 *   - `sealed`: a data key from the keychain; writes are sealed.
 *   - `plain`: no keychain on this computer (and no file ever sealed here): writes are plain text
 *     and vault.status says so.
 *   - `waiting`: files were sealed here before, but the key cannot be had now (keychain locked,
 *     or its data-key entry unreadable). Sealed files are left exactly where they are (reading
 *     them throws AtRestWaiting, never AtRestError, so nobody moves them aside) and every write
 *     throws AtRestWaiting: nothing is ever written in plain text in their place.
 *
 * Reading accepts a plain (unsealed) file too: files written before encryption existed, or while
 * no key was available; the caller learns it (`sealed: false`) and rewrites them sealed.
 */

import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { AtRestError, AtRestWaiting } from './at-rest-types';
import type { DataKey } from './at-rest-types';
import { createBlobCodec } from './sealed-blob';
import type { BlobCodec } from './sealed-blob';

export type { DataKey } from './at-rest-types';
export { AtRestError, AtRestWaiting } from './at-rest-types';

export type AtRestState = 'sealed' | 'plain' | 'waiting';

/** Where the last generation written of each sealed file is kept (infra/generations.ts). */
export interface GenerationLedger {
  /** The highest generation of the file known to have been written (0: never sealed). */
  current(file: string): number;
  /** A write of `gen` reached the disk (or a read found the file at `gen`, ahead of the index). */
  advance(file: string, gen: number): void;
}

export interface AtRestCodec {
  /** Whether new writes are encrypted (a data key is available). */
  readonly encrypted: boolean;
  readonly state: AtRestState;
  /** Why the codec waits for the keychain (null unless `waiting`). */
  readonly waitingReason: string | null;
  /** The key id new writes use, null when they are plain. */
  readonly keyId: string | null;
  /**
   * Seals the content of `file` (an absolute path; bound into the envelope) with its next
   * generation; throws AtRestWaiting while waiting for the keychain. Call `written` once the
   * sealed text is on disk.
   */
  seal(plain: string, file?: string): string;
  /**
   * Seals the content of `file` as it is written, piece by piece (a large file written while its
   * content still arrives): the same envelope `seal` makes, the authentication tag patched into its
   * head at the end. Throws AtRestWaiting while waiting for the keychain; `written` as for `seal`.
   */
  sealStream(file: string): SealStream;
  /** The last `seal` of `file` reached the disk: its generation becomes the one expected. */
  written(file: string): void;
  /** Answers the plain content and whether the stored form was sealed; throws AtRestError or AtRestWaiting. */
  open(stored: string, file?: string): { text: string; sealed: boolean };
  /**
   * Opens one record of an append-only file (the audit log: each line sealed for the file with
   * its own generation, the line's number). The generation is answered, not checked against the
   * index: the caller checks the sequence (and that the last one is the index's).
   */
  openRecord(stored: string, file: string): { text: string; sealed: boolean; gen: number };
  /** The generation last written of a file (0: never), from the index. */
  generation(file: string): number;
  /** Document bytes (staged files, locker copies): sealed in chunks, streamed (infra/sealed-blob.ts). */
  readonly blobs: BlobCodec;
  /**
   * Told once the codec seals after it did not (the keychain answered later in the run, see
   * infra/data-codec.ts): a holder of a file read while waiting reads it again. A fixed codec never
   * tells.
   */
  onSealed(listener: () => Promise<void> | void): () => void;
}

/** A sealed file in the making (see `AtRestCodec.sealStream`). */
export interface SealStream {
  /** What the file starts with (nothing when it is written plain). */
  readonly head: string;
  /** The next piece of the plain content, as it goes into the file after what went before. */
  update(plain: string): string;
  /** The end of the file, and the text to write over the head at a byte offset (the tag), if any. */
  final(): { tail: string; patch: { offset: number; text: string } | null };
}

const plainStream: SealStream = {
  head: '',
  update: (plain) => plain,
  final: () => ({ tail: '', patch: null }),
};

/** Base64 of a byte stream, piece by piece: whole 3-byte groups now, the rest carried over. */
function base64Pieces(): { next(bytes: Buffer): string; last(bytes: Buffer): string } {
  let carry = Buffer.alloc(0);
  const take = (bytes: Buffer, all: boolean): string => {
    const joined = carry.length > 0 ? Buffer.concat([carry, bytes]) : bytes;
    const n = all ? joined.length : joined.length - (joined.length % 3);
    carry = Buffer.from(joined.subarray(n));
    return joined.subarray(0, n).toString('base64');
  };
  return { next: (bytes) => take(bytes, false), last: (bytes) => take(bytes, true) };
}

const MAGIC = '{"tdAtRest":';
const DATA_FIELD = ',"data":"';
const ALG = 'A256GCM';
const FORMAT = 2;
/** A 16-byte AES-GCM tag in base64. */
const TAG_BASE64_LENGTH = 24;

const headerV1 = (kid: string): string => `1|${ALG}|${kid}`;
const headerV2 = (kid: string, fid: string, gen: number): string => `2|${ALG}|${kid}|${fid}|${gen}`;

/** The id of a file in envelopes: its relative path, hashed (the path itself stays out of the file). */
export const fileId = (relPath: string): string =>
  createHash('sha256').update(relPath, 'utf8').digest('hex').slice(0, 32);

/** Whether stored content is an at-rest envelope (rather than a plain file). */
export function isSealed(stored: string | Uint8Array): boolean {
  if (typeof stored === 'string') return stored.startsWith(MAGIC);
  return Buffer.from(stored.subarray(0, MAGIC.length)).toString('latin1') === MAGIC;
}

export interface AtRestOptions {
  /** The data folder: bound paths are relative to it (so a moved data folder still opens). */
  root?: string;
  /** The generation index; without one generations are written but not checked. */
  generations?: GenerationLedger;
  /** Sealed files exist but the key cannot be had: wait (never write plain). */
  waiting?: string | null;
}

function unboundLedger(): GenerationLedger {
  const m = new Map<string, number>();
  return {
    current: (f) => m.get(f) ?? 0,
    advance: (f, g) => void m.set(f, Math.max(m.get(f) ?? 0, g)),
  };
}

/** A codec that seals with the given key (or writes plain text when key is null). */
export function createAtRestCodec(key: DataKey | null, options: AtRestOptions = {}): AtRestCodec {
  if (key && key.key.length !== 32) throw new Error('The data key must be 32 bytes.');
  const waiting = key ? null : (options.waiting ?? null);
  const ledger = options.generations ?? unboundLedger();
  /** Generations sealed but not yet known to be on disk, per file. */
  const pending = new Map<string, number>();
  const rel = (file: string | undefined): string => {
    if (file === undefined) return '';
    const r = options.root ? path.relative(options.root, file) : path.basename(file);
    return r.split(path.sep).join('/');
  };
  const wait = (): never => {
    throw new AtRestWaiting(waiting ?? 'waiting for the keychain');
  };
  /**
   * One sealing of `file` with its next generation: the cipher (the envelope's header as its
   * additional data) and the envelope's text up to the tag's value.
   */
  const sealing = (k: DataKey, file: string | undefined) => {
    const name = rel(file);
    const gen = Math.max(ledger.current(name), pending.get(name) ?? 0) + 1;
    pending.set(name, gen);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', k.key, iv);
    const fid = fileId(name);
    cipher.setAAD(Buffer.from(headerV2(k.id, fid, gen), 'utf8'));
    const before = `${MAGIC}${FORMAT},"alg":"${ALG}","kid":${JSON.stringify(k.id)},"fid":"${fid}","gen":${gen},"iv":"${iv.toString('base64')}","tag":"`;
    return { cipher, before };
  };
  return {
    encrypted: key !== null,
    state: key ? 'sealed' : waiting ? 'waiting' : 'plain',
    waitingReason: waiting,
    keyId: key?.id ?? null,
    seal(plain, file) {
      if (!key) return waiting ? wait() : plain;
      const { cipher, before } = sealing(key, file);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${before}${cipher.getAuthTag().toString('base64')}","data":"${data.toString('base64')}"}`;
    },
    sealStream(file) {
      if (!key) return waiting ? wait() : plainStream;
      const { cipher, before } = sealing(key, file);
      // The tag is known at the end only: its place in the head is held by as many characters.
      const head = `${before}${'A'.repeat(TAG_BASE64_LENGTH)}","data":"`;
      const data = base64Pieces();
      return {
        head,
        update: (plain) => data.next(cipher.update(plain, 'utf8')),
        final() {
          const tail = `${data.last(cipher.final())}"}`;
          const text = cipher.getAuthTag().toString('base64');
          return { tail, patch: { offset: Buffer.byteLength(before, 'utf8'), text } };
        },
      };
    },
    written(file) {
      const name = rel(file);
      const gen = pending.get(name);
      if (gen === undefined) return;
      pending.delete(name);
      ledger.advance(name, gen);
    },
    open(stored, file) {
      const r = openEnvelope(stored, file, true);
      return { text: r.text, sealed: r.sealed };
    },
    openRecord(stored, file) {
      return openEnvelope(stored, file, false);
    },
    generation: (file) => ledger.current(rel(file)),
    blobs: createBlobCodec(key, waiting, (file) => rel(file)),
    onSealed: () => () => undefined,
  };

  function openEnvelope(
    stored: string,
    file: string | undefined,
    checkGeneration: boolean,
  ): { text: string; sealed: boolean; gen: number } {
    {
      if (!isSealed(stored)) return { text: stored, sealed: false, gen: 0 };
      // The header is parsed as JSON; the (large) data field is taken as it is, without a parse of
      // the whole envelope. seal() always writes it last.
      const dataAt = stored.indexOf(DATA_FIELD);
      if (dataAt < 0 || !stored.endsWith('"}')) {
        throw new AtRestError('the encrypted file is truncated or damaged');
      }
      let e: Record<string, unknown>;
      try {
        e = JSON.parse(`${stored.slice(0, dataAt)}}`) as Record<string, unknown>;
      } catch {
        throw new AtRestError('the encrypted file is truncated or damaged');
      }
      const data = stored.slice(dataAt + DATA_FIELD.length, -2);
      const format = e['tdAtRest'];
      if (
        (format !== 1 && format !== 2) ||
        e['alg'] !== ALG ||
        typeof e['kid'] !== 'string' ||
        typeof e['iv'] !== 'string' ||
        typeof e['tag'] !== 'string' ||
        (format === 2 &&
          (typeof e['fid'] !== 'string' || typeof e['gen'] !== 'number' || !Number.isSafeInteger(e['gen'])))
      ) {
        throw new AtRestError('the encrypted file has an unknown format');
      }
      if (!key) {
        if (waiting) wait();
        throw new AtRestError('the file is encrypted and no data key is available (keychain not usable)');
      }
      if (e['kid'] !== key.id) {
        throw new AtRestError('the file was encrypted with another data key');
      }
      const name = rel(file);
      let aad: string;
      let gen = 0;
      if (format === 2) {
        if (file !== undefined && e['fid'] !== fileId(name)) {
          throw new AtRestError(
            `the file holds the sealed content of another file, not of ${name} (swapped)`,
          );
        }
        gen = e['gen'] as number;
        aad = headerV2(key.id, e['fid'] as string, gen);
      } else {
        // Format 1 binds neither path nor generation: read only for a file never sealed in format 2.
        if (file !== undefined && checkGeneration && ledger.current(name) > 0) {
          throw new AtRestError('an older copy of the file was put back (rolled back)');
        }
        aad = headerV1(key.id);
      }
      const iv = Buffer.from(e['iv'], 'base64');
      const tag = Buffer.from(e['tag'], 'base64');
      if (iv.length !== 12 || tag.length !== 16) throw new AtRestError('the encrypted file is damaged');
      let text: Buffer;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key.key, iv, { authTagLength: 16 });
        decipher.setAAD(Buffer.from(aad, 'utf8'));
        decipher.setAuthTag(tag);
        text = Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]);
      } catch {
        throw new AtRestError('the encrypted file failed its integrity check (changed or damaged)');
      }
      if (format === 2 && file !== undefined && !checkGeneration && gen > ledger.current(name)) {
        // A record (audit line) ahead of the index: its index update was lost to a crash.
        ledger.advance(name, gen);
      }
      if (format === 2 && file !== undefined && checkGeneration) {
        const expected = ledger.current(name);
        if (gen < expected) {
          throw new AtRestError(
            `an older copy of the file was put back (rolled back: generation ${gen}, last written ${expected})`,
          );
        }
        // Ahead of the index: a write whose index update a crash lost. Only the key can make it.
        if (gen > expected) ledger.advance(name, gen);
      }
      return { text: text.toString('utf8'), sealed: format === 2, gen };
    }
  }
}

/** The codec used when nothing is configured (tests, tools): plain text, reads plain files only. */
export const plainCodec: AtRestCodec = createAtRestCodec(null);
