/**
 * Snoozes and thresholds of deadline reminders, on the bank's clock (the sandbox clock advanced,
 * the workstation's untouched), through the IPC dispatcher as the renderer calls them:
 *   - a snooze holds an RFI's reminders back, also across a restart; when it ends, the threshold
 *     crossed meanwhile is shown once; a snooze never runs past the last reminder;
 *   - thresholds changed in Settings apply live, never repeat a reminder already shown, and
 *     turning reminders off and on again shows only what is still due;
 *   - bad arguments are refused with typed errors and nothing changes.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox';
import type { RunningSandbox } from '../../src/sandbox';
import { sandboxStaff } from '../support/sandbox-staff';
import { ipc, ipcError } from '../support/ipc';
import { startServices, tempDir } from '../support/services';
import type { TestServices } from '../support/services';
import { createAtRestCodec } from '../../src/main/infra/at-rest';

let sandbox: RunningSandbox | null = null;
let t: TestServices | null = null;

afterEach(async () => {
  await t?.close();
  t = null;
  await sandbox?.close();
  sandbox = null;
});

const DAY = 86_400;
const HOUR = 3600;

async function setup() {
  sandbox = await startSandbox({ visibilityDelayMs: { min: 0, max: 0 } });
  const le = sandbox.fixtures.legal_entities[0]!;
  const dataDir = await tempDir();
  const start = () =>
    startServices({
      dataDir,
      // Reminders follow Settings (no override of the thresholds).
      reminders: {},
      environment: { kind: 'remote', baseUrl: sandbox!.url, name: 'Alder', token: le.tokens.admin },
      rfis: {
        poll: { intervalMs: 60_000, floorMs: 60_000, jitter: 0 },
        webhook: { autoConfigureSandbox: false },
      },
    });
  const staff = sandboxStaff(sandbox);
  const rfi = await staff.createRfi({
    type: 'account',
    related_id: le.accounts[0]!.id,
    description: 'Snooze probe',
    questions: [{ question_type: 'transaction.purpose', question_text: 'What is the account for?' }],
  });
  return { start, staff, rfi };
}

const titles = (s: TestServices, what: string): string[] =>
  s.platform.notifications
    .filter((n) => n.title.startsWith('RFI due') && n.body.includes(what))
    .map((n) => n.title);

/** The profile that owns the RFIs (the only one here). */
const own = (s: TestServices | null): string => s!.services.session.profile.id;

const sync = async (s: TestServices): Promise<void> => {
  await s.services.handlers['rfis.sync'](undefined);
};

it('a snooze holds reminders back across a restart; the threshold crossed meanwhile is shown once when it ends', async () => {
  const { start, staff, rfi } = await setup();
  t = await start();
  await sync(t);
  await staff.advanceClock(23 * DAY + HOUR); // 6 d 23 h left
  await sync(t);
  expect(titles(t, 'Snooze probe')).toEqual(['RFI due in less than 7 days']);

  await staff.advanceClock(4 * DAY); // 2 d 23 h left
  await sync(t);
  const bankNow = t.services.clock.now();
  const snooze = await ipc(t, 'reminders.snooze', { profileId: own(t), rfiId: rfi.id, choice: '1d' });
  // One day on the bank's clock (not the workstation's, which never moved).
  expect(Math.abs(Date.parse(snooze.until) - bankNow - DAY * 1000)).toBeLessThan(60_000);
  expect(Date.parse(snooze.until) - Date.now()).toBeGreaterThan(27 * DAY * 1000);
  expect(snooze.capped).toBe(false);
  expect((await ipc(t, 'reminders.snoozes', undefined)).snoozes.map((s) => s.rfiId)).toEqual([rfi.id]);
  const due = await ipc(t, 'reminders.dueSoon', undefined);
  const row = due.items.find((i) => i.rfiId === rfi.id)!;
  // Named as the queue names its entity.
  const queued = (await t.services.entityWatch.list({})).items.find((i) => i.id === rfi.id)!;
  expect(row).toMatchObject({
    entityName: queued.entityName,
    snoozedUntil: snooze.until,
    description: 'Snooze probe',
    deadline: queued.deadline,
  });
  expect(due.horizonHours).toBe(168);

  await staff.advanceClock(23 * HOUR); // 48 h left: the 48 h threshold is crossed while snoozed
  await sync(t);
  await sync(t);
  expect(titles(t, 'Snooze probe')).toEqual(['RFI due in less than 7 days']);

  // Restart on the same data folder: the snooze holds.
  await t.stop();
  t = await start();
  await sync(t);
  expect(titles(t, 'Snooze probe')).toEqual([]);
  expect((await ipc(t, 'reminders.snoozes', undefined)).snoozes.map((s) => s.until)).toEqual([snooze.until]);

  await staff.advanceClock(2 * HOUR); // 46 h left: the snooze ended an hour ago
  await sync(t);
  await sync(t);
  expect(titles(t, 'Snooze probe')).toEqual(['RFI due in less than 48 hours']);
  // The ended snooze is gone from the list and from the file (pruned).
  expect((await ipc(t, 'reminders.snoozes', undefined)).snoozes).toEqual([]);
  // Sealed at rest: opened with the data key as main does.
  const file = JSON.parse(
    createAtRestCodec(t.services.vault.dataKey()).open(
      await readFile(path.join(t.dataDir, 'state', 'reminder-snoozes.json'), 'utf8'),
    ).text,
  ) as {
    version: number;
    snoozes: Record<string, unknown>;
  };
  expect(file).toEqual({ version: 1, snoozes: {} });
  expect(
    (await ipc(t, 'reminders.dueSoon', undefined)).items.find((i) => i.rfiId === rfi.id)?.snoozedUntil,
  ).toBeNull();

  // A snooze asked for past the last reminder ends there (24 h before the timeout).
  const capped = await ipc(t, 'reminders.snooze', { profileId: own(t), rfiId: rfi.id, choice: '7d' });
  expect(capped.capped).toBe(true);
  const deadline = Date.parse(row.deadline);
  expect(Date.parse(capped.until)).toBe(deadline - 24 * HOUR * 1000);
  // Cancelled: reminders come again.
  expect(await ipc(t, 'reminders.unsnooze', { profileId: own(t), rfiId: rfi.id })).toEqual({
    profileId: own(t),
    rfiId: rfi.id,
    cancelled: true,
  });
  expect(await ipc(t, 'reminders.unsnooze', { profileId: own(t), rfiId: rfi.id })).toEqual({
    profileId: own(t),
    rfiId: rfi.id,
    cancelled: false,
  });
  await staff.advanceClock(DAY); // 22 h left
  await sync(t);
  expect(titles(t, 'Snooze probe')).toEqual([
    'RFI due in less than 48 hours',
    'RFI due in less than 24 hours',
  ]);

  // The last reminder is due: nothing left to snooze (a typed refusal, nothing stored).
  const late = await ipcError(t, 'reminders.snooze', { profileId: own(t), rfiId: rfi.id, choice: 'last' });
  expect(late).toMatchObject({ kind: 'precondition', reason: 'LAST_REMINDER_DUE' });
  expect((await ipc(t, 'reminders.snoozes', undefined)).snoozes).toEqual([]);

  // The RFI's case file lists every reminder shown and every snooze decision, in order.
  await expect
    .poll(() =>
      t!.services.caseFileJournal
        .seenOf(t!.services.session.profile.id, rfi.id)
        .map((e) => e.detail.replace(/ \(bank time [^)]*\)$/, '')),
    )
    .toEqual([
      'Deadline reminder: less than 7 days left',
      `Reminders snoozed by the analyst until ${snooze.until}`,
      'Deadline reminder: less than 48 hours left',
      `Reminders snoozed by the analyst until ${capped.until}, capped at the last reminder`,
      'Reminder snooze cancelled by the analyst',
      'Deadline reminder: less than 24 hours left',
    ]);
});

it('refuses bad snooze arguments with typed errors and changes nothing', async () => {
  const { start, rfi } = await setup();
  t = await start();
  await sync(t);
  expect(
    await ipcError(t, 'reminders.snooze', { profileId: own(t), rfiId: 'rfi_doesnotexist', choice: '1d' }),
  ).toMatchObject({
    kind: 'not_found',
  });
  expect(
    await ipcError(t, 'reminders.unsnooze', { profileId: own(t), rfiId: 'rfi_doesnotexist' }),
  ).toMatchObject({
    kind: 'not_found',
  });
  // The page never names an instant: only a choice from the list.
  const profileId = own(t);
  for (const args of [
    { profileId, rfiId: rfi.id, choice: '2d' },
    { profileId, rfiId: rfi.id, choice: '1d', until: '2099-01-01T00:00:00Z' },
    { profileId, rfiId: rfi.id, hours: 48 },
    { profileId, rfiId: '../etc/passwd', choice: '1d' },
    { profileId, rfiId: rfi.id },
    // The owning profile is named, and named well: RFI ids are one bank's only.
    { rfiId: rfi.id, choice: '1d' },
    { profileId: '../other', rfiId: rfi.id, choice: '1d' },
  ]) {
    expect(await ipcError(t, 'reminders.snooze', args)).toMatchObject({ kind: 'invalid_argument' });
  }
  expect((await ipc(t, 'reminders.snoozes', undefined)).snoozes).toEqual([]);
});

it('thresholds set in Settings apply live, never repeat a reminder, and bad ones are refused', async () => {
  const { start, staff } = await setup();
  t = await start();
  const first = await ipc(t, 'settings.get', undefined);
  expect(first.reminders).toEqual({ enabled: true, hours: [168, 48, 24] });

  // Refused, and nothing changed.
  for (const hours of [[], [0], [30 * 24], [24, 24], [1, 2, 3, 4, 5, 6], [1.5]]) {
    const err = await ipcError(t, 'settings.update', { reminders: { hours } });
    expect(err.kind, JSON.stringify(hours)).toBe('invalid_argument');
  }
  expect(await ipcError(t, 'settings.update', { reminders: { enabled: 'yes' } })).toMatchObject({
    kind: 'invalid_argument',
  });
  expect((await ipc(t, 'settings.get', undefined)).reminders).toEqual(first.reminders);

  const view = await ipc(t, 'settings.update', { reminders: { hours: [24, 96] } });
  expect(view.reminders).toEqual({ enabled: true, hours: [96, 24] });
  await sync(t);
  await staff.advanceClock(23 * DAY + HOUR); // 6 d 23 h left: no threshold at 96 h or less yet
  await sync(t);
  expect(titles(t, 'Snooze probe')).toEqual([]);
  expect((await ipc(t, 'reminders.dueSoon', undefined)).horizonHours).toBe(96);

  // 7 days again, live (no restart): shown once.
  await ipc(t, 'settings.update', { reminders: { hours: [168, 96, 24] } });
  await expect
    .poll(() => titles(t!, 'Snooze probe'), { timeout: 5000 })
    .toEqual(['RFI due in less than 7 days']);
  // Another set that includes 7 days: not shown again (same RFI, deadline, threshold).
  await ipc(t, 'settings.update', { reminders: { hours: [170, 168] } });
  await sync(t);
  await ipc(t, 'settings.update', { reminders: { hours: [168, 96, 24] } });
  await sync(t);
  expect(titles(t, 'Snooze probe')).toEqual(['RFI due in less than 7 days']);

  // Off: nothing while 96 h is crossed; on again: the threshold still due is shown once.
  await ipc(t, 'settings.update', { reminders: { enabled: false } });
  await staff.advanceClock(3 * DAY + 2 * HOUR); // 3 d 21 h left
  await sync(t);
  expect(titles(t, 'Snooze probe')).toEqual(['RFI due in less than 7 days']);
  expect((await ipc(t, 'reminders.dueSoon', undefined)).horizonHours).toBe(168);
  await ipc(t, 'settings.update', { reminders: { enabled: true } });
  await sync(t);
  expect(titles(t, 'Snooze probe')).toEqual(['RFI due in less than 7 days', 'RFI due in less than 4 days']);

  // Kept across a restart (settings file version 2).
  await t.stop();
  t = await start();
  expect((await ipc(t, 'settings.get', undefined)).reminders).toEqual({
    enabled: true,
    hours: [168, 96, 24],
  });
});

it('a settings file from before reminder settings is migrated with the defaults', async () => {
  const dataDir = await tempDir();
  await writeFile(
    path.join(dataDir, 'settings.json'),
    JSON.stringify({
      version: 1,
      activeProfileId: 'sandbox',
      profiles: [
        {
          id: 'sandbox',
          name: 'Embedded sandbox',
          kind: 'embedded-sandbox',
          baseUrl: '',
          webhookPublicKeyPem: null,
          sandboxCredential: 'a-admin',
        },
      ],
      pollingIntervalSeconds: 45,
      notifications: { newRfi: false, rfiStatus: true, transactionStatus: true, quoteExpiry: true },
    }),
  );
  t = await startServices({ dataDir });
  const view = await ipc(t, 'settings.get', undefined);
  expect(view.reminders).toEqual({ enabled: true, hours: [168, 48, 24] });
  // What the file held is kept; the file is written back in the new version.
  expect(view.pollingIntervalSeconds).toBe(45);
  expect(view.notifications.newRfi).toBe(false);
  const stored = JSON.parse(
    createAtRestCodec(t.services.vault.dataKey()).open(
      await readFile(path.join(dataDir, 'settings.json'), 'utf8'),
    ).text,
  ) as {
    version: number;
    reminders: unknown;
  };
  expect(stored.version).toBe(2);
  expect(stored.reminders).toEqual({ enabled: true, hours: [168, 48, 24] });
  expect(view.problems).toEqual([]);
});
