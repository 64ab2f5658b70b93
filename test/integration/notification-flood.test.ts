import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServices, tempDir } from '../support/services';
import type { TestServices } from '../support/services';

/**
 * No flood (issue item 3): bursts through the page's own API against the real services, with the
 * notification policy at its real interval (10 s) unless a test says otherwise.
 */

const DAY_MS = 86_400_000;
const pdf = (fill: number): Buffer =>
  Buffer.concat([
    Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\n'),
    Buffer.alloc(2_000, fill),
    Buffer.from('\nxref\n0 1\n0000000000 65535 f \ntrailer\n<<>>\nstartxref\n9\n%%EOF\n'),
  ]);

let t: TestServices | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

function bankDay(s: TestServices, days: number): string {
  const now = s.services.clock.now();
  return new Date(Math.floor(now / DAY_MS) * DAY_MS + days * DAY_MS).toISOString().slice(0, 10);
}

async function addDocument(
  s: TestServices,
  dir: string,
  i: number,
  expiresOn: string,
  holder = `Holder ${i}`,
) {
  const file = path.join(dir, `doc-${i}.pdf`);
  await writeFile(file, pdf(i % 250));
  s.platform.nextDialogAnswers.push([file]);
  const r = await s.services.handlers['locker.add']({
    source: { from: 'picker' },
    documentType: 'passport',
    holder: { kind: 'person', name: holder },
    expiresOn,
  });
  return r.document!;
}

describe('notification floods', () => {
  it('100 documents coming due at once give one coalesced notification', async () => {
    let offset = 0;
    const dir = await tempDir();
    t = await startServices({
      notifications: { intervalMs: 10_000 },
      localNow: () => Date.now() + offset,
      rfis: { autoStart: false },
    });
    const expires = bankDay(t, 40);
    for (let i = 0; i < 100; i++) await addDocument(t, dir, i, expires);
    expect(t.platform.notifications).toEqual([]);
    // Five weeks later (bank clock): all 100 are inside the 30-day warning at once.
    offset = 35 * DAY_MS;
    expect(await t.services.locker.checkExpiry()).toBe(100);
    expect(t.platform.notifications.map((n) => n.title)).toEqual([
      '100 locker documents have expired or expire soon',
    ]);
    expect(t.platform.notifications[0]!.body).not.toMatch(/Holder/);
  }, 60_000);

  it('10 adds and 10 replaces of expired documents in a burst: one notification, then one summary', async () => {
    const dir = await tempDir();
    t = await startServices({ notifications: { intervalMs: 5_000 }, rfis: { autoStart: false } });
    const expired = bankDay(t, -3);
    const started = Date.now();
    const docs = [];
    for (let i = 0; i < 10; i++) docs.push(await addDocument(t, dir, i, expired));
    for (const [i, d] of docs.entries()) {
      const file = path.join(dir, `new-${i}.pdf`);
      await writeFile(file, pdf(100 + i));
      t.platform.nextDialogAnswers.push([file]);
      await t.services.handlers['locker.replace']({
        id: d.id,
        source: { from: 'picker' },
        expiresOn: expired,
      });
    }
    // The burst fits in one interval (even on a loaded machine).
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(t.platform.notifications).toHaveLength(1);
    await expect.poll(() => t!.platform.notifications.length, { timeout: 10_000 }).toBe(2);
    expect(t.platform.notifications[1]!.title).toMatch(/^\d+ locker documents have expired or expire soon$/);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(t.platform.notifications).toHaveLength(2);
  });

  it('a holder name with bidi overrides is stored and notified without them', async () => {
    const dir = await tempDir();
    t = await startServices({ rfis: { autoStart: false } });
    await addDocument(t, dir, 1, bankDay(t, 3), 'Ada \u202Eecalevol\u202C \u200BLovelace\u0007');
    const listed = (await t.services.handlers['locker.list'](undefined)).documents;
    expect(listed[0]!.holder.name).toBe('Ada ecalevol Lovelace');
    const body = t.platform.notifications[0]!.body;
    expect(body).toContain('Ada ecalevol Lovelace');
    expect(body).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B]/u);
    expect(body).not.toContain(String.fromCharCode(7));
  });

  it('cycling the reminder threshold 30 times re-fires nothing', async () => {
    t = await startServices({ reminders: {}, notifications: { intervalMs: 0 } });
    const due = () => t!.platform.notifications.filter((n) => n.title.startsWith('RFI due'));
    await t.services.handlers['rfis.sync'](undefined);
    await (await t.services.entityWatch.reminders()).check();
    const before = due().length;
    expect(before).toBeGreaterThan(0);
    // Thresholds at or looser than the tightest already shown: each set crosses one again, none may fire.
    const cycle = [[168, 48, 24], [72], [48], [96, 24], [200], [24], [100, 30], [36]];
    for (let i = 0; i < 30; i++) {
      await t.services.handlers['settings.update']({
        reminders: { enabled: true, hours: cycle[i % cycle.length]! },
      });
      await (await t.services.entityWatch.reminders()).check();
    }
    expect(due().length).toBe(before);
  });
});
