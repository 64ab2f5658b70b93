import type { BrowserWindow } from 'electron';
import { app, dialog, net, Notification, powerMonitor, shell } from 'electron';
import type { Platform, SystemEvent } from '../infra/platform';
import { isLoopbackHost } from '../infra/origins';

/** The desktop features the services use, implemented with Electron. */
export function createElectronPlatform(
  getWindow: () => BrowserWindow | null,
  extra: Pick<Platform, 'setStartAtLogin'> = {},
): Platform {
  return {
    ...extra,
    notify({ title, body, onClick }) {
      if (!Notification.isSupported()) return;
      const n = new Notification({ title, body, silent: false });
      n.on('click', () => {
        const win = getWindow();
        if (win) {
          if (win.isMinimized()) win.restore();
          win.focus();
        }
        onClick?.();
      });
      n.show();
    },
    setBadgeCount(count) {
      app.setBadgeCount(Math.max(0, Math.floor(count)));
    },
    async showOpenFileDialog({ title, extensions, multiple }) {
      const win = getWindow();
      const opts = {
        title,
        properties: multiple ? (['openFile', 'multiSelections'] as const) : (['openFile'] as const),
        filters: [{ name: 'Documents', extensions }],
      };
      const result = win
        ? await dialog.showOpenDialog(win, { ...opts, properties: [...opts.properties] })
        : await dialog.showOpenDialog({ ...opts, properties: [...opts.properties] });
      return result.canceled ? [] : result.filePaths;
    },
    async showSaveFileDialog({ title, defaultName, extensions }) {
      const win = getWindow();
      const opts = {
        title,
        defaultPath: defaultName,
        filters: [{ name: 'Export', extensions }],
        // Linux asks before replacing only when told to (Windows and macOS always ask).
        properties: ['showOverwriteConfirmation' as const],
      };
      const result = win ? await dialog.showSaveDialog(win, opts) : await dialog.showSaveDialog(opts);
      return result.canceled || !result.filePath ? null : result.filePath;
    },
    showItemInFolder(file) {
      shell.showItemInFolder(file);
    },
    async openExternal(url) {
      // Only web addresses main chose (the team's sign-in page): https, or http on this machine
      // (a development provider), never credentials in the address, a file or a custom scheme.
      const u = new URL(url);
      const web = u.protocol === 'https:' || (u.protocol === 'http:' && isLoopbackHost(u.hostname));
      if (!web || u.username !== '' || u.password !== '') throw new Error('not a web address main may open');
      await shell.openExternal(u.href);
    },
    async confirmDestination({ title, message, detail, approveLabel }) {
      const win = getWindow();
      const opts = {
        type: 'warning' as const,
        title,
        message,
        detail,
        buttons: ['Cancel', approveLabel],
        defaultId: 0,
        cancelId: 0,
        noLink: true,
      };
      const result = win ? await dialog.showMessageBox(win, opts) : await dialog.showMessageBox(opts);
      return result.response === 1;
    },
    onSystemEvent(listener) {
      const events: SystemEvent[] = ['suspend', 'resume', 'lock-screen', 'unlock-screen'];
      const handlers = events.map((e) => {
        const h = (): void => listener(e);
        powerMonitor.on(e as 'suspend', h);
        return () => powerMonitor.off(e as 'suspend', h);
      });
      // Electron's main process has no connectivity event: sample net.isOnline() and report the
      // changes, so the outbox and the RFI watcher resume as soon as the network is back.
      let online = net.isOnline();
      const connectivity = setInterval(() => {
        const now = net.isOnline();
        if (now !== online) {
          online = now;
          listener(now ? 'online' : 'offline');
        }
      }, 5_000);
      connectivity.unref();
      return () => {
        clearInterval(connectivity);
        handlers.forEach((off) => off());
      };
    },
  };
}
