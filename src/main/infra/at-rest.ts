/**
 * Encryption of state files at rest: the one place that seals and opens their content.
 *
 * A sealed file is one JSON envelope:
 *
 *   {"tdAtRest":1,"alg":"A256GCM","kid":"<key id>","iv":"<base64, 12 bytes>","tag":"<base64, 16 bytes>","data":"<base64>"}
 *
 * AES-256-GCM from node:crypto with a random 96-bit IV per write; the authentication tag is
 * checked on every read, and the envelope's header (format, algorithm, key id) is bound to the
 * ciphertext as additional authenticated data, so a changed header fails like changed data. The
 * 256-bit data key comes from the OS keychain (src/main/infra/data-key.ts); without one the codec writes
 * plain text and says so (`encrypted: false`).
 *
 * Reading accepts a plain (unsealed) file too: files written before encryption existed, or while
 * no key was available. The caller learns that (`sealed: false`) and rewrites them sealed when a
 * key is there. Anything that looks like an envelope but cannot be opened (wrong key, tampered,
 * truncated) throws `AtRestError`: the caller treats it like a corrupt file (moved aside,
 * reported).
 */

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface DataKey {
  /** A random id stored with the key; written into every envelope. */
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

export interface AtRestCodec {
  /** Whether new writes are encrypted (a data key is available). */
  readonly encrypted: boolean;
  /** The key id new writes use, null when they are plain. */
  readonly keyId: string | null;
  seal(plain: string): string;
  /** Answers the plain content and whether the stored form was sealed; throws AtRestError. */
  open(stored: string): { text: string; sealed: boolean };
}

export class AtRestError extends Error {
  override readonly name = 'AtRestError';
}

const MAGIC = '{"tdAtRest":';
const DATA_FIELD = ',"data":"';
const ALG = 'A256GCM';
const FORMAT = 1;

const header = (kid: string): string => `${FORMAT}|${ALG}|${kid}`;

/** Whether stored content is an at-rest envelope (rather than a plain file). */
export function isSealed(stored: string): boolean {
  return stored.startsWith(MAGIC);
}

/** A codec that seals with the given key (or writes plain text when key is null). */
export function createAtRestCodec(key: DataKey | null): AtRestCodec {
  if (key && key.key.length !== 32) throw new Error('The data key must be 32 bytes.');
  return {
    encrypted: key !== null,
    keyId: key?.id ?? null,
    seal(plain) {
      if (!key) return plain;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key.key, iv);
      cipher.setAAD(Buffer.from(header(key.id), 'utf8'));
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return `${MAGIC}${FORMAT},"alg":"${ALG}","kid":${JSON.stringify(key.id)},"iv":"${iv.toString('base64')}","tag":"${tag.toString('base64')}","data":"${data.toString('base64')}"}`;
    },
    open(stored) {
      if (!isSealed(stored)) return { text: stored, sealed: false };
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
      // Any change in it (base64 or not) fails the authentication tag below.
      e['data'] = stored.slice(dataAt + DATA_FIELD.length, -2);
      if (
        e['tdAtRest'] !== FORMAT ||
        e['alg'] !== ALG ||
        typeof e['kid'] !== 'string' ||
        typeof e['iv'] !== 'string' ||
        typeof e['tag'] !== 'string' ||
        typeof e['data'] !== 'string'
      ) {
        throw new AtRestError('the encrypted file has an unknown format');
      }
      if (!key) {
        throw new AtRestError('the file is encrypted and no data key is available (keychain not usable)');
      }
      if (e['kid'] !== key.id) {
        throw new AtRestError('the file was encrypted with another data key');
      }
      const iv = Buffer.from(e['iv'], 'base64');
      const tag = Buffer.from(e['tag'], 'base64');
      if (iv.length !== 12 || tag.length !== 16) throw new AtRestError('the encrypted file is damaged');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key.key, iv, { authTagLength: 16 });
        decipher.setAAD(Buffer.from(header(key.id), 'utf8'));
        decipher.setAuthTag(tag);
        const text = Buffer.concat([decipher.update(Buffer.from(e['data'], 'base64')), decipher.final()]);
        return { text: text.toString('utf8'), sealed: true };
      } catch {
        throw new AtRestError('the encrypted file failed its integrity check (changed or damaged)');
      }
    },
  };
}

/** The codec used when nothing is configured (tests, tools): plain text, reads plain files only. */
export const plainCodec: AtRestCodec = createAtRestCodec(null);
