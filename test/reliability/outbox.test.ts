import { describe, expect, it } from 'vitest';
import { recordFigures } from './support/figures';
import { runSeed, soak, trials } from '../support/rng';
import { runOutboxScenario } from './support/scenarios/outbox';

/**
 * The RFI outbox under every fault of the proxy (resets before and after commit, truncated
 * answers, 5xx and 429 bursts, latency, a silent bank) and restarts: every queued answer lands
 * exactly once, documents with their exact bytes, nothing stuck once the bank behaves.
 */
describe('reliability: the RFI outbox under faults', () => {
  const answers = trials(24, 300);
  it(`${answers} answers (text and documents) queued during faults and restarts`, async () => {
    const seed = runSeed('outbox');
    const { figures, failures } = await runOutboxScenario({
      seed,
      answers,
      faultMs: soak ? 60_000 : 5_000,
      maxDocumentBytes: soak ? 1_500_000 : 150_000,
      drainDeadlineMs: soak ? 120_000 : 30_000,
    });
    await recordFigures('outbox', figures);
    expect(failures.slice(0, 20), `seed ${seed}`).toEqual([]);
    expect(figures.lost, `seed ${seed}`).toBe(0);
    expect(figures.duplicates, `seed ${seed}`).toBe(0);
    expect(figures.shaMismatches, `seed ${seed}`).toBe(0);
    expect(figures.stuck, `seed ${seed}`).toBe(0);
    expect(figures.documents, `seed ${seed}`).toBeGreaterThan(0);
    expect(figures.committedButLost, `seed ${seed}`).toBeGreaterThan(0);
  }, 900_000);
});
