/**
 * The Electron entry: the thin shell around the Node services. Everything here adapts Electron
 * (single instance, protocol, windows, IPC, platform features) and calls createServices().
 */
import { app, BrowserWindow } from 'electron';
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

const here = path.dirname(fileURLToPath(import.meta.url));
const devServerUrl = !app.isPackaged ? process.env['ELECTRON_RENDERER_URL'] : undefined;
const allowedOrigins = devServerUrl ? [appOrigin, devServerUrl] : [appOrigin];

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.setAppUserModelId(appId);
  registerAppScheme();
  let mainWindow: BrowserWindow | null = null;
  let services: Services | null = null;

  app.on('second-instance', () => {
    if (mainWindow) {
      if (mainWindow.isMinimized()) mainWindow.restore();
      mainWindow.focus();
    }
  });

  const fileLog = createFileLog(app.isPackaged);
  const log = createLogger(fileLog.sink, app.isPackaged ? 'info' : 'debug');

  const openWindow = async (): Promise<void> => {
    if (!services) return;
    const { stores } = services;
    const userData = app.getPath('userData');
    const state = await restoredWindowState(userData, { log, report: (p) => stores.report(p) });
    mainWindow = createMainWindow({
      preloadPath: path.join(here, '../preload/index.cjs'),
      url: devServerUrl ?? appEntryUrl,
      devTools: !app.isPackaged,
      bounds: state.bounds,
      maximized: state.maximized,
    });
    trackWindowState(mainWindow, userData, (err) => log.warn('window state not saved', { error: err }));
    forwardEvents(services.events, mainWindow.webContents);
    mainWindow.on('closed', () => {
      mainWindow = null;
    });
  };

  app
    .whenReady()
    .then(async () => {
      hardenApp(
        () => allowedOrigins,
        (what, url) => log.warn(`security: blocked ${what}`, { url }),
      );
      serveRenderer(path.join(here, '../renderer'));
      installMenu({
        isPackaged: app.isPackaged,
        productName,
        logsDir: fileLog.dir,
        getWindow: () => mainWindow,
      });
      services = await createServices({
        dataDir: app.getPath('userData'),
        platform: createElectronPlatform(() => mainWindow),
        log,
        storeFactory: electronStoreFactory,
        // An unpackaged run (npm start, the boot test) keeps its secrets apart from the installed app's.
        keyringService: app.isPackaged ? 'treasury-desk' : 'treasury-desk-dev',
      });
      registerIpc(
        createDispatcher({
          handlers: services.handlers,
          isTrustedSender: createSenderPolicy(allowedOrigins),
          log,
        }),
      );
      await openWindow();
      app.on('activate', () => {
        if (BrowserWindow.getAllWindows().length === 0) void openWindow();
      });
    })
    .catch((err: unknown) => {
      console.error('Treasury Desk failed to start', err);
      app.exit(1);
    });

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  let disposing = false;
  app.on('will-quit', (event) => {
    if (!services || disposing) return;
    disposing = true;
    event.preventDefault();
    void services.dispose().finally(() => app.exit(0));
  });
}
