import { BrowserWindow, nativeTheme } from 'electron';
import path from 'node:path';
import { mainWindowOptions } from './options';
import type { WindowBounds } from './state';

export interface WindowOptions {
  preloadPath: string;
  url: string;
  devTools: boolean;
  bounds: WindowBounds;
  maximized: boolean;
  iconPath?: string;
}

/**
 * The app window, built secure (src/main/electron/window/options.ts): sandboxed, isolated renderer with
 * no Node and no remote content, devtools only in development.
 */
export function createMainWindow(options: WindowOptions): BrowserWindow {
  const win = new BrowserWindow(
    mainWindowOptions({
      preloadPath: options.preloadPath,
      devTools: options.devTools,
      bounds: options.bounds,
      dark: nativeTheme.shouldUseDarkColors,
      ...(options.iconPath ? { iconPath: path.resolve(options.iconPath) } : {}),
    }),
  );
  win.once('ready-to-show', () => {
    if (options.maximized) win.maximize();
    win.show();
  });
  void win.loadURL(options.url);
  return win;
}
