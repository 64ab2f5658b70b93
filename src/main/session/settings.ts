/**
 * Settings and environment profiles, kept in `<dataDir>/settings.json` (schema-checked, 0600;
 * a corrupt file is moved aside and reported by the stores). The embedded sandbox profile always
 * exists; remote profiles point at a bank base URL.
 */

import { cleanName } from '../../shared/names';
import { randomBytes } from 'node:crypto';
import { p256PublicKey } from '../infra/p256';
import { AppFailure } from '../../shared/ipc/errors';
import type {
  NotificationPrefs,
  Profile,
  ReminderSettings,
  SandboxCredential,
  SettingsFile,
} from '../../shared/ipc/channels/settings';
import { DEFAULT_REMINDER_HOURS, sortedThresholds } from '../../shared/reminder-rules';
import { bankOrigin } from '../infra/origins';
import type { MainStores } from '../infra/stores';
import { settingsFormat } from './settings-stored';

export const sandboxProfileId = 'sandbox';

export const defaultSettings: SettingsFile = {
  version: 1,
  activeProfileId: sandboxProfileId,
  profiles: [
    {
      id: sandboxProfileId,
      name: 'Embedded sandbox',
      kind: 'embedded-sandbox',
      baseUrl: '',
      webhookPublicKeyPem: null,
      sandboxCredential: 'a-admin',
      tokenOrigin: null,
    },
  ],
  pollingIntervalSeconds: 30,
  notifications: { newRfi: true, rfiStatus: true, transactionStatus: true, quoteExpiry: true },
  reminders: { enabled: true, hours: [...DEFAULT_REMINDER_HOURS] },
};

export interface SettingsStore {
  get(): SettingsFile;
  profile(profileId: string): Profile;
  activeProfile(): Profile;
  update(patch: {
    pollingIntervalSeconds?: number;
    notifications?: Partial<NotificationPrefs>;
    /** Thresholds are kept distinct and largest first. */
    reminders?: Partial<ReminderSettings>;
  }): SettingsFile;
  /** A new remote profile under a random id (never a name's slug: no old token is inherited). */
  addProfile(input: { name: string; baseUrl: string }): Profile;
  /** Renames. A profile's base URL never changes: a new address is a new profile. */
  updateProfile(profileId: string, patch: { name?: string }): Profile;
  /** Records the origin the profile's stored token was entered for (null: no usable token). */
  bindToken(profileId: string, origin: string | null): Profile;
  removeProfile(profileId: string): void;
  setActive(profileId: string): Profile;
  setWebhookPublicKey(profileId: string, pem: string | null): Profile;
  setSandboxCredential(credential: SandboxCredential): Profile;
  onChange(listener: (s: SettingsFile) => void): () => void;
}

/** https, or http to a loopback address only (a local test bank). */
export function checkBaseUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new AppFailure({
      kind: 'invalid_argument',
      field: 'baseUrl',
      message: 'The base URL is not a URL.',
    });
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
  if (!(u.protocol === 'https:' || (u.protocol === 'http:' && loopback))) {
    throw new AppFailure({
      kind: 'invalid_argument',
      field: 'baseUrl',
      message: 'The base URL must use https (plain http is allowed only for 127.0.0.1 / localhost).',
    });
  }
  if (u.username || u.password || u.search || u.hash) {
    throw new AppFailure({
      kind: 'invalid_argument',
      field: 'baseUrl',
      message: 'The base URL must not carry credentials, a query or a fragment.',
    });
  }
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/** Accepts an ECDSA P-256 public key in PEM (SPKI); answers it normalised. */
export function checkWebhookPublicKey(pem: string): string {
  const key = p256PublicKey(pem);
  if (!key) {
    throw new AppFailure({
      kind: 'invalid_argument',
      field: 'publicKeyPem',
      message:
        'The webhook public key must be an ECDSA P-256 public key in PEM ("-----BEGIN PUBLIC KEY-----").',
    });
  }
  return key.export({ type: 'spki', format: 'pem' }).toString();
}

/** A random profile id (the keychain account of its token). */
function newProfileId(taken: Set<string>): string {
  for (;;) {
    const id = `p_${randomBytes(8).toString('hex')}`;
    if (!taken.has(id)) return id;
  }
}

export async function openSettings(stores: MainStores, dataDir: string): Promise<SettingsStore> {
  const { version: _version, ...defaults } = defaultSettings;
  const file = await stores.openAt(dataDir, 'settings', settingsFormat, defaults);
  // The stored format (settings-stored.ts) and the view (SettingsFile) are separate shapes.
  const store = {
    get: (): SettingsFile => ({ ...file.get(), version: 1 }),
    update: (fn: (s: SettingsFile) => SettingsFile): SettingsFile => ({
      ...file.update((c) => fn({ ...c, version: 1 })),
      version: 1,
    }),
  };
  const listeners = new Set<(s: SettingsFile) => void>();
  // Read again from disk (the keychain answered later in the run): whoever follows settings hears it.
  file.onReloaded(() => {
    const now = store.get();
    for (const l of [...listeners]) l(now);
  });

  // Repair what the schema cannot say: the sandbox profile exists, the active profile exists.
  store.update((s) => {
    let profiles = s.profiles;
    if (!profiles.some((p) => p.kind === 'embedded-sandbox'))
      profiles = [defaultSettings.profiles[0]!, ...profiles];
    const active = profiles.some((p) => p.id === s.activeProfileId) ? s.activeProfileId : sandboxProfileId;
    // Files written before tokens were bound: a remote profile's token belongs to its own origin.
    profiles = profiles.map((p) =>
      p.tokenOrigin !== undefined
        ? p
        : { ...p, tokenOrigin: p.kind === 'remote' ? bankOrigin(p.baseUrl) : null },
    );
    return { ...s, profiles, activeProfileId: active };
  });

  const write = (fn: (s: SettingsFile) => SettingsFile): SettingsFile => {
    const next = store.update(fn);
    for (const l of [...listeners]) l(next);
    return next;
  };
  const find = (s: SettingsFile, id: string): Profile => {
    const p = s.profiles.find((x) => x.id === id);
    if (!p)
      throw new AppFailure({
        kind: 'not_found',
        field: 'profileId',
        message: `There is no environment profile "${id}".`,
      });
    return p;
  };
  const replace = (id: string, fn: (p: Profile) => Profile): Profile => {
    let out: Profile | null = null;
    write((s) => ({
      ...s,
      profiles: s.profiles.map((p) => {
        if (p.id !== id) return p;
        out = fn(p);
        return out;
      }),
    }));
    return out ?? find(store.get(), id);
  };

  return {
    get: () => store.get(),
    profile: (id) => find(store.get(), id),
    activeProfile() {
      const s = store.get();
      return find(s, s.activeProfileId);
    },
    update(patch) {
      return write((s) => ({
        ...s,
        ...(patch.pollingIntervalSeconds !== undefined
          ? { pollingIntervalSeconds: patch.pollingIntervalSeconds }
          : {}),
        notifications: { ...s.notifications, ...patch.notifications },
        reminders: {
          enabled: patch.reminders?.enabled ?? s.reminders.enabled,
          hours: sortedThresholds(patch.reminders?.hours ?? s.reminders.hours),
        },
      }));
    },
    addProfile({ name, baseUrl }) {
      const url = checkBaseUrl(baseUrl);
      const s = store.get();
      const id = newProfileId(new Set(s.profiles.map((p) => p.id)));
      const profile: Profile = {
        id,
        name: cleanName(name, 80) || 'Bank',
        kind: 'remote',
        baseUrl: url,
        webhookPublicKeyPem: null,
        sandboxCredential: 'a-admin',
        tokenOrigin: null,
      };
      write((cur) => ({ ...cur, profiles: [...cur.profiles, profile] }));
      return profile;
    },
    updateProfile(id, patch) {
      find(store.get(), id);
      return replace(id, (p) => ({
        ...p,
        ...(patch.name !== undefined ? { name: cleanName(patch.name, 80) || p.name } : {}),
      }));
    },
    bindToken(id, origin) {
      find(store.get(), id);
      return replace(id, (p) => ({ ...p, tokenOrigin: origin }));
    },
    removeProfile(id) {
      const p = find(store.get(), id);
      if (p.kind === 'embedded-sandbox') {
        throw new AppFailure({
          kind: 'invalid_argument',
          field: 'profileId',
          message: 'The embedded sandbox profile cannot be removed.',
        });
      }
      write((s) => ({
        ...s,
        profiles: s.profiles.filter((x) => x.id !== id),
        activeProfileId: s.activeProfileId === id ? sandboxProfileId : s.activeProfileId,
      }));
    },
    setActive(id) {
      const p = find(store.get(), id);
      write((s) => ({ ...s, activeProfileId: id }));
      return p;
    },
    setWebhookPublicKey(id, pem) {
      const normalised = pem === null || pem.trim() === '' ? null : checkWebhookPublicKey(pem);
      return replace(id, (p) => ({ ...p, webhookPublicKeyPem: normalised }));
    },
    setSandboxCredential(credential) {
      return replace(sandboxProfileId, (p) => ({ ...p, sandboxCredential: credential }));
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
