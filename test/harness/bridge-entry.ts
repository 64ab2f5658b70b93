/**
 * The browser-harness transport: `window.desk` built by the same createDeskBridge as the preload,
 * over Playwright bindings instead of Electron IPC. Bundled to an init script by the harness.
 */
import { createDeskBridge } from '../../src/shared/ipc/bridge';
import type { PushMessage } from '../../src/shared/ipc/bridge';

type BindingWindow = Window & {
  __deskInvoke?: (channel: string, args: unknown) => Promise<unknown>;
};

// Like the preload, window.desk exists only in the top-level document.
if (window.top === window) {
  const w = window as BindingWindow;
  const listeners = new Set<(m: PushMessage) => void>();
  const desk = createDeskBridge({
    invoke(channel, args) {
      const binding = w.__deskInvoke;
      if (!binding) return Promise.reject(new Error('harness binding missing'));
      return binding(channel, args);
    },
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  });
  Object.defineProperty(window, 'desk', { value: desk, enumerable: true });
  Object.defineProperty(window, '__deskPush', {
    value: (message: PushMessage) => {
      for (const l of [...listeners]) l(message);
    },
  });
}
