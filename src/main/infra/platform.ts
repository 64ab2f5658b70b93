/**
 * The few desktop features the services need, as small interfaces. The Electron shell
 * (src/main/electron/platform.ts) implements them with Electron; Node tests and the browser
 * harness use `createHeadlessPlatform()`, which records what would have been shown.
 */
export interface NativeNotification {
  title: string;
  body: string;
  /** Called when the analyst clicks the notification. */
  onClick?: () => void;
  /** Who sends it: one source's notifications are rate-limited and coalesced (infra/notification-policy.ts). */
  source?: string;
  /** What it is about (a document id, an RFI id): the same object is not repeated within the interval. */
  object?: string;
  /** One notification standing for `count` held ones of this source ("3 documents expire soon"). */
  coalesce?(count: number): { title: string; body: string; onClick?: () => void };
}

export type SystemEvent = 'suspend' | 'resume' | 'lock-screen' | 'unlock-screen' | 'online' | 'offline';

export interface OpenFileDialogOptions {
  title: string;
  /** File name extensions without dots, e.g. ['pdf', 'png']. */
  extensions: string[];
  multiple: boolean;
}

export interface SaveFileDialogOptions {
  title: string;
  /** Suggested file name, e.g. treasury-desk-audit.csv. */
  defaultName: string;
  extensions: string[];
}

/**
 * A place data would go that main asks the analyst about, outside the renderer: a bank origin a
 * profile would talk to (and send its token to), or a webhook URL the bank would post events to.
 */
export interface DestinationApproval {
  kind: 'bank-origin' | 'team-origin' | 'webhook-url' | 'token-replace' | 'profile-remove' | 'file-replace';
  /** The origin or URL, shown verbatim. */
  destination: string;
  /** Dialog title, main sentence and the detail below it. */
  title: string;
  message: string;
  detail: string;
  /** Label of the approving button (the other one cancels and is the default). */
  approveLabel: string;
}

export interface Platform {
  notify(notification: NativeNotification): void;
  /** Count on the dock/taskbar/tray badge; 0 clears it. */
  setBadgeCount(count: number): void;
  /** Native file picker; resolves with absolute paths, empty when cancelled. */
  showOpenFileDialog(options: OpenFileDialogOptions): Promise<string[]>;
  /** Native save dialog; resolves with the absolute path, null when cancelled. */
  showSaveFileDialog(options: SaveFileDialogOptions): Promise<string | null>;
  /**
   * A native confirmation shown by main (never by the page): resolves true only when the analyst
   * pressed the approving button; closing or cancelling is false.
   */
  confirmDestination(request: DestinationApproval): Promise<boolean>;
  /** Suspend/resume, screen lock and connectivity changes. Returns an unsubscribe. */
  onSystemEvent(listener: (event: SystemEvent) => void): () => void;
  /** Registers (or removes) the app as a hidden login item; absent where there is none. */
  setStartAtLogin?(enabled: boolean): void;
  /** Opens the system file manager at a file main wrote (selected); absent where there is none. */
  showItemInFolder?(file: string): void;
  /** Opens an https (or loopback http) URL main chose in the system browser: the team sign-in page. */
  openExternal(url: string): Promise<void>;
}

export interface HeadlessPlatform extends Platform {
  readonly notifications: NativeNotification[];
  badgeCount: number;
  /** What the next file dialogs answer (tests set this). */
  nextDialogAnswers: string[][];
  /** What the next save dialogs answer (tests set this; null = cancelled). */
  nextSaveAnswers: Array<string | null>;
  /** Every destination confirmation asked, in order. */
  readonly confirmations: DestinationApproval[];
  /** What the next confirmations answer (tests set this); none queued = declined. */
  nextConfirmAnswers: boolean[];
  /** Simulates a system event. */
  fire(event: SystemEvent): void;
  /** The login item as last set (null: never set). */
  startAtLogin: boolean | null;
  /** Every file shown in its folder, in order. */
  readonly shownInFolder: string[];
  /** Every URL handed to the system browser, in order. */
  readonly openedExternal: string[];
  /** Tests and the harness play the system browser: told of each URL opened. */
  onOpenExternal: ((url: string) => void) | null;
}

export function createHeadlessPlatform(): HeadlessPlatform {
  const listeners = new Set<(event: SystemEvent) => void>();
  const platform: HeadlessPlatform = {
    notifications: [],
    badgeCount: 0,
    nextDialogAnswers: [],
    nextSaveAnswers: [],
    confirmations: [],
    nextConfirmAnswers: [],
    startAtLogin: null,
    shownInFolder: [],
    openedExternal: [],
    onOpenExternal: null,
    async openExternal(url) {
      platform.openedExternal.push(url);
      platform.onOpenExternal?.(url);
    },
    showItemInFolder(file) {
      platform.shownInFolder.push(file);
    },
    setStartAtLogin(enabled) {
      platform.startAtLogin = enabled;
    },
    notify(n) {
      platform.notifications.push(n);
    },
    setBadgeCount(count) {
      platform.badgeCount = count;
    },
    async showOpenFileDialog() {
      return platform.nextDialogAnswers.shift() ?? [];
    },
    async showSaveFileDialog() {
      return platform.nextSaveAnswers.shift() ?? null;
    },
    async confirmDestination(request) {
      platform.confirmations.push(request);
      return platform.nextConfirmAnswers.shift() ?? false;
    },
    onSystemEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    fire(event) {
      for (const l of [...listeners]) l(event);
    },
  };
  return platform;
}
