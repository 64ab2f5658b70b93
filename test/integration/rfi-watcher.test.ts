import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { createPoller, nextDelay } from '../../src/main/rfis/watcher';
import { startServices } from '../support/services';
import type { TestServices } from '../support/services';
import { memoryKeyring } from '../support/memory-keyring';
import { staffOf } from '../support/sandbox-staff';

/**
 * An in-process keychain: these tests are about RFIs, not the Secret Service (covered by
 * test/integration/vault.test.ts), and must not depend on a session bus shared with other runs.
 */
const keyring = memoryKeyring();

/** A hand-driven timer queue: the test decides when time passes. */
function manualTimers() {
  let seq = 0;
  const pending = new Map<number, { fn: () => void; ms: number }>();
  return {
    pending,
    setTimeout(fn: () => void, ms: number) {
      const id = ++seq;
      pending.set(id, { fn, ms });
      return id;
    },
    clearTimeout(h: unknown) {
      pending.delete(h as number);
    },
    /** Fires every timer due now (the scheduled poll). */
    fire() {
      const due = [...pending.entries()];
      pending.clear();
      for (const [, t] of due) t.fn();
    },
    delays: () => [...pending.values()].map((t) => t.ms),
  };
}

const log = createLogger(memorySink(), 'debug');
const flush = () => new Promise((r) => setImmediate(r));

describe('polling: interval, floor, jitter, pause and resume', () => {
  it('never goes below the floor and spreads by at most ± the jitter', () => {
    expect(nextDelay(1000, 5000, 0.1, () => 0)).toBe(5000);
    expect(nextDelay(60_000, 5000, 0.1, () => 0)).toBe(54_000);
    expect(nextDelay(60_000, 5000, 0.1, () => 1)).toBe(66_000);
    expect(nextDelay(60_000, 5000, 0.1, () => 0.5)).toBe(60_000);
    // jitter cannot take it under the floor
    expect(nextDelay(5000, 5000, 0.2, () => 0)).toBe(5000);
  });

  it('polls on its interval, pauses on suspend and lock, polls at once on resume, unlock and online', async () => {
    const timers = manualTimers();
    let polls = 0;
    const p = createPoller({
      intervalMs: () => 30_000,
      floorMs: 5000,
      jitter: 0,
      poll: async () => {
        polls++;
      },
      log,
      timers,
    });
    p.start();
    expect(p.state()).toBe('running');
    expect(timers.delays()).toEqual([30_000]);
    timers.fire();
    await flush();
    expect(polls).toBe(1);
    expect(timers.delays()).toEqual([30_000]);

    p.systemEvent('suspend');
    expect(p.state()).toBe('paused');
    expect(timers.delays()).toEqual([]);
    p.systemEvent('lock-screen');
    p.systemEvent('resume');
    // still locked: nothing yet
    expect(p.state()).toBe('paused');
    expect(polls).toBe(1);
    p.systemEvent('unlock-screen');
    await flush();
    expect(polls).toBe(2);
    expect(p.state()).toBe('running');

    p.systemEvent('offline');
    expect(timers.delays()).toEqual([]);
    timers.fire();
    await flush();
    expect(polls).toBe(2);
    p.systemEvent('online');
    await flush();
    expect(polls).toBe(3);
    expect(timers.delays()).toEqual([30_000]);

    p.stop();
    expect(p.state()).toBe('stopped');
    expect(timers.delays()).toEqual([]);
  });

  it('never runs two polls at once: a trigger during a poll runs one more right after', async () => {
    const timers = manualTimers();
    let release: () => void = () => undefined;
    let running = 0;
    let maxRunning = 0;
    let polls = 0;
    const p = createPoller({
      intervalMs: 10_000,
      floorMs: 5000,
      jitter: 0,
      poll: () =>
        new Promise<void>((resolve) => {
          polls++;
          running++;
          maxRunning = Math.max(maxRunning, running);
          release = () => {
            running--;
            resolve();
          };
        }),
      log,
      timers,
    });
    p.start();
    p.trigger();
    p.trigger();
    p.trigger();
    expect(polls).toBe(1);
    release();
    await flush();
    expect(polls).toBe(2);
    release();
    await flush();
    expect(polls).toBe(2);
    expect(maxRunning).toBe(1);
    p.stop();
  });
});

describe('one notification per change, by webhook, by polling and by both (real sandbox)', () => {
  let t: TestServices | null = null;
  afterEach(async () => {
    await t?.close();
    t = null;
  });

  async function newRfi(s: TestServices): Promise<string> {
    const le = s.services.sandbox!.fixtures.legal_entities[0]!;
    const created = await staffOf(s.services).createRfi({
      type: 'account',
      related_id: le.accounts[0]!.id,
      description: 'Please explain the incoming payments',
      questions: [
        { question_type: 'transaction.purpose', question_text: 'What is the purpose?' },
        { question_type: 'identification.individual.passport', question_text: 'Passport please' },
      ],
    });
    return (created as { id: string }).id;
  }

  /** Every webhook delivery the sandbox made for `rfiId` is done (delivered or failed). */
  async function deliveriesDone(s: TestServices, rfiId: string): Promise<number> {
    const d = await staffOf(s.services).listWebhookDeliveries();
    const mine = d.data.filter((x) => x.body.includes(rfiId));
    return mine.length > 0 && mine.every((x) => x.status === 'delivered') ? mine.length : 0;
  }

  it('webhook only: the RFI arrives through the receiver and raises one notification', async () => {
    t = await startServices({
      keyring,
      rfis: { poll: { intervalMs: 3_600_000 } },
    });
    await t.services.rfis.ready();
    await expect.poll(() => t!.services.webhooks.status().autoConfigure?.state).toBe('done');
    const pollsBefore = t.services.rfis.poller.polls;
    const id = await newRfi(t);
    await expect.poll(() => t!.platform.notifications.length, { timeout: 10_000 }).toBe(1);
    // one event for the RFI and one per question: all delivered, still one notification
    await expect.poll(() => deliveriesDone(t!, id), { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    await t.services.webhooks.idle();
    expect(t.platform.notifications).toHaveLength(1);
    expect(t.platform.notifications[0]!.title).toBe('New RFI');
    // what the RFI is about, by name: its type, description, the account's own name and its holder
    expect(t.platform.notifications[0]!.body).toBe(
      'Account: Please explain the incoming payments — Alder USD operating (Alder Trade GmbH) · Action required',
    );
    expect(t.services.rfis.poller.polls).toBe(pollsBefore);
    expect(t.services.webhooks.status().accepted).toBeGreaterThanOrEqual(3);

    // clicking opens that RFI in the renderer
    const before = t.pushed.length;
    t.platform.notifications[0]!.onClick?.();
    expect(t.pushed.slice(before)).toContainEqual({
      event: 'rfis.openRequested',
      payload: { rfiId: id, profileId: t.services.session.profile.id },
    });
    // unread and the badge follow
    const counts = (await t.services.rfis.counts()).counts;
    expect(t.platform.badgeCount).toBe(counts.awaitingAction);
    expect((await t.services.rfis.get(id)).summary.unread).toBe(true);
  });

  it('polling only: no webhook URL, the next poll finds the RFI and raises one notification', async () => {
    t = await startServices({
      keyring,
      rfis: { poll: { intervalMs: 150, floorMs: 100, jitter: 0 }, webhook: { autoConfigureSandbox: false } },
    });
    await t.services.rfis.ready();
    const id = await newRfi(t);
    await expect.poll(() => t!.platform.notifications.length, { timeout: 10_000 }).toBe(1);
    const polls = t.services.rfis.poller.polls;
    await expect
      .poll(() => t!.services.rfis.poller.polls, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(polls + 3);
    expect(t.platform.notifications).toHaveLength(1);
    expect(t.platform.notifications[0]!.body).toContain('Alder USD operating');
    expect(t.platform.notifications[0]!.body).not.toContain(id);
    expect(t.services.webhooks.status().accepted).toBe(0);
  });

  it('an RFI about a transaction names its counterparty and amount as the bank has them', async () => {
    t = await startServices({
      keyring,
      rfis: { poll: { intervalMs: 150, floorMs: 100, jitter: 0 }, webhook: { autoConfigureSandbox: false } },
    });
    await t.services.rfis.ready();
    const seeded = (await t.services.bank.listRfis({ page_size: '500' })).data.find(
      (r) => r.description === 'Incoming transfer from Harbour Freight Ltd',
    );
    expect(seeded).toBeDefined();
    const transfer = await t.services.bank.getTransaction(seeded!.related_id);
    expect(transfer.fi_to_fi_swift_incoming?.debtor_name).toBe('Harbour Freight Ltd');
    await staffOf(t.services).createRfi({
      type: 'transaction',
      related_id: seeded!.related_id,
      description: 'Source of funds for the March freight payment',
      questions: [{ question_type: 'transaction.purpose', question_text: 'What is the purpose?' }],
    });
    await expect.poll(() => t!.platform.notifications.length, { timeout: 10_000 }).toBe(1);
    expect(t.platform.notifications[0]).toMatchObject({
      title: 'New RFI',
      body: 'Transaction: Source of funds for the March freight payment — Harbour Freight Ltd, 12,500.00 USD · Action required',
    });
  });

  it('both: webhook and polling report the same RFI and its status change, one notification each', async () => {
    t = await startServices({
      keyring,
      rfis: { poll: { intervalMs: 150, floorMs: 100, jitter: 0 } },
    });
    await t.services.rfis.ready();
    await expect.poll(() => t!.services.webhooks.status().autoConfigure?.state).toBe('done');
    const id = await newRfi(t);
    await expect.poll(() => deliveriesDone(t!, id), { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    await t.services.webhooks.idle();
    const polls = t.services.rfis.poller.polls;
    await expect
      .poll(() => t!.services.rfis.poller.polls, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(polls + 2);
    expect(t.platform.notifications.map((n) => n.title)).toEqual(['New RFI']);
    // both ways did report it
    expect(t.services.webhooks.status().accepted).toBeGreaterThanOrEqual(3);

    // The analyst answers (quiet: their own doing), staff then closes that question: news once.
    const rfi = await t.services.bank.getRfi(id);
    const q = rfi.questions[0]!;
    await t.services.bank.submitRfiResponse(id, q.id, {
      question_type: q.question_type,
      [q.question_type]: { response_text: 'Salary', document_ids: [] },
    });
    await staffOf(t.services).questionAction(id, q.id, { action: 'close' });
    await expect.poll(() => t!.platform.notifications.length, { timeout: 10_000 }).toBe(2);
    const polls2 = t.services.rfis.poller.polls;
    await expect
      .poll(() => t!.services.rfis.poller.polls, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(polls2 + 2);
    await t.services.webhooks.idle();
    expect(t.platform.notifications.map((n) => n.title)).toEqual(['New RFI', 'RFI question changed']);
    expect(t.platform.notifications[1]!.body).toContain('closed');
  });
});

describe('polling while the bank cannot be reached', () => {
  it('polls sooner (floor, doubling up to the interval) until it answers, then back to the interval', async () => {
    const timers = manualTimers();
    const answers: Array<'ok' | 'unreachable'> = ['unreachable', 'unreachable', 'unreachable', 'ok'];
    const p = createPoller({
      intervalMs: 60_000,
      floorMs: 5000,
      jitter: 0,
      poll: async () => answers.shift() ?? 'ok',
      log,
      timers,
    });
    p.start();
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      timers.fire();
      await flush();
      delays.push(...timers.delays());
    }
    expect(delays).toEqual([5000, 10_000, 20_000, 60_000]);
    p.stop();
  });
});
