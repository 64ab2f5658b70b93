/**
 * The one check that a PEM is an ECDSA P-256 public key (the curve the bank signs webhooks with):
 * used when the analyst pins a key in settings and when the webhook receiver loads it.
 */
import { createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

/** The key from PEM (SPKI), or null when the text is not a PEM public key on P-256. */
export function p256PublicKey(pem: string): KeyObject | null {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    return null;
  }
  return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1' ? key : null;
}
