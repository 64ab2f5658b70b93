import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { electronEventChannel, electronInvokeChannel } from '../../src/shared/ipc/bridge';
import type { Envelope } from '../../src/shared/ipc/errors';
import type { SessionStatus } from '../../src/shared/ipc/channels/session';
import type { SettingsView } from '../../src/shared/ipc/channels/settings';
import type { ReceiverStatusView } from '../../src/shared/ipc/channels/webhook';
import type { RfiCountsView, RfiSummaryView, RfiSyncStateView } from '../../src/shared/ipc/channels/rfis';
import { trayRfiName } from '../../src/main/electron/tray/menu';
import { appEntryUrl } from '../../src/main/electron/protocol/policy';
import { startSandbox } from '../../src/sandbox';
import type { RunningSandbox } from '../../src/sandbox';
import { sandboxStaff } from '../support/sandbox-staff';
import {
  bootShell,
  killAllShells,
  requireBuild,
  waitForState,
  within,
} from '../support/electron-double/boot';
import type { BootedShell } from '../support/electron-double/boot';
import type { DoubleState, MenuItemRecord } from '../support/electron-double/protocol';

/**
 * The desktop citizen, on the built shell booted on the Electron double (see desktop-boot.test.ts):
 * background mode and the tray, links, login items, crash reports and the diagnostics export. The
 * app talks to a sandbox bank this test started (a remote profile added through the app's own
 * channels), so the test can raise RFIs through the sandbox's staff control routes.
 */

requireBuild();

const dirs: string[] = [];
let bank: RunningSandbox;

beforeAll(async () => {
  bank = await startSandbox({ port: 0 });
});

afterAll(async () => {
  killAllShells();
  await bank?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function boot(argv: string[] = []): Promise<BootedShell> {
  const userData = await mkdtemp(path.join(os.tmpdir(), 'td-bg-'));
  dirs.push(userData);
  const shell = bootShell({ userData, argv });
  await shell.call({ op: 'ready' });
  return shell;
}

function caller(shell: BootedShell) {
  return async <T>(channel: string, args?: unknown): Promise<T> => {
    const rest = args === undefined ? [channel] : [channel, args];
    const env = await shell.call<Envelope<T>>({
      op: 'invoke',
      channel: electronInvokeChannel,
      args: rest,
      frame: 'main',
    });
    if (!env.ok) throw new Error(`${channel}: ${env.error.kind} ${env.error.message}`);
    return env.value;
  };
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

const notifications = (s: DoubleState) => s.log.filter((l) => l.startsWith('notification '));
const trayMenu = (s: DoubleState): MenuItemRecord[] => s.trays.filter((t) => !t.destroyed).at(-1)?.menu ?? [];
const labels = (items: MenuItemRecord[]) => items.map((i) => i.label ?? `(${i.type})`);
const linkEvents = (s: DoubleState) =>
  s.windows.flatMap((w) =>
    w.sent
      .filter((m) => m.channel === electronEventChannel)
      .map((m) => m.args[0] as { event: string; payload: unknown })
      .filter((m) => m.event === 'desktop.openLink')
      .map((m) => m.payload),
  );

describe('background mode, tray, links and diagnostics on the built shell', () => {
  let shell: BootedShell;
  let call: ReturnType<typeof caller>;
  const le = () => bank.fixtures.legal_entities[0]!;
  const staff = () => sandboxStaff(bank);
  const raise = async (description: string) =>
    (await staff().createRfi({
      type: 'account',
      related_id: le().accounts[0]!.id,
      description,
      questions: [{ question_type: 'transaction.purpose', question_text: 'What is the purpose?' }],
    })) as { id: string };

  beforeAll(async () => {
    shell = await boot();
    await waitForState(shell, (s) => s.windows.some((w) => w.visible), 30_000);
    call = caller(shell);
    // The analyst adds the bank and approves its address in main's native dialog (button 1).
    await shell.call({ op: 'dialog-answers', messageBox: [1, 1] });
    const added = await call<SettingsView>('settings.addProfile', { name: 'Test bank', baseUrl: bank.url });
    const profile = added.profiles.find((p) => p.name === 'Test bank')!;
    await call('settings.activateProfile', { profileId: profile.id });
    await call('vault.setToken', { profileId: profile.id, token: le().tokens.admin });
    const until = Date.now() + 20_000;
    for (;;) {
      const status = await call<SessionStatus>('session.status');
      if (status.connection === 'connected' && status.environment.baseUrl === bank.url) break;
      if (Date.now() > until) throw new Error(`not connected: ${JSON.stringify(status)}\n${shell.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // The first complete sync is the baseline (no notifications for what is already there).
    await call('rfis.sync');
  }, 60_000);

  afterAll(async () => {
    const s = await shell.state().catch(() => null);
    if (s && s.exitCode === null) await shell.call({ op: 'quit' }).catch(() => {});
  });

  it('registers the link scheme, keeps crash reports local and the login item off by default', async () => {
    const s = await shell.state();
    expect(s.protocolClients).toEqual(['treasury-desk']);
    expect(s.crashReporter).toMatchObject({ uploadToServer: false, submitURL: '' });
    expect(s.log).not.toContain('crashReporter.start after ready');
    expect(s.loginItem).toEqual({ openAtLogin: false, args: ['--hidden'] });
    expect(await call('desktop.settings')).toEqual({ keepRunningInBackground: true, startAtLogin: false });
    // A strict schema: unknown keys and wrong types are refused.
    const bad = await shell.call<Envelope<unknown>>({
      op: 'invoke',
      channel: electronInvokeChannel,
      args: ['desktop.updateSettings', { startAtLogin: 'yes', path: '/tmp/x' }],
      frame: 'main',
    });
    expect(bad).toMatchObject({ ok: false, error: { kind: 'invalid_argument' } });
    expect(await call('desktop.updateSettings', { startAtLogin: true })).toEqual({
      keepRunningInBackground: true,
      startAtLogin: true,
    });
    expect((await shell.state()).loginItem).toEqual({ openAtLogin: true, args: ['--hidden'] });
    await call('desktop.updateSettings', { startAtLogin: false });
  });

  it('closing the last window keeps the services running, and a new RFI raises exactly one notification', async () => {
    const status = await call<SessionStatus>('session.status');
    const receiver = await call<ReceiverStatusView>('webhook.receiverStatus');
    const before = notifications(await shell.state()).length;

    await shell.call({ op: 'close-windows' });
    let s = await shell.state();
    expect(s.windows.every((w) => w.destroyed)).toBe(true);
    expect(s.quitCalls).toBe(0);
    expect(s.exitCode).toBeNull();
    expect(s.trays.filter((t) => !t.destroyed)).toHaveLength(1);
    if (receiver.url) expect(await refused(Number(new URL(receiver.url).port))).toBe(false);
    expect(status.connection).toBe('connected');

    await raise('Source of the incoming wire from Acme Holdings');
    // Polling or the tray's Sync now: the same change is noticed once.
    await shell.call({ op: 'tray-click', item: 'tray.sync' });
    s = await waitForState(shell, (x) => notifications(x).length > before);
    await shell.call({ op: 'tray-click', item: 'tray.sync' });
    await call('rfis.sync');
    s = await shell.state();
    // The embedded sandbox's profile is watched too, so the title names the entity.
    expect(notifications(s).slice(before)).toEqual(['notification New RFI — Alder Trade GmbH']);

    // The tray tells the count awaiting action and the most urgent deadlines by name (type and
    // description, never the id), as the queue lists them.
    const counts = await call<{ counts: RfiCountsView; sync: RfiSyncStateView }>('rfis.counts');
    const list = await call<{ items: RfiSummaryView[] }>('rfis.list', {
      status: ['action_required'],
      sort: 'deadline',
    });
    const urgent = list.items.filter((r) => r.deadline).slice(0, 3);
    expect(urgent.length).toBeGreaterThan(0);
    const n = counts.counts.awaitingAction;
    const awaiting = n === 1 ? '1 RFI awaiting action' : `${n} RFIs awaiting action`;
    s = await waitForState(shell, (x) => labels(trayMenu(x))[0] === awaiting);
    const menu = labels(trayMenu(s));
    expect(menu.slice(1, 1 + urgent.length).map((l) => l.split(' — ')[0])).toEqual(
      urgent.map((r) => trayRfiName(r)),
    );
    for (const r of urgent) expect(menu.join('\n')).not.toContain(r.id);
    expect(menu.slice(-5)).toEqual([
      'Open Treasury Desk',
      'Sync now',
      'Pause notifications for an hour',
      '(separator)',
      'Quit',
    ]);
    expect(s.trays.at(-1)!.tooltip).toMatch(/RFIs? awaits? action/);
  });

  it('a notification clicked while no window is open opens one at that RFI', async () => {
    const s0 = await shell.state();
    expect(s0.windows.every((w) => w.destroyed)).toBe(true);
    const before = notifications(s0).length;
    const rfi = await raise('Clicked from the notification');
    await call('rfis.sync');
    await waitForState(shell, (x) => notifications(x).length > before);
    await shell.call({ op: 'notification-click' });
    const s = await waitForState(shell, (x) => x.windows.some((w) => !w.destroyed && w.visible));
    expect(s.windows.filter((w) => !w.destroyed)).toHaveLength(1);
    expect(s.windows.at(-1)!.loadedUrl).toBe(`${appEntryUrl}#/rfis/${rfi.id}`);
    await shell.call({ op: 'close-windows' });
  });

  it('pausing notifications for an hour really suppresses them; resuming turns them back on', async () => {
    const before = notifications(await shell.state()).length;
    await shell.call({ op: 'tray-click', item: 'tray.pause' });
    let s = await waitForState(shell, (x) =>
      labels(trayMenu(x)).some((l) => l.startsWith('Resume notifications')),
    );
    expect(s.trays.at(-1)!.tooltip).toContain('notifications paused');
    await raise('Paused: nobody is told about this one');
    await shell.call({ op: 'tray-click', item: 'tray.sync' });
    await call('rfis.sync');
    const counts = await call<{ counts: RfiCountsView }>('rfis.counts');
    expect(counts.counts.total).toBeGreaterThan(0);
    expect(notifications(await shell.state()).length).toBe(before);

    await shell.call({ op: 'tray-click', item: 'tray.resume' });
    await raise('Resumed: this one is told');
    await call('rfis.sync');
    s = await waitForState(shell, (x) => notifications(x).length > before);
    // The embedded sandbox's profile is watched too, so the title names the entity.
    expect(notifications(s).slice(before)).toEqual(['notification New RFI — Alder Trade GmbH']);
  });

  it('Open window opens one; a link from a second instance navigates it, a hostile one does not', async () => {
    // Several asks at once (tray, a plain second launch) still make one window.
    await Promise.all([
      shell.call({ op: 'tray-click', item: 'tray.open' }),
      shell.call({ op: 'second-instance' }),
      shell.call({ op: 'tray-click', item: 'tray.open' }),
    ]);
    let s = await waitForState(shell, (x) => x.windows.some((w) => !w.destroyed && w.visible));
    await new Promise((r) => setTimeout(r, 300));
    s = await shell.state();
    expect(s.windows.filter((w) => !w.destroyed)).toHaveLength(1);
    expect(s.windows.at(-1)!.loadedUrl).toBe(appEntryUrl);

    const rfi = await raise('Linked from an email');
    await shell.call({
      op: 'second-instance',
      argv: ['/opt/Treasury Desk/treasury-desk', '--no-sandbox', `treasury-desk://rfis/${rfi.id}`],
    });
    s = await waitForState(shell, (x) => linkEvents(x).length > 0);
    expect(linkEvents(s)).toEqual([{ screen: 'rfi', id: rfi.id }]);

    for (const argv of [
      ['app', 'treasury-desk://rfis/../settings'],
      ['app', 'treasury-desk://rfis/%2e%2e'],
      ['app', 'treasury-desk://settings/x'],
      ['app', `treasury-desk://rfis/${'a'.repeat(5000)}`],
    ]) {
      await shell.call({ op: 'second-instance', argv });
    }
    // macOS: the same through open-url.
    expect(await shell.call({ op: 'open-url', url: 'treasury-desk://exchange/ord_123' })).toEqual({
      prevented: true,
    });
    await shell.call({ op: 'open-url', url: 'https://evil.example/treasury-desk://rfis/x' });
    s = await waitForState(shell, (x) => linkEvents(x).length > 1);
    expect(linkEvents(s)).toEqual([
      { screen: 'rfi', id: rfi.id },
      { screen: 'exchange', id: 'ord_123' },
    ]);
    expect(s.windows.filter((w) => !w.destroyed)).toHaveLength(1);
  });

  it('Help → Export diagnostics writes a ZIP only where the save dialog answered, without the token', async () => {
    const target = path.join(dirs[0]!, 'diag-export.zip');
    await shell.call({ op: 'dialog-answers', savePaths: [target] });
    await shell.call({ op: 'menu-click', item: 'help.diagnostics' });
    const until = Date.now() + 10_000;
    while (!(await stat(target).catch(() => null))) {
      if (Date.now() > until) throw new Error(`no export; output:\n${shell.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 200));
    const s = await shell.state();
    expect(s.saveDialogs.at(-1)).toMatchObject({ title: 'Export diagnostics' });
    const entries = unzipSync(new Uint8Array(await readFile(target)));
    expect(Object.keys(entries)).toContain('versions.json');
    expect(Object.keys(entries).some((e) => /^logs\/main(\.\d+)?\.log$/.test(e))).toBe(true);
    const text = Object.values(entries)
      .map((b) => strFromU8(b))
      .join('\n');
    expect(text).not.toContain(le().tokens.admin);
    expect(text).not.toContain(bank.controlSecret);
    expect(JSON.parse(strFromU8(entries['versions.json']!))).toMatchObject({
      app: { name: 'Treasury Desk', version: '0.1.0' },
    });
  });

  it('Quit from the tray disposes the services: ports refuse connections and the process exits', async () => {
    const receiver = await call<ReceiverStatusView>('webhook.receiverStatus');
    const ports = receiver.url ? [Number(new URL(receiver.url).port)] : [];
    // Leave no token behind in the keychain the run used.
    const settings = await call<SettingsView>('settings.get');
    await call('vault.deleteToken', { profileId: settings.activeProfileId });
    await shell.call({ op: 'tray-click', item: 'tray.quit' });
    const ended = await within(shell.ended, 20_000, 'tray Quit did not end the app');
    expect(ended.willQuitPrevented).toBe(1);
    expect(ended.trays.every((t) => t.destroyed)).toBe(true);
    const exit = await Promise.race([
      shell.exited,
      new Promise<'alive'>((r) => setTimeout(() => r('alive'), 10_000)),
    ]);
    expect(exit, shell.output()).toEqual({ code: 0, signal: null });
    for (const port of ports) expect(await refused(port)).toBe(true);
  });
});

describe('cold starts', () => {
  it('a link in the first instance argv opens the window at that screen', async () => {
    const shell = await boot(['treasury-desk://transactions/tx_42']);
    const s = await waitForState(shell, (x) => x.windows.some((w) => w.visible), 30_000);
    expect(s.windows).toHaveLength(1);
    expect(s.windows[0]!.loadedUrl).toBe(`${appEntryUrl}#/returns/tx_42`);
    await shell.call({ op: 'quit' });
    await within(shell.exited, 20_000, 'did not exit');
  });

  it('a hidden start (login item) opens no window but keeps the tray; Open window opens one', async () => {
    const shell = await boot(['--hidden']);
    let s = await waitForState(shell, (x) => x.trays.length > 0, 30_000);
    await new Promise((r) => setTimeout(r, 300));
    s = await shell.state();
    expect(s.windows).toEqual([]);
    await shell.call({ op: 'tray-click', item: 'tray.open' });
    s = await waitForState(shell, (x) => x.windows.some((w) => w.visible));
    expect(s.windows).toHaveLength(1);
    await shell.call({ op: 'quit' });
    await within(shell.exited, 20_000, 'did not exit');
  });

  it('with background mode off, closing the last window quits (Windows, Linux)', async () => {
    const shell = await boot();
    await waitForState(shell, (x) => x.windows.some((w) => w.visible), 30_000);
    await caller(shell)('desktop.updateSettings', { keepRunningInBackground: false });
    await shell.call({ op: 'close-windows' });
    const ended = await within(shell.ended, 20_000, 'closing did not quit');
    expect(ended.quitCalls).toBe(1);
    expect(await within(shell.exited, 20_000, 'did not exit')).toEqual({ code: 0, signal: null });
  });
});
