/**
 * `npm run bench`: runs every suite in test/bench/suites (or those named on the command line) and
 * prints each measurement beside a baseline measured in the same run, as a ratio. No suite asserts
 * a time: targets are read from this report, not enforced by unit tests.
 *
 * A suite that throws, or answers no figure or one that is not a number, is reported as FAILED
 * and the run goes on with the next; the run then exits 1. With BENCH_SMOKE=1 every suite runs
 * at tiny counts (test/bench/support/scale.ts): the smoke run `npm test` includes.
 */
import { readdir } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import type { BenchSuite, BenchResult } from './types';
import { SMOKE } from './support/scale';

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);

function fmt(n: number): string {
  return Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 1 ? n.toFixed(2) : n.toPrecision(3);
}

/** Why a suite's answer is not a report: no figure, or a figure that is not a finite number. */
function problemOf(results: readonly BenchResult[]): string | null {
  if (results.length === 0) return 'it answered no figure';
  const bad = results.find((r) => !Number.isFinite(r.value) || !Number.isFinite(r.baseline));
  return bad ? `"${bad.metric}" is ${bad.value} against a baseline of ${bad.baseline}` : null;
}

async function runSuite(file: string, suite: BenchSuite): Promise<string | null> {
  if (suite.name !== path.basename(file, '.ts')) {
    return `the suite in ${file} is named "${suite.name}": name it as its file`;
  }
  let results: BenchResult[];
  try {
    results = await suite.run();
  } catch (err) {
    console.error(err);
    return err instanceof Error ? err.message : String(err);
  }
  for (const r of results) {
    const ratio = r.baseline > 0 ? r.value / r.baseline : NaN;
    process.stdout.write(
      `${r.metric}: ${fmt(r.value)} ${r.unit}  | ${r.baselineLabel}: ${fmt(r.baseline)} ${r.unit}  | ratio ${fmt(ratio)}${r.note ? `  (${r.note})` : ''}\n`,
    );
  }
  return problemOf(results);
}

async function main(): Promise<number> {
  const dir = path.join(here, 'suites');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.ts')).sort();
  const load = loadavg().map((x) => x.toFixed(2));
  process.stdout.write(
    `bench${SMOKE ? ' (smoke run: tiny counts, the figures mean nothing)' : ''}; host load average (1/5/15 min) ${load.join(' / ')}\n`,
  );
  let ran = 0;
  const failed: string[] = [];
  for (const file of files) {
    const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as { default: BenchSuite };
    const suite = mod.default;
    if (only.length > 0 && !only.some((o) => suite.name.includes(o) || file.includes(o))) continue;
    ran++;
    process.stdout.write(`\n## ${suite.name}\n`);
    const t0 = performance.now();
    const problem = await runSuite(file, suite);
    const seconds = ((performance.now() - t0) / 1000).toFixed(1);
    if (problem === null) {
      process.stdout.write(`(${suite.name}: ${seconds} s)\n`);
    } else {
      failed.push(suite.name);
      process.stdout.write(`FAILED ${suite.name} after ${seconds} s: ${problem}\n`);
    }
  }
  if (ran === 0) throw new Error(`no bench suite matches ${only.join(', ')}`);
  if (failed.length === 0) return 0;
  process.stdout.write(`\n${failed.length} of ${ran} suites failed: ${failed.join(', ')}\n`);
  return 1;
}

// Exits when the report is out, even if a failed suite left a server or a timer behind.
main().then(
  (code) => process.stdout.write('', () => process.exit(code)),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
