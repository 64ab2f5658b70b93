import { BrowserWindow } from 'electron';
import path from 'node:path';

export interface WindowOptions {
  preloadPath: string;
  url: string;
  devTools: boolean;
  iconPath?: string;
}

/** The app window, built secure: sandboxed, isolated renderer with no Node and no remote content. */
export function createMainWindow(options: WindowOptions): BrowserWindow {
  const win = new BrowserWindow({
    width: 1360,
    height: 880,
    minWidth: 960,
    minHeight: 600,
    show: false,
    title: 'Treasury Desk',
    ...(options.iconPath ? { icon: path.resolve(options.iconPath) } : {}),
    webPreferences: {
      preload: options.preloadPath,
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      devTools: options.devTools,
    },
  });
  win.once('ready-to-show', () => win.show());
  void win.loadURL(options.url);
  return win;
}
