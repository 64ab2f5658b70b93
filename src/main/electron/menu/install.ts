import { Menu, shell } from 'electron';
import type { BrowserWindow, MenuItemConstructorOptions } from 'electron';
import { buildMenuTemplate } from './template';

/** Installs the application menu (src/main/electron/menu/template.ts). */
export function installMenu(options: {
  isPackaged: boolean;
  productName: string;
  logsDir: string;
  getWindow: () => BrowserWindow | null;
  exportDiagnostics(): void;
}): void {
  const template = buildMenuTemplate({
    isMac: process.platform === 'darwin',
    isPackaged: options.isPackaged,
    productName: options.productName,
    actions: {
      // The overlay is the page's: the menu presses F1 for the analyst (its accelerator is only
      // displayed, not registered, so the page receives the real key too).
      showShortcuts() {
        const win = options.getWindow();
        if (!win) return;
        win.focus();
        win.webContents.sendInputEvent({ type: 'keyDown', keyCode: 'F1' });
        win.webContents.sendInputEvent({ type: 'keyUp', keyCode: 'F1' });
      },
      openLogsFolder() {
        void shell.openPath(options.logsDir);
      },
      exportDiagnostics: options.exportDiagnostics,
    },
  });
  Menu.setApplicationMenu(Menu.buildFromTemplate(template as MenuItemConstructorOptions[]));
}
