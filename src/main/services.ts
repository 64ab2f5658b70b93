import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { SandboxOptions } from '../sandbox';
import type { SettingsView } from '../shared/ipc/channels/settings';
import { DeskFailure } from '../shared/ipc/errors';
import { openAuditLog } from './bank/audit';
import type { ServiceCore, Services } from './core';
import { createOperations } from './bank/operations';
import type { RetryPolicy } from './bank/client';
import { openDataCodec } from './infra/data-codec';
import { openTempArea } from './infra/temp-area';
import { withNotificationPolicy } from './infra/notification-policy';
import type { NotificationPolicyOptions } from './infra/notification-policy';
import type { BankScope } from './bank/scope';
import { createRfiAnswers } from './rfi-answers';
import { createLocker } from './locker/service';
import { createCaseFiles } from './case-files/service';
import { openCaseFileJournal } from './case-files/journal';
import type { RfiAnswersOptions } from './rfi-answers';
import { createCryptoService } from './crypto/service';
import type { CryptoOptions } from './crypto/service';
import { relatedNamesResolver } from './rfis/related-names';
import { createReturnsService } from './returns/service';
import { createRfiService, createWebhookService, removeProfileCache } from './rfis';
import { deskBuilder } from './desk/desk';
import type { RfiMember } from './desk/desk';
import type { RfiService } from './rfis';
import type { RfiServiceOptions, WebhookServiceOptions } from './rfis';
import { sweepInterruptedWrites } from './infra/durable-file';
import { sandboxSeedFor } from './session/sandbox-seed';
import { createDestinationGuard, defaultBankAllowListPath } from './session/destinations';
import { bankOrigin } from './infra/origins';
import type { OriginDecision } from './session/destinations';
import { createEventHub } from './infra/events';
import { DisposableStore } from './infra/lifecycle';
import { buildHandlers } from './handlers';
import { createBusyGuard, guardMethods } from './desktop/busy';
import { createDesktopSettings } from './desktop/settings';
import { openLedger } from './bank/ledger';
import { consoleSink, createLogger } from './infra/log';
import type { Logger } from './infra/log';
import type { Platform } from './infra/platform';
import { createReadAfterCreate } from './bank/read-after-create';
import type { ReadAfterCreate, ReadAfterCreateTiming } from './bank/read-after-create';
import type { BankClient } from './bank/client';
import { createSession, sandboxToken } from './session/session';
import { createProfileRegistry } from './profiles/registry';
import { createProfilesService } from './profiles/service';
import { followActive } from './profiles/follow-active';
import type { ProfileSession } from './profiles/profile-session';
import { checkBaseUrl, openSettings, sandboxProfileId } from './session/settings';
import { confStoreFactory, createStores } from './infra/stores';
import type { StoreFactory } from './infra/stores';
import { openVault } from './infra/vault';
import { napiKeyringBackend } from './infra/keyring';
import type { KeyringBackend } from './infra/keyring';

/** Which environment to use for this run (overrides the stored active profile). */
export type EnvironmentChoice =
  | { kind: 'embedded-sandbox'; sandbox?: Partial<SandboxOptions> }
  | { kind: 'remote'; baseUrl: string; name?: string; token?: string }
  | { kind: 'profile'; profileId: string };

export interface ServicesOptions {
  /** The app's data folder (Electron's userData; a temp folder in tests). */
  dataDir: string;
  platform: Platform;
  log?: Logger;
  environment?: EnvironmentChoice;
  /** The state-file engine: conf by default, electron-store in the app. */
  storeFactory?: StoreFactory;
  /** The OS keychain: @napi-rs/keyring by default; `unavailableKeyringBackend()` for the no-keychain path. */
  keyring?: KeyringBackend;
  /**
   * Keychain service name. Default: one derived from the data folder (so test and harness runs
   * never touch each other's entries); the Electron app passes "treasury-desk".
   */
  keyringService?: string;
  /** How often a keychain that did not answer is asked again (default a minute). */
  keychainReprobeMs?: number;
  /**
   * The administrator's bank allow-list (JSON `{"origins": [...]}`, outside the data folder).
   * Default: TREASURY_DESK_BANK_ALLOWLIST, else the system location (defaultBankAllowListPath);
   * null: none.
   */
  bankAllowList?: string | null;
  /**
   * Options of the embedded sandbox (merged under `environment.sandbox`). Without a `seed`, the
   * data folder's own random seed is used (`sandbox-seed`).
   */
  sandbox?: Partial<SandboxOptions>;
  /** The local clock (tests inject a skewed one). */
  localNow?: () => number;
  bankRetry?: Partial<RetryPolicy>;
  bankTimeoutMs?: number;
  readAfterCreate?: Partial<ReadAfterCreateTiming>;
  /** RFI answers: outbox retry timing, upload size limit. */
  rfiAnswers?: RfiAnswersOptions;
  /** Exchange: the confirm margin and how orders are followed (tests shorten or widen them). */
  crypto?: CryptoOptions;
  /** Evidence locker: how often expiry is checked (default hourly). */
  locker?: { checkEveryMs?: number };
  /**
   * Deadline reminders: thresholds in hours before an RFI's timeout (default 168, 48, 24);
   * false: none (tests about other notifications, which the seeded RFIs near their timeout would
   * otherwise join).
   */
  reminders?: { hours?: readonly number[] } | false;
  /** The notification policy (its interval; tests shorten it). */
  notifications?: NotificationPolicyOptions;
  /** RFI cache, polling (interval override/floor) and the webhook receiver (port, limits). */
  rfis?: RfiServiceOptions & { webhook?: WebhookServiceOptions };
}

const originDecisionDetail: Record<OriginDecision['decision'], string> = {
  declined: 'declined in the confirmation dialog; nothing was sent there',
  'approved-by-analyst': 'approved by the analyst in the confirmation dialog',
  'approved-by-main': 'approved by main (the environment the app was started with)',
  revoked: 'approval withdrawn: the profile using it was removed; it is asked about again',
};

function defaultKeyringService(dataDir: string): string {
  return `treasury-desk/${createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 12)}`;
}

/**
 * The one composition function: the Electron shell, the browser harness and the tests all build
 * the services through it, so they run the same code.
 */
export async function createServices(given: ServicesOptions): Promise<Services> {
  // Every native notification goes through the one policy (rate limit, coalescing, clean text).
  const notifications = withNotificationPolicy(given.platform, given.notifications ?? {});
  const options: ServicesOptions = { ...given, platform: notifications.platform };
  const log = options.log ?? createLogger(consoleSink);
  /** What was built, let go in reverse order by `dispose`. */
  const disposables = new DisposableStore();
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
  disposables.add(() => clearInterval(reprobe));
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

  // The run's environment choice.
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
  sandboxOptions.seed ??= await sandboxSeedFor(dataDir, log);

  // Uploads, answer sends and money confirmations hold the busy guard (the updater waits for it).
  const busy = createBusyGuard();
  // One session per profile (its own bank client, token and clock), whatever is active.
  const profiles = createProfileRegistry({
    settings,
    vault,
    destinations,
    log,
    sandboxOptions,
    sandboxToken: (s) => sandboxToken(s, settings.profile(sandboxProfileId).sandboxCredential),
    tuning: {
      decorate: (client) =>
        guardMethods(client, busy, {
          uploadDocument: 'an answer document is uploading',
          submitRfiResponse: 'an answer is being sent',
          confirmCryptoOrder: 'an exchange order is being confirmed',
          confirmReturn: 'a return is being confirmed',
          cancelReturn: 'a return is being cancelled',
        }),
      ...(options.bankRetry ? { bankRetry: options.bankRetry } : {}),
      ...(options.bankTimeoutMs ? { bankTimeoutMs: options.bankTimeoutMs } : {}),
      ...(options.localNow ? { localNow: options.localNow } : {}),
    },
  });
  const session = await createSession({ settings, vault, events, destinations, profiles });
  disposables.add(session);
  /** The session of a named profile (not_found when it was removed), else the default profile's. */
  const existingOwner = (profileId: string | undefined, gone: string): ProfileSession => {
    if (profileId !== undefined && !settings.get().profiles.some((p) => p.id === profileId)) {
      throw new DeskFailure({ kind: 'not_found', message: gone });
    }
    return ownerSession(profileId);
  };
  /** The session of the profile that owns an object (a removed profile's: the default's). */
  const ownerSession = (profileId?: string): ProfileSession =>
    profileId !== undefined && settings.get().profiles.some((p) => p.id === profileId)
      ? profiles.get(profileId)
      : session.current;
  // The active profile's client and clock, for what still follows the active profile.
  const bank = followActive(() => session.current.bank);
  const clock = followActive(() => session.current.clock);

  const ledger = await openLedger({ dataDir, log, codec: atRest, onProblem: (p) => stores.report(p) });
  const audit = openAuditLog({
    dataDir,
    log,
    codec: atRest,
    report: (p) => stores.report(p),
    context: {
      // Each entry names the credential and bank of the profile that owns the write.
      who: (profileId) => ownerSession(profileId).who(),
      environment: (profileId) => {
        const env = ownerSession(profileId).environment;
        return { id: env.id, name: env.name };
      },
    },
  });
  // Each profile reads what it created through its own client (the bank's 404 window).
  const readsAfterCreate = new Map<BankClient, ReadAfterCreate>();
  const readAfterCreateOf = (client: BankClient): ReadAfterCreate => {
    let r = readsAfterCreate.get(client);
    if (!r) {
      r = createReadAfterCreate({
        bank: client,
        ...(options.readAfterCreate ? { timing: options.readAfterCreate } : {}),
        publish: (u) => events.emit('transaction.progress', u),
      });
      readsAfterCreate.set(client, r);
    }
    return r;
  };
  const readAfterCreate: ReadAfterCreate = (id, o) => readAfterCreateOf(session.current.bank)(id, o);

  const operations = createOperations({
    ledger,
    audit,
    bank: (profileId) => ownerSession(profileId).bank,
    events,
    log,
    // The audit line names who acted: learn the credential first if nothing checked it yet.
    beforeRecord: async (profileId) => {
      const s = ownerSession(profileId);
      if (!s.credential && !s.lastStatus) await s.check().catch(() => undefined);
    },
  });

  // Changes to the approved bank addresses are audited (main's own approvals at start included).
  const offDecisions = destinations.onDecision(
    (d) =>
      void operations.record({
        operation: d.decision === 'revoked' ? 'bank_origin.revoke' : 'bank_origin.approve',
        target: d.origin,
        outcome: d.decision === 'declined' ? 'failed' : 'succeeded',
        detail: originDecisionDetail[d.decision],
      }),
  );
  disposables.add(offDecisions);

  const settingsView = async (): Promise<SettingsView> => {
    const s = settings.get();
    const profiles = await Promise.all(
      s.profiles.map(async (p) => ({
        ...p,
        hasToken: await vault.has(p.id).catch(() => false),
        runningUrl: p.kind === 'embedded-sandbox' ? (session.sandbox?.url ?? null) : null,
      })),
    );
    return {
      activeProfileId: s.activeProfileId,
      profiles,
      pollingIntervalSeconds: s.pollingIntervalSeconds,
      notifications: s.notifications,
      reminders: s.reminders,
      vault: vault.status(),
      problems: stores.problems(),
    };
  };

  const crypto = await createCryptoService(
    {
      // The profile an order belongs to; a profile that is gone is refused, never replaced.
      owner: (profileId) => {
        const ps = existingOwner(profileId, 'The profile this order belongs to was removed.');
        return {
          profileId: ps.profileId,
          bank: ps.bank,
          clock: ps.clock,
          get credential() {
            return ps.credential;
          },
          check: () => ps.check(),
          kind: ps.profile.kind,
          origin: bankOrigin(ps.environment.baseUrl),
          readAfterCreate: readAfterCreateOf(ps.bank),
        };
      },
      sandbox: () => session.sandbox,
      stores,
      operations,
      ledger,
      settings,
      events,
      platform: options.platform,
      log,
    },
    options.crypto,
  );
  disposables.add(crypto);

  const bankScope = (): BankScope => session.scope();

  // What case files need that the bank does not keep: uploaded documents' names, events seen.
  await mkdir(path.join(dataDir, 'case-files'), { recursive: true, mode: 0o700 });
  // Parts of interrupted uploads and exports (a kill) are removed before anything else starts.
  const tempArea = await openTempArea({ dataDir, codec: atRest, log, report: (p) => stores.report(p) });
  const caseFileJournal = await openCaseFileJournal({
    dataDir,
    log,
    codec: atRest,
    report: (p) => stores.report(p),
  });
  // Events seen (notifications, reminders) are written before the data folder is let go.
  disposables.add(() => caseFileJournal.flush());
  const journalFailed = (err: unknown): void => log.warn('case files: journal not written', { error: err });

  const rfiAnswers = await createRfiAnswers({
    scope: bankScope,
    // Each answer goes out through the profile that owns its RFI, whatever is active.
    owners: {
      scope: (profileId) =>
        settings.get().profiles.some((p) => p.id === profileId) ? profiles.get(profileId).scope() : null,
      bank: (profileId) => profiles.get(profileId).bank,
    },
    codec: atRest,
    report: (p) => stores.report(p),
    dataDir,
    bank,
    log,
    events,
    platform: options.platform,
    serverNow: () => clock.now(),
    busy,
    sandboxMaxUploadBytes: () => session.sandbox?.options.maxUploadBytes ?? null,
    ...(options.rfiAnswers ? { options: options.rfiAnswers } : {}),
    // Every upload and response is a write to the bank: audited like the others.
    audit: (line) => operations.record(line),
    onUploaded: (doc) => void caseFileJournal.upload(doc).catch(journalFailed),
  });
  disposables.add(rfiAnswers);

  // The consolidated desk: the active profile's RFI service emits through it (counts and the
  // badge cover every watched profile), then it watches every other profile with a token.
  const deskParts = deskBuilder(events, options.platform, log);
  // One way to build a profile's RFI service, for the active profile and every watched one alike.
  const rfiService = (member: RfiMember): Promise<RfiService> =>
    createRfiService({
      codec: atRest,
      report: (p) => stores.report(p),
      dataDir,
      bank: member.bank,
      clock: member.clock,
      session: member.session,
      settings,
      events: member.events,
      badge: member.badge,
      entityName: member.entityName,
      platform: options.platform,
      log,
      ...(options.rfis ? { options: options.rfis } : {}),
      relatedNames: relatedNamesResolver({
        bank: member.bank,
        log,
        accountNames: async () =>
          new Map((await crypto.context()).accounts.map((a) => [a.accountId, a.label] as const)),
      }),
      onSeen: ({ rfiId, kind, detail }) =>
        void caseFileJournal.seen(rfiId, { kind, detail }).catch(journalFailed),
    });
  const rfis = await rfiService({
    session,
    bank,
    clock,
    events: deskParts.hub,
    badge: deskParts.badge,
    // Named once the desk covers several entities (then every notification says whose RFI it is).
    entityName: () => (deskParts.watchingOthers() ? session.current.entityName() : null),
  });
  disposables.add(rfis);
  // One receiver, a route per watched profile: the desk tells it which profiles it watches.
  const webhooks = await createWebhookService({
    bank,
    clock,
    session,
    settings,
    events,
    log,
    rfis,
    dataDir,
    codec: atRest,
    ...(options.rfis?.webhook ? { options: options.rfis.webhook } : {}),
    onSeen: ({ rfiId, kind, detail }) =>
      void caseFileJournal.seen(rfiId, { kind, detail }).catch(journalFailed),
  });
  disposables.add(webhooks);
  const desk = deskParts.start({
    settings,
    vault,
    destinations,
    session,
    profiles,
    rfiService,
    primary: () => rfis,
    clock,
    stores,
    reminders: options.reminders ?? {},
    onReminderSeen: (rfiId, detail) =>
      void caseFileJournal.seen(rfiId, { kind: 'notification', detail }).catch(journalFailed),
    webhooks,
    events,
    platform: options.platform,
    log,
  });
  disposables.add(desk);
  // The owner's RFI cache re-reads an RFI once one of our answers landed (its status moved).
  const offSent = rfiAnswers.onSent(
    (rfiId, owner) =>
      void ((owner ? desk.member(owner.profileId)?.rfis : null) ?? rfis)
        .refresh(rfiId, 'refresh')
        .catch((err: unknown) => log.warn('rfis: refresh after an answer failed', { error: err })),
  );
  disposables.add(offSent);
  // An owner's bank came back (or its credential became known): its waiting answers may go now.
  const offOwners = profiles.onStatus((_profileId, status) => {
    if (status.connection === 'connected') rfiAnswers.outbox.wake();
  });
  disposables.add(offOwners);
  const caseFiles = createCaseFiles({
    dataDir,
    temps: tempArea,
    // Each RFI and its documents are read through the profile that owns it.
    owner: async (rfiId, profileId) => {
      const m = await desk.owner(rfiId, profileId).catch((err: unknown) => {
        // An RFI no profile has cached: asked of the default profile's bank, as before the desk.
        const fallback = profileId === undefined ? desk.member(session.profile.id) : null;
        if (fallback && err instanceof DeskFailure && err.kind === 'not_found') return fallback;
        throw err;
      });
      const ps = m.session;
      return {
        profileId: m.profileId,
        bank: ps.bank,
        cachedRfi: async (id) => (await m.rfis.get(id, false).catch(() => null))?.rfi ?? null,
        environment: {
          name: ps.environment.name,
          kind: ps.environment.kind,
          baseUrl: ps.environment.baseUrl,
        },
        entityName: ps.entityName(),
        legalEntityId: ps.scope().legalEntityId,
        who: ps.who(),
      };
    },
    audit,
    journal: caseFileJournal,
    platform: options.platform,
    log,
  });

  const locker = await createLocker({
    dataDir,
    log,
    events,
    platform: options.platform,
    codec: atRest,
    report: (p) => stores.report(p),
    now: () => clock.now(),
    maxBytes: () => rfiAnswers.limits().maxBytes,
    staged: (ref) => {
      const f = rfiAnswers.files.resolve(ref);
      return { name: f.name, sizeBytes: f.sizeBytes, open: () => rfiAnswers.files.open(ref) };
    },
    releaseStaged: (ref) => rfiAnswers.releaseUnused([ref]),
    stageForAnswer: (o) => rfiAnswers.files.adopt(o),
    // An RFI id is one bank's only: its status is read from the profile the use was recorded for.
    rfiStatus: async (rfiId, profileId) => {
      const owner = profileId === null ? rfis : desk.member(profileId)?.rfis;
      return owner ? (await owner.get(rfiId, false)).rfi.status : null;
    },
    owner: async (rfiId, profileId) => {
      try {
        return (await desk.owner(rfiId, profileId)).profileId;
      } catch (err) {
        if (profileId === undefined) return session.profile.id;
        throw err;
      }
    },
    ...(options.locker ? options.locker : {}),
  });
  disposables.add(locker);

  const desktop = await createDesktopSettings(stores, options.platform);

  const returns = createReturnsService({
    // The profile a transfer belongs to; a profile that is gone is refused, never replaced.
    owner: (profileId) => {
      if (profileId !== undefined && !settings.get().profiles.some((p) => p.id === profileId)) {
        throw new DeskFailure({
          kind: 'not_found',
          message: 'The profile this transfer belongs to was removed.',
        });
      }
      const ps = ownerSession(profileId);
      return {
        profileId: ps.profileId,
        bank: ps.bank,
        get credential() {
          return ps.credential;
        },
        check: () => ps.check(),
        readAfterCreate: (id) => readAfterCreateOf(ps.bank)(id),
      };
    },
    settings,
    platform: options.platform,
    log,
    operations,
    ledger,
    events,
    stores,
  });
  disposables.add(returns);

  const profilesService = createProfilesService({
    settings,
    vault,
    destinations,
    session,
    profiles,
    operations,
    log,
    // What a removed profile takes with it: its unsent answers, drafts and RFI caches.
    work: {
      describe: (profileId) => {
        const n = rfiAnswers.queuedFor(profileId).answers;
        return n > 0 ? `${n} queued answer${n === 1 ? '' : 's'}` : null;
      },
      drop: async (profileId, origin) => {
        // Its RFI service stops first (the desk no longer watches a profile that is gone).
        await desk.reconcile();
        await rfiAnswers.removeProfile(profileId);
        await removeProfileCache(dataDir, profileId, origin);
      },
    },
  });

  const core: ServiceCore = {
    profilesService,
    get environment() {
      return session.environment;
    },
    bank,
    clock,
    ledger,
    readAfterCreate,
    vault,
    settings,
    destinations,
    stores,
    audit,
    operations,
    session,
    events,
    log,
    platform: options.platform,
    rfiAnswers,
    ownerScope: async (rfiId, profileId) => {
      try {
        return (await desk.owner(rfiId, profileId)).session.scope();
      } catch (err) {
        // Not named by the page and not found (or the caches cannot tell now): the default
        // profile's scope, as before the desk; a named profile must hold the RFI.
        if (profileId === undefined) return undefined;
        throw err;
      }
    },
    rfis,
    desk,
    webhooks,
    crypto,
    locker,
    caseFiles,
    caseFileJournal,
    returns,
    desktop,
    busy,
    dataDir,
    hasToken: () => vault.has(session.profile.id),
    settingsView,
  };

  const pushSettings = (): void => {
    void settingsView()
      .then((v) => events.emit('settings.changed', v))
      .catch((err: unknown) => log.warn('settings: view failed', { error: err }));
  };
  settings.onChange(pushSettings);
  stores.onProblem(pushSettings);
  disposables.add(vault.onStatus(pushSettings));

  // The first session check runs in the background (a slow bank must not hold the window).
  void session.check().catch((err: unknown) => log.warn('session: first check failed', { error: err }));
  // A remote profile active from an earlier run whose address was never approved (a settings file
  // from before approvals, or one edited outside the app): nothing is sent until the analyst
  // approves it in main's dialog.
  const startProfile = session.profile;
  const startOrigin = startProfile.kind === 'remote' ? bankOrigin(startProfile.baseUrl) : null;
  if (startOrigin && !destinations.approval(startOrigin)) {
    void destinations
      .approveBankOrigin(startOrigin, startProfile.name)
      .then(() => session.check({ fresh: true }))
      .catch((err: unknown) => log.warn('session: bank address not approved at start', { error: err }));
  }
  // After sleep or a network change the connection state is stale: check again.
  const offSystem = options.platform.onSystemEvent((e) => {
    if (e === 'resume' || e === 'online' || e === 'unlock-screen') {
      void session.check().catch((err: unknown) => log.warn('session: re-check failed', { error: err }));
    }
  });
  disposables.add(offSystem);
  // Held notifications are dropped first: nothing is shown after teardown begins.
  disposables.add(notifications.policy);

  const services: Services = Object.defineProperties(
    {
      ...core,
      handlers: buildHandlers(core),
      sandbox: null,
      // Everything in the reverse order it was built.
      dispose: () => disposables.dispose(),
    } as Services,
    {
      environment: { get: () => session.environment, enumerable: true },
      sandbox: { get: () => session.sandbox, enumerable: true },
    },
  );
  return services;
}
