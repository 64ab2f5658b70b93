import { describe, expect, it } from 'vitest';
import { recordFigures } from './support/figures';
import { runSeed, trials } from '../support/rng';
import { runCrashScenario } from './support/scenarios/crash';

/** kill -9 of the services process while drafts autosave and the outbox runs; restart; nothing lost. */
describe('reliability: crash safety under SIGKILL', () => {
  const count = trials(5, 200);
  it(`${count} kills at random moments, then the outbox resumes`, async () => {
    const seed = runSeed('crash');
    const { figures, failures } = await runCrashScenario({ seed, trials: count });
    await recordFigures('crash', figures);
    expect(failures.slice(0, 20), `seed ${seed}`).toEqual([]);
    expect(figures.selfExits, `seed ${seed}`).toBe(0);
    expect(figures.lostDrafts + figures.tornDrafts + figures.lostAnswers, `seed ${seed}`).toBe(0);
    expect(
      figures.duplicates +
        figures.shaMismatches +
        figures.storeProblems +
        figures.tornFiles +
        figures.tokenOnDisk,
      `seed ${seed}`,
    ).toBe(0);
    expect(figures.jsonFilesChecked, `seed ${seed}`).toBeGreaterThan(0);
    expect(figures.answersLanded, `seed ${seed}`).toBe(figures.answersQueued);
    expect(figures.draftAcks, `seed ${seed}`).toBeGreaterThan(0);
    expect(figures.killsWhileWorking, `seed ${seed}`).toBeGreaterThan(0);
  }, 1_800_000);
});
