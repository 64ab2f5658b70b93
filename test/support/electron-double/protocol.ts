/**
 * The messages between a boot test and the electron double (test/support/electron-double/electron.ts)
 * inside the forked main process.
 */
import type { CustomScheme } from 'electron';

export type DoubleRequest = { id: number } & (
  | { op: 'state' }
  | { op: 'ready' }
  /** A second launch: its argv (default ['treasury-desk']). */
  | { op: 'second-instance'; argv?: string[] }
  /** macOS: the OS hands the app a link. */
  | { op: 'open-url'; url: string }
  /** The analyst closes every window. */
  | { op: 'close-windows' }
  /** Clicks the item with this id in the latest tray menu / the application menu. */
  | { op: 'tray-click'; item: string }
  | { op: 'menu-click'; item: string }
  /** The analyst clicks the last notification shown. */
  | { op: 'notification-click' }
  /** Queues answers of the next native dialogs (message box: button index; save: path or null). */
  | { op: 'dialog-answers'; messageBox?: number[]; savePaths?: Array<string | null> }
  | { op: 'quit' }
  | { op: 'minimize' }
  /** Calls an ipcMain.handle listener as the window's main frame or a subframe (at `url`, if given). */
  | { op: 'invoke'; channel: string; args: unknown[]; frame: 'main' | 'sub'; url?: string }
  /** Calls the protocol.handle handler of `scheme` with `new Request(url)`. */
  | { op: 'protocol'; scheme: string; url: string }
  | { op: 'navigate'; event: 'will-navigate' | 'will-redirect' | 'will-frame-navigate'; url: string }
  | { op: 'window-open'; url: string }
  | { op: 'permission'; permission: string }
);

export interface ProtocolAnswer {
  status: number;
  headers: Record<string, string>;
  /** The first 4 KiB of the body. */
  body: string;
  length: number;
}

export interface WindowRecord {
  options: {
    show?: boolean;
    webPreferences?: Record<string, unknown> & { preload?: string };
  } & Record<string, unknown>;
  loadedUrl: string | null;
  visible: boolean;
  minimized: boolean;
  focusCount: number;
  restoreCount: number;
  sent: Array<{ channel: string; args: unknown[] }>;
  webContentsListeners: string[];
  hasWindowOpenHandler: boolean;
  destroyed: boolean;
}

export interface MenuItemRecord {
  id?: string;
  label?: string;
  type?: string;
  enabled?: false;
  submenu?: MenuItemRecord[];
}

export interface TrayRecord {
  image: string;
  tooltip: string;
  menu: MenuItemRecord[];
  destroyed: boolean;
}

export interface DoubleState {
  ready: boolean;
  log: string[];
  privilegedSchemes: Array<{
    schemes: string[];
    privileges: CustomScheme['privileges'];
    beforeReady: boolean;
  }>;
  protocolHandlers: string[];
  /** Channels with an ipcMain.handle listener. */
  ipcHandle: string[];
  /** Channels with an ipcMain.on listener. */
  ipcOn: string[];
  windows: WindowRecord[];
  quitCalls: number;
  exitCode: number | null;
  willQuitPrevented: number;
  appListeners: string[];
  sessionHandlers: {
    permissionRequest: boolean;
    permissionCheck: boolean;
    devicePermission: boolean;
    displayMedia: boolean;
    deviceSelect: string[];
  };
  menuInstalled: boolean;
  applicationMenu: MenuItemRecord[];
  trays: TrayRecord[];
  loginItem: Record<string, unknown> | null;
  protocolClients: string[];
  crashReporter: Record<string, unknown> | null;
  messageBoxes: Array<{ title?: string; message: string; detail?: string; buttons?: string[] }>;
  saveDialogs: Array<{ title?: string; defaultPath?: string }>;
}

export type DoubleReply =
  | { type: 'reply'; id: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; ok: false; error: string }
  /** Sent once when the app's main loop ends (app.exit or a completed app.quit). */
  | { type: 'ended'; state: DoubleState };
