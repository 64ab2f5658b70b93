/**
 * The bench smoke run, part of `npm test` (the vitest project `bench`): `npm run bench` with
 * BENCH_SMOKE=1 in a process of its own, so every suite in test/bench/suites runs through the same
 * code as a real run (its setup, the sandbox, Chromium, the services), at tiny counts
 * (test/bench/support/scale.ts). It asserts only that each suite ran and printed its figures, a
 * number beside a baseline, so a suite whose setup breaks fails here instead of rotting until the
 * next measurement. Times are not checked: at these counts they mean nothing, and targets are
 * read from a full `npm run bench`. Needs `npm run build` (the Chromium suites serve out/renderer,
 * as the repo and e2e tests do); no network.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
/** Every suite, by file: run.ts requires a suite to be named as its file. */
const suites = readdirSync(path.join(here, 'suites'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => path.basename(f, '.ts'))
  .sort();

/** The whole smoke run is killed after this; it takes about a minute on a busy 2-core machine. */
const RUN_LIMIT_MS = 240_000;

/** One printed figure: `metric: value unit  | baseline label: baseline unit  | ratio r`. */
const FIGURE = /^.+: -?\d[\d.e+-]* \S+ {2}\| .+: -?\d[\d.e+-]* \S+ {2}\| ratio \S+/;

interface SmokeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
}

function smokeRun(): Promise<SmokeRun> {
  // Counts come from the smoke run alone, not from BENCH_* variables of the shell.
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('BENCH_')) env[k] = v;
  env['BENCH_SMOKE'] = '1';
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', 'bench'], {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const limit = setTimeout(() => {
      stderr += `\n[smoke] killed after ${RUN_LIMIT_MS / 1000} s\n`;
      child.kill('SIGKILL');
    }, RUN_LIMIT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(limit);
      resolve({ code, stdout, stderr, seconds: (performance.now() - t0) / 1000 });
    });
  });
}

/** The lines printed under `## name`, up to the next suite. */
function sectionOf(stdout: string, name: string): string[] | null {
  const lines = stdout.split('\n');
  const start = lines.indexOf(`## ${name}`);
  if (start < 0) return null;
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => l.startsWith('## '));
  return end < 0 ? rest : rest.slice(0, end);
}

describe('bench smoke run (npm run bench at tiny counts)', () => {
  let run: SmokeRun;
  const tail = (): string =>
    `\n--- stdout (end) ---\n${run.stdout.slice(-3000)}\n--- stderr (end) ---\n${run.stderr.slice(-3000)}`;

  beforeAll(async () => {
    run = await smokeRun();
  }, RUN_LIMIT_MS + 10_000);

  it('finds the suites', () => {
    expect(suites.length).toBeGreaterThan(0);
  });

  it.each(suites)('%s ran and printed its figures', (name) => {
    const section = sectionOf(run.stdout, name);
    expect(section, `the run printed no "## ${name}" section${tail()}`).not.toBeNull();
    const failed = section!.find((l) => l.startsWith(`FAILED ${name}`));
    expect(failed, `${failed ?? ''}${tail()}`).toBeUndefined();
    expect(section!.filter((l) => FIGURE.test(l)).length, `no figure printed${tail()}`).toBeGreaterThan(0);
    // The closing line run.ts prints once the suite's figures are all checked.
    expect(
      section!.some((l) => new RegExp(`^\\(${name}: [\\d.]+ s\\)$`).test(l)),
      tail(),
    ).toBe(true);
  });

  it('exits 0', () => {
    expect(run.code, `exit ${String(run.code)} after ${run.seconds.toFixed(0)} s${tail()}`).toBe(0);
  });
});
