import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServerClock } from '../../src/main/bank/clock';
import { startServices } from '../support/services';
import type { TestServices } from '../support/services';
import { staffOf } from '../support/sandbox-staff';

/** The server clock: offset from Date headers (1 s resolution), with a skewed local clock injected. */
describe('server clock estimator', () => {
  /** A server `skew` ms ahead of local time answering with second-resolution Date headers. */
  function simulate(
    skew: number,
    local: { t: number },
    clock: ReturnType<typeof createServerClock>,
    n: number,
  ): void {
    for (let i = 0; i < n; i++) {
      local.t += 137 + ((i * 389) % 1000); // different sub-second phases
      const sent = local.t;
      const serverAt = sent + 10 + skew; // the server stamps 10 ms after we send
      local.t += 20; // round trip 20 ms
      clock.observe(new Date(Math.floor(serverAt / 1000) * 1000).toUTCString(), sent, local.t);
      // The true offset always lies inside the estimate's interval.
      expect(Math.abs(clock.offsetMs - skew)).toBeLessThanOrEqual(clock.uncertaintyMs + 1);
    }
  }

  it('answers local time before any sample', () => {
    const clock = createServerClock({ localNow: () => 1_000_000 });
    expect(clock.offsetMs).toBe(0);
    expect(clock.now()).toBe(1_000_000);
    expect(clock.uncertaintyMs).toBe(Infinity);
  });

  it('narrows a 1-second-resolution header to within the round trip', () => {
    const local = { t: 1_700_000_000_000 };
    const clock = createServerClock({ localNow: () => local.t });
    simulate(12_345, local, clock, 1);
    expect(Math.abs(clock.offsetMs - 12_345)).toBeLessThanOrEqual(1000);
    expect(clock.uncertaintyMs).toBeGreaterThan(400);
    simulate(12_345, local, clock, 15);
    expect(clock.uncertaintyMs).toBeLessThanOrEqual(100);
    expect(Math.abs(clock.offsetMs - 12_345)).toBeLessThanOrEqual(100);
    expect(Math.abs(clock.now() - (local.t + 12_345))).toBeLessThanOrEqual(100);
  });

  it('restarts from the newest answers when the local clock jumps', () => {
    const local = { t: 1_700_000_000_000 };
    const clock = createServerClock({ localNow: () => local.t });
    simulate(5_000, local, clock, 16);
    expect(Math.abs(clock.offsetMs - 5_000)).toBeLessThanOrEqual(100);
    // The analyst's machine clock moves one hour forward: the server is now 1 h − 5 s behind.
    local.t += 3_600_000;
    simulate(5_000 - 3_600_000, local, clock, 16);
    expect(Math.abs(clock.offsetMs - (5_000 - 3_600_000))).toBeLessThanOrEqual(100);
  });

  it('ignores answers without a usable Date or with an absurd round trip', () => {
    const clock = createServerClock({ localNow: () => 0, maxRoundTripMs: 1000 });
    clock.observe(undefined, 0, 10);
    clock.observe('not a date', 0, 10);
    clock.observe(new Date(50_000).toUTCString(), 0, 5000);
    expect(clock.samples).toBe(0);
  });
});

describe('server clock against the sandbox, local clock one hour slow', () => {
  let t: TestServices;
  const skew = -3_600_000;
  beforeAll(async () => {
    t = await startServices({ localNow: () => Date.now() + skew });
  });
  afterAll(() => t.close());

  it('every answer feeds the estimate; server time is right although the local clock is not', async () => {
    for (let i = 0; i < 6; i++) {
      await t.services.bank.getWebhookConfig();
      await new Promise((r) => setTimeout(r, 90));
    }
    expect(t.services.clock.samples).toBeGreaterThan(1);
    expect(Math.abs(t.services.clock.offsetMs + skew)).toBeLessThan(1000);
    expect(Math.abs(t.services.clock.now() - Date.now())).toBeLessThan(1000);

    const over = await t.services.handlers['session.clock'](undefined);
    expect(Math.abs(Date.parse(over.serverNow) - Date.now())).toBeLessThan(1000);
    expect(over.uncertaintyMs).not.toBeNull();
  });

  it('follows the sandbox when its clock is advanced (quote expiry uses server time)', async () => {
    await staffOf(t.services).advanceClock(600);
    for (let i = 0; i < 4; i++) await t.services.bank.getWebhookConfig();
    expect(Math.abs(t.services.clock.now() - (Date.now() + 600_000))).toBeLessThan(1500);
  });
});
