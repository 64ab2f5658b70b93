/**
 * The Electron entry: the thin shell around the Node services. Everything here adapts Electron
 * (single instance, protocol, windows, IPC, tray, links, updates, crash reports, platform
 * features) and calls createServices().
 */
import { app, BrowserWindow } from 'electron';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServices } from './services';
import type { Services } from './core';
import { createDispatcher, createSenderPolicy } from './ipc/dispatcher';
import { createLogger } from './infra/log';
import { appId, productName } from './electron/app-identity';
import { appEntryUrl, appOrigin } from './electron/protocol/policy';
import { registerAppScheme, serveRenderer } from './electron/protocol/serve';
import { hardenApp } from './electron/security';
import { forwardEvents, registerIpc } from './electron/ipc';
import { createMainWindow } from './electron/window/create';
import { createElectronPlatform } from './electron/platform';
import { electronStoreFactory } from './electron/store';
import { createFileLog } from './electron/log/sink';
import { installMenu } from './electron/menu/install';
import { restoredWindowState, trackWindowState } from './electron/window/track-state';
import { linkInArgv, linkScheme, parseLink } from './electron/links/parse';
import { createLinkHandler } from './electron/links/handle';
import { installTray } from './electron/tray/install';
import type { InstalledTray } from './electron/tray/install';
import { startCrashReporter } from './electron/crash/start';
import { startUpdates } from './electron/updates';
import type { UpdateController } from './desktop/updates';
import { createNotificationPause, withNotificationPause } from './desktop/pause';
import { exportDiagnostics } from './desktop/diagnostics';
import { routePath } from '../shared/ipc/channels/desktop';
import type { LinkRoute } from '../shared/ipc/channels/desktop';

const here = path.dirname(fileURLToPath(import.meta.url));
const devServerUrl = !app.isPackaged ? process.env['ELECTRON_RENDERER_URL'] : undefined;
const allowedOrigins = devServerUrl ? [appOrigin, devServerUrl] : [appOrigin];
/** The login item starts the app with this flag (Windows); macOS reports wasOpenedAtLogin. */
const hiddenFlag = '--hidden';

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.setAppUserModelId(appId);
  registerAppScheme();
  let mainWindow: BrowserWindow | null = null;
  let services: Services | null = null;
  let tray: InstalledTray | null = null;
  let updates: UpdateController | null = null;
  let quitting = false;

  const fileLog = createFileLog(app.isPackaged);
  const log = createLogger(fileLog.sink, app.isPackaged ? 'info' : 'debug');
  // Local minidumps only, unless an administrator's policy names an https upload URL.
  startCrashReporter(productName, (m) => log.warn(m));

  // treasury-desk:// links: the installers register the scheme (electron-builder `protocols`);
  // this also registers it for the running build (an unpackaged run passes its entry script).
  if (app.isPackaged) app.setAsDefaultProtocolClient(linkScheme);
  else if (process.argv[1])
    app.setAsDefaultProtocolClient(linkScheme, process.execPath, [path.resolve(process.argv[1])]);

  // The bank clock estimate measures the pause (falls back to the local clock before services).
  const pause = createNotificationPause(() => services?.clock.now() ?? Date.now());

  const showWindow = (win: BrowserWindow): void => {
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
  };

  // One window at a time: a link or a tray click while the window is being created waits for it.
  let opening: Promise<void> | null = null;
  const openWindow = async (route?: LinkRoute): Promise<void> => {
    while (opening) await opening;
    if (!services) return;
    if (mainWindow && !mainWindow.isDestroyed()) {
      showWindow(mainWindow);
      if (route) services.events.emit('desktop.openLink', route);
      return;
    }
    const running = services;
    let release: () => void = () => {};
    opening = new Promise<void>((r) => (release = r));
    try {
      const userData = app.getPath('userData');
      const state = await restoredWindowState(userData, { log, report: (p) => running.stores.report(p) });
      const entry = devServerUrl ?? appEntryUrl;
      const win = createMainWindow({
        preloadPath: path.join(here, '../preload/index.cjs'),
        // A link opening a new window starts it at the link's screen (no event can reach a page
        // that is not loaded yet).
        url: route ? `${entry}#${routePath(route)}` : entry,
        devTools: !app.isPackaged,
        bounds: state.bounds,
        maximized: state.maximized,
      });
      mainWindow = win;
      trackWindowState(win, userData, (err) => log.warn('window state not saved', { error: err }));
      forwardEvents(running.events, win.webContents);
      win.on('closed', () => {
        if (mainWindow === win) mainWindow = null;
      });
    } finally {
      opening = null;
      release();
    }
  };

  /** A link from the OS: parsed strictly; only ever navigates. Before ready it waits. */
  let pendingLink: LinkRoute | null = null;
  const openLink = createLinkHandler({
    log,
    open(route) {
      if (!services) pendingLink = route;
      else void openWindow(route);
    },
  });

  app.on('second-instance', (_event, argv) => {
    const link = linkInArgv(argv);
    if (link) openLink(link, 'second-instance');
    else if (mainWindow && !mainWindow.isDestroyed()) showWindow(mainWindow);
    else void openWindow();
  });
  // macOS hands links to the running app (also the one a link just started).
  app.on('open-url', (event, url) => {
    event.preventDefault();
    openLink(url, 'open-url');
  });

  const refreshTray = async (): Promise<void> => {
    if (!services || !tray) return;
    try {
      const { counts } = await services.entityWatch.counts();
      const { items } = await services.entityWatch.list({
        status: ['action_required'],
        sort: 'deadline',
        limit: 10,
      });
      const urgent = items
        .filter((r) => r.deadline && r.awaitingAction)
        .map((r) => ({ type: r.type, description: r.description, deadline: r.deadline!, band: r.band }));
      const until = pause.pausedUntil();
      tray.update({
        productName,
        awaitingAction: counts.awaitingAction,
        urgent,
        pausedUntil: until === null ? null : new Date(until).toISOString(),
      });
    } catch (err) {
      log.warn('tray: not refreshed', { error: err });
    }
  };

  const quit = (): void => {
    quitting = true;
    app.quit();
  };

  app
    .whenReady()
    .then(async () => {
      hardenApp(
        () => allowedOrigins,
        (what, url) => log.warn(`security: blocked ${what}`, { url }),
      );
      serveRenderer(path.join(here, '../renderer'));
      const platform = withNotificationPause(
        createElectronPlatform(() => mainWindow, {
          setStartAtLogin(enabled) {
            // Windows: the login item passes --hidden. macOS: Electron 45 has no openAsHidden any
            // more; a start the OS reports as wasOpenedAtLogin is treated as hidden. Linux
            // desktops have no login-item API in Electron (the README says how to add one).
            app.setLoginItemSettings({ openAtLogin: enabled, args: [hiddenFlag] });
          },
        }),
        pause,
      );
      services = await createServices({
        dataDir: app.getPath('userData'),
        platform,
        log,
        storeFactory: electronStoreFactory,
        // An unpackaged run (npm start, the boot test) keeps its secrets apart from the installed app's.
        keyringService: app.isPackaged ? 'treasury-desk' : 'treasury-desk-dev',
      });
      const running = services;
      installMenu({
        isPackaged: app.isPackaged,
        productName,
        logsDir: fileLog.dir,
        getWindow: () => mainWindow,
        exportDiagnostics() {
          void exportDiagnostics({
            platform,
            logsDir: fileLog.dir,
            redact: (text) => log.redact(text),
            info: {
              app: { name: productName, version: app.getVersion(), packaged: app.isPackaged },
              runtime: Object.fromEntries(
                ['electron', 'chrome', 'node', 'v8'].map((k) => [k, process.versions[k] ?? 'unknown']),
              ),
              os: { platform: process.platform, release: os.release(), arch: process.arch },
              exportedAt: new Date().toISOString(),
            },
          })
            .then((target) => target && log.info('diagnostics: exported'))
            .catch((err: unknown) => log.warn('diagnostics: export failed', { error: err }));
        },
      });
      registerIpc(
        createDispatcher({
          handlers: running.handlers,
          isTrustedSender: createSenderPolicy(allowedOrigins),
          log,
        }),
      );
      // A notification clicked while no window is open opens one at that RFI.
      running.events.attach((message) => {
        if (message.event === 'rfis.openRequested' && !(mainWindow && !mainWindow.isDestroyed())) {
          const rfi = parseLink(`${linkScheme}://rfis/${(message.payload as { rfiId: string }).rfiId}`);
          if (rfi.ok) void openWindow(rfi.route);
        }
        if (message.event === 'rfis.changed' || message.event === 'rfis.syncState') void refreshTray();
      });
      tray = installTray(
        app.isPackaged
          ? path.join(process.resourcesPath, 'tray.png')
          : path.join(here, '../../resources/icons/32x32.png'),
        {
          openWindow: () => void openWindow(),
          syncNow: () =>
            void running.rfis
              .sync('sync')
              .then(() => refreshTray())
              .catch((err: unknown) => log.warn('tray: sync failed', { error: err })),
          pauseNotifications: () => {
            pause.pause();
            void refreshTray();
          },
          resumeNotifications: () => {
            pause.resume();
            void refreshTray();
          },
          quit,
        },
      );
      // The menu is there at once (its count follows as soon as the cache answers).
      tray.update({ productName, awaitingAction: null, urgent: [], pausedUntil: null });
      await refreshTray();

      // A hidden start (login item) opens no window; a link at a cold start (argv on Windows and
      // Linux, open-url before ready on macOS) opens its screen.
      const coldLink = linkInArgv(process.argv);
      let route = pendingLink;
      if (coldLink && !route) {
        createLinkHandler({ log, open: (r) => (route = r) })(coldLink, 'argv');
      }
      pendingLink = null;
      const hidden =
        process.argv.includes(hiddenFlag) ||
        (process.platform === 'darwin' && app.getLoginItemSettings().wasOpenedAtLogin);
      if (route) await openWindow(route);
      else if (!hidden) await openWindow();
      app.on('activate', () => {
        if (BrowserWindow.getAllWindows().length === 0) void openWindow();
      });
      updates = await startUpdates({ busy: running.busy, log, getWindow: () => mainWindow });
    })
    .catch((err: unknown) => {
      console.error('Treasury Desk failed to start', err);
      app.exit(1);
    });

  // Closing the last window keeps the services watching (tray / dock) unless the analyst turned
  // background mode off; then Windows and Linux quit as before (macOS apps stay in the dock).
  app.on('window-all-closed', () => {
    if (quitting) return;
    const keep = services?.desktop.get().keepRunningInBackground ?? false;
    if (!keep && process.platform !== 'darwin') quit();
  });

  app.on('before-quit', () => {
    quitting = true;
  });

  let disposing = false;
  app.on('will-quit', (event) => {
    if (!services || disposing) return;
    disposing = true;
    event.preventDefault();
    updates?.dispose();
    tray?.dispose();
    void services.dispose().finally(() => app.exit(0));
  });
}
