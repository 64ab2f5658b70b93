/**
 * The preload: exposes `window.desk`, built from the contract, and nothing else. No Electron
 * object, event or ipcRenderer function reaches the page: listeners receive only the payload.
 */
import { contextBridge, ipcRenderer } from 'electron';
import type { IpcRendererEvent } from 'electron';
import { createDeskBridge, electronEventChannel, electronInvokeChannel } from '../shared/ipc/bridge';
import type { PushMessage } from '../shared/ipc/bridge';

const desk = createDeskBridge({
  invoke: (channel, args) => ipcRenderer.invoke(electronInvokeChannel, channel, args),
  listen(listener) {
    const handler = (_event: IpcRendererEvent, message: PushMessage): void => listener(message);
    ipcRenderer.on(electronEventChannel, handler);
    return () => {
      ipcRenderer.removeListener(electronEventChannel, handler);
    };
  },
});

contextBridge.exposeInMainWorld('desk', desk);
