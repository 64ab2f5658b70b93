import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelNames, eventNames } from '../../src/shared/ipc/contract';
import { electronEventChannel, electronInvokeChannel } from '../../src/shared/ipc/bridge';
import type { Envelope } from '../../src/shared/ipc/errors';
import type { SessionStatus } from '../../src/shared/ipc/channels/session';
import type { ReceiverStatusView } from '../../src/shared/ipc/channels/webhook';
import { appEntryUrl, appOrigin, appScheme, securityHeaders } from '../../src/main/electron/protocol/policy';
import { SANDBOX_SEED_FILE } from '../../src/main/session/sandbox-seed';
import { startSandbox } from '../../src/sandbox';
import {
  bootShell,
  killAllShells,
  requireBuild,
  root,
  waitForState,
  within,
} from '../support/electron-double/boot';
import type { BootedShell } from '../support/electron-double/boot';
import type { DoubleState, ProtocolAnswer, WindowRecord } from '../support/electron-double/protocol';

/**
 * Boots the built Electron shell (out/main/index.js) in Node with `electron` resolved to the
 * recording double in test/support/electron-double/, on the real services and the embedded
 * sandbox, and checks what it does with Electron: single instance, app protocol, IPC, the window's
 * security options, and a clean quit.
 */

requireBuild();

let userData: string;
let shell: BootedShell;
let win: WindowRecord;

function invoke<T>(channel: string, args?: unknown, frame: 'main' | 'sub' = 'main', url?: string) {
  // Fork IPC is JSON: an absent argument stays absent instead of becoming null.
  const rest = args === undefined ? [channel] : [channel, args];
  return shell.call<Envelope<T>>({
    op: 'invoke',
    channel: electronInvokeChannel,
    args: rest,
    frame,
    ...(url ? { url } : {}),
  });
}

async function value<T>(channel: string, args?: unknown): Promise<T> {
  const env = await invoke<T>(channel, args);
  if (!env.ok) throw new Error(`${channel}: ${env.error.kind} ${env.error.message}`);
  return env.value;
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

beforeAll(async () => {
  userData = await mkdtemp(path.join(os.tmpdir(), 'td-boot-'));
  shell = bootShell({ userData });
}, 60_000);

afterAll(async () => {
  killAllShells();
  if (userData) await rm(userData, { recursive: true, force: true });
});

describe('the built Electron shell, booted on the double', () => {
  it('registers the app scheme as privileged before ready and waits for ready', async () => {
    const state = await shell.state();
    expect(state.ready).toBe(false);
    expect(state.log).toContain('app.requestSingleInstanceLock');
    expect(state.privilegedSchemes).toEqual([
      {
        schemes: [appScheme],
        privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true },
        beforeReady: true,
      },
    ]);
    expect(state.protocolHandlers).toEqual([]);
    expect(state.windows).toEqual([]);
  });

  it('on ready: builds the services, serves the renderer and opens one secure window', async () => {
    await shell.call({ op: 'ready' });
    const state = await waitForState(shell, (s) => s.windows.length > 0 && s.windows[0]!.visible, 30_000);
    expect(state.windows).toHaveLength(1);
    win = state.windows[0]!;
    expect(win.loadedUrl).toBe(appEntryUrl);
    expect(win.options.show).toBe(false);
    expect(win.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
    const preload = win.options.webPreferences?.preload ?? '';
    expect(path.isAbsolute(preload)).toBe(true);
    expect(preload).toBe(path.join(root, 'out/preload/index.cjs'));
    expect((await stat(preload)).isFile()).toBe(true);
    expect(state.protocolHandlers).toEqual([appScheme]);
    expect(state.menuInstalled).toBe(true);
  });

  it('registers exactly the contract transport with ipcMain, and every contract channel behind it', async () => {
    const state = await shell.state();
    expect(state.ipcHandle).toEqual([electronInvokeChannel]);
    expect(state.ipcOn).toEqual([]);
    // Each channel of the contract is known to main: a malformed argument is refused by that
    // channel's own schema, not as an unknown channel.
    for (const channel of channelNames) {
      const env = await invoke(channel, { notAnArgument: true });
      expect(env.ok, channel).toBe(false);
      if (!env.ok) expect(env.error.kind, channel).toBe('invalid_argument');
    }
    const unknown = await invoke('nope.nothing');
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.error.kind).toBe('unknown_channel');
  });

  it("answers the window's main frame from the real services and the embedded sandbox", async () => {
    const status = await value<SessionStatus>('session.status');
    expect(status.connection).toBe('connected');
    expect(status.environment.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The sandbox's control routes need its per-run secret, which only the app holds; its ids
    // come from the seed kept in the data folder, so a second sandbox on that seed says which
    // legal entity the first admin token belongs to.
    const seed = (await readFile(path.join(userData, SANDBOX_SEED_FILE), 'utf8')).trim();
    const twin = await startSandbox({ seed, port: 0 });
    try {
      expect(status.credential?.legalEntityId).toBe(twin.fixtures.legal_entities[0]!.id);
    } finally {
      await twin.close();
    }
    expect(status.credential?.role).toBe('admin');
  });

  it('refuses a call from a subframe or from another origin', async () => {
    const sub = await invoke('session.status', undefined, 'sub');
    expect(sub.ok).toBe(false);
    if (!sub.ok) expect(sub.error.kind).toBe('forbidden_sender');
    const foreign = await invoke('session.status', undefined, 'main', 'https://evil.example/');
    expect(foreign.ok).toBe(false);
    if (!foreign.ok) expect(foreign.error.kind).toBe('forbidden_sender');
  });

  it('serves out/renderer over the app scheme with the CSP and security headers', async () => {
    const get = (url: string) => shell.call<ProtocolAnswer>({ op: 'protocol', scheme: appScheme, url });
    const index = await get(appEntryUrl);
    expect(index.status).toBe(200);
    expect(index.body).toBe(
      (await readFile(path.join(root, 'out/renderer/index.html'), 'utf8')).slice(0, 4096),
    );
    for (const [name, v] of Object.entries(securityHeaders))
      expect(index.headers[name.toLowerCase()]).toBe(v);
    expect(index.headers['content-type']).toMatch(/^text\/html/);

    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(index.body)?.[1];
    expect(script).toBeTruthy();
    const asset = await get(`${appOrigin}/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.length).toBe((await readFile(path.join(root, 'out/renderer', script!), 'utf8')).length);

    for (const url of [
      `${appOrigin}/%2e%2e/%2e%2e/package.json`,
      `${appOrigin}/..%2f..%2fpackage.json`,
      `${appScheme}://evil.example/index.html`,
    ]) {
      const answer = await get(url);
      expect(answer.status, url).toBeGreaterThanOrEqual(400);
      expect(answer.body, url).not.toContain('"name": "treasury-desk"');
      expect(answer.headers['content-security-policy'], url).toBe(securityHeaders['Content-Security-Policy']);
    }
    expect((await get(`${appOrigin}/no-such-file.js`)).status).toBe(404);
  });

  it('denies navigation away, new windows and permission requests', async () => {
    const nav = (event: 'will-navigate' | 'will-redirect' | 'will-frame-navigate', url: string) =>
      shell.call<{ prevented: boolean }>({ op: 'navigate', event, url });
    expect(await nav('will-navigate', 'https://evil.example/')).toEqual({ prevented: true });
    expect(await nav('will-redirect', 'https://evil.example/')).toEqual({ prevented: true });
    expect(await nav('will-frame-navigate', 'file:///etc/passwd')).toEqual({ prevented: true });
    expect(await nav('will-navigate', `${appOrigin}/index.html#/returns`)).toEqual({ prevented: false });

    expect(await shell.call({ op: 'window-open', url: 'https://evil.example/' })).toEqual({ action: 'deny' });
    expect(await shell.call({ op: 'window-open', url: `${appOrigin}/index.html` })).toEqual({
      action: 'deny',
    });

    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal']) {
      expect(await shell.call({ op: 'permission', permission }), permission).toEqual({
        granted: false,
        checked: false,
      });
    }
    const state = await shell.state();
    expect(state.sessionHandlers).toMatchObject({ devicePermission: true, displayMedia: true });
    expect(state.sessionHandlers.deviceSelect).toEqual([
      'select-hid-device',
      'select-serial-port',
      'select-usb-device',
    ]);
  });

  it("pushes the services' events to the window's webContents", async () => {
    const before = (await shell.state()).windows[0]!.sent.length;
    await value('settings.update', { pollingIntervalSeconds: 45 });
    const state = await waitForState(shell, (s) =>
      s.windows[0]!.sent.slice(before).some(
        (m) => (m.args[0] as { event?: string })?.event === 'settings.changed',
      ),
    );
    const pushed = state.windows[0]!.sent.slice(before);
    for (const m of pushed) {
      expect(m.channel).toBe(electronEventChannel);
      expect(eventNames).toContain((m.args[0] as { event: string }).event);
    }
    const changed = pushed.find((m) => (m.args[0] as { event?: string }).event === 'settings.changed');
    expect(changed?.args[0]).toMatchObject({ payload: { pollingIntervalSeconds: 45 } });
    // The services keep their data in the folder app.getPath('userData') names.
    const settings = JSON.parse(await readFile(path.join(userData, 'settings.json'), 'utf8')) as unknown;
    expect(JSON.stringify(settings)).toContain('"pollingIntervalSeconds":45');
  });

  it('a second launch quits at once; the first restores and focuses its window', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'td-boot-second-'));
    const second = bootShell({ userData: dir, lock: 'denied' });
    try {
      const ended = await within(second.ended, 20_000, 'the second instance did not quit');
      expect(ended.quitCalls).toBe(1);
      expect(ended.windows).toEqual([]);
      expect(ended.protocolHandlers).toEqual([]);
      expect(ended.ipcHandle).not.toContain(electronInvokeChannel);
      expect(await within(second.exited, 10_000, 'the second instance did not exit')).toEqual({
        code: 0,
        signal: null,
      });
    } finally {
      second.kill();
      await rm(dir, { recursive: true, force: true });
    }

    await shell.call({ op: 'minimize' });
    await shell.call({ op: 'second-instance' });
    const first = (await shell.state()).windows[0]!;
    expect(first.restoreCount).toBe(1);
    expect(first.focusCount).toBeGreaterThanOrEqual(1);
    expect(first.minimized).toBe(false);
  });

  it('will-quit disposes the services: the ports close and the process exits by itself', async () => {
    const status = await value<SessionStatus>('session.status');
    const receiver = await value<ReceiverStatusView>('webhook.receiverStatus');
    const ports = [portOf(status.environment.baseUrl), ...(receiver.url ? [portOf(receiver.url)] : [])];
    for (const port of ports) expect(await refused(port), `port ${port} open while running`).toBe(false);

    await shell.call({ op: 'quit' });
    const ended: DoubleState = await within(shell.ended, 20_000, 'app.quit() did not end the app');
    expect(ended.willQuitPrevented).toBe(1);
    expect(ended.exitCode).toBe(0);
    // The double's main loop is over: only a handle the services left open could keep the child.
    const exit = await Promise.race([
      shell.exited,
      new Promise<'alive'>((r) => setTimeout(() => r('alive'), 10_000)),
    ]);
    expect(exit, `still running 10 s after app.exit; its output:\n${shell.output()}`).toEqual({
      code: 0,
      signal: null,
    });
    for (const port of ports) expect(await refused(port), `port ${port} closed after quit`).toBe(true);
  });
});
