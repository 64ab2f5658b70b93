import type { DeskApi } from '../../shared/ipc/bridge';

declare global {
  interface Window {
    /** The only door to main, exposed by the preload (or the browser harness). */
    readonly desk: DeskApi;
  }
}

export {};
