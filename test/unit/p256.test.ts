import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { p256PublicKey } from '../../src/main/infra/p256';
import { checkWebhookPublicKey } from '../../src/main/session/settings';
import { loadPublicKey } from '../../src/main/rfis/signature';

const pem = (k: { export(o: { type: 'spki'; format: 'pem' }): string | Buffer }): string =>
  k.export({ type: 'spki', format: 'pem' }).toString();

describe('the P-256 public-key check', () => {
  const p256 = pem(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey);
  const p384 = pem(generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).publicKey);
  const rsa = pem(generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey);

  it('accepts a P-256 key and refuses other curves, RSA and text that is not PEM', () => {
    expect(p256PublicKey(p256)?.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(p256PublicKey(p384)).toBeNull();
    expect(p256PublicKey(rsa)).toBeNull();
    expect(p256PublicKey('-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----')).toBeNull();
  });

  it('settings and the webhook receiver answer the same keys', () => {
    for (const k of [p256, p384, rsa, 'not a key']) {
      const ok = p256PublicKey(k) !== null;
      if (ok) {
        expect(checkWebhookPublicKey(`\n${k}\n`)).toBe(p256);
        expect(loadPublicKey(k).asymmetricKeyType).toBe('ec');
      } else {
        expect(() => checkWebhookPublicKey(k)).toThrow(/P-256/);
        expect(() => loadPublicKey(k)).toThrow(/P-256/);
      }
    }
  });
});
