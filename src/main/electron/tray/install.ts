import { app, Menu, Tray } from 'electron';
import type { MenuItemConstructorOptions } from 'electron';
import { buildTrayMenu, trayTooltip } from './menu';
import type { TrayActions, TrayModel } from './menu';

export interface InstalledTray {
  /** Rebuilds the menu and tooltip from a fresh model. */
  update(model: TrayModel): void;
  dispose(): void;
}

/**
 * The background presence: a tray icon with its menu on Windows and Linux, the dock menu on
 * macOS (the dock icon stays while the app runs; clicking it reopens the window through
 * `activate`). The menu is src/main/electron/tray/menu.ts.
 */
export function installTray(iconPath: string, actions: TrayActions): InstalledTray {
  if (process.platform === 'darwin') {
    return {
      update(model) {
        // The dock has its own Quit.
        const items = buildTrayMenu(model, actions).filter((i) => i.id !== 'tray.quit');
        app.dock?.setMenu(Menu.buildFromTemplate(items as MenuItemConstructorOptions[]));
      },
      dispose() {},
    };
  }
  const tray = new Tray(iconPath);
  tray.on('click', () => actions.openWindow());
  return {
    update(model) {
      if (tray.isDestroyed()) return;
      tray.setToolTip(trayTooltip(model));
      tray.setContextMenu(
        Menu.buildFromTemplate(buildTrayMenu(model, actions) as MenuItemConstructorOptions[]),
      );
    },
    dispose() {
      if (!tray.isDestroyed()) tray.destroy();
    },
  };
}
