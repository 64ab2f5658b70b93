import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { mainWindowOptions } from '../../src/main/electron/window/options';
import { hardenSession, hardenWebContents } from '../../src/main/electron/window/hardening';
import type { SessionLike, WebContentsLike } from '../../src/main/electron/window/hardening';
import {
  defaultWindowSize,
  loadWindowState,
  restoreWindowState,
  saveWindowState,
  windowStateFileName,
} from '../../src/main/electron/window/state';
import { buildMenuTemplate } from '../../src/main/electron/menu/template';
import type { MenuItemSpec } from '../../src/main/electron/menu/template';
import { shortcuts } from '../../src/shared/shortcuts';
import { appId, productName } from '../../src/main/electron/app-identity';

/** The Electron shell's rules, tested as the pure functions the shell hands to Electron. */
describe('main window options', () => {
  const input = {
    preloadPath: '/app/out/preload/index.cjs',
    bounds: { width: 1200, height: 800 },
    dark: false,
  };

  it('builds a sandboxed, isolated renderer with no Node and no risky features', () => {
    const o = mainWindowOptions({ ...input, devTools: false });
    expect(o.webPreferences).toMatchObject({
      preload: input.preloadPath,
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      devTools: false,
    });
    expect(o.show).toBe(false);
  });

  it('has devtools only when asked (development), and the theme background on first paint', () => {
    expect(mainWindowOptions({ ...input, devTools: true }).webPreferences.devTools).toBe(true);
    expect(mainWindowOptions({ ...input, devTools: false, dark: true }).backgroundColor).toBe('#14171c');
  });
});

function fakeSession() {
  const handlers: Record<string, unknown> = {};
  const session: SessionLike = {
    setPermissionRequestHandler: (h) => (handlers['request'] = h),
    setPermissionCheckHandler: (h) => (handlers['check'] = h),
    setDevicePermissionHandler: (h) => (handlers['device'] = h),
    setDisplayMediaRequestHandler: (h) => (handlers['display'] = h),
    on: (e, l) => (handlers[e] = l),
  };
  return { session, handlers };
}

function fakeContents() {
  const listeners: Record<string, (...args: unknown[]) => void> = {};
  let openHandler: ((d: { url: string }) => { action: 'deny' }) | null = null;
  const contents = {
    on: (e: string, l: (...args: unknown[]) => void) => (listeners[e] = l),
    setWindowOpenHandler: (h: (d: { url: string }) => { action: 'deny' }) => (openHandler = h),
  } as unknown as WebContentsLike;
  return { contents, listeners, open: (url: string) => openHandler?.({ url }) };
}

describe('window hardening', () => {
  it('denies every permission request and check, and cancels device pickers', () => {
    const { session, handlers } = fakeSession();
    const blocked: string[] = [];
    hardenSession(session, { onBlocked: (what, p) => blocked.push(`${what}:${p}`) });
    const answers: boolean[] = [];
    (handlers['request'] as (w: unknown, p: string, cb: (g: boolean) => void) => void)(null, 'media', (g) =>
      answers.push(g),
    );
    expect(answers).toEqual([false]);
    expect(blocked).toEqual(['permission:media']);
    expect((handlers['check'] as (w: unknown, p: string) => boolean)(null, 'geolocation')).toBe(false);
    expect((handlers['device'] as (d: unknown) => boolean)({})).toBe(false);
    const prevent = vi.fn();
    const pick = vi.fn();
    (handlers['select-usb-device'] as (e: unknown, d: unknown, cb: (id: string) => void) => void)(
      { preventDefault: prevent },
      {},
      pick,
    );
    expect(prevent).toHaveBeenCalled();
    expect(pick).toHaveBeenCalledWith('');
  });

  it('keeps navigation inside the app, refuses webviews and new windows, and opens only allow-listed links', () => {
    const { contents, listeners, open } = fakeContents();
    const opened: string[] = [];
    hardenWebContents(contents, {
      allowedOrigins: () => ['app://treasury-desk'],
      openExternal: (u) => opened.push(u),
    });
    const nav = (event: string, url: string) => {
      const e = { preventDefault: vi.fn() };
      listeners[event]?.(e, url);
      return e.preventDefault.mock.calls.length > 0;
    };
    expect(nav('will-navigate', 'https://evil.example/')).toBe(true);
    expect(nav('will-redirect', 'file:///etc/passwd')).toBe(true);
    expect(nav('will-frame-navigate', 'https://evil.example/')).toBe(true);
    expect(nav('will-navigate', 'app://treasury-desk/index.html#/rfis')).toBe(false);
    const webview = { preventDefault: vi.fn() };
    listeners['will-attach-webview']?.(webview);
    expect(webview.preventDefault).toHaveBeenCalled();
    expect(open('https://www.swift.com/standards')).toEqual({ action: 'deny' });
    expect(open('https://evil.example/')).toEqual({ action: 'deny' });
    expect(open('http://www.swift.com/')).toEqual({ action: 'deny' });
    expect(opened).toEqual(['https://www.swift.com/standards']);
  });
});

describe('window state', () => {
  const primary = { x: 0, y: 0, width: 1920, height: 1040 };
  const second = { x: 1920, y: 0, width: 1280, height: 1000 };

  it('keeps saved bounds on a connected display and fits them inside it', () => {
    const r = restoreWindowState({ bounds: { x: 2000, y: 50, width: 1600, height: 900 }, maximized: true }, [
      primary,
      second,
    ]);
    expect(r.maximized).toBe(true);
    expect(r.bounds).toEqual({ x: 1920, y: 50, width: 1280, height: 900 });
  });

  it('falls back to the primary display when the saved display is gone', () => {
    const r = restoreWindowState(
      { bounds: { x: 5000, y: 3000, width: 1200, height: 800 }, maximized: false },
      [primary],
    );
    expect(r.bounds).toEqual({ width: 1200, height: 800 });
  });

  it('uses the default size without a saved state, and survives a round trip and a corrupt file', async () => {
    expect(restoreWindowState(null, [primary]).bounds).toEqual(defaultWindowSize);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'td-winstate-'));
    try {
      const state = { bounds: { x: 10, y: 20, width: 1000, height: 700 }, maximized: false };
      await saveWindowState(dir, state);
      expect(await loadWindowState(dir)).toEqual(state);
      await writeFile(path.join(dir, windowStateFileName), '{"version":1,"bounds":');
      expect(await loadWindowState(dir)).toBeNull();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('application menu', () => {
  const flatten = (items: MenuItemSpec[]): MenuItemSpec[] =>
    items.flatMap((i) => [i, ...(i.submenu ? flatten(i.submenu) : [])]);
  const actions = { showShortcuts: vi.fn(), openLogsFolder: vi.fn(), exportDiagnostics: vi.fn() };

  it('has File, Edit, View, Window and Help, with the shortcuts list behind its accelerators', () => {
    const menu = buildMenuTemplate({ isMac: false, isPackaged: true, productName, actions });
    expect(menu.map((m) => m.label ?? m.role)).toEqual(
      expect.arrayContaining(['File', 'Edit', 'View', 'Help']),
    );
    const items = flatten(menu);
    // Every accelerator the menu shows comes from the shortcut list the help overlay reads.
    const withKeys = items.filter((i) => i.accelerator);
    expect(withKeys.length).toBeGreaterThan(3);
    for (const item of withKeys)
      expect(
        shortcuts.some((s) => s.id === item.id),
        String(item.id),
      ).toBe(true);
    const help = items.filter((i) => typeof i.click === 'function');
    help.forEach((i) => i.click?.());
    expect(actions.showShortcuts).toHaveBeenCalled();
    expect(actions.openLogsFolder).toHaveBeenCalled();
  });

  it('offers no reload or developer tools in packaged builds', () => {
    const packaged = flatten(buildMenuTemplate({ isMac: true, isPackaged: true, productName, actions }));
    expect(
      packaged.some((i) => i.role === 'toggleDevTools' || i.role === 'reload' || i.role === 'forceReload'),
    ).toBe(false);
    const dev = flatten(buildMenuTemplate({ isMac: true, isPackaged: false, productName, actions }));
    expect(dev.some((i) => i.role === 'toggleDevTools')).toBe(true);
  });
});

describe('app identity', () => {
  it('is a real reverse-DNS app id, not Electron’s default, and matches package.json', () => {
    expect(appId).toMatch(/^[a-z]+(\.[a-z0-9-]+){2,}$/);
    expect(appId).not.toContain('electron');
    const pkg = JSON.parse(
      readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8'),
    ) as object;
    expect(pkg).toMatchObject({ name: 'treasury-desk', productName });
  });
});
