// Prints one plain closing line for the whole `npm test` run ("N passed, N failed"), from the
// JSON reports of vitest and Playwright, so a reader (or CI) sees the total at a glance.
import { readFileSync } from 'node:fs';

function read(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`test summary: cannot read ${path} (${err.message})`);
  }
}

const vitest = read('reports/vitest.json');
const playwright = read('reports/playwright.json');
const passed = vitest.numPassedTests + (playwright.stats?.expected ?? 0);
const failed = vitest.numFailedTests + (playwright.stats?.unexpected ?? 0) + (playwright.stats?.flaky ?? 0);
const skipped = vitest.numPendingTests + vitest.numTodoTests + (playwright.stats?.skipped ?? 0);
console.log(`vitest: ${vitest.numPassedTests} passed; playwright: ${playwright.stats?.expected ?? 0} passed`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
if (failed > 0 || passed === 0) process.exit(1);
