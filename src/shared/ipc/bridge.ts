import type { ChannelArgs, ChannelName, ChannelResult, EventName, EventPayload } from './contract';
import { isChannelName, isEventName } from './contract';
import type { Envelope } from './errors';

/** Channel names of the Electron transport; the contract's channel travels as data. */
export const electronInvokeChannel = 'desk:invoke';
export const electronEventChannel = 'desk:event';

/** A push message as it travels: the event's name and its payload. */
export interface PushMessage {
  event: string;
  payload: unknown;
}

/**
 * What a transport must provide: Electron's ipcRenderer in the preload, Playwright bindings in the
 * browser harness. Nothing else of the transport reaches the page.
 */
export interface DeskTransport {
  invoke(channel: string, args: unknown): Promise<unknown>;
  listen(listener: (message: PushMessage) => void): () => void;
}

/** `window.desk`: the only door from the renderer to main. */
export interface DeskApi {
  invoke<C extends ChannelName>(channel: C, args: ChannelArgs<C>): Promise<Envelope<ChannelResult<C>>>;
  subscribe<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
}

function isEnvelope(value: unknown): value is Envelope<unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { ok?: unknown; error?: unknown };
  if (v.ok === true) return 'value' in v;
  return v.ok === false && typeof v.error === 'object' && v.error !== null;
}

/**
 * Builds `window.desk` over a transport. Unknown channel and event names are refused here as well
 * as in main, and whatever comes back is checked to be an envelope, so a broken transport shows as
 * an error rather than as undefined in the UI.
 */
export function createDeskBridge(transport: DeskTransport): DeskApi {
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  let detach: (() => void) | null = null;

  const ensureAttached = (): void => {
    if (detach) return;
    detach = transport.listen((message) => {
      const set = listeners.get(message.event);
      if (!set) return;
      for (const fn of [...set]) {
        try {
          fn(message.payload);
        } catch (err) {
          // A failing listener must not stop the others.
          console.error('desk listener failed', err);
        }
      }
    });
  };

  return Object.freeze({
    async invoke(channelName, args) {
      if (!isChannelName(channelName)) {
        return {
          ok: false,
          error: { kind: 'unknown_channel', message: `No such channel: ${String(channelName)}` },
        };
      }
      try {
        const answer = await transport.invoke(channelName, args);
        if (isEnvelope(answer)) return answer as never;
        return { ok: false, error: { kind: 'internal', message: 'Malformed answer from the app core.' } };
      } catch {
        return { ok: false, error: { kind: 'internal', message: 'The app core did not answer.' } };
      }
    },
    subscribe(eventName, listener) {
      if (!isEventName(eventName)) throw new TypeError(`No such event: ${String(eventName)}`);
      if (typeof listener !== 'function') throw new TypeError('listener must be a function');
      let set = listeners.get(eventName);
      if (!set) listeners.set(eventName, (set = new Set()));
      const fn = listener as (payload: unknown) => void;
      set.add(fn);
      ensureAttached();
      return () => {
        set.delete(fn);
        if ([...listeners.values()].every((s) => s.size === 0) && detach) {
          detach();
          detach = null;
        }
      };
    },
  } satisfies DeskApi);
}
