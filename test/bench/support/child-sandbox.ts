/**
 * Starts the sandbox bank in a process of its own (test/bench/support/sandbox-process.ts) and
 * talks to it: its URL, control secret and fixtures, moving its clock later on its own timer, and
 * closing it. For benches whose client must not share its thread (or its CPU figures) with the
 * bank: a sandbox in the same process serves on the client's one JavaScript thread.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Fixtures } from '../../../src/shared/api';
import type { StaffTarget } from '../../support/sandbox-staff';

const here = path.dirname(fileURLToPath(import.meta.url));

export interface ChildSandbox extends StaffTarget {
  fixtures: Fixtures;
  /** Moves the bank's clock after `inMs`, timed by the sandbox process (see sandbox-process.ts). */
  advanceLater(inMs: number, seconds: number): Promise<void>;
  close(): Promise<void>;
}

export async function startChildSandbox(options: Record<string, unknown>): Promise<ChildSandbox> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(here, 'sandbox-process.ts'), JSON.stringify(options)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout! });
  const waiting: Array<(line: string) => void> = [];
  lines.on('line', (l) => waiting.shift()?.(l));
  const nextLine = (): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      waiting.push(resolve);
      child.once('exit', (code) => reject(new Error(`sandbox process exited (${String(code)})`)));
    });
  const { url, controlSecret, fixtures } = JSON.parse(await nextLine()) as {
    url: string;
    controlSecret: string;
    fixtures: Fixtures;
  };
  return {
    url,
    controlSecret,
    fixtures,
    async advanceLater(inMs, seconds) {
      const answer = nextLine();
      child.stdin!.write(`${JSON.stringify({ advanceInMs: inMs, seconds })}\n`);
      const { status } = JSON.parse(await answer) as { status: number };
      if (status !== 200) throw new Error(`advance clock: ${status}`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.stdin?.end();
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}
