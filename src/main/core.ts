/**
 * The shape of the built services: what every handler can reach (ServiceCore) and what the
 * composition root (services.ts) hands the shell, the harness and the tests (Services).
 */
import type { EntityWatch } from './watch/entity-watch';
import type { RunningSandbox } from '../sandbox';
import type { SettingsView } from '../shared/ipc/channels/settings';
import type { AuditLog } from './bank/audit';
import type { BankClient } from './bank/client';
import type { ServerClock } from './bank/clock';
import type { CryptoService } from './crypto/service';
import type { DestinationGuard } from './session/destinations';
import type { EventHub } from './infra/events';
import type { Handlers } from './ipc/dispatcher';
import type { IdempotencyLedger } from './bank/ledger';
import type { Logger } from './infra/log';
import type { Operations } from './bank/operations';
import type { Platform } from './infra/platform';
import type { ReadAfterCreate } from './bank/read-after-create';
import type { RfiAnswersHandlerDeps } from './rfi-answers/handlers';
import type { ProfilesService } from './profiles/service';
import type { ReturnsService } from './returns/service';
import type { RfiAnswers } from './rfi-answers';
import type { Locker } from './locker/service';
import type { CaseFiles } from './case-files/service';
import type { CaseFileJournal } from './case-files/journal';
import type { RfiService, WebhookService } from './rfis';
import type { Environment, SessionManager } from './session/session';
import type { SettingsStore } from './session/settings';
import type { Stores } from './infra/stores';
import type { TokenVault } from './infra/vault';
import type { BusyGuard } from './desktop/busy';
import type { DesktopSettings } from './desktop/settings';
import type { TeamService } from './team/service';
import type { TeamApprovals } from './team/approvals-service';
import type { ReturnApprovals } from './team/return-approvals';
import type { ExchangeMandates } from './team/exchange-mandates';
import type { TeamShare } from './team/share';
import type { RelatedNames } from './rfis/related-names';

/** What every handler can reach. */
export interface ServiceCore {
  /** The active environment (changes when the profile is switched). */
  readonly environment: Environment;
  ledger: IdempotencyLedger;
  vault: TokenVault;
  settings: SettingsStore;
  /** Approved bank origins (analyst, allow-list) and native confirmation of destinations. */
  destinations: DestinationGuard;
  stores: Stores;
  audit: AuditLog;
  operations: Operations;
  session: SessionManager;
  events: EventHub;
  log: Logger;
  platform: Platform;
  /** Profiles: add, rename, remove, default, tokens and address approval (native confirmations). */
  profilesService: ProfilesService;
  /** Where the answer channels find an RFI's owning profile (see RfiAnswersHandlerDeps). */
  answerOwners: Pick<RfiAnswersHandlerDeps, 'ownerScope' | 'stagingOwner'>;
  /** RFI answer drafts, staged files and the answer outbox. */
  rfiAnswers: RfiAnswers;
  /** Every watched profile's RFIs as one queue (the default profile is one member). */
  entityWatch: EntityWatch;
  /** What RFIs are about, named through each RFI's owning profile (account book and bank). */
  relatedNames: RelatedNames;
  /** The local webhook receiver and the bank's webhook configuration. */
  webhooks: WebhookService;
  /** Digital-asset exchange. */
  crypto: CryptoService;
  /** The evidence locker: documents kept encrypted and reused in answers. */
  locker: Locker;
  /** Case files (PDF and ZIP) for RFIs, and the journal they draw on. */
  caseFiles: CaseFiles;
  caseFileJournal: CaseFileJournal;
  /** Returns of settled incoming transfers: lookup, intents, confirm, following to completion. */
  readonly returns: ReturnsService;
  /** The team connection (solo use when no team server is set): sign-in, feed, assignment. */
  team: TeamService;
  /** Four-eyes approval of RFI answers (solo use: none needed). */
  approvals: TeamApprovals;
  returnApprovals: ReturnApprovals;
  mandates: ExchangeMandates;
  /** What the team shares beside assignment: evidence locker, notes, presence, team activity. */
  teamShare: TeamShare;
  /** Background and start-at-login choices (the shell reads them; the login item follows them). */
  desktop: DesktopSettings;
  /** Held by answer uploads/sends and money confirmations; the updater never restarts while held. */
  busy: BusyGuard;
  dataDir: string;
  hasToken(): Promise<boolean>;
  /** The settings screen's view (never a token). */
  settingsView(): Promise<SettingsView>;
}

export interface Services extends ServiceCore {
  handlers: Handlers;
  /**
   * The default profile's bank client, clock and read-after-create, looked up at each access: for
   * tests and the shell's notification pause, never for a write of an object (each object acts
   * through its owner, which no handler reaches through these).
   */
  readonly bank: BankClient;
  readonly clock: ServerClock;
  /**
   * The RFI service of the default profile's member of the entity watch (cache, sync, polling,
   * notifications, unread markers), looked up at each access: that service stays bound to its
   * profile when another profile becomes the default.
   */
  readonly rfis: RfiService;
  readAfterCreate: ReadAfterCreate;
  /** The embedded sandbox, when it runs. */
  readonly sandbox: RunningSandbox | null;
  dispose(): Promise<void>;
}
