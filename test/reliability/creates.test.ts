import { describe, expect, it } from 'vitest';
import { recordFigures } from './support/figures';
import { runSeed, trials } from '../support/rng';
import { runCreatesScenario } from './support/scenarios/creates';

/**
 * Return intents and crypto orders under resets after the bank committed, truncated answers,
 * gateway 5xx, 5xx/429 bursts and lost answers, with retries by the same operation id and
 * restarts: exactly one transaction per intended operation at the bank, none lost.
 */
describe('reliability: creates exactly once under faults', () => {
  const count = trials(30, 1000);
  it(`${count} trials of returns and crypto orders against the sandbox through the fault proxy`, async () => {
    const seed = runSeed('creates');
    const { figures, failures } = await runCreatesScenario({ seed, trials: count });
    await recordFigures('creates', figures);
    expect(failures, `seed ${seed}`).toEqual([]);
    expect(figures.duplicates, `seed ${seed}`).toBe(0);
    expect(figures.lost, `seed ${seed}`).toBe(0);
    expect(figures.mismatched, `seed ${seed}`).toBe(0);
    expect(figures.keysPerOperationAboveOne, `seed ${seed}`).toBe(0);
    expect(figures.returns + figures.cryptoOrders).toBe(count);
    // The run really exercised the fault it is about.
    expect(figures.committedButLost, `seed ${seed}`).toBeGreaterThan(count / 4);
    expect(figures.analystRetries + figures.posts - count, `seed ${seed}`).toBeGreaterThan(0);
  }, 600_000);
});
