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

export interface Platform {
  notify(notification: NativeNotification): void;
  /** Count on the dock/taskbar/tray badge; 0 clears it. */
  setBadgeCount(count: number): void;
  /** Native file picker; resolves with absolute paths, empty when cancelled. */
  showOpenFileDialog(options: OpenFileDialogOptions): Promise<string[]>;
  /** Native save dialog; resolves with the absolute path, null when cancelled. */
  showSaveFileDialog(options: SaveFileDialogOptions): Promise<string | null>;
  /** Suspend/resume, screen lock and connectivity changes. Returns an unsubscribe. */
  onSystemEvent(listener: (event: SystemEvent) => void): () => void;
}

export interface HeadlessPlatform extends Platform {
  readonly notifications: NativeNotification[];
  badgeCount: number;
  /** What the next file dialogs answer (tests set this). */
  nextDialogAnswers: string[][];
  /** What the next save dialogs answer (tests set this; null = cancelled). */
  nextSaveAnswers: Array<string | null>;
  /** Simulates a system event. */
  fire(event: SystemEvent): void;
}

export function createHeadlessPlatform(): HeadlessPlatform {
  const listeners = new Set<(event: SystemEvent) => void>();
  const platform: HeadlessPlatform = {
    notifications: [],
    badgeCount: 0,
    nextDialogAnswers: [],
    nextSaveAnswers: [],
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
