import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createServerClock } from '../../src/main/bank/clock';
import { ConfirmRefused, decideConfirm, guardedConfirm } from '../../src/main/crypto/guard';

/**
 * A simulated world: a bank whose clock runs `offsetMs` ahead of (or behind) ours, answers stamped
 * with a whole-second Date header, and random network latencies. The real ServerClock estimates
 * the bank's time from those answers; the guard decides on that estimate. Whatever the offsets
 * and latencies, a confirm is never sent at or after quote_valid_until in the bank's true time,
 * nor does it arrive there late when its one-way trip is no longer than the measured round trip
 * plus the safety margin.
 */
interface World {
  local: number;
  offsetMs: number;
}

const sampleArb = fc.record({
  gapMs: fc.integer({ min: 0, max: 5000 }),
  upMs: fc.integer({ min: 0, max: 1500 }),
  downMs: fc.integer({ min: 0, max: 1500 }),
});

const scenarioArb = fc.record({
  offsetMs: fc.integer({ min: -3 * 86_400_000, max: 3 * 86_400_000 }),
  localStart: fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }),
  samples: fc.array(sampleArb, { minLength: 1, maxLength: 8 }),
  ttlMs: fc.integer({ min: 0, max: 40_000 }),
  waitBeforeConfirmMs: fc.integer({ min: 0, max: 45_000 }),
  readUpMs: fc.integer({ min: 0, max: 2500 }),
  readDownMs: fc.integer({ min: 0, max: 2500 }),
  marginMs: fc.integer({ min: 0, max: 3000 }),
  /** The confirm's one-way trip, as a fraction of (round trip + margin). */
  sendFraction: fc.double({ min: 0, max: 1, noNaN: true }),
});

function httpDate(serverMs: number): string {
  return new Date(Math.floor(serverMs / 1000) * 1000).toUTCString();
}

describe('crypto confirm guard (property-based)', () => {
  it('never sends a confirm after quote_valid_until, across clock offsets and latencies', async () => {
    let sends = 0;
    let refusals = 0;
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (s) => {
        const world: World = { local: s.localStart, offsetMs: s.offsetMs };
        const serverTrue = (): number => world.local + world.offsetMs;
        const clock = createServerClock({ localNow: () => world.local });

        // Earlier answers (e.g. the quote's creation and reads) feed the clock.
        for (const x of s.samples) {
          world.local += x.gapMs;
          const sentAt = world.local;
          world.local += x.upMs;
          const stamp = httpDate(serverTrue());
          world.local += x.downMs;
          clock.observe(stamp, sentAt, world.local);
        }
        const validUntil = serverTrue() + s.ttlMs;
        world.local += s.waitBeforeConfirmMs;

        const sent: Array<{ at: number; arrives: number }> = [];
        let measuredRtt = 0;
        const readStart = { at: 0 };
        try {
          await guardedConfirm({
            localNow: () => world.local,
            clock,
            marginMs: s.marginMs,
            read: async () => {
              readStart.at = world.local;
              const sentAt = world.local;
              world.local += s.readUpMs;
              const status = serverTrue() < validUntil ? 'in_progress' : 'expired';
              const stamp = httpDate(serverTrue());
              world.local += s.readDownMs;
              clock.observe(stamp, sentAt, world.local);
              measuredRtt = world.local - readStart.at;
              return { status, validUntilMs: validUntil };
            },
            send: async () => {
              const oneWay = s.sendFraction * (measuredRtt + s.marginMs);
              sent.push({ at: serverTrue(), arrives: serverTrue() + oneWay });
              return 'sent';
            },
          });
        } catch (err) {
          expect(err).toBeInstanceOf(ConfirmRefused);
          refusals++;
        }
        sends += sent.length;
        for (const x of sent) {
          expect(x.at).toBeLessThan(validUntil);
          expect(x.arrives).toBeLessThan(validUntil);
        }
        expect(sent.length).toBeLessThanOrEqual(1);
      }),
      { numRuns: 3000 },
    );
    // Both branches are exercised: the property is not satisfied by refusing everything.
    expect(sends).toBeGreaterThan(300);
    expect(refusals).toBeGreaterThan(300);
  });

  it('allows a confirm when there is plenty of time (the guard is not a blanket refusal)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: -86_400_000, max: 86_400_000 }),
        fc.integer({ min: 0, max: 300 }),
        async (offsetMs, latency) => {
          const world: World = { local: 1_700_000_000_000, offsetMs };
          const clock = createServerClock({ localNow: () => world.local });
          for (let i = 0; i < 6; i++) {
            const sentAt = world.local;
            world.local += latency;
            const stamp = httpDate(world.local + offsetMs);
            world.local += latency + 137;
            clock.observe(stamp, sentAt, world.local);
          }
          const validUntil = world.local + offsetMs + 30_000;
          const result = await guardedConfirm({
            localNow: () => world.local,
            clock,
            marginMs: 2000,
            read: async () => ({ status: 'in_progress', validUntilMs: validUntil }),
            send: async () => 'sent',
          });
          expect(result).toBe('sent');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses without any clock sample, and when the quote is not in progress', async () => {
    const clock = createServerClock({ localNow: () => 1_700_000_000_000 });
    let sends = 0;
    const send = async (): Promise<string> => {
      sends++;
      return 'sent';
    };
    await expect(
      guardedConfirm({
        localNow: () => 1_700_000_000_000,
        clock,
        marginMs: 2000,
        read: async () => ({ status: 'in_progress', validUntilMs: 1_700_000_060_000 }),
        send,
      }),
    ).rejects.toMatchObject({ reason: 'NO_CLOCK' });
    clock.observe(httpDate(1_700_000_000_000), 1_700_000_000_000, 1_700_000_000_000);
    await expect(
      guardedConfirm({
        localNow: () => 1_700_000_000_000,
        clock,
        marginMs: 2000,
        read: async () => ({ status: 'expired', validUntilMs: 1_700_000_060_000 }),
        send,
      }),
    ).rejects.toMatchObject({ reason: 'EXPIRED' });
    await expect(
      guardedConfirm({
        localNow: () => 1_700_000_000_000,
        clock,
        marginMs: 2000,
        read: async () => ({ status: 'pending_execution', validUntilMs: 1_700_000_060_000 }),
        send,
      }),
    ).rejects.toMatchObject({ reason: 'NOT_CONFIRMABLE' });
    expect(sends).toBe(0);
  });

  it('decideConfirm: allowed only with more than margin + round trip + uncertainty left', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 ** 13 }),
        fc.integer({ min: -60_000, max: 60_000 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 0, max: 2000 }),
        (now, remaining, margin, rtt, uncertainty) => {
          const d = decideConfirm({
            validUntilMs: now + remaining,
            serverNowMs: now,
            uncertaintyMs: uncertainty,
            roundTripMs: rtt,
            marginMs: margin,
          });
          expect(d.allowed).toBe(remaining > margin + rtt + uncertainty && remaining > 0);
          if (!d.allowed && remaining <= 0) expect(d.reason).toBe('EXPIRED');
        },
      ),
    );
  });
});
