/**
 * The main window's construction options as a pure function, so the security-relevant
 * webPreferences are tested in Node (test/unit/window-shell.test.ts) and the Electron shell
 * only passes the result to `new BrowserWindow()`.
 *
 * The shape mirrors Electron's BrowserWindowConstructorOptions (this module may not import
 * electron, not even its types).
 */
import type { WindowBounds } from './state';

export interface SecureWebPreferences {
  preload: string;
  sandbox: true;
  contextIsolation: true;
  nodeIntegration: false;
  nodeIntegrationInWorker: false;
  nodeIntegrationInSubFrames: false;
  webSecurity: true;
  allowRunningInsecureContent: false;
  experimentalFeatures: false;
  enableBlinkFeatures: '';
  /** Middle-click opens links in new windows unless Auxclick is disabled. */
  disableBlinkFeatures: 'Auxclick';
  webviewTag: false;
  navigateOnDragDrop: false;
  enableWebSQL: false;
  safeDialogs: true;
  spellcheck: false;
  devTools: boolean;
}

export interface MainWindowOptions {
  x?: number;
  y?: number;
  width: number;
  height: number;
  minWidth: number;
  minHeight: number;
  show: false;
  title: string;
  backgroundColor: string;
  icon?: string;
  webPreferences: SecureWebPreferences;
}

export interface MainWindowInput {
  preloadPath: string;
  /** False in packaged builds: no devtools for analysts. */
  devTools: boolean;
  /** Restored bounds (already clamped to the visible displays). */
  bounds: WindowBounds;
  /** The OS theme at creation, so the first paint has the right background (no white flash). */
  dark: boolean;
  iconPath?: string;
}

export const minWindowSize = { width: 960, height: 600 } as const;

/** The background colours of the renderer's light and dark themes (--bg in app.css). */
export const themeBackground = { light: '#f6f7f9', dark: '#14171c' } as const;

export function mainWindowOptions(input: MainWindowInput): MainWindowOptions {
  const { bounds } = input;
  return {
    ...(bounds.x !== undefined && bounds.y !== undefined ? { x: bounds.x, y: bounds.y } : {}),
    width: bounds.width,
    height: bounds.height,
    minWidth: minWindowSize.width,
    minHeight: minWindowSize.height,
    show: false,
    title: 'Treasury Desk',
    backgroundColor: input.dark ? themeBackground.dark : themeBackground.light,
    ...(input.iconPath ? { icon: input.iconPath } : {}),
    webPreferences: {
      preload: input.preloadPath,
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      enableBlinkFeatures: '',
      disableBlinkFeatures: 'Auxclick',
      webviewTag: false,
      navigateOnDragDrop: false,
      enableWebSQL: false,
      safeDialogs: true,
      spellcheck: false,
      devTools: input.devTools,
    },
  };
}
