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
  CrashReporter,
  CrashReporterStartOptions,
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
  Settings as LoginItemSettingsInput,
  Shell,
  Tray as ElectronTray,
  WebContents,
} from 'electron';
import type { DoubleReply, DoubleRequest, DoubleState, MenuItemRecord, WindowRecord } from './protocol';

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
  applicationMenu: Array<MenuItemConstructorOptions | MenuItem>;
  trays: TrayDouble[];
  loginItem: LoginItemSettingsInput | null;
  protocolClients: string[];
  crashReporter: CrashReporterStartOptions | null;
  /** What the next dialog.showMessageBox answers (button index); none queued = 0 (Cancel). */
  nextMessageBoxAnswers: number[];
  messageBoxes: Array<{ title?: string; message: string; detail?: string; buttons?: string[] }>;
  /** What the next dialog.showSaveDialog answers; none queued = cancelled. */
  nextSavePaths: Array<string | null>;
  saveDialogs: Array<{ title?: string; defaultPath?: string }>;
  shownNotifications: EventEmitter[];
}

/** A menu (application or tray) as the test sees it: labels, ids and whether each is enabled. */
function menuRecord(items: Array<MenuItemConstructorOptions | MenuItem>): MenuItemRecord[] {
  return items.map((i) => {
    const o = i as MenuItemConstructorOptions;
    return {
      ...(o.id ? { id: o.id } : {}),
      ...(o.label ? { label: o.label } : {}),
      ...(o.type ? { type: o.type } : {}),
      ...(o.enabled === false ? { enabled: false } : {}),
      ...(Array.isArray(o.submenu) ? { submenu: menuRecord(o.submenu) } : {}),
    };
  });
}

function findItem(
  items: Array<MenuItemConstructorOptions | MenuItem>,
  id: string,
): MenuItemConstructorOptions | null {
  for (const i of items as MenuItemConstructorOptions[]) {
    if (i.id === id) return i;
    if (Array.isArray(i.submenu)) {
      const found = findItem(i.submenu, id);
      if (found) return found;
    }
  }
  return null;
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
    close: (): void => {
      if (this.destroyed) return;
      const close = preventable();
      this.emit('close', close);
      if (close.prevented) return;
      this.destroyed = true;
      this.webContents.destroyed = true;
      this.webContents.emit('destroyed');
      this.emit('closed');
      if (BrowserWindow.getAllWindows().length === 0) double.appEvents.emit('window-all-closed');
    },
    hide: (): void => {
      this.visible = false;
    },
    isVisible: (): boolean => this.visible,
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
    | 'close'
    | 'hide'
    | 'isVisible'
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
  close = this.parts.close;
  hide = this.parts.hide;
  isVisible = this.parts.isVisible;
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
      destroyed: this.destroyed,
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
      applicationMenu: [],
      trays: [],
      loginItem: null,
      protocolClients: [],
      crashReporter: null,
      nextMessageBoxAnswers: [],
      messageBoxes: [],
      nextSavePaths: [],
      saveDialogs: [],
      shownNotifications: [],
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
      applicationMenu: menuRecord(this.s.applicationMenu),
      trays: this.s.trays.map((t) => t.record()),
      loginItem: this.s.loginItem
        ? (JSON.parse(JSON.stringify(this.s.loginItem)) as Record<string, unknown>)
        : null,
      protocolClients: [...this.s.protocolClients],
      crashReporter: this.s.crashReporter
        ? (JSON.parse(JSON.stringify(this.s.crashReporter)) as Record<string, unknown>)
        : null,
      messageBoxes: [...this.s.messageBoxes],
      saveDialogs: [...this.s.saveDialogs],
    };
  }

  private window(): WindowDouble {
    const win = this.s.windows.filter((w) => !w.destroyed).at(-1) ?? this.s.windows.at(-1);
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
        this.appEvents.emit(
          'second-instance',
          preventable(),
          req.argv ?? ['treasury-desk'],
          process.cwd(),
          {},
        );
        return null;
      case 'open-url': {
        const event = preventable();
        this.appEvents.emit('open-url', event, req.url);
        return { prevented: event.prevented };
      }
      case 'close-windows':
        for (const w of this.s.windows.filter((x) => !x.destroyed)) w.close();
        return null;
      case 'tray-click': {
        const tray = this.s.trays.filter((t) => !t.destroyed).at(-1);
        if (!tray) throw new Error('no tray');
        const item = findItem(tray.menu, req.item);
        if (!item?.click) throw new Error(`no tray item ${req.item}`);
        (item.click as () => void)();
        return null;
      }
      case 'menu-click': {
        const item = findItem(this.s.applicationMenu, req.item);
        if (!item?.click) throw new Error(`no menu item ${req.item}`);
        (item.click as () => void)();
        return null;
      }
      case 'notification-click': {
        const n = this.s.shownNotifications.at(-1);
        if (!n) throw new Error('no notification was shown');
        n.emit('click', preventable());
        return null;
      }
      case 'dialog-answers':
        this.s.nextMessageBoxAnswers.push(...(req.messageBox ?? []));
        this.s.nextSavePaths.push(...(req.savePaths ?? []));
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

class TrayDouble extends EventEmitter {
  tooltip = '';
  menu: Array<MenuItemConstructorOptions | MenuItem> = [];
  destroyed = false;
  constructor(readonly image: string) {
    super();
  }
  readonly parts = {
    setToolTip: (toolTip: string): void => {
      this.tooltip = toolTip;
    },
    setContextMenu: (menu: ElectronMenu | null): void => {
      this.menu = ((menu as unknown as { items?: Array<MenuItemConstructorOptions | MenuItem> } | null)
        ?.items ?? []) as Array<MenuItemConstructorOptions | MenuItem>;
    },
    destroy: (): void => {
      this.destroyed = true;
    },
    isDestroyed: (): boolean => this.destroyed,
  } satisfies Pick<ElectronTray, 'setToolTip' | 'setContextMenu' | 'destroy' | 'isDestroyed'>;
  setToolTip = this.parts.setToolTip;
  setContextMenu = this.parts.setContextMenu;
  destroy = this.parts.destroy;
  isDestroyed = this.parts.isDestroyed;
  record() {
    return {
      image: this.image,
      tooltip: this.tooltip,
      menu: menuRecord(this.menu),
      destroyed: this.destroyed,
    };
  }
}

export class Tray extends TrayDouble {
  constructor(image: string) {
    super(image);
    s.trays.push(this);
  }
}

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
      case 'crashDumps':
        return path.join(s.userData, 'Crashpad');
      case 'temp':
        return path.join(s.userData, 'tmp');
      default:
        throw new Error(`Failed to get '${name}' path`);
    }
  },
  getName: (): string => 'Treasury Desk',
  getVersion: (): string => '0.1.0',
  setLoginItemSettings: (settings: LoginItemSettingsInput): void => {
    s.loginItem = settings;
    s.log.push(`app.setLoginItemSettings ${JSON.stringify(settings)}`);
  },
  setAsDefaultProtocolClient: (protocol: string): boolean => {
    s.protocolClients.push(protocol);
    return true;
  },
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
  | 'setLoginItemSettings'
  | 'setAsDefaultProtocolClient'
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
  showItemInFolder: (p: string): void => {
    s.log.push(`shell.showItemInFolder ${p}`);
  },
} satisfies Pick<Shell, 'openExternal' | 'openPath' | 'showItemInFolder'>;

export const Menu = {
  buildFromTemplate: (template: Array<MenuItemConstructorOptions | MenuItem>): ElectronMenu =>
    ({ items: template }) as unknown as ElectronMenu,
  setApplicationMenu: (menu: ElectronMenu | null): void => {
    s.menuInstalled = true;
    s.applicationMenu =
      (menu as unknown as { items?: Array<MenuItemConstructorOptions | MenuItem> } | null)?.items ?? [];
  },
} satisfies Pick<typeof ElectronMenu, 'buildFromTemplate' | 'setApplicationMenu'>;

export class Notification extends EventEmitter implements Pick<ElectronNotification, 'show'> {
  constructor(readonly options: NotificationConstructorOptions = {}) {
    super();
  }
  show(): void {
    s.log.push(`notification ${this.options.title ?? ''}`);
    s.shownNotifications.push(this);
  }
  static isSupported(): boolean {
    return true;
  }
}

type MessageBoxOptions = Parameters<Dialog['showMessageBox']>[0] extends infer O
  ? O extends { message: string }
    ? O
    : never
  : never;
type SaveDialogOptions = Parameters<Dialog['showSaveDialog']>[0] extends infer O
  ? O extends { title?: string; defaultPath?: string; properties?: unknown }
    ? O
    : never
  : never;

function lastObject<T>(args: unknown[]): T {
  return args.findLast((a) => a !== null && typeof a === 'object' && !('webContents' in a)) as T;
}

export const dialog = {
  showOpenDialog: async () => ({ canceled: true, filePaths: [] }),
  /** Answers the queued paths (dialog-answers); none queued = cancelled. Called with or without a window. */
  showSaveDialog: async (...args: unknown[]) => {
    const o = lastObject<SaveDialogOptions>(args);
    s.saveDialogs.push({
      ...(o.title ? { title: o.title } : {}),
      ...(o.defaultPath ? { defaultPath: o.defaultPath } : {}),
    });
    const p = s.nextSavePaths.shift() ?? null;
    return p ? { canceled: false, filePath: p } : { canceled: true, filePath: '' };
  },
  showMessageBox: async (...args: unknown[]) => {
    const o = lastObject<MessageBoxOptions>(args);
    s.messageBoxes.push({
      ...(o.title ? { title: o.title } : {}),
      message: o.message,
      ...(o.detail ? { detail: o.detail } : {}),
      ...(o.buttons ? { buttons: o.buttons } : {}),
    });
    return { response: s.nextMessageBoxAnswers.shift() ?? 0, checkboxChecked: false };
  },
} satisfies Pick<Dialog, 'showOpenDialog' | 'showSaveDialog' | 'showMessageBox'>;

export const crashReporter = {
  start: (options: CrashReporterStartOptions): void => {
    if (s.ready) s.log.push('crashReporter.start after ready');
    s.crashReporter = options;
  },
  setUploadToServer: (upload: boolean): void => {
    if (s.crashReporter) s.crashReporter = { ...s.crashReporter, uploadToServer: upload };
  },
} satisfies Pick<CrashReporter, 'start' | 'setUploadToServer'>;

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
  Tray,
  dialog,
  crashReporter,
  nativeTheme,
  screen,
  powerMonitor,
  webContents,
};
