/**
 * The sandbox bank in a process of its own, for benches that measure the CPU time of the client
 * process only (process.cpuUsage counts every thread of a process, so an in-process or worker
 * sandbox would be measured too). Options come as JSON in argv[2]; the first stdout line is
 * `{"url", "controlSecret", "fixtures"}` (the parent reaches the control routes with that secret,
 * as a test does with a RunningSandbox). Each stdin line `{"advanceInMs", "seconds"}` moves the
 * bank's clock by `seconds` after `advanceInMs` on this process's own timer, so a busy client
 * cannot delay it, and answers `{"advanced", "status"}`. The process ends when its stdin closes
 * (the parent went away) or on SIGTERM.
 */
import { createInterface } from 'node:readline';
import { startSandbox } from '../../../src/sandbox/index';
import type { SandboxOptions } from '../../../src/sandbox/index';
import { sandboxStaff, StaffCallError } from '../../support/sandbox-staff';

const options = JSON.parse(process.argv[2] ?? '{}') as Partial<SandboxOptions>;
const sb = await startSandbox({ port: 0, ...options });
process.stdout.write(
  `${JSON.stringify({ url: sb.url, controlSecret: sb.controlSecret, fixtures: sb.fixtures })}\n`,
);

const advance = async (seconds: number): Promise<void> => {
  let status = 200;
  try {
    await sandboxStaff(sb).advanceClock(seconds);
  } catch (err) {
    status = err instanceof StaffCallError ? err.status : 0;
  }
  process.stdout.write(`${JSON.stringify({ advanced: seconds, status })}\n`);
};

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const { advanceInMs, seconds } = JSON.parse(line) as { advanceInMs: number; seconds: number };
  setTimeout(() => void advance(seconds), advanceInMs);
});
const stop = (): void => {
  void sb.close().finally(() => process.exit(0));
};
lines.on('close', stop);
process.on('SIGTERM', stop);
