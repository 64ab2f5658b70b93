/**
 * The composition root's first floors: the data folder, its stores sealed with the keychain-held
 * key, the token vault, settings, the approved bank addresses, and the run's environment choice.
 */
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { SandboxOptions } from '../../sandbox';
import { openDataCodec } from '../infra/data-codec';
import { sweepInterruptedWrites } from '../infra/durable-file';
import { sandboxSeedFor } from '../session/sandbox-seed';
import { createDestinationGuard, defaultBankAllowListPath } from '../session/destinations';
import { bankOrigin } from '../infra/origins';
import { createEventHub } from '../infra/events';
import type { DisposableStore } from '../infra/lifecycle';
import type { Logger } from '../infra/log';
import type { Platform } from '../infra/platform';
import { checkBaseUrl, openSettings } from '../session/settings';
import { confStoreFactory, createStores } from '../infra/stores';
import { openVault } from '../infra/vault';
import { napiKeyringBackend, type KeyringBackend } from '../infra/keyring';
import type { AtRestCodec } from '../infra/at-rest';
import type { EventHub } from '../infra/events';
import type { Stores } from '../infra/stores';
import type { TokenVault } from '../infra/vault';
import type { SettingsStore } from '../session/settings';
import type { DestinationGuard } from '../session/destinations';
import type { ServicesOptions } from './options';

function defaultKeyringService(dataDir: string): string {
  return `treasury-desk/${createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 12)}`;
}

/** What the first floors built: the data folder's stores, the keychain, settings and bank addresses. */
export interface Foundation {
  options: ServicesOptions;
  platform: Platform;
  log: Logger;
  dataDir: string;
  disposables: DisposableStore;
  events: EventHub;
  stores: Stores;
  vault: TokenVault;
  atRest: AtRestCodec;
  /** The OS keychain and this data folder's service name in it (the team sign-in's entry). */
  keyring: KeyringBackend;
  keyringService: string;
  settings: SettingsStore;
  destinations: DestinationGuard;
  /** Stops asking the keychain again and waits for a move under way (the first thing disposed). */
  stopReprobe(): Promise<void>;
}

/** Floor 1: the data folder, its stores sealed with the keychain-held key, settings and approved addresses. */
export async function openFoundation(
  options: ServicesOptions,
  log: Logger,
  disposables: DisposableStore,
): Promise<Foundation> {
  const dataDir = options.dataDir;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await mkdir(path.join(dataDir, 'state'), { recursive: true, mode: 0o700 });
  const interrupted = await sweepInterruptedWrites(dataDir);
  if (interrupted > 0) log.info('start-up: removed temp files of interrupted writes', { count: interrupted });
  const events = createEventHub(log);
  const stores = createStores({ dataDir, factory: options.storeFactory ?? confStoreFactory, log });

  const keyring = options.keyring ?? napiKeyringBackend();
  const keyringService = options.keyringService ?? defaultKeyringService(dataDir);
  const vault = await openVault({ backend: keyring, log, service: keyringService });
  vault.onToken((t) => log.addSecret(t));
  // A keychain locked or away at start is asked again: once it answers, tokens move into it.
  const reprobe = setInterval(() => {
    if (vault.status().backend === 'memory') void vault.reprobe();
  }, options.keychainReprobeMs ?? 60_000);
  reprobe.unref?.();
  // Every data-folder file with customer data is sealed with the keychain-held data key, bound to
  // its path and generation (plain, said so, without a keychain; waiting when the keychain is locked).
  const dataCodec = await openDataCodec({
    dataDir,
    vault,
    backend: keyring,
    service: keyringService,
    log,
    report: (p) => stores.report({ ...p, movedTo: null }),
  });
  // Sealed writes in flight land before the data folder is let go (the last thing disposed).
  disposables.add(() => dataCodec.flush());
  // The keychain answers later in the run: the codec every store holds switches at once.
  disposables.add(
    vault.onDataKey(async (found) => {
      if ('key' in found) await dataCodec.unlock(found.key);
      else dataCodec.wait(`the data key entry in the keychain is unreadable (${found.garbled})`);
    }),
  );
  const atRest = dataCodec.codec;
  stores.useCodec(atRest);

  const settings = await openSettings(stores, dataDir);
  const destinations = await createDestinationGuard({
    dataDir,
    stores,
    platform: options.platform,
    log,
    allowListPath: options.bankAllowList === undefined ? defaultBankAllowListPath() : options.bankAllowList,
  });
  const platform = options.platform;
  return {
    options,
    platform,
    log,
    dataDir,
    disposables,
    events,
    stores,
    vault,
    atRest,
    keyring,
    keyringService,
    settings,
    destinations,
    async stopReprobe() {
      clearInterval(reprobe);
      await vault.settled();
    },
  };
}

/** The run's environment choice (main's own, not the renderer's): the default profile and the sandbox's options. */
export async function chooseEnvironment(f: Foundation): Promise<Partial<SandboxOptions>> {
  const { options, settings, destinations, vault } = f;
  const choice = options.environment;
  let sandboxOptions: Partial<SandboxOptions> = { ...options.sandbox };
  if (choice?.kind === 'embedded-sandbox') {
    sandboxOptions = { ...sandboxOptions, ...choice.sandbox };
    settings.setActive('sandbox');
  } else if (choice?.kind === 'remote') {
    const url = checkBaseUrl(choice.baseUrl);
    const existing = settings.get().profiles.find((p) => p.kind === 'remote' && p.baseUrl === url);
    const profile = existing ?? settings.addProfile({ name: choice.name ?? 'Bank', baseUrl: url });
    // Main's own choice (not the renderer's): the origin counts as approved.
    const origin = bankOrigin(url);
    if (origin) destinations.approveByMain(origin);
    settings.setActive(profile.id);
    if (choice.token) {
      settings.bindToken(profile.id, origin);
      await vault.set(profile.id, choice.token);
    }
  } else if (choice?.kind === 'profile') {
    settings.setActive(choice.profileId);
  }
  sandboxOptions.seed ??= await sandboxSeedFor(f.dataDir, f.log);
  return sandboxOptions;
}
