import { describe, expect, it, vi } from 'vitest';
import { createBusyGuard, guardMethods } from '../../src/main/desktop/busy';
import { createNotificationPause, pauseMs, withNotificationPause } from '../../src/main/desktop/pause';
import { createDesktopSettings } from '../../src/main/desktop/settings';
import {
  createUpdateController,
  releaseNotesText,
  updateCheckIntervalMs,
} from '../../src/main/desktop/updates';
import {
  crashConsentQuestion,
  crashPolicyPath,
  crashReporterOptions,
} from '../../src/main/electron/crash/policy';
import { buildTrayMenu, trayRfiName, trayTooltip } from '../../src/main/electron/tray/menu';
import type { TrayActions } from '../../src/main/electron/tray/menu';
import { confStoreFactory, createStores } from '../../src/main/infra/stores';
import { createHeadlessPlatform } from '../../src/main/infra/platform';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { tempDir } from '../support/temp-dir';

const noop: TrayActions = {
  openWindow: () => {},
  syncNow: () => {},
  pauseNotifications: () => {},
  resumeNotifications: () => {},
  quit: () => {},
};

describe('the tray menu', () => {
  // The one absolute date style, in a fixed locale and zone for the test.
  const dates = { locale: 'en-GB', timeZone: 'UTC' };
  const urgent = [
    {
      type: 'source_of_funds',
      description: 'Where did   the money\ncome from?',
      deadline: '2026-11-23T21:30:00.000Z',
      band: 'at_risk' as const,
    },
    {
      type: 'account',
      description: 'x'.repeat(80),
      deadline: '2026-11-24T09:00:00.000Z',
      band: 'on_track' as const,
    },
    { type: 'transaction', description: '', deadline: '2026-11-25T09:00:00.000Z', band: 'breached' as const },
    {
      type: 'account',
      description: 'fourth',
      deadline: '2026-11-26T09:00:00.000Z',
      band: 'on_track' as const,
    },
  ];

  it('shows the count, the three most urgent deadlines by name, then the actions', () => {
    const menu = buildTrayMenu(
      { productName: 'Treasury Desk', awaitingAction: 4, urgent, pausedUntil: null, dates },
      noop,
    );
    expect(menu.map((i) => i.label ?? i.type)).toEqual([
      '4 RFIs awaiting action',
      'Source of funds: Where did the money come from? — due soon 23 Nov 2026, 21:30:00 UTC',
      `Account: ${'x'.repeat(39)}… — due 24 Nov 2026, 09:00:00 UTC`,
      'Transaction — overdue 25 Nov 2026, 09:00:00 UTC',
      'separator',
      'Open Treasury Desk',
      'Sync now',
      'Pause notifications for an hour',
      'separator',
      'Quit',
    ]);
    expect(
      menu
        .filter((i) => i.id?.startsWith('tray.urgent') || i.id === 'tray.awaiting')
        .every((i) => i.enabled === false),
    ).toBe(true);
    expect(
      buildTrayMenu({ productName: 'T', awaitingAction: 1, urgent: [], pausedUntil: null }, noop)[0]!.label,
    ).toBe('1 RFI awaiting action');
  });

  it('offers Resume while paused, and each item calls its action', () => {
    const calls: string[] = [];
    const actions: TrayActions = {
      openWindow: () => calls.push('open'),
      syncNow: () => calls.push('sync'),
      pauseNotifications: () => calls.push('pause'),
      resumeNotifications: () => calls.push('resume'),
      quit: () => calls.push('quit'),
    };
    const paused = buildTrayMenu(
      { productName: 'T', awaitingAction: 0, urgent: [], pausedUntil: '2026-11-23T16:30:00.000Z', dates },
      actions,
    );
    expect(paused.find((i) => i.id === 'tray.resume')?.label).toBe(
      'Resume notifications (paused until 23 Nov 2026, 16:30:00 UTC)',
    );
    for (const i of paused) i.click?.();
    const on = buildTrayMenu({ productName: 'T', awaitingAction: 0, urgent: [], pausedUntil: null }, actions);
    on.find((i) => i.id === 'tray.pause')!.click!();
    expect(calls).toEqual(['open', 'sync', 'resume', 'quit', 'pause']);
    expect(trayTooltip({ productName: 'T', awaitingAction: 0, urgent: [], pausedUntil: 'x' })).toBe(
      'T: no RFI awaits action (notifications paused)',
    );
    expect(trayRfiName({ type: '', description: '' })).toBe('RFI');
    // Types in the app's words, never their codes.
    expect(trayRfiName({ type: 'nominal_sub_account_kyc', description: 'Who owns it?' })).toBe(
      'Nominal sub-account KYC: Who owns it?',
    );
    const checking = buildTrayMenu(
      { productName: 'T', awaitingAction: null, urgent: [], pausedUntil: null },
      actions,
    );
    expect(checking[0]!.label).toBe('Checking RFIs…');
    expect(trayTooltip({ productName: 'T', awaitingAction: null, urgent: [], pausedUntil: null })).toBe(
      'T: checking RFIs',
    );
    expect(trayTooltip({ productName: 'T', awaitingAction: 2, urgent: [], pausedUntil: null })).toBe(
      'T: 2 RFIs await action',
    );
    expect(checking.map((i) => i.id)).toContain('tray.open');
  });
});

describe('pausing notifications', () => {
  it('suppresses notify for an hour of the given clock, then lets them through; the badge is untouched', () => {
    let now = 1_000_000;
    const pause = createNotificationPause(() => now);
    const platform = createHeadlessPlatform();
    const gated = withNotificationPause(platform, pause);
    gated.notify({ title: 'a', body: '' });
    pause.pause();
    expect(pause.pausedUntil()).toBe(1_000_000 + pauseMs);
    gated.notify({ title: 'b', body: '' });
    gated.setBadgeCount(3);
    now += pauseMs - 1;
    gated.notify({ title: 'c', body: '' });
    now += 1;
    expect(pause.isPaused()).toBe(false);
    gated.notify({ title: 'd', body: '' });
    pause.pause();
    pause.resume();
    gated.notify({ title: 'e', body: '' });
    expect(platform.notifications.map((n) => n.title)).toEqual(['a', 'd', 'e']);
    expect(platform.badgeCount).toBe(3);
  });
});

describe('the busy guard', () => {
  it('is busy while any holder runs, and whenIdle resolves after the last', async () => {
    const busy = createBusyGuard();
    expect(busy.isBusy()).toBe(false);
    await busy.whenIdle();
    const a = busy.hold('upload');
    let release: () => void = () => {};
    const running = busy.run('confirm', () => new Promise<void>((r) => (release = r)));
    expect(busy.reasons().sort()).toEqual(['confirm', 'upload']);
    let idle = false;
    const waiting = busy.whenIdle().then(() => (idle = true));
    a();
    a();
    await Promise.resolve();
    expect(idle).toBe(false);
    release();
    await running;
    await waiting;
    expect(idle).toBe(true);
    expect(busy.isBusy()).toBe(false);
  });

  it('guards the listed methods of an object, also when they fail', async () => {
    const busy = createBusyGuard();
    const seen: boolean[] = [];
    const target = {
      async upload(x: number) {
        seen.push(busy.isBusy());
        if (x < 0) throw new Error('refused');
        return x * 2;
      },
      async read() {
        seen.push(busy.isBusy());
      },
    };
    guardMethods(target, busy, { upload: 'uploading' });
    expect(await target.upload(2)).toBe(4);
    await expect(target.upload(-1)).rejects.toThrow('refused');
    await target.read();
    expect(seen).toEqual([true, true, false]);
    expect(busy.isBusy()).toBe(false);
  });
});

describe('crash reports', () => {
  it('stay local without a policy, with a URL alone, and until the analyst agreed for that URL', () => {
    expect(crashReporterOptions(null, 'Treasury Desk')).toEqual({
      options: { productName: 'Treasury Desk', submitURL: '', uploadToServer: false, compress: true },
      problem: null,
      ask: null,
    });
    // An upload URL alone is not enough: the policy must ask for uploads explicitly.
    const urlOnly = crashReporterOptions('{"submitURL":"https://crash.bank.example/submit"}', 'T');
    expect(urlOnly.options.uploadToServer).toBe(false);
    expect(urlOnly.problem).toMatch(/uploadMinidumps/);
    const policy = '{"submitURL":"https://crash.bank.example/submit","uploadMinidumps":true}';
    // Explicit policy, never asked: uploads off, the analyst is asked about this URL.
    expect(crashReporterOptions(policy, 'T')).toMatchObject({
      options: { submitURL: 'https://crash.bank.example/submit', uploadToServer: false },
      ask: 'https://crash.bank.example/submit',
    });
    // Declined: off, not asked again. Agreed: on. Agreed for another URL: asked again, off.
    const url = 'https://crash.bank.example/submit';
    expect(crashReporterOptions(policy, 'T', { url, agreed: false })).toMatchObject({
      options: { uploadToServer: false },
      ask: null,
    });
    expect(crashReporterOptions(policy, 'T', { url, agreed: true })).toMatchObject({
      options: { uploadToServer: true },
      ask: null,
    });
    expect(
      crashReporterOptions(policy, 'T', { url: 'https://elsewhere.example/', agreed: true }),
    ).toMatchObject({ options: { uploadToServer: false }, ask: url });
    expect(crashConsentQuestion(url).detail).toMatch(/access tokens.*key that encrypts/);
    for (const bad of [
      '{"submitURL":"http://crash.bank.example/","uploadMinidumps":true}',
      '{"submitURL":"https://u:p@x.example/","uploadMinidumps":true}',
      'nope',
      '{}',
    ]) {
      const r = crashReporterOptions(bad, 'T', { url: 'https://u:p@x.example/', agreed: true });
      expect(r.options.uploadToServer, bad).toBe(false);
      expect(r.problem, bad).toBeTruthy();
    }
    expect(crashPolicyPath('linux', {})).toBe('/etc/treasury-desk/crash-reports.json');
    expect(crashPolicyPath('win32', { ProgramData: 'D:\\PD' })).toBe(
      'D:\\PD\\Treasury Desk\\crash-reports.json',
    );
    expect(crashPolicyPath('darwin', { TREASURY_DESK_CRASH_POLICY: '/x.json' })).toBe('/x.json');
  });
});

describe('desktop settings', () => {
  it('default to background on, login off; the login item follows the stored choice', async () => {
    const dir = await tempDir();
    const platform = createHeadlessPlatform();
    const stores = createStores({ dataDir: dir, factory: confStoreFactory, log: createLogger(memorySink()) });
    const s = await createDesktopSettings(stores, platform);
    expect(s.get()).toEqual({ keepRunningInBackground: true, startAtLogin: false });
    expect(platform.startAtLogin).toBe(false);
    const changes: unknown[] = [];
    s.onChange((v) => changes.push(v));
    expect(s.update({ startAtLogin: true })).toEqual({ keepRunningInBackground: true, startAtLogin: true });
    expect(platform.startAtLogin).toBe(true);
    expect(changes).toHaveLength(1);
    const again = await createDesktopSettings(
      createStores({ dataDir: dir, factory: confStoreFactory, log: createLogger(memorySink()) }),
      createHeadlessPlatform(),
    );
    expect(again.get()).toEqual({ keepRunningInBackground: true, startAtLogin: true });
  });
});

describe('release notes', () => {
  it('are plain text from a string (HTML stripped) or a list', () => {
    expect(releaseNotesText({ version: '1', releaseNotes: '<p>Faster <b>sync</b></p>' })).toBe('Faster sync');
    expect(
      releaseNotesText({
        version: '1',
        releaseNotes: [
          { version: '1.1', note: 'a' },
          { version: '1.2', note: null },
        ],
      }),
    ).toBe('1.1: a\n1.2:');
    expect(releaseNotesText({ version: '1' })).toBe('');
  });

  it("a hostile feed's notes stay text: no script, entities decoded, no bidi or control characters", () => {
    const notes = releaseNotesText({
      version: '9',
      releaseNotes:
        '<h1>Update</h1><script>alert(1)</script><style>p{}</style><p>Pay &lt;here&gt; &amp; now&#33;</p>' +
        '<p>invoice\u202Efdp.exe\u0007</p><img src=x onerror=alert(2)>',
    });
    expect(notes).toBe('Update\nPay <here> & now!\ninvoicefdp.exe');
    expect(notes).not.toMatch(/alert|onerror|<p>|<script/);
  });
});

describe('the update controller', () => {
  function fakeUpdater(available: boolean) {
    const calls: string[] = [];
    const updater = {
      autoDownload: true,
      autoInstallOnAppQuit: true,
      checkForUpdates: async () => {
        calls.push('check');
        return { updateInfo: { version: '0.2.0', releaseNotes: 'Notes' }, isUpdateAvailable: available };
      },
      downloadUpdate: async () => {
        calls.push('download');
        return ['/tmp/x'];
      },
      quitAndInstall: () => void calls.push('install'),
    };
    return { updater, calls };
  }
  const log = { info: () => {}, warn: () => {} };

  it('checks at start and every 6 hours, never downloads or installs on its own', async () => {
    vi.useFakeTimers();
    try {
      const { updater, calls } = fakeUpdater(false);
      const c = createUpdateController({
        updater,
        busy: createBusyGuard(),
        askToRestart: async () => true,
        log,
      });
      expect(updater.autoDownload).toBe(false);
      expect(updater.autoInstallOnAppQuit).toBe(false);
      c.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(calls).toEqual(['check']);
      await vi.advanceTimersByTimeAsync(updateCheckIntervalMs - 1);
      expect(calls).toEqual(['check']);
      await vi.advanceTimersByTimeAsync(1);
      expect(calls).toEqual(['check', 'check']);
      c.dispose();
      await vi.advanceTimersByTimeAsync(updateCheckIntervalMs * 2);
      expect(calls).toEqual(['check', 'check']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('"Later" keeps the downloaded update and asks again at the next check, without downloading again', async () => {
    const { updater, calls } = fakeUpdater(true);
    const answers = [false, true];
    const asked: string[] = [];
    const c = createUpdateController({
      updater,
      busy: createBusyGuard(),
      askToRestart: async (i) => (asked.push(`${i.version}: ${i.notes}`), answers.shift() ?? false),
      log,
    });
    await c.check();
    expect(c.phase()).toBe('deferred');
    await c.check();
    expect(calls).toEqual(['check', 'download', 'install']);
    expect(asked).toEqual(['0.2.0: Notes', '0.2.0: Notes']);
  });

  it('waits for work that started while the dialog was open before installing', async () => {
    const { updater, calls } = fakeUpdater(true);
    const busy = createBusyGuard();
    let release: () => void = () => {};
    const c = createUpdateController({
      updater,
      busy,
      askToRestart: async () => {
        // A confirmation starts while the analyst reads the dialog.
        release = busy.hold('an exchange order is being confirmed');
        return true;
      },
      log,
    });
    const done = c.check();
    await vi.waitFor(() => expect(c.phase()).toBe('waiting-for-idle'));
    expect(calls).toEqual(['check', 'download']);
    release();
    await done;
    expect(calls).toEqual(['check', 'download', 'install']);
  });
});
