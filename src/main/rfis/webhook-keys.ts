/**
 * The webhook signing key pinned for each profile's environment, parsed once per PEM: the one in
 * the profile's settings, else (for the running embedded sandbox) the one main received in-process.
 * A key that cannot be used is logged once and its problem shown.
 */

import type { KeyObject } from 'node:crypto';
import type { Logger } from '../infra/log';
import type { SettingsStore } from '../session/settings';
import { loadPublicKey } from './signature';

export interface PinnedKey {
  key: KeyObject | null;
  problem: string | null;
}

export interface PinnedKeys {
  /** The profile's key now (null key: none pinned, or unusable with the problem said). */
  of(profileId: string): PinnedKey;
  forget(profileId: string): void;
}

export function createPinnedKeys(deps: {
  settings: Pick<SettingsStore, 'profile'>;
  log: Logger;
  /** The key to use when the profile's settings pin none (the embedded sandbox's), or null. */
  fallbackPem(profileId: string): string | null;
}): PinnedKeys {
  const parsed = new Map<string, PinnedKey & { pem: string | null }>();
  const pemOf = (profileId: string): string | null => {
    let pem: string | null = null;
    try {
      pem = deps.settings.profile(profileId).webhookPublicKeyPem;
    } catch {
      return null; // the profile is gone
    }
    return pem || deps.fallbackPem(profileId);
  };
  return {
    of(profileId) {
      const pem = pemOf(profileId);
      const cached = parsed.get(profileId);
      if (cached && cached.pem === pem) return cached;
      const next = { pem, key: null as KeyObject | null, problem: null as string | null };
      if (pem) {
        try {
          next.key = loadPublicKey(pem);
        } catch (err) {
          next.problem = err instanceof Error ? err.message : String(err);
          deps.log.warn('webhook: the pinned key cannot be used', { profileId, error: next.problem });
        }
      }
      parsed.set(profileId, next);
      return next;
    },
    forget: (profileId) => void parsed.delete(profileId),
  };
}
