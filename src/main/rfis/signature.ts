/**
 * Webhook signature check (docs/api-decisions.md, "Webhooks"): `Service-Signature: t=<unix seconds>,v1=<base64>`,
 * ECDSA P-256 with SHA-256 over the raw body bytes followed by the decimal t. The signature may
 * be DER or 64-byte raw r‖s (IEEE P1363). Several v1 values (key rotation) are allowed; one
 * valid is enough. t must be within the tolerance of now, in either direction.
 */

import { createHash, verify } from 'node:crypto';
import { p256PublicKey } from '../infra/p256';
import type { KeyObject } from 'node:crypto';
import { parseSignatureHeader } from '../../shared/api/webhooks';

export type SignatureFailure =
  | 'no_pinned_key'
  | 'missing_signature'
  | 'malformed_signature'
  | 'stale_timestamp'
  | 'future_timestamp'
  | 'bad_signature';

export type SignatureCheck = { ok: true; t: number } | { ok: false; reason: SignatureFailure };

export const FAILURE_TEXT: Record<SignatureFailure, string> = {
  no_pinned_key: 'no public key is pinned for this environment',
  missing_signature: 'the Service-Signature header is missing',
  malformed_signature: 'the Service-Signature header is malformed',
  stale_timestamp: 'the signature timestamp is too old',
  future_timestamp: 'the signature timestamp is in the future',
  bad_signature: 'the signature does not match the body and timestamp',
};

export interface VerifyInput {
  header: string | undefined;
  body: Buffer;
  publicKey: KeyObject | null;
  /** Now, in ms (the bank's clock as estimated here). */
  nowMs: number;
  toleranceSeconds: number;
}

/** The public key from PEM; throws with a readable message when it is not an ECDSA P-256 key. */
export function loadPublicKey(pem: string): KeyObject {
  const key = p256PublicKey(pem);
  if (!key) throw new Error('The pinned webhook key must be an ECDSA P-256 public key.');
  return key;
}

/** SHA-256 of the key's SPKI DER, as colon-separated hex pairs (what an operator compares). */
export function keyFingerprint(key: KeyObject): string {
  const der = key.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('hex').match(/../g)?.join(':').toUpperCase() ?? '';
}

export function verifyWebhookSignature(input: VerifyInput): SignatureCheck {
  if (!input.publicKey) return { ok: false, reason: 'no_pinned_key' };
  if (input.header === undefined || input.header.trim() === '')
    return { ok: false, reason: 'missing_signature' };
  if (input.header.length > 4096) return { ok: false, reason: 'malformed_signature' };
  const parsed = parseSignatureHeader(input.header);
  if (!parsed) return { ok: false, reason: 'malformed_signature' };
  const nowSec = input.nowMs / 1000;
  if (parsed.t < nowSec - input.toleranceSeconds) return { ok: false, reason: 'stale_timestamp' };
  if (parsed.t > nowSec + input.toleranceSeconds) return { ok: false, reason: 'future_timestamp' };
  const signed = Buffer.concat([input.body, Buffer.from(String(parsed.t), 'ascii')]);
  let decodable = false;
  for (const v of parsed.v1) {
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(v) || v.length > 400) continue;
    const sig = Buffer.from(v, 'base64');
    if (sig.length === 0) continue;
    decodable = true;
    // 64 bytes: raw r‖s first (a DER signature that short is next to impossible, still tried).
    const encodings = sig.length === 64 ? (['ieee-p1363', 'der'] as const) : (['der'] as const);
    for (const dsaEncoding of encodings) {
      try {
        if (verify('sha256', signed, { key: input.publicKey, dsaEncoding }, sig))
          return { ok: true, t: parsed.t };
      } catch {
        // an undecodable DER is simply not a valid signature
      }
    }
  }
  return { ok: false, reason: decodable ? 'bad_signature' : 'malformed_signature' };
}
