/**
 * `npm run bench`: runs every suite in test/bench/suites (or those named on the command line) and
 * prints each measurement beside a baseline measured in the same run, as a ratio. No suite asserts
 * a time: targets are read from this report, not enforced by unit tests.
 */
import { readdir } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import type { BenchSuite, BenchResult } from './types';

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);

function fmt(n: number): string {
  return Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 1 ? n.toFixed(2) : n.toPrecision(3);
}

async function main(): Promise<void> {
  const dir = path.join(here, 'suites');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.ts')).sort();
  const rows: Array<BenchResult & { suite: string }> = [];
  for (const file of files) {
    const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as { default: BenchSuite };
    const suite = mod.default;
    if (only.length > 0 && !only.some((o) => suite.name.includes(o) || file.includes(o))) continue;
    process.stdout.write(`\n## ${suite.name}\n`);
    for (const r of await suite.run()) {
      rows.push({ ...r, suite: suite.name });
      const ratio = r.baseline > 0 ? r.value / r.baseline : NaN;
      process.stdout.write(
        `${r.metric}: ${fmt(r.value)} ${r.unit}  | ${r.baselineLabel}: ${fmt(r.baseline)} ${r.unit}  | ratio ${fmt(ratio)}${r.note ? `  (${r.note})` : ''}\n`,
      );
    }
  }
  if (rows.length === 0) throw new Error('no bench suite ran');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
