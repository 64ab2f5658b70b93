/**
 * electron-updater in the shell. The feed is electron-builder's publish config, written into the
 * package as resources/app-update.yml only when the build was given one (generic provider, https);
 * without that file, or unpackaged, there are no update checks. The URL is checked by
 * `checkFeedUrl` before electron-updater reads the same file. The rules (when to check, waiting
 * for the busy guard, asking) are src/main/desktop/updates.ts.
 */
import { app, dialog } from 'electron';
import type { BrowserWindow } from 'electron';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import yaml from 'js-yaml';
import type { BusyGuard } from '../desktop/busy';
import { checkFeedUrl, createUpdateController } from '../desktop/updates';
import type { UpdateController } from '../desktop/updates';
import type { Logger } from '../infra/log';

export async function startUpdates(options: {
  busy: BusyGuard;
  log: Logger;
  getWindow: () => BrowserWindow | null;
}): Promise<UpdateController | null> {
  const { log } = options;
  if (!app.isPackaged) {
    log.info('updates: not checked (unpackaged run)');
    return null;
  }
  const configPath = path.join(process.resourcesPath, 'app-update.yml');
  let config: { provider?: unknown; url?: unknown };
  try {
    config = (yaml.load(await readFile(configPath, 'utf8')) ?? {}) as typeof config;
  } catch {
    log.info('updates: no feed configured at build time; not checked');
    return null;
  }
  const feed = checkFeedUrl(config.url);
  if (config.provider !== 'generic' || !feed.ok) {
    log.warn('updates: feed refused; not checked', {
      provider: config.provider,
      reason: feed.ok ? 'provider must be generic' : feed.reason,
    });
    return null;
  }
  const { autoUpdater } = await import('electron-updater');
  autoUpdater.logger = {
    info: (m: unknown) => log.info(`updater: ${String(m)}`),
    warn: (m: unknown) => log.warn(`updater: ${String(m)}`),
    error: (m: unknown) => log.warn(`updater: ${String(m)}`),
    debug: (m: string) => log.debug(`updater: ${m}`),
  };
  const controller = createUpdateController({
    updater: autoUpdater,
    busy: options.busy,
    log,
    async askToRestart({ version, notes }) {
      const opts = {
        type: 'info' as const,
        title: 'Update ready',
        message: `Treasury Desk ${version} is downloaded and verified. Restart now to install it?`,
        detail: notes ? `What's new:\n${notes}` : 'No release notes were published.',
        buttons: ['Later', 'Restart now'],
        defaultId: 0,
        cancelId: 0,
        noLink: true,
      };
      const win = options.getWindow();
      const result = win ? await dialog.showMessageBox(win, opts) : await dialog.showMessageBox(opts);
      return result.response === 1;
    },
  });
  controller.start();
  return controller;
}
