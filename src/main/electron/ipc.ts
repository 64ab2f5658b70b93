import { ipcMain } from 'electron';
import type { WebContents } from 'electron';
import type { Dispatch } from '../ipc/dispatcher';
import type { EventHub } from '../infra/events';
import { electronEventChannel, electronInvokeChannel } from '../../shared/ipc/bridge';

/**
 * IPC channels that libraries open on import or first use: electron-log (`ipcMain.on` and
 * `ipcMain.handle`, for renderer logging, which the app does not use) and electron-store
 * (`ipcMain.on`, a synchronous answer with the data folder for renderer-side stores, which the app
 * does not have).
 */
export const libraryIpcChannels = ['__ELECTRON_LOG__', 'electron-store-get-data'] as const;

/**
 * Registers the contract on Electron IPC, and makes it the only way in: the libraries' channels
 * and any other `ipcMain.on` listener are removed. Call it after the services are built (they
 * open the stores). The sender's frame is passed to the dispatcher, which refuses anything but
 * the app's own top-level frame.
 */
export function registerIpc(dispatch: Dispatch): void {
  for (const channel of libraryIpcChannels) ipcMain.removeHandler(channel);
  for (const channel of ipcMain.eventNames()) ipcMain.removeAllListeners(channel as string);
  ipcMain.handle(electronInvokeChannel, (event, channel: unknown, args: unknown) => {
    const frame = event.senderFrame;
    return dispatch(channel, args, {
      url: frame?.url,
      isMainFrame: frame !== null && frame === event.sender.mainFrame,
    });
  });
}

/** Forwards push events to one window's renderer while it lives. */
export function forwardEvents(hub: EventHub, contents: WebContents): void {
  const detach = hub.attach((message) => {
    if (!contents.isDestroyed()) contents.send(electronEventChannel, message);
  });
  contents.once('destroyed', detach);
}
