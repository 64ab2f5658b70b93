/**
 * A test double of the `electron` module for running the built main process (out/main/index.js) in
 * plain Node. test/support/electron-double/register.ts points every `import 'electron'` and
 * `require('electron')` here.
 *
 * Each part is typed against Electron's own declarations (`Pick<App, ...>`, `Pick<Protocol, ...>`,
 * ...), so `npm run typecheck` fails when the double stops matching Electron's API.
 *
 * It behaves like Electron where the shell depends on it:
 * - the process stays alive until `app.exit()` or a completed `app.quit()`, and then only as long
 *   as something else holds it (a server, a timer): exactly what shows a leaked handle;
 * - `app.quit()` emits `before-quit`, `will-quit` (which may be prevented) and `quit`;
 * - `protocol.registerSchemesAsPrivileged` throws after ready, `protocol.handle` before;
 * - a new BrowserWindow emits `web-contents-created`, loads its URL and then `ready-to-show`.
 *
 * It records what the shell does and lets the test drive it over the fork IPC channel (the
 * messages are `DoubleRequest` in test/support/electron-double/protocol.ts); the channel itself never keeps the process alive.
 */
import { EventEmitter } from 'node:events';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  App,
  BrowserWindow as ElectronBrowserWindow,
  BrowserWindowConstructorOptions,
  CustomScheme,
  Dialog,
  Display,
  IpcMain,
  IpcMainInvokeEvent,
  Menu as ElectronMenu,
  MenuItem,
  MenuItemConstructorOptions,
  NativeTheme,
  Net,
  Notification as ElectronNotification,
  NotificationConstructorOptions,
  Protocol,
  Rectangle,
  Screen,
  Session,
  Shell,
  WebContents,
} from 'electron';
import type { DoubleReply, DoubleRequest, DoubleState, WindowRecord } from './protocol';

interface DoubleInternals {
  ready: boolean;
  readyWaiters: Array<() => void>;
  keepAlive: NodeJS.Timeout | null;
  lockGranted: boolean;
  userData: string;
  log: string[];
  privilegedSchemes: Array<{
    schemes: string[];
    privileges: CustomScheme['privileges'];
    beforeReady: boolean;
  }>;
  protocolHandlers: Map<string, (request: Request) => Response | Promise<Response>>;
  ipcHandlers: Map<string, (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown>;
  windows: WindowDouble[];
  quitCalls: number;
  exitCode: number | null;
  willQuitPrevented: number;
  permissionRequest: ((wc: unknown, permission: string, callback: (granted: boolean) => void) => void) | null;
  permissionCheck: ((wc: unknown, permission: string) => boolean) | null;
  devicePermission: ((details: unknown) => boolean) | null;
  displayMedia: ((request: unknown, callback: (streams: object) => void) => void) | null;
  menuInstalled: boolean;
}

const key = Symbol.for('treasury-desk.electron-double');
type GlobalWithDouble = typeof globalThis & { [key]?: ElectronDouble };

function preventable(
  extra: Record<string, unknown> = {},
  onPrevent?: () => void,
): { prevented: boolean; preventDefault(): void } {
  const event = {
    ...extra,
    prevented: false,
    preventDefault() {
      if (!event.prevented) onPrevent?.();
      event.prevented = true;
    },
  };
  return event;
}

class FrameDouble {
  constructor(
    public url: string,
    public readonly name: string,
  ) {}
}

class WebContentsDouble extends EventEmitter {
  readonly mainFrame = new FrameDouble('', 'main');
  readonly sent: Array<{ channel: string; args: unknown[] }> = [];
  readonly inputEvents: unknown[] = [];
  windowOpenHandler: ((details: { url: string }) => unknown) | null = null;
  destroyed = false;

  readonly parts = {
    send: (channel: string, ...args: unknown[]): void => {
      if (this.destroyed) throw new Error('Object has been destroyed');
      this.sent.push({ channel, args: JSON.parse(JSON.stringify(args)) as unknown[] });
    },
    isDestroyed: (): boolean => this.destroyed,
    setWindowOpenHandler: (handler: Parameters<WebContents['setWindowOpenHandler']>[0]): void => {
      this.windowOpenHandler = handler as (details: { url: string }) => unknown;
    },
    sendInputEvent: (event: Parameters<WebContents['sendInputEvent']>[0]): void => {
      this.inputEvents.push(event);
    },
  } satisfies Pick<WebContents, 'send' | 'isDestroyed' | 'setWindowOpenHandler' | 'sendInputEvent'>;

  send = this.parts.send;
  isDestroyed = this.parts.isDestroyed;
  setWindowOpenHandler = this.parts.setWindowOpenHandler;
  sendInputEvent = this.parts.sendInputEvent;
}

class WindowDouble extends EventEmitter {
  readonly webContents = new WebContentsDouble();
  loadedUrl: string | null = null;
  minimized = false;
  maximized = false;
  visible = false;
  focusCount = 0;
  restoreCount = 0;
  destroyed = false;

  constructor(readonly options: BrowserWindowConstructorOptions) {
    super();
  }

  readonly parts = {
    isMinimized: (): boolean => this.minimized,
    restore: (): void => {
      this.restoreCount++;
      this.minimized = false;
    },
    focus: (): void => {
      this.focusCount++;
    },
    show: (): void => {
      this.visible = true;
    },
    maximize: (): void => {
      this.maximized = true;
    },
    isMaximized: (): boolean => this.maximized,
    isFullScreen: (): boolean => false,
    isDestroyed: (): boolean => this.destroyed,
    getNormalBounds: (): Rectangle => ({
      x: this.options.x ?? 0,
      y: this.options.y ?? 0,
      width: this.options.width ?? 800,
      height: this.options.height ?? 600,
    }),
    loadURL: async (url: string): Promise<void> => {
      this.loadedUrl = url;
      this.webContents.mainFrame.url = url;
      setImmediate(() => this.emit('ready-to-show'));
    },
  } satisfies Pick<
    ElectronBrowserWindow,
    | 'isMinimized'
    | 'restore'
    | 'focus'
    | 'show'
    | 'maximize'
    | 'isMaximized'
    | 'isFullScreen'
    | 'isDestroyed'
    | 'getNormalBounds'
    | 'loadURL'
  >;

  isMinimized = this.parts.isMinimized;
  restore = this.parts.restore;
  focus = this.parts.focus;
  show = this.parts.show;
  maximize = this.parts.maximize;
  isMaximized = this.parts.isMaximized;
  isFullScreen = this.parts.isFullScreen;
  isDestroyed = this.parts.isDestroyed;
  getNormalBounds = this.parts.getNormalBounds;
  loadURL = this.parts.loadURL;

  record(): WindowRecord {
    return {
      options: JSON.parse(JSON.stringify(this.options)) as WindowRecord['options'],
      loadedUrl: this.loadedUrl,
      visible: this.visible,
      minimized: this.minimized,
      focusCount: this.focusCount,
      restoreCount: this.restoreCount,
      sent: this.webContents.sent,
      webContentsListeners: this.webContents.eventNames().map(String).sort(),
      hasWindowOpenHandler: this.webContents.windowOpenHandler !== null,
    };
  }
}

function display(id: number, workArea: Rectangle): Display {
  return {
    id,
    label: `display ${id}`,
    bounds: workArea,
    workArea,
    size: { width: workArea.width, height: workArea.height },
    workAreaSize: { width: workArea.width, height: workArea.height },
    nativeOrigin: { x: workArea.x, y: workArea.y },
    accelerometerSupport: 'unknown',
    colorDepth: 24,
    colorSpace: 'srgb',
    depthPerComponent: 8,
    detected: true,
    displayFrequency: 60,
    internal: false,
    maximumCursorSize: { width: 0, height: 0 },
    monochrome: false,
    rotation: 0,
    scaleFactor: 1,
    touchSupport: 'unknown',
  };
}

class ElectronDouble {
  readonly s: DoubleInternals;
  readonly appEvents = new EventEmitter();
  readonly ipcEvents = new EventEmitter();
  readonly sessionEvents = new EventEmitter();
  readonly powerEvents = new EventEmitter();

  constructor() {
    const userData = process.env['TD_ELECTRON_DOUBLE_USER_DATA'];
    if (!userData) throw new Error('electron double: TD_ELECTRON_DOUBLE_USER_DATA is not set');
    this.s = {
      ready: false,
      readyWaiters: [],
      // Electron's main loop runs until the app exits; this timer stands in for it.
      keepAlive: setInterval(() => {}, 1 << 30),
      lockGranted: process.env['TD_ELECTRON_DOUBLE_LOCK'] !== 'denied',
      userData,
      log: [],
      privilegedSchemes: [],
      protocolHandlers: new Map(),
      ipcHandlers: new Map(),
      windows: [],
      quitCalls: 0,
      exitCode: null,
      willQuitPrevented: 0,
      permissionRequest: null,
      permissionCheck: null,
      devicePermission: null,
      displayMedia: null,
      menuInstalled: false,
    };
    if (process.send) {
      process.on('message', (message: DoubleRequest) => {
        void this.answer(message);
      });
      // The control channel must not keep the process alive: only the app's own handles may.
      (process.channel as { unref?: () => void } | undefined)?.unref?.();
    }
  }

  private ended = false;

  /** The main loop ends: what is still open (servers, timers) decides whether the process exits. */
  end(code: number): void {
    if (this.ended) return;
    this.ended = true;
    this.s.exitCode = code;
    process.exitCode = code;
    const release = (): void => {
      if (this.s.keepAlive) clearInterval(this.s.keepAlive);
      this.s.keepAlive = null;
    };
    if (process.send && process.connected) {
      process.send({ type: 'ended', state: this.state() } satisfies DoubleReply, () => release());
    } else release();
  }

  markReady(): void {
    if (this.s.ready) return;
    this.s.ready = true;
    for (const w of this.s.readyWaiters.splice(0)) w();
    this.appEvents.emit('ready', preventable(), {});
  }

  state(): DoubleState {
    return {
      ready: this.s.ready,
      log: [...this.s.log],
      privilegedSchemes: this.s.privilegedSchemes,
      protocolHandlers: [...this.s.protocolHandlers.keys()],
      ipcHandle: [...this.s.ipcHandlers.keys()].sort(),
      ipcOn: this.ipcEvents.eventNames().map(String).sort(),
      windows: this.s.windows.map((w) => w.record()),
      quitCalls: this.s.quitCalls,
      exitCode: this.s.exitCode,
      willQuitPrevented: this.s.willQuitPrevented,
      appListeners: this.appEvents.eventNames().map(String).sort(),
      sessionHandlers: {
        permissionRequest: this.s.permissionRequest !== null,
        permissionCheck: this.s.permissionCheck !== null,
        devicePermission: this.s.devicePermission !== null,
        displayMedia: this.s.displayMedia !== null,
        deviceSelect: this.sessionEvents.eventNames().map(String).sort(),
      },
      menuInstalled: this.s.menuInstalled,
    };
  }

  private window(): WindowDouble {
    const win = this.s.windows.at(-1);
    if (!win) throw new Error('no window was created');
    return win;
  }

  private async run(req: DoubleRequest): Promise<unknown> {
    switch (req.op) {
      case 'state':
        return this.state();
      case 'ready':
        this.markReady();
        return null;
      case 'second-instance':
        this.appEvents.emit('second-instance', preventable(), ['treasury-desk'], process.cwd(), {});
        return null;
      case 'quit':
        app.quit();
        return null;
      case 'minimize':
        this.window().minimized = true;
        return null;
      case 'invoke': {
        const handler = this.s.ipcHandlers.get(req.channel);
        if (!handler) throw new Error(`no ipcMain handler for ${req.channel}`);
        const wc = this.window().webContents;
        const frame = req.frame === 'main' ? wc.mainFrame : new FrameDouble(wc.mainFrame.url, 'sub');
        const savedUrl = frame.url;
        if (req.url !== undefined) frame.url = req.url;
        try {
          const event = {
            sender: wc,
            senderFrame: frame,
            processId: 1,
            frameId: req.frame === 'main' ? 1 : 2,
          };
          return await handler(event as unknown as IpcMainInvokeEvent, ...req.args);
        } finally {
          frame.url = savedUrl;
        }
      }
      case 'protocol': {
        const handler = this.s.protocolHandlers.get(req.scheme);
        if (!handler) throw new Error(`no protocol handler for ${req.scheme}`);
        const response = await handler(new Request(req.url));
        const body = await response.text();
        return {
          status: response.status,
          headers: Object.fromEntries(response.headers.entries()),
          body: body.slice(0, 4096),
          length: body.length,
        };
      }
      case 'navigate': {
        const event = preventable({ url: req.url });
        this.window().webContents.emit(req.event, event, req.url);
        return { prevented: event.prevented };
      }
      case 'window-open': {
        const handler = this.window().webContents.windowOpenHandler;
        if (!handler) throw new Error('no window open handler');
        return handler({ url: req.url });
      }
      case 'permission': {
        const request = this.s.permissionRequest;
        const check = this.s.permissionCheck;
        if (!request || !check) throw new Error('no permission handlers');
        const granted = await new Promise<boolean>((resolve) => request(null, req.permission, resolve));
        return { granted, checked: check(null, req.permission) };
      }
    }
  }

  private async answer(req: DoubleRequest): Promise<void> {
    let reply: DoubleReply;
    try {
      reply = { type: 'reply', id: req.id, ok: true, value: await this.run(req) };
    } catch (err) {
      reply = { type: 'reply', id: req.id, ok: false, error: String((err as Error)?.stack ?? err) };
    }
    if (process.connected) process.send?.(reply);
  }
}

const double: ElectronDouble = ((globalThis as GlobalWithDouble)[key] ??= new ElectronDouble());
const s = double.s;

const appParts = {
  isPackaged: false,
  requestSingleInstanceLock: (): boolean => {
    s.log.push('app.requestSingleInstanceLock');
    return s.lockGranted;
  },
  setAppUserModelId: (id: string): void => {
    s.log.push(`app.setAppUserModelId ${id}`);
  },
  whenReady: (): Promise<void> =>
    s.ready ? Promise.resolve() : new Promise<void>((resolve) => s.readyWaiters.push(resolve)),
  isReady: (): boolean => s.ready,
  getPath: (name: Parameters<App['getPath']>[0]): string => {
    switch (name) {
      case 'userData':
        return s.userData;
      case 'logs':
        return path.join(s.userData, 'logs');
      case 'temp':
        return path.join(s.userData, 'tmp');
      default:
        throw new Error(`Failed to get '${name}' path`);
    }
  },
  getName: (): string => 'Treasury Desk',
  getVersion: (): string => '0.1.0',
  setBadgeCount: (count?: number): boolean => {
    s.log.push(`app.setBadgeCount ${count}`);
    return true;
  },
  quit: (): void => {
    s.quitCalls++;
    s.log.push('app.quit');
    const before = preventable();
    double.appEvents.emit('before-quit', before);
    if (before.prevented) return;
    const willQuit = preventable({}, () => s.willQuitPrevented++);
    double.appEvents.emit('will-quit', willQuit);
    if (willQuit.prevented) return;
    double.appEvents.emit('quit', preventable(), 0);
    double.end(0);
  },
  exit: (code?: number): void => {
    s.log.push(`app.exit ${code ?? 0}`);
    double.end(code ?? 0);
  },
} satisfies Pick<
  App,
  | 'isPackaged'
  | 'requestSingleInstanceLock'
  | 'setAppUserModelId'
  | 'whenReady'
  | 'isReady'
  | 'getPath'
  | 'getName'
  | 'getVersion'
  | 'setBadgeCount'
  | 'quit'
  | 'exit'
>;

/** `app`: the parts above plus Electron's event emitter (App extends NodeJS.EventEmitter). */
export const app = Object.assign(double.appEvents, appParts);

export class BrowserWindow extends WindowDouble {
  constructor(options: BrowserWindowConstructorOptions = {}) {
    super(options);
    s.windows.push(this);
    double.appEvents.emit('web-contents-created', preventable(), this.webContents);
    double.appEvents.emit('browser-window-created', preventable(), this);
  }

  static getAllWindows(): BrowserWindow[] {
    return s.windows.filter((w) => !w.destroyed) as BrowserWindow[];
  }
}

const ipcMainParts = {
  handle: (channel: string, listener: (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown): void => {
    if (s.ipcHandlers.has(channel)) {
      throw new Error(`Attempted to register a second handler for '${channel}'`);
    }
    s.ipcHandlers.set(channel, listener);
  },
  handleOnce: (
    channel: string,
    listener: (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown,
  ): void => {
    ipcMainParts.handle(channel, listener);
  },
  removeHandler: (channel: string): void => {
    s.ipcHandlers.delete(channel);
  },
} satisfies Pick<IpcMain, 'handle' | 'handleOnce' | 'removeHandler'>;

export const ipcMain = Object.assign(double.ipcEvents, ipcMainParts);

export const protocol = {
  registerSchemesAsPrivileged: (customSchemes: CustomScheme[]): void => {
    if (s.ready) throw new Error('protocol.registerSchemesAsPrivileged should be called before app is ready');
    s.privilegedSchemes.push({
      schemes: customSchemes.map((c) => c.scheme),
      privileges: customSchemes[0]?.privileges,
      beforeReady: !s.ready,
    });
  },
  handle: (scheme: string, handler: (request: Request) => Response | Promise<Response>): void => {
    if (!s.ready) throw new Error('protocol.handle must be called after app is ready');
    if (s.protocolHandlers.has(scheme)) throw new Error(`Failed to register protocol: ${scheme}`);
    s.protocolHandlers.set(scheme, handler);
  },
} satisfies Pick<Protocol, 'registerSchemesAsPrivileged' | 'handle'>;

export const net = {
  /** file: URLs as Electron's net.fetch answers them; a missing file rejects like Chromium's loader. */
  fetch: async (input: string | Request): Promise<Response> => {
    const url = new URL(typeof input === 'string' ? input : input.url);
    if (url.protocol !== 'file:')
      throw new Error(`electron double: net.fetch of ${url.protocol} is not modelled`);
    try {
      return new Response(await readFile(fileURLToPath(url)));
    } catch {
      throw new Error('net::ERR_FILE_NOT_FOUND');
    }
  },
  isOnline: (): boolean => true,
} satisfies Pick<Net, 'fetch' | 'isOnline'>;

const sessionParts = {
  setPermissionRequestHandler: (handler: Parameters<Session['setPermissionRequestHandler']>[0]): void => {
    s.permissionRequest = handler as DoubleInternals['permissionRequest'];
  },
  setPermissionCheckHandler: (handler: Parameters<Session['setPermissionCheckHandler']>[0]): void => {
    s.permissionCheck = handler as DoubleInternals['permissionCheck'];
  },
  setDevicePermissionHandler: (handler: Parameters<Session['setDevicePermissionHandler']>[0]): void => {
    s.devicePermission = handler as DoubleInternals['devicePermission'];
  },
  setDisplayMediaRequestHandler: (handler: Parameters<Session['setDisplayMediaRequestHandler']>[0]): void => {
    s.displayMedia = handler as DoubleInternals['displayMedia'];
  },
} satisfies Pick<
  Session,
  | 'setPermissionRequestHandler'
  | 'setPermissionCheckHandler'
  | 'setDevicePermissionHandler'
  | 'setDisplayMediaRequestHandler'
>;

export const session = { defaultSession: Object.assign(double.sessionEvents, sessionParts) };

export const shell = {
  openExternal: async (url: string): Promise<void> => {
    s.log.push(`shell.openExternal ${url}`);
  },
  openPath: async (p: string): Promise<string> => {
    s.log.push(`shell.openPath ${p}`);
    return '';
  },
} satisfies Pick<Shell, 'openExternal' | 'openPath'>;

export const Menu = {
  buildFromTemplate: (template: Array<MenuItemConstructorOptions | MenuItem>): ElectronMenu =>
    ({ items: template }) as unknown as ElectronMenu,
  setApplicationMenu: (_menu: ElectronMenu | null): void => {
    s.menuInstalled = true;
  },
} satisfies Pick<typeof ElectronMenu, 'buildFromTemplate' | 'setApplicationMenu'>;

export class Notification extends EventEmitter implements Pick<ElectronNotification, 'show'> {
  constructor(readonly options: NotificationConstructorOptions = {}) {
    super();
  }
  show(): void {
    s.log.push(`notification ${this.options.title ?? ''}`);
  }
  static isSupported(): boolean {
    return false;
  }
}

export const dialog = {
  showOpenDialog: async () => ({ canceled: true, filePaths: [] }),
  showSaveDialog: async () => ({ canceled: true, filePath: '' }),
} satisfies Pick<Dialog, 'showOpenDialog' | 'showSaveDialog'>;

export const nativeTheme = { shouldUseDarkColors: false } satisfies Pick<NativeTheme, 'shouldUseDarkColors'>;

const primary = display(1, { x: 0, y: 0, width: 1920, height: 1040 });
export const screen = {
  getPrimaryDisplay: (): Display => primary,
  getAllDisplays: (): Display[] => [primary],
} satisfies Pick<Screen, 'getPrimaryDisplay' | 'getAllDisplays'>;

export const powerMonitor = double.powerEvents;

export const webContents = {
  getAllWebContents: (): WebContentsDouble[] => s.windows.map((w) => w.webContents),
};

export default {
  app,
  BrowserWindow,
  ipcMain,
  protocol,
  net,
  session,
  shell,
  Menu,
  Notification,
  dialog,
  nativeTheme,
  screen,
  powerMonitor,
  webContents,
};
