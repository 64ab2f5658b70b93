/**
 * Electron's crashReporter: minidumps are written to the local crash dumps folder
 * (app.getPath('crashDumps')) and uploaded nowhere, unless an administrator configured an upload
 * URL in the crash-report policy file (`{"submitURL": "https://…"}`) at
 * `TREASURY_DESK_CRASH_POLICY` (environment of the main process), else
 * /etc/treasury-desk/crash-reports.json (Linux), /Library/Application Support/Treasury
 * Desk/crash-reports.json (macOS), %ProgramData%\Treasury Desk\crash-reports.json (Windows): places
 * an administrator writes and the analyst's processes usually cannot. The URL must be https.
 * This is the pure rule; src/main/electron/crash/start.ts reads the file and starts the reporter.
 */
import path from 'node:path';
import type { CrashReporterStartOptions } from 'electron';
export function crashPolicyPath(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const fromEnv = env['TREASURY_DESK_CRASH_POLICY'];
  if (fromEnv) return fromEnv;
  if (platform === 'win32')
    return path.win32.join(env['ProgramData'] ?? 'C:\\ProgramData', 'Treasury Desk', 'crash-reports.json');
  if (platform === 'darwin') return '/Library/Application Support/Treasury Desk/crash-reports.json';
  return '/etc/treasury-desk/crash-reports.json';
}

/** The options for crashReporter.start from the policy file's text (null: no file). */
export function crashReporterOptions(
  policyText: string | null,
  productName: string,
): { options: CrashReporterStartOptions; problem: string | null } {
  const local: CrashReporterStartOptions = {
    productName,
    submitURL: '',
    uploadToServer: false,
    compress: true,
  };
  if (policyText === null) return { options: local, problem: null };
  let url: URL;
  try {
    const raw = (JSON.parse(policyText) as { submitURL?: unknown }).submitURL;
    if (typeof raw !== 'string') return { options: local, problem: 'crash policy without a submitURL' };
    url = new URL(raw);
  } catch {
    return { options: local, problem: 'crash policy is not valid JSON with a URL' };
  }
  if (url.protocol !== 'https:' || url.username || url.password)
    return { options: local, problem: 'crash upload URL must be https without credentials' };
  return { options: { ...local, submitURL: url.href, uploadToServer: true }, problem: null };
}
