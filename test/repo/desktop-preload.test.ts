import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { ContextBridge, IpcRenderer, IpcRendererEvent } from 'electron';
import { channelNames, eventNames } from '../../src/shared/ipc/contract';
import { electronEventChannel, electronInvokeChannel } from '../../src/shared/ipc/bridge';
import { builtPreload, requireBuild } from '../support/electron-double/boot';

/**
 * The built preload (out/preload/index.cjs) in a vm context, as Electron's sandboxed preload runs
 * it (wrapped in a function, see below): `require('electron')` answers doubles of contextBridge and ipcRenderer, and nothing else can
 * be required. What it hands to the page is what `exposeInMainWorld` receives.
 */

requireBuild();

type Listener = (event: IpcRendererEvent, ...args: unknown[]) => void;

function loadPreload() {
  const exposed: Array<{ key: string; api: unknown }> = [];
  const invoked: unknown[][] = [];
  const listeners = new Map<string, Set<Listener>>();
  const required: string[] = [];
  const ipcRenderer: Pick<IpcRenderer, 'invoke' | 'on' | 'removeListener'> = {
    invoke: async (channel: string, ...args: unknown[]): Promise<unknown> => {
      invoked.push([channel, ...args]);
      return { ok: true, value: { echoed: args[0] } };
    },
    on(channel: string, listener: Listener) {
      if (!listeners.has(channel)) listeners.set(channel, new Set());
      listeners.get(channel)!.add(listener);
      return this as IpcRenderer;
    },
    removeListener(channel: string, listener: Listener) {
      listeners.get(channel)?.delete(listener);
      return this as IpcRenderer;
    },
  };
  const contextBridge = {
    exposeInMainWorld: (apiKey: string, api: unknown): void => {
      exposed.push({ key: apiKey, api });
    },
  } satisfies Pick<ContextBridge, 'exposeInMainWorld'>;
  const electron = { contextBridge, ipcRenderer };
  const sandboxRequire = (id: string): unknown => {
    required.push(id);
    if (id === 'electron') return electron;
    throw new Error(`module not found: ${id}`);
  };
  const context = vm.createContext({ console });
  const globalsBefore = Object.keys(context).sort();
  // Electron wraps a sandboxed preload in a function of these parameters; its process and Buffer
  // are reduced versions, left out here so that a preload reaching for them fails.
  const wrapped = vm.compileFunction(
    readFileSync(builtPreload, 'utf8'),
    ['require', 'process', 'Buffer', 'global', 'setImmediate', 'clearImmediate', 'exports', 'module'],
    { parsingContext: context, filename: builtPreload },
  );
  const module = { exports: {} };
  wrapped(
    sandboxRequire,
    undefined,
    undefined,
    vm.runInContext('globalThis', context),
    undefined,
    undefined,
    module.exports,
    module,
  );
  const emit = (message: unknown) => {
    const event = { sender: ipcRenderer, senderId: 0, ports: [] } as unknown as IpcRendererEvent;
    for (const l of listeners.get(electronEventChannel) ?? []) l(event, message);
  };
  return {
    exposed,
    invoked,
    listeners,
    required,
    emit,
    ipcRenderer,
    contextBridge,
    globalsAdded: Object.keys(context)
      .sort()
      .filter((k) => !globalsBefore.includes(k)),
  };
}

/** Every object reachable from `value` through own properties (not through Function.prototype). */
function reachable(value: unknown, seen = new Set<unknown>()): Set<unknown> {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null || seen.has(value))
    return seen;
  seen.add(value);
  for (const key of Reflect.ownKeys(value as object)) {
    const d = Object.getOwnPropertyDescriptor(value, key);
    if (d && 'value' in d) reachable(d.value, seen);
  }
  const proto = Object.getPrototypeOf(value);
  if (proto && proto !== Object.prototype && proto !== Function.prototype) reachable(proto, seen);
  return seen;
}

describe('the built preload', () => {
  it('requires only electron and exposes exactly window.desk, invoke and subscribe', () => {
    const p = loadPreload();
    expect(p.required).toEqual(['electron']);
    expect(p.exposed.map((e) => e.key)).toEqual(['desk']);
    // The preload's own world keeps only zod's bookkeeping; the page sees none of it (isolated world).
    expect(p.globalsAdded).toEqual(['__zod_globalConfig', '__zod_globalRegistry']);
    const desk = p.exposed[0]!.api as Record<string, unknown>;
    expect(Object.keys(desk).sort()).toEqual(['invoke', 'subscribe']);
    expect(Object.isFrozen(desk)).toBe(true);
    expect(typeof desk['invoke']).toBe('function');
    expect(typeof desk['subscribe']).toBe('function');
  });

  it('reaches no Electron or Node object from what it exposes', () => {
    const p = loadPreload();
    const seen = reachable(p.exposed[0]!.api);
    for (const forbidden of [
      p.ipcRenderer,
      p.contextBridge,
      p.ipcRenderer.invoke,
      p.ipcRenderer.on,
      process,
    ]) {
      expect(seen.has(forbidden)).toBe(false);
    }
  });

  it('sends each contract channel through the one invoke channel and refuses others locally', async () => {
    const p = loadPreload();
    const desk = p.exposed[0]!.api as {
      invoke(channel: string, args?: unknown): Promise<unknown>;
    };
    for (const channel of channelNames) {
      expect(await desk.invoke(channel, { probe: channel })).toEqual({
        ok: true,
        value: { echoed: channel },
      });
    }
    expect(p.invoked).toEqual(channelNames.map((c) => [electronInvokeChannel, c, { probe: c }]));
    expect(await desk.invoke('ipcRenderer.send', {})).toMatchObject({
      ok: false,
      error: { kind: 'unknown_channel' },
    });
    expect(p.invoked).toHaveLength(channelNames.length);
  });

  it('hands listeners the payload only, never the IPC event, and detaches on unsubscribe', () => {
    const p = loadPreload();
    const desk = p.exposed[0]!.api as {
      subscribe(event: string, listener: (...args: unknown[]) => void): () => void;
    };
    const received: unknown[][] = [];
    const event = eventNames[0]!;
    const off = desk.subscribe(event, (...args) => received.push(args));
    expect(p.listeners.get(electronEventChannel)?.size).toBe(1);
    p.emit({ event, payload: { n: 1 } });
    p.emit({ event: 'not.subscribed', payload: { n: 2 } });
    expect(received).toEqual([[{ n: 1 }]]);
    expect(() => desk.subscribe('no.such.event', () => {})).toThrow(/No such event/);
    off();
    expect(p.listeners.get(electronEventChannel)?.size ?? 0).toBe(0);
  });
});
