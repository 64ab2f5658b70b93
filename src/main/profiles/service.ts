/**
 * The profiles service: add, rename, remove, make the default, store or delete a token, approve a
 * bank address. Every change the page asks for that would send a token or customer data somewhere
 * new, or replace what the analyst entered, is confirmed in main's own dialog first:
 *
 * - a new bank address (or one whose approval was withdrawn) is approved natively;
 * - replacing a token already stored for a profile is confirmed natively (a page cannot swap in a
 *   credential the analyst never entered);
 * - removing a profile says what it loses (its unsent answers and drafts) and asks; then its
 *   address approval is withdrawn (unless another profile uses it), its token deleted, its queued
 *   work, caches and session dropped.
 *
 * IPC handlers only translate to these calls.
 */

import { AppFailure } from '../../shared/ipc/errors';
import type { Operations } from '../bank/operations';
import type { Logger } from '../infra/log';
import type { TokenVault } from '../infra/vault';
import { bankOrigin } from '../infra/origins';
import type { DestinationGuard } from '../session/destinations';
import type { SessionManager } from '../session/session';
import { checkBaseUrl } from '../session/settings';
import type { SettingsStore } from '../session/settings';
import type { ProfileRegistry } from './registry';

/**
 * What the features hold per profile: what a profile's removal drops besides its settings, token
 * and approval, and the watch of a new default profile.
 */
export interface ProfileWork {
  /** Unsent work that would be lost, in words (null: none). */
  describe(profileId: string): string | null;
  /** Drops it (after the analyst agreed). */
  drop(profileId: string, origin: string): Promise<void>;
  /** Another profile became the default: its RFIs are watched (when they were not) before this resolves. */
  defaultChanged(): Promise<void>;
}

export interface ProfilesDeps {
  settings: SettingsStore;
  vault: TokenVault;
  destinations: DestinationGuard;
  session: SessionManager;
  profiles: ProfileRegistry;
  operations: Pick<Operations, 'audited'>;
  work: ProfileWork;
  log: Logger;
}

export interface ProfilesService {
  add(input: { name: string; baseUrl: string }): Promise<void>;
  rename(profileId: string, name: string | undefined): Promise<void>;
  /** Answers false when the analyst kept the profile (nothing changed). */
  remove(profileId: string): Promise<boolean>;
  /** Makes the profile the default for new objects (and the header's); approves its address first. */
  activate(profileId: string): Promise<void>;
  /** Stores a token; replacing one already stored needs the analyst's native confirmation. */
  setToken(profileId: string, token: string): Promise<void>;
  deleteToken(profileId: string): Promise<void>;
  /** Asks the analyst natively to approve the profile's bank address (again). */
  approveAddress(profileId: string): Promise<void>;
}

export function createProfilesService(deps: ProfilesDeps): ProfilesService {
  const { settings, vault, destinations, session, profiles, operations, log } = deps;

  /** The profile's origin as it is used now (the embedded sandbox: this run's address). */
  const profileOrigin = (profileId: string): string | null => {
    const p = settings.profile(profileId);
    return bankOrigin(p.kind === 'embedded-sandbox' ? (profiles.sandbox?.url ?? '') : p.baseUrl);
  };
  const recheck = async (profileId: string): Promise<void> => {
    const s = profiles.peek(profileId);
    if (s) await s.check({ fresh: true }).catch(() => undefined);
  };

  const confirmReplace = async (profileId: string): Promise<void> => {
    const p = settings.profile(profileId);
    const ok = await destinations.confirm({
      kind: 'token-replace',
      destination: profileOrigin(profileId) ?? p.name,
      title: 'Replace the stored token',
      message: `Replace the access token stored for "${plain(p.name)}"?`,
      detail:
        'A token is already stored for this profile. The new one will be sent to ' +
        `${profileOrigin(profileId) ?? 'its bank'} from now on, and the old one is deleted. Replace it only ` +
        'if you entered the new token yourself.',
      approveLabel: 'Replace the token',
    });
    if (!ok) {
      throw new AppFailure({
        kind: 'not_approved',
        reason: 'TOKEN_REPLACE_DECLINED',
        message: 'The stored token was kept: replacing it was not confirmed in the app’s dialog.',
      });
    }
  };

  const service: ProfilesService = {
    async add({ name, baseUrl }) {
      const url = checkBaseUrl(baseUrl);
      const origin = new URL(url).origin;
      // The page only proposes an address: the analyst approves it in main's own dialog (unless
      // an administrator allow-listed it), or no profile is added.
      await operations.audited({ operation: 'profile.add', target: origin }, async () => {
        await destinations.approveBankOrigin(origin, name.trim() || 'Bank');
        settings.addProfile({ name, baseUrl: url });
      });
    },
    async rename(profileId, name) {
      await operations.audited({ operation: 'profile.rename', target: profileId, profileId }, async () => {
        settings.updateProfile(profileId, { ...(name !== undefined ? { name } : {}) });
      });
    },
    async remove(profileId) {
      const p = settings.profile(profileId);
      const origin = profileOrigin(profileId);
      const loses = deps.work.describe(profileId);
      const ok = await destinations.confirm({
        kind: 'profile-remove',
        destination: origin ?? p.name,
        title: 'Remove a profile',
        message: `Remove "${plain(p.name)}" from this computer?`,
        detail:
          `Its token, its drafts and the RFIs saved for it on this computer are deleted, and ` +
          `${origin ?? 'its bank address'} must be approved again before it is used.` +
          (loses ? ` This also deletes ${loses} that were never sent.` : ''),
        approveLabel: 'Remove the profile',
      });
      if (!ok) return false;
      await operations.audited({ operation: 'profile.remove', target: profileId }, async () => {
        const wasActive = session.profile.id === profileId;
        // Gone from the settings first: nothing is sent for it from here on.
        settings.removeProfile(profileId);
        if (wasActive) {
          await session.activate(settings.get().activeProfileId);
          await deps.work.defaultChanged();
        }
        await vault
          .delete(profileId)
          .catch((err: unknown) => log.warn('profiles: token not removed', { error: err }));
        profiles.forget(profileId);
        await deps.work.drop(profileId, origin ?? '');
        // Another profile may still use the address: its approval stays for that one.
        const shared = settings
          .get()
          .profiles.some((x) => x.kind === 'remote' && bankOrigin(x.baseUrl) === origin);
        if (origin && p.kind === 'remote' && !shared) destinations.revoke(origin);
      });
      return true;
    },
    async activate(profileId) {
      await operations.audited({ operation: 'profile.activate', target: profileId, profileId }, () =>
        session.activate(profileId),
      );
      await deps.work.defaultChanged();
    },
    async setToken(profileId, token) {
      settings.profile(profileId);
      if (await vault.has(profileId).catch(() => false)) await confirmReplace(profileId);
      await operations.audited({ operation: 'token.set', target: profileId, profileId }, async () => {
        // Bound to the origin the profile uses now: the token is sent there and nowhere else.
        session.bindToken(profileId);
        await vault.set(profileId, token);
      });
      await recheck(profileId);
    },
    async deleteToken(profileId) {
      settings.profile(profileId);
      await operations.audited({ operation: 'token.delete', target: profileId, profileId }, async () => {
        await vault.delete(profileId);
        settings.bindToken(profileId, null);
      });
      await recheck(profileId);
    },
    async approveAddress(profileId) {
      const p = settings.profile(profileId);
      const origin = profileOrigin(profileId);
      if (!origin) {
        throw new AppFailure({
          kind: 'invalid_argument',
          field: 'profileId',
          message: 'This profile has no valid bank address.',
        });
      }
      await destinations.approveBankOrigin(origin, p.name);
      await recheck(profileId);
    },
  };
  return service;
}

/** A name from the page as one plain line, so it cannot pose as the dialog's own text. */
function plain(name: string): string {
  return (
    name
      .replace(/[\p{Cc}\p{Cf}\s]+/gu, ' ')
      .trim()
      .slice(0, 80) || 'Bank'
  );
}
