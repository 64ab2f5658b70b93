/** What the JSON envelopes (at-rest.ts) and the sealed document blobs (sealed-blob.ts) share. */

export interface DataKey {
  /** A random id stored with the key; written into every envelope. */
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

export class AtRestError extends Error {
  override readonly name = 'AtRestError';
}

/** A sealed file cannot be opened now because the keychain does not answer: keep it, wait. */
export class AtRestWaiting extends Error {
  override readonly name = 'AtRestWaiting';
}
