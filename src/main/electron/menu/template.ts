/**
 * The application menu as data (File, Edit, View, Window, Help; the app menu first on macOS),
 * built from the shortcut list in src/shared/shortcuts.ts. src/main/electron/menu/install.ts hands it to
 * Menu.buildFromTemplate; test/unit/window-shell.test.ts checks it against the shortcuts.
 */
import { acceleratorFor, shortcutById } from '../../../shared/shortcuts';

/** The subset of Electron's MenuItemConstructorOptions the app uses. */
export interface MenuItemSpec {
  id?: string;
  label?: string;
  role?: string;
  type?: 'separator' | 'submenu' | 'normal';
  accelerator?: string;
  enabled?: boolean;
  /** False: the accelerator is only displayed; the page handles the key itself. */
  registerAccelerator?: boolean;
  submenu?: MenuItemSpec[];
  click?: () => void;
}

export interface MenuActions {
  showShortcuts(): void;
  openLogsFolder(): void;
  /** Help → Export diagnostics (a ZIP of the redacted logs, saved through main's dialog). */
  exportDiagnostics(): void;
}

export interface MenuOptions {
  isMac: boolean;
  /** Packaged builds have no reload and no developer tools. */
  isPackaged: boolean;
  productName: string;
  actions: MenuActions;
}

export function buildMenuTemplate({ isMac, isPackaged, productName, actions }: MenuOptions): MenuItemSpec[] {
  const item = (id: string, spec: MenuItemSpec): MenuItemSpec => {
    const s = shortcutById(id);
    return {
      id,
      label: s.label,
      accelerator: acceleratorFor(s, isMac),
      ...(s.handledBy === 'page' ? { registerAccelerator: false } : {}),
      ...spec,
    };
  };
  const separator: MenuItemSpec = { type: 'separator' };
  const quit = item('app.quit', { role: 'quit', label: isMac ? `Quit ${productName}` : 'Quit' });

  const appMenu: MenuItemSpec[] = isMac
    ? [
        {
          label: productName,
          submenu: [
            { role: 'about', label: `About ${productName}` },
            separator,
            { role: 'hide' },
            { role: 'hideOthers' },
            { role: 'unhide' },
            separator,
            quit,
          ],
        },
      ]
    : [];

  const file: MenuItemSpec = {
    label: 'File',
    submenu: isMac
      ? [item('window.close', { role: 'close' })]
      : [item('window.close', { role: 'close' }), separator, quit],
  };
  const edit: MenuItemSpec = {
    label: 'Edit',
    submenu: [
      item('edit.undo', { role: 'undo' }),
      item('edit.redo', { role: 'redo' }),
      separator,
      item('edit.cut', { role: 'cut' }),
      item('edit.copy', { role: 'copy' }),
      item('edit.paste', { role: 'paste' }),
      item('edit.selectAll', { role: 'selectAll' }),
    ],
  };
  const developer: MenuItemSpec[] = isPackaged
    ? []
    : [separator, { role: 'reload' }, { role: 'toggleDevTools' }];
  const view: MenuItemSpec = {
    label: 'View',
    submenu: [
      item('view.resetZoom', { role: 'resetZoom' }),
      item('view.zoomIn', { role: 'zoomIn' }),
      item('view.zoomOut', { role: 'zoomOut' }),
      separator,
      item('view.fullScreen', { role: 'togglefullscreen' }),
      ...developer,
    ],
  };
  const windowMenu: MenuItemSpec = {
    label: 'Window',
    submenu: [
      item('window.minimize', { role: 'minimize' }),
      ...(isMac ? [{ role: 'zoom' }, separator, { role: 'front' }] : []),
    ],
  };
  const help: MenuItemSpec = {
    label: 'Help',
    role: 'help',
    submenu: [
      item('help.shortcuts', { label: 'Keyboard shortcuts', click: actions.showShortcuts }),
      { id: 'help.logs', label: 'Open logs folder', click: actions.openLogsFolder },
      { id: 'help.diagnostics', label: 'Export diagnostics…', click: actions.exportDiagnostics },
      ...(isMac ? [] : [separator, { role: 'about', label: `About ${productName}` }]),
    ],
  };
  return [...appMenu, file, edit, view, windowMenu, help];
}
