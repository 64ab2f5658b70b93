/**
 * The composition root: builds everything main does, floor by floor (src/main/root/), and hands
 * the shell, the harness and the tests the services and the handler map.
 */
import type { SettingsView } from '../shared/ipc/channels/settings';
import type { ServiceCore, Services } from './core';
import { withNotificationPolicy } from './infra/notification-policy';
import { bankOrigin } from './infra/origins';
import { DisposableStore } from './infra/lifecycle';
import { buildHandlers } from './handlers';
import { createDesktopSettings } from './desktop/settings';
import { consoleSink, createLogger } from './infra/log';
import type { ProfileSession } from './profiles/profile-session';
import type { RfiService } from './rfis';
import type { ServicesOptions } from './root/options';
import { chooseEnvironment, openFoundation } from './root/foundation';
import type { Foundation } from './root/foundation';
import { assembleBankFloor, assembleOwners } from './root/owners';
import type { Owners } from './root/owners';
import {
  assembleAnswers,
  assembleCaseFiles,
  assembleCrypto,
  assembleEntityWatch,
  assembleLocker,
  assembleProfilesService,
  assembleReturns,
  assembleTeam,
  entityOwner,
  openJournal,
  answerOwners,
} from './root/features';
import { assembleApprovals } from './root/approvals';
import { assembleTeamShare } from './root/team-share';
import { startSendTakeover } from './root/send-takeover';
import { assembleExchangeMandates, assembleReturnApprovals } from './root/return-approvals';

export type { EnvironmentChoice, ServicesOptions } from './root/options';

/** The settings screen's view (never a token). */
function settingsViewOf(f: Foundation, o: Owners): () => Promise<SettingsView> {
  return async () => {
    const s = f.settings.get();
    const profiles = await Promise.all(
      s.profiles.map(async (p) => ({
        ...p,
        hasToken: await f.vault.has(p.id).catch(() => false),
        runningUrl: p.kind === 'embedded-sandbox' ? (o.session.sandbox?.url ?? null) : null,
      })),
    );
    return {
      activeProfileId: s.activeProfileId,
      profiles,
      pollingIntervalSeconds: s.pollingIntervalSeconds,
      notifications: s.notifications,
      reminders: s.reminders,
      vault: f.vault.status(),
      problems: f.stores.problems(),
    };
  };
}

/** What runs once everything is built: the settings pushes, the first check, re-checks after sleep. */
function startBackground(f: Foundation, o: Owners, settingsView: () => Promise<SettingsView>): void {
  const { log, settings, destinations } = f;
  const { session } = o;
  const pushSettings = (): void => {
    void settingsView()
      .then((v) => f.events.emit('settings.changed', v))
      .catch((err: unknown) => log.warn('settings: view failed', { error: err }));
  };
  settings.onChange(pushSettings);
  f.stores.onProblem(pushSettings);
  f.disposables.add(f.vault.onStatus(pushSettings));

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
  const offSystem = f.platform.onSystemEvent((e) => {
    if (e === 'resume' || e === 'online' || e === 'unlock-screen') {
      void session.check().catch((err: unknown) => log.warn('session: re-check failed', { error: err }));
    }
  });
  f.disposables.add(offSystem);
}

/**
 * The one composition function: the Electron shell, the browser harness and the tests all build
 * the services through it, so they run the same code. Each floor is assembled by a function of
 * its own, from the bottom; what is built is let go in reverse order by `dispose`.
 */
export async function createServices(given: ServicesOptions): Promise<Services> {
  // Every native notification goes through the one policy (rate limit, coalescing, clean text).
  const notifications = withNotificationPolicy(given.platform, given.notifications ?? {});
  const options: ServicesOptions = { ...given, platform: notifications.platform };
  const log = options.log ?? createLogger(consoleSink);
  const disposables = new DisposableStore();
  const f = await openFoundation(options, log, disposables);
  const o = await assembleOwners(f, await chooseEnvironment(f));
  const b = await assembleBankFloor(f, o);
  const crypto = await assembleCrypto(f, o, b);
  const j = await openJournal(f);
  const rfiAnswers = await assembleAnswers(f, o, b, j);
  const { webhooks, entityWatch, relatedNames } = await assembleEntityWatch(f, o, j, crypto, rfiAnswers);
  const locker = await assembleLocker(f, o, rfiAnswers, entityWatch);
  const desktop = await createDesktopSettings(f.stores, options.platform);
  const returns = assembleReturns(f, o, b);
  const profilesService = assembleProfilesService(f, o, b, rfiAnswers, entityWatch);
  const team = await assembleTeam(f, entityWatch);
  const approvals = await assembleApprovals(f, team, entityWatch, rfiAnswers);
  const teamShare = await assembleTeamShare(f, team, entityWatch, locker, rfiAnswers);
  // Approved answers whose send no workstation holds (the maker's went away) are sent from here.
  const takeover = startSendTakeover({
    team,
    approvals,
    rfiAnswers,
    share: teamShare,
    log: f.log,
    ownerOf: (legalEntityId, rfiId) => entityOwner(entityWatch, legalEntityId, rfiId),
    ...(options.team?.takeover ? { timing: options.team.takeover } : {}),
  });
  f.disposables.add(() => takeover.dispose());
  const returnApprovals = assembleReturnApprovals(f, o, team, approvals, returns, entityWatch);
  const mandates = assembleExchangeMandates(f, o, team, approvals, crypto);
  const caseFiles = assembleCaseFiles(f, b, j, entityWatch, teamShare, relatedNames);
  const settingsView = settingsViewOf(f, o);
  const { session } = o;

  const core: ServiceCore = {
    profilesService,
    get environment() {
      return session.environment;
    },
    ledger: b.ledger,
    vault: f.vault,
    settings: f.settings,
    destinations: f.destinations,
    stores: f.stores,
    audit: b.audit,
    operations: b.operations,
    session,
    events: f.events,
    log,
    platform: options.platform,
    rfiAnswers,
    answerOwners: answerOwners(entityWatch),
    entityWatch,
    relatedNames,
    webhooks,
    crypto,
    locker,
    caseFiles,
    caseFileJournal: j.caseFileJournal,
    returns,
    desktop,
    team,
    approvals,
    returnApprovals,
    mandates,
    teamShare,
    busy: o.busy,
    dataDir: f.dataDir,
    hasToken: () => f.vault.has(o.defaultProfileId()),
    settingsView,
  };
  startBackground(f, o, settingsView);
  // Back from sleep or offline: the team feed reconnects and queued team changes, notes and shares go now.
  f.disposables.add(
    f.platform.onSystemEvent((e) => {
      if (e === 'resume' || e === 'online') {
        team.wake();
        teamShare.outbox.wake();
      }
    }),
  );
  // Held notifications are dropped first: nothing is shown after teardown begins.
  disposables.add(notifications.policy);
  // Before anything is let go: a keychain move (and the data folder's switch to sealing) under way ends.
  disposables.add(() => f.stopReprobe());

  /** The default profile's session, looked up at each access (tests and diagnostics read through it). */
  const byDefault = (): ProfileSession => o.defaultOwner();
  /** The default profile's member of the entity watch (its RFI service is bound to that profile). */
  const defaultRfis = (): RfiService => {
    const m = entityWatch.defaultMember();
    if (!m) throw new Error('The default profile is not watched yet.');
    return m.rfis;
  };
  const services: Services = Object.defineProperties(
    {
      ...core,
      handlers: buildHandlers(core),
      sandbox: null,
      readAfterCreate: (id, opts) => b.readAfterCreateOf(byDefault().bank)(id, opts),
      // Everything in the reverse order it was built.
      dispose: () => disposables.dispose(),
    } as Services,
    {
      environment: { get: () => session.environment, enumerable: true },
      sandbox: { get: () => session.sandbox, enumerable: true },
      bank: { get: () => byDefault().bank, enumerable: true },
      clock: { get: () => byDefault().clock, enumerable: true },
      rfis: { get: defaultRfis, enumerable: true },
    },
  );
  return services;
}
