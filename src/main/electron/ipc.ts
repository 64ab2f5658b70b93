import { ipcMain } from 'electron';
import type { WebContents } from 'electron';
import type { Dispatch } from '../ipc/dispatcher';
import type { EventHub } from '../events';
import { electronEventChannel, electronInvokeChannel } from '../../shared/ipc/bridge';

/**
 * Registers the contract on Electron IPC. The sender's frame is passed to the dispatcher, which
 * refuses anything but the app's own top-level frame.
 */
export function registerIpc(dispatch: Dispatch): void {
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
