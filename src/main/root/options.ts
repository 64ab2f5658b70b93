/** The options of the composition root (createServices). */
import type { SandboxOptions } from '../../sandbox';
import type { RetryPolicy } from '../bank/client';
import type { NotificationPolicyOptions } from '../infra/notification-policy';
import type { RfiAnswersOptions } from '../rfi-answers';
import type { CryptoOptions } from '../crypto/service';
import type { TeamOptions } from '../team/service';
import type { RfiServiceOptions, WebhookServiceOptions } from '../rfis';
import type { Logger } from '../infra/log';
import type { Platform } from '../infra/platform';
import type { ReadAfterCreateTiming } from '../bank/read-after-create';
import type { StoreFactory } from '../infra/stores';
import type { KeyringBackend } from '../infra/keyring';

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
  /** The team connection's timing (tests: short backoffs and sign-in timeout). */
  team?: TeamOptions;
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
