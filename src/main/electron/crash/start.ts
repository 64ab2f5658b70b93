import { crashReporter } from 'electron';
import { readFileSync } from 'node:fs';
import { crashPolicyPath, crashReporterOptions } from './policy';

/** Starts Electron's crashReporter with the administrator's policy (./policy.ts), before ready. */
export function startCrashReporter(productName: string, warn: (message: string) => void): void {
  let text: string | null = null;
  try {
    text = readFileSync(crashPolicyPath(), 'utf8');
  } catch {
    text = null;
  }
  const { options, problem } = crashReporterOptions(text, productName);
  if (problem) warn(`crash reports: ${problem}; kept local only`);
  crashReporter.start(options);
}
