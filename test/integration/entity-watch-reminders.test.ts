/**
 * Deadline reminders on the bank's clock: the sandbox clock is advanced across 7 days, 48 h and
 * 24 h before an RFI's timeout; each threshold raises one notification for that RFI, also when the
 * services are rebuilt on the same data folder in between, also with two profiles watching the
 * same legal entity, and none for an RFI that no longer awaits action.
 */
import { afterEach, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox';
import type { RunningSandbox } from '../../src/sandbox';
import { startFaultProxy } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';
import { sandboxStaff } from '../support/sandbox-staff';
import { startServices, tempDir } from '../support/services';
import type { TestServices } from '../support/services';

let sandbox: RunningSandbox | null = null;
let proxies: FaultProxy[] = [];
let t: TestServices | null = null;

afterEach(async () => {
  await t?.close();
  t = null;
  for (const p of proxies) await p.close();
  proxies = [];
  await sandbox?.close();
  sandbox = null;
});

const DAY = 86_400;

it('one reminder per threshold per RFI on the bank clock, across a restart and two watchers; none once answered', async () => {
  sandbox = await startSandbox({ visibilityDelayMs: { min: 0, max: 0 } });
  const le = sandbox.fixtures.legal_entities[0]!;
  const token = le.tokens.admin;
  const proxyA = await startFaultProxy(sandbox.url);
  const proxyA2 = await startFaultProxy(sandbox.url);
  proxies = [proxyA, proxyA2];
  const dataDir = await tempDir();
  const start = () =>
    startServices({
      dataDir,
      reminders: {},
      environment: { kind: 'remote', baseUrl: proxyA.url, name: 'Alder', token },
      rfis: {
        poll: { intervalMs: 60_000, floorMs: 60_000, jitter: 0 },
        webhook: { autoConfigureSandbox: false },
      },
    });
  t = await start();
  // A second profile for the same legal entity: the same RFIs seen by two watchers.
  t.platform.nextConfirmAnswers.push(true);
  const view = await t.services.handlers['settings.addProfile']({
    name: 'Alder again',
    baseUrl: proxyA2.url,
  });
  const second = view.profiles.find((p) => p.name === 'Alder again')!.id;
  await t.services.handlers['vault.setToken']({ profileId: second, token });
  await expect.poll(() => t!.services.entityWatch.watched().has(second), { timeout: 5000 }).toBe(true);

  const staff = sandboxStaff(sandbox);
  await staff.createRfi({
    type: 'account',
    related_id: le.accounts[0]!.id,
    description: 'Reminder probe',
    questions: [{ question_type: 'transaction.purpose', question_text: 'What is the account for?' }],
  });
  const answeredRfi = await staff.createRfi({
    type: 'account',
    related_id: le.accounts[0]!.id,
    description: 'Answered probe',
    questions: [{ question_type: 'transaction.purpose', question_text: 'And this one?' }],
  });
  // We answer it (straight at the bank): it waits for the bank now, not for us.
  const answered = await fetch(
    `${sandbox.url}/v1/rfis/${answeredRfi.id}/questions/${answeredRfi.questions[0]!.id}/responses`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        question_type: 'transaction.purpose',
        'transaction.purpose': { response_text: 'Operating account', document_ids: [] },
      }),
    },
  );
  expect(answered.ok).toBe(true);
  const sync = () => t!.services.handlers['rfis.sync'](undefined);
  const about = (what: string) =>
    t!.platform.notifications.filter((n) => n.title.startsWith('RFI due') && n.body.includes(what));
  await sync();
  expect(about('Reminder probe')).toEqual([]);

  // 23 days and an hour later (bank time): under 7 days left.
  await staff.advanceClock(23 * DAY + 3600);
  await sync();
  await sync();
  expect(about('Reminder probe').map((n) => n.title)).toEqual([
    'RFI due in less than 7 days — Alder Trade GmbH',
  ]);
  expect(about('Answered probe')).toEqual([]);

  // Restart on the same data folder: nothing repeated.
  await t.stop();
  t = await start();
  await expect.poll(() => t!.services.entityWatch.watched().has(second), { timeout: 5000 }).toBe(true);
  await sync();
  expect(about('Reminder probe')).toEqual([]);

  // 28 days and an hour: under 48 h left; then 29 days and an hour: under 24 h left.
  await staff.advanceClock(5 * DAY);
  await sync();
  await sync();
  expect(about('Reminder probe').map((n) => n.title)).toEqual([
    'RFI due in less than 48 hours — Alder Trade GmbH',
  ]);
  await staff.advanceClock(DAY);
  await sync();
  await sync();
  expect(about('Reminder probe').map((n) => n.title)).toEqual([
    'RFI due in less than 48 hours — Alder Trade GmbH',
    'RFI due in less than 24 hours — Alder Trade GmbH',
  ]);
  expect(about('Answered probe')).toEqual([]);
  // The workstation's clock never moved: only the bank's did.
  expect(Math.abs(t.services.clock.offsetMs - 29 * DAY * 1000 - 3600_000)).toBeLessThan(60_000);
});
