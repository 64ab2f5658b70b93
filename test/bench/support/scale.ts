/**
 * How big a bench run is. `npm run bench` measures at full size. The smoke run (`BENCH_SMOKE=1`,
 * what test/bench/smoke.test.ts starts inside `npm test`) runs every suite through the same code
 * at tiny counts, only to show that each one still sets up, runs and prints its figures. A BENCH_*
 * variable given explicitly wins over both (e.g. `BENCH_RFIS=2000 npm run bench -- rfi-queue`).
 */

/** True in the smoke run: tiny counts, and no step that would disturb a test run (a rebuild). */
export const SMOKE = process.env['BENCH_SMOKE'] === '1';

/** The count a suite uses: the variable when set, else the full or the smoke count. */
export function benchCount(variable: string, full: number, smoke: number): number {
  const given = process.env[variable];
  if (given === undefined || given === '') return SMOKE ? smoke : full;
  const n = Number(given);
  if (!Number.isInteger(n) || n <= 0)
    throw new Error(`${variable} must be a positive integer, not "${given}"`);
  return n;
}
