import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { SandboxOptions } from '../sandbox';
import type { SettingsView } from '../shared/ipc/channels/settings';
import { openAuditLog } from './bank/audit';
import type { ServiceCore, Services } from './core';
import { createOperations } from './bank/operations';
import { BankClient } from './bank/client';
import type { RetryPolicy } from './bank/client';
import { createServerClock } from './bank/clock';
import { openDataCodec } from './infra/data-codec';
import { openTempArea } from './infra/temp-area';
import { withNotificationPolicy } from './infra/notification-policy';
import type { NotificationPolicyOptions } from './infra/notification-policy';
import { originOf } from './bank/scope';
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
import { createRfiService, createWebhookService } from './rfis';
import { deskBuilder } from './desk/desk';
import type { RfiServiceOptions, WebhookServiceOptions } from './rfis';
import { sweepInterruptedWrites } from './infra/durable-file';
import { sandboxSeedFor } from './session/sandbox-seed';
import { bankOrigin, createDestinationGuard, defaultBankAllowListPath } from './session/destinations';
import type { OriginDecision } from './session/destinations';
import { createEventHub } from './infra/events';
import { buildHandlers } from './ipc/handlers';
import { createBusyGuard, guardMethods } from './desktop/busy';
import { createDesktopSettings } from './desktop/settings';
import { openLedger } from './bank/ledger';
import { consoleSink, createLogger } from './infra/log';
import type { Logger } from './infra/log';
import type { Platform } from './infra/platform';
import { createReadAfterCreate } from './bank/read-after-create';
import type { ReadAfterCreateTiming } from './bank/read-after-create';
import { createSession } from './session/session';
import type { SessionManager } from './session/session';
import { checkBaseUrl, openSettings } from './session/settings';
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
  const atRest = dataCodec.codec;
  stores.useCodec(atRest);

  const settings = await openSettings(stores, dataDir);
  // Changes to the approved bank addresses are audited once the audit log exists (main's own
  // approvals at start come before it: they wait in this list).
  const originDecisions: OriginDecision[] = [];
  let auditOrigin: (d: OriginDecision) => void = (d) => void originDecisions.push(d);
  const destinations = await createDestinationGuard({
    onDecision: (d) => auditOrigin(d),
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

  const clock = createServerClock(options.localNow ? { localNow: options.localNow } : {});
  let sessionRef: SessionManager | null = null;
  // Uploads, answer sends and money confirmations hold the busy guard (the updater waits for it).
  const busy = createBusyGuard();
  const bank = new BankClient({
    identity: async ({ withToken }) =>
      sessionRef ? sessionRef.identity({ withToken }) : { baseUrl: '', token: null, tokenOrigin: null },
    log,
    clock,
    ...(options.bankRetry ? { retry: options.bankRetry } : {}),
    ...(options.bankTimeoutMs ? { timeoutMs: options.bankTimeoutMs } : {}),
    onUnauthenticated: () => sessionRef?.markUnauthenticated(),
    onReachability: (reachable) => sessionRef?.observeReachability(reachable),
    embeddedOrigin: () => (sessionRef?.sandbox ? new URL(sessionRef.sandbox.url).origin : null),
  });
  guardMethods(bank, busy, {
    uploadDocument: 'an answer document is uploading',
    submitRfiResponse: 'an answer is being sent',
    confirmCryptoOrder: 'an exchange order is being confirmed',
    confirmReturn: 'a return is being confirmed',
    cancelReturn: 'a return is being cancelled',
  });
  const session = await createSession({
    settings,
    vault,
    events,
    log,
    bank: () => bank,
    destinations,
    sandboxOptions,
  });
  sessionRef = session;

  const ledger = await openLedger({ dataDir, log, codec: atRest, onProblem: (p) => stores.report(p) });
  const audit = openAuditLog({
    dataDir,
    log,
    codec: atRest,
    report: (p) => stores.report(p),
    context: {
      who: () => session.who(),
      environment: () => ({ id: session.environment.id, name: session.environment.name }),
    },
  });
  const readAfterCreate = createReadAfterCreate({
    bank,
    ...(options.readAfterCreate ? { timing: options.readAfterCreate } : {}),
    publish: (u) => events.emit('transaction.progress', u),
  });

  const operations = createOperations({
    ledger,
    audit,
    bank,
    events,
    log,
    // The audit line names who acted: learn the credential first if nothing checked it yet.
    beforeRecord: async () => {
      if (!session.credential && !session.lastStatus) await session.check().catch(() => undefined);
    },
  });

  auditOrigin = (d) =>
    void operations.record({
      operation: 'bank_origin.approve',
      target: d.origin,
      outcome: d.decision === 'declined' ? 'failed' : 'succeeded',
      detail:
        d.decision === 'declined'
          ? 'declined in the confirmation dialog; nothing was sent there'
          : d.decision === 'approved-by-analyst'
            ? 'approved by the analyst in the confirmation dialog'
            : 'approved by main (the environment the app was started with)',
    });
  for (const d of originDecisions.splice(0)) auditOrigin(d);

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
      bank,
      clock,
      stores,
      operations,
      ledger,
      readAfterCreate,
      session,
      settings,
      events,
      platform: options.platform,
      log,
    },
    options.crypto,
  );

  const bankScope = (): BankScope => ({
    profileId: session.profile.id,
    origin: originOf(session.environment),
    legalEntityId: session.credential?.legalEntityId ?? null,
  });

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
  const journalFailed = (err: unknown): void => log.warn('case files: journal not written', { error: err });

  // The RFI cache re-reads an RFI once one of our answers landed (its status moved).
  let afterAnswerSent: (rfiId: string) => void = () => undefined;
  const rfiAnswers = await createRfiAnswers({
    scope: bankScope,
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
    onSent: (rfiId) => afterAnswerSent(rfiId),
    // Every upload and response is a write to the bank: audited like the others.
    audit: (line) => operations.record(line),
    onUploaded: (doc) => void caseFileJournal.upload(doc).catch(journalFailed),
  });

  // The consolidated desk: the active profile's RFI service emits through it (counts and the
  // badge cover every watched profile), then it watches every other profile with a token.
  const deskParts = deskBuilder(events, options.platform, log);
  let watchingOthers = (): boolean => false;
  const rfis = await createRfiService({
    codec: atRest,
    report: (p) => stores.report(p),
    dataDir,
    bank,
    clock,
    session,
    settings,
    events: deskParts.hub,
    badge: deskParts.badge,
    // Named once the desk covers several entities (then every notification says whose RFI it is).
    entityName: () =>
      watchingOthers() ? (session.credential?.legalEntityName ?? session.profile.name) : null,
    platform: options.platform,
    log,
    ...(options.rfis ? { options: options.rfis } : {}),
    relatedNames: relatedNamesResolver({
      bank,
      log,
      accountNames: async () =>
        new Map((await crypto.context()).accounts.map((a) => [a.accountId, a.label] as const)),
    }),
    onSeen: ({ rfiId, kind, detail }) =>
      void caseFileJournal.seen(rfiId, { kind, detail }).catch(journalFailed),
  });
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
  const desk = deskParts.start({
    dataDir,
    settings,
    vault,
    destinations,
    session,
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
    codec: atRest,
    report: (p) => stores.report(p),
    ...(options.rfis ? { rfiOptions: options.rfis } : {}),
    ...(options.bankRetry ? { bankRetry: options.bankRetry } : {}),
    ...(options.bankTimeoutMs ? { bankTimeoutMs: options.bankTimeoutMs } : {}),
    ...(options.localNow ? { localNow: options.localNow } : {}),
  });
  watchingOthers = () => desk.watched().size > 0;
  afterAnswerSent = (rfiId) =>
    void rfis
      .refresh(rfiId, 'refresh')
      .catch((err: unknown) => log.warn('rfis: refresh after an answer failed', { error: err }));
  const caseFiles = createCaseFiles({
    dataDir,
    temps: tempArea,
    bank,
    cachedRfi: async (rfiId) => (await rfis.get(rfiId, false).catch(() => null))?.rfi ?? null,
    audit,
    journal: caseFileJournal,
    platform: options.platform,
    log,
    environment: () => ({
      name: session.environment.name,
      kind: session.environment.kind,
      baseUrl: session.environment.baseUrl,
    }),
    legalEntity: () => session.credential?.legalEntityId ?? null,
    who: () => session.who(),
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
      return { path: f.path, name: f.name };
    },
    releaseStaged: (ref) => rfiAnswers.releaseUnused([ref]),
    stageForAnswer: (o) => rfiAnswers.files.adoptBytes(o),
    rfiStatus: async (rfiId) => (await rfis.get(rfiId, false)).rfi.status,
    ...(options.locker ? options.locker : {}),
  });

  const desktop = await createDesktopSettings(stores, options.platform);

  const core: ServiceCore = {
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
    rfis,
    desk,
    webhooks,
    crypto,
    locker,
    caseFiles,
    caseFileJournal,
    get returns() {
      return returns;
    },
    desktop,
    busy,
    dataDir,
    hasToken: () => vault.has(session.profile.id),
    settingsView,
  };

  // Built on the core it belongs to (it reads the environment, bank and stores from it).
  const returns = createReturnsService(core);

  const pushSettings = (): void => {
    void settingsView()
      .then((v) => events.emit('settings.changed', v))
      .catch((err: unknown) => log.warn('settings: view failed', { error: err }));
  };
  settings.onChange(pushSettings);
  stores.onProblem(pushSettings);

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

  const services: Services = Object.defineProperties(
    {
      ...core,
      handlers: buildHandlers(core),
      sandbox: null,
      async dispose() {
        notifications.policy.dispose();
        locker.dispose();
        await rfiAnswers.dispose();
        await webhooks.dispose();
        await desk.dispose();
        await rfis.dispose();
        crypto.dispose();
        await returns.dispose();
        // Events seen (notifications, reminders) written before the data folder is let go.
        await caseFileJournal.flush();
        offSystem();
        await session.dispose();
        await dataCodec.flush();
      },
    } as Services,
    {
      environment: { get: () => session.environment, enumerable: true },
      sandbox: { get: () => session.sandbox, enumerable: true },
    },
  );
  return services;
}
