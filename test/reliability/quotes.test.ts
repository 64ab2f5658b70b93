import { describe, expect, it } from 'vitest';
import { recordFigures } from './support/figures';
import { runSeed, trials } from '../support/rng';
import { runQuoteScenario } from './support/scenarios/quotes';

/** Quote confirmation under latency spikes: never confirmed at or after quote_valid_until. */
describe('reliability: quote confirmation under latency spikes', () => {
  const count = trials(16, 400);
  it(`${count} quotes confirmed at random moments around their expiry`, async () => {
    const seed = runSeed('quotes');
    const { figures, failures } = await runQuoteScenario({ seed, trials: count, concurrency: 20 });
    await recordFigures('quotes', figures);
    expect(failures, `seed ${seed}`).toEqual([]);
    expect(figures.confirmedAfterExpiry, `seed ${seed}`).toBe(0);
    expect(figures.disagreements, `seed ${seed}`).toBe(0);
    // Both sides of the boundary were exercised.
    expect(figures.confirmed, `seed ${seed}`).toBeGreaterThan(0);
    expect(
      Object.values(figures.refusedByGuard).reduce((a, b) => a + b, 0) + figures.refusedByBank,
      `seed ${seed}`,
    ).toBeGreaterThan(0);
  }, 600_000);
});
