/**
 * The token vault: one OS keychain entry per environment profile (service "treasury-desk",
 * account = profile id). The token is read only inside main (by the bank client); nothing that
 * crosses IPC, no log line and no error message carries it.
 *
 * If no keychain can be used (Linux without a Secret Service, a locked or refusing store), the
 * vault says so in status() and keeps tokens in memory. It asks the keychain again (`reprobe`: on a
 * schedule and when the analyst tries again); once it answers, the tokens entered meanwhile move
 * into it. It never writes a token to disk itself.
 */

import { AppFailure } from '../../shared/ipc/errors';
import type { DataKey } from './at-rest';
import { loadDataKey } from './data-key';
import type { KeyringBackend } from './keyring';
import type { Logger } from './log';

export interface VaultStatus {
  backend: 'keychain' | 'memory';
  /** Whether the OS keychain is usable. */
  available: boolean;
  /** Why the keychain is not used, in words an analyst can read; null when it is. */
  problem: string | null;
  /** Name of the keychain (e.g. "Secret Service"). */
  keychainName: string;
  /**
   * Whether drafts, the outbox and the RFI cache are encrypted on disk: only with a data key from
   * the keychain; without one they are written in plain text, and the Settings screen says so.
   */
  dataAtRest: 'encrypted' | 'unencrypted' | 'waiting';
}

export interface TokenVault {
  /** Internal only: never hand this to a channel, event or log. */
  get(profileId: string): Promise<string | null>;
  has(profileId: string): Promise<boolean>;
  /** Stores a token (first time or replacing the old one). */
  set(profileId: string, token: string): Promise<void>;
  /** The same as set, named for the "replace the token" action. */
  replace(profileId: string, token: string): Promise<void>;
  /** Sign out: removes the token. true if one was stored. */
  delete(profileId: string): Promise<boolean>;
  status(): VaultStatus;
  /** Called whenever a token is stored, so the logger can redact it. */
  onToken(listener: (token: string) => void): void;
  /**
   * Called after a profile's token was stored or removed (the keychain has answered), so whoever
   * decides from "has a token" looks again at the right moment rather than on a timer.
   */
  onChange(listener: (profileId: string) => void): () => void;
  /** The data key for files at rest (main only, never crosses IPC); null without a keychain. */
  dataKey(): DataKey | null;
  /**
   * Told when the keychain answers later in the run (the re-probe) with its data key (or with an
   * unreadable data-key entry): the data folder's codec switches to it before the status says so.
   */
  onDataKey(listener: (found: { key: DataKey } | { garbled: string }) => Promise<void>): () => void;
  /** The keychain has a data-key entry that is not a data key (never replaced, never written plain over). */
  dataKeyGarbled(): boolean;
  /** Files are sealed here but the key cannot be had: the status says "waiting for the keychain". */
  markWaiting(reason: string): void;
  /**
   * While tokens are kept in memory, asks the keychain again; once it answers, every token of this
   * run is stored in it and the vault uses it from then on (no token is lost, none is left in
   * memory only). A token deleted while kept in memory (sign-out, profile removal), even during
   * the move, is deleted from the keychain too before the vault uses it: a delete always wins.
   * Answers whether the keychain is used now. A no-op while it already is.
   */
  reprobe(): Promise<boolean>;
  /** Resolves once no re-probe is under way (the move and the data folder's switch included). */
  settled(): Promise<void>;
  /** Told when the vault moved from memory to the keychain (the status changed). */
  onStatus(listener: () => void): () => void;
}

const tokenPattern = /^[\x21-\x7e]{8,4096}$/;

/** Explains a keychain error without echoing anything it might contain verbatim at length. */
function describe(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m.replace(/\s+/g, ' ').slice(0, 200);
}

const memoryStatus = (keychainName: string, err: unknown): VaultStatus => ({
  backend: 'memory',
  available: false,
  keychainName,
  problem: `The ${keychainName} keychain is not available (${describe(err)}). Tokens are kept in memory until it answers (the app asks it again every minute and on “Try again”); entered now, they must be entered again if Treasury Desk closes first.`,
  dataAtRest: 'unencrypted',
});

/** Probes the keychain (a read of a probe entry) and loads the data key when it answers. */
async function firstStatus(
  backend: KeyringBackend,
  service: string,
  log: Logger,
): Promise<{ status: VaultStatus; dataKey: DataKey | null; garbled: boolean }> {
  try {
    await backend.get(service, '__probe__');
  } catch (err) {
    log.warn('vault: no keychain; tokens stay in memory for now', { problem: describe(err) });
    return { status: memoryStatus(backend.name, err), dataKey: null, garbled: false };
  }
  const status: VaultStatus = {
    backend: 'keychain',
    available: true,
    problem: null,
    keychainName: backend.name,
    dataAtRest: 'unencrypted',
  };
  const loaded = await loadDataKey({ backend, service, log });
  if (loaded.key)
    return { status: { ...status, dataAtRest: 'encrypted' }, dataKey: loaded.key, garbled: false };
  return {
    status: {
      ...status,
      problem: `The data key could not be kept in the ${backend.name} keychain (${loaded.problem}).`,
    },
    dataKey: null,
    garbled: loaded.garbled === true,
  };
}

/**
 * Writes memory's tokens into the keychain and deletes the tombstoned ones there, then reads both
 * back. A set or delete meanwhile (the writes await the keychain) bumps `epoch` and makes it go
 * round again, so what the keychain holds at the end is memory's state at the moment the vault
 * switches: a token deleted during the move is never written back.
 */
async function syncKeychain(o: {
  backend: KeyringBackend;
  service: string;
  memory: ReadonlyMap<string, string>;
  tombstones: ReadonlySet<string>;
  epoch(): number;
}): Promise<void> {
  const { backend, service, memory, tombstones } = o;
  for (let round = 0; round < 5; round++) {
    const epoch = o.epoch();
    for (const [profileId, token] of [...memory]) await backend.set(service, profileId, token);
    for (const profileId of [...tombstones]) await backend.delete(service, profileId);
    if (o.epoch() !== epoch) continue;
    // Read back: what the keychain holds is what later runs will use.
    let kept = true;
    for (const [profileId, token] of [...memory]) kept &&= (await backend.get(service, profileId)) === token;
    for (const profileId of [...tombstones]) kept &&= (await backend.get(service, profileId)) === null;
    if (o.epoch() !== epoch) continue;
    if (!kept) throw new Error('the keychain did not keep the tokens as written');
    return;
  }
  throw new Error('the tokens kept changing while they were moved');
}

type DataKeyListener = (found: { key: DataKey } | { garbled: string }) => Promise<void>;

/** The data key, once the keychain answers later in the run: its listeners switch to it first. */
async function adoptDataKey(
  o: { backend: KeyringBackend; service: string; log: Logger },
  listeners: DataKeyListener[],
): Promise<DataKey | null> {
  const loaded = await loadDataKey(o);
  if (loaded.key) {
    for (const l of listeners) await l({ key: loaded.key });
    return loaded.key;
  }
  if (loaded.garbled) for (const l of listeners) await l({ garbled: loaded.problem });
  return null;
}

export interface VaultOptions {
  backend: KeyringBackend;
  log: Logger;
  /** Keychain service name; tests use their own so they never touch a real profile. */
  service?: string;
}

/**
 * Probes the keychain (a read of a probe entry) and answers a vault. A failure to probe means the
 * memory fallback until a re-probe finds the keychain: the status says so, clearly.
 */
export async function openVault(options: VaultOptions): Promise<TokenVault> {
  const { backend, log } = options;
  const service = options.service ?? 'treasury-desk';
  const memory = new Map<string, string>();
  /** Keychain reads are cached for the run (one D-Bus round trip per profile, not per request). */
  const cache = new Map<string, string | null>();
  /** Bumped by every set/delete, so a read that raced a change does not cache the old token. */
  const versions = new Map<string, number>();
  const bump = (profileId: string): void => {
    versions.set(profileId, (versions.get(profileId) ?? 0) + 1);
    cache.delete(profileId);
  };
  const listeners: Array<(t: string) => void> = [];

  const first = await firstStatus(backend, service, log);
  let status = first.status;
  let dataKey = first.dataKey;
  const { garbled } = first;
  /**
   * Profiles whose token was deleted while the keychain was away: the keychain may still hold a
   * token of theirs (stored before it went away, or written by a move under way), deleted there
   * before the vault uses the keychain again.
   */
  const tombstones = new Set<string>();
  /** Bumped by every set or delete while tokens are in memory: a move under way goes round again. */
  let memoryEpoch = 0;
  const dataKeyListeners = new Set<DataKeyListener>();

  const check = (profileId: string): void => {
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(profileId)) {
      throw new AppFailure({
        kind: 'invalid_argument',
        field: 'profileId',
        message: 'Unknown environment profile.',
      });
    }
  };

  const keychainFailure = (what: string, err: unknown): AppFailure => {
    log.error(`vault: keychain ${what} failed`, { error: describe(err) });
    return new AppFailure({
      kind: 'keychain_unavailable',
      message: `The ${backend.name} keychain refused to ${what} the token (${describe(err)}). Unlock the keychain and try again.`,
    });
  };

  const remember = (token: string): void => {
    for (const l of listeners) l(token);
  };
  const changeListeners = new Set<(profileId: string) => void>();
  const changed = (profileId: string): void => {
    for (const l of [...changeListeners]) {
      try {
        l(profileId);
      } catch (err) {
        log.warn('vault: a change listener failed', { error: describe(err) });
      }
    }
  };

  const statusListeners = new Set<() => void>();
  let probing: Promise<boolean> | null = null;
  /** The keychain answers again: this run's tokens move into it, then the vault uses it. */
  const moveToKeychain = async (): Promise<boolean> => {
    try {
      await backend.get(service, '__probe__');
      await syncKeychain({ backend, service, memory, tombstones, epoch: () => memoryEpoch });
    } catch (err) {
      // Still away: said so again, a data folder waiting for it included.
      if (status.dataAtRest !== 'waiting') status = memoryStatus(backend.name, err);
      return false;
    }
    // Nothing awaited between the last check of memory and the switch: a set or delete from here
    // on goes to the keychain.
    const moved = [...memory.keys()];
    const deleted = [...tombstones];
    memory.clear();
    tombstones.clear();
    for (const id of [...moved, ...deleted]) bump(id);
    status = { ...status, backend: 'keychain', available: true, problem: null };
    log.info('vault: the keychain answers again; tokens moved into it', { count: moved.length });
    try {
      dataKey ??= await adoptDataKey({ backend, service, log }, [...dataKeyListeners]);
    } catch (err) {
      log.error('vault: the data key could not be taken up', { error: describe(err) });
    }
    const waiting = status.dataAtRest === 'waiting';
    status = {
      ...status,
      dataAtRest: dataKey ? 'encrypted' : waiting ? 'waiting' : 'unencrypted',
      problem: dataKey
        ? null
        : waiting
          ? status.problem
          : `Tokens are now kept in the ${backend.name} keychain, but the data key could not be kept there: files on disk stay unencrypted.`,
    };
    for (const id of [...moved, ...deleted]) changed(id);
    for (const l of [...statusListeners]) l();
    return true;
  };

  const vault: TokenVault = {
    status: () => ({ ...status }),
    reprobe() {
      if (probing) return probing;
      if (status.backend === 'keychain') return Promise.resolve(true);
      probing ??= moveToKeychain().finally(() => {
        probing = null;
      });
      return probing;
    },
    settled: async () => {
      await probing;
    },
    onStatus(listener) {
      statusListeners.add(listener);
      return () => statusListeners.delete(listener);
    },
    dataKey: () => dataKey,
    onDataKey(listener) {
      dataKeyListeners.add(listener);
      return () => dataKeyListeners.delete(listener);
    },
    dataKeyGarbled: () => garbled,
    markWaiting(reason) {
      status = {
        ...status,
        dataAtRest: 'waiting',
        problem: `Waiting for the ${backend.name} keychain: ${reason} Encrypted files are kept as they are and nothing is saved to disk until it answers (changes made now last until Treasury Desk closes). ${
          status.backend === 'memory'
            ? 'Unlock the keychain: Treasury Desk asks it again every minute and on “Try again”, and opens the files as soon as it answers.'
            : 'Restore the data key entry in the keychain and restart Treasury Desk.'
        }`,
      };
    },
    onToken(listener) {
      listeners.push(listener);
      for (const t of memory.values()) listener(t);
    },
    onChange(listener) {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },
    async get(profileId) {
      check(profileId);
      if (status.backend === 'memory') return memory.get(profileId) ?? null;
      if (cache.has(profileId)) return cache.get(profileId) ?? null;
      const version = versions.get(profileId) ?? 0;
      let token: string | null;
      try {
        token = await backend.get(service, profileId);
      } catch (err) {
        throw keychainFailure('read', err);
      }
      if (token) remember(token);
      if ((versions.get(profileId) ?? 0) !== version) return vault.get(profileId); // changed meanwhile
      cache.set(profileId, token);
      return token;
    },
    async has(profileId) {
      return (await vault.get(profileId)) !== null;
    },
    async set(profileId, token) {
      check(profileId);
      const trimmed = token.trim();
      if (!tokenPattern.test(trimmed)) {
        throw new AppFailure({
          kind: 'invalid_argument',
          field: 'token',
          message: 'A token is 8 to 4096 visible characters without spaces.',
        });
      }
      remember(trimmed);
      if (status.backend === 'memory') {
        memory.set(profileId, trimmed);
        tombstones.delete(profileId);
        memoryEpoch++;
        changed(profileId);
        return;
      }
      bump(profileId);
      try {
        await backend.set(service, profileId, trimmed);
      } catch (err) {
        throw keychainFailure('store', err);
      } finally {
        bump(profileId);
      }
      changed(profileId);
    },
    replace: (profileId, token) => vault.set(profileId, token),
    async delete(profileId) {
      check(profileId);
      if (status.backend === 'memory') {
        const had = memory.delete(profileId);
        // The keychain may hold a token of this profile (or get one from a move under way).
        tombstones.add(profileId);
        memoryEpoch++;
        changed(profileId);
        return had;
      }
      bump(profileId);
      let had: boolean;
      try {
        had = await backend.delete(service, profileId);
      } catch (err) {
        throw keychainFailure('delete', err);
      } finally {
        bump(profileId);
      }
      changed(profileId);
      return had;
    },
  };
  return vault;
}
