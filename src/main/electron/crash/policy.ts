/**
 * Electron's crashReporter: minidumps are written to the local crash dumps folder
 * (app.getPath('crashDumps')) and uploaded nowhere. A minidump of the main process holds what main
 * held in memory at the crash: the bearer tokens read from the keychain, the data key that seals
 * the data folder, and customer data (RFIs, answers, documents being uploaded). So they leave the
 * machine only when both agree:
 *   - an administrator's crash-report policy file says so explicitly:
 *     `{"submitURL": "https://…", "uploadMinidumps": true}` (a URL alone is not enough), at
 *     `TREASURY_DESK_CRASH_POLICY` (environment of the main process), else
 *     /etc/treasury-desk/crash-reports.json (Linux), /Library/Application Support/Treasury
 *     EntityWatch/crash-reports.json (macOS), %ProgramData%\Treasury Desk\crash-reports.json (Windows):
 *     places an administrator writes and the analyst's processes usually cannot; https only;
 *   - and the analyst agreed once, in main's native dialog, to uploads to that very URL (the answer
 *     is kept in `crash-consent.json` in the data folder; a new URL asks again).
 * This is the pure rule; src/main/electron/crash/start.ts reads the files, starts the reporter
 * before ready (uploads off) and turns uploads on only after the analyst's agreement.
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

/** The analyst's answer to the upload question, for one URL. */
export interface CrashConsent {
  url: string;
  agreed: boolean;
}

/**
 * The options for crashReporter.start from the policy file's text (null: no file) and the
 * analyst's stored answer (null: never asked). `ask`: the URL the analyst must be asked about.
 */
export function crashReporterOptions(
  policyText: string | null,
  productName: string,
  consent: CrashConsent | null = null,
): { options: CrashReporterStartOptions; problem: string | null; ask: string | null } {
  const local: CrashReporterStartOptions = {
    productName,
    submitURL: '',
    uploadToServer: false,
    compress: true,
  };
  if (policyText === null) return { options: local, problem: null, ask: null };
  let url: URL;
  let explicit: unknown;
  try {
    const parsed = JSON.parse(policyText) as { submitURL?: unknown; uploadMinidumps?: unknown };
    const raw = parsed.submitURL;
    explicit = parsed.uploadMinidumps;
    if (typeof raw !== 'string')
      return { options: local, problem: 'crash policy without a submitURL', ask: null };
    url = new URL(raw);
  } catch {
    return { options: local, problem: 'crash policy is not valid JSON with a URL', ask: null };
  }
  if (url.protocol !== 'https:' || url.username || url.password)
    return { options: local, problem: 'crash upload URL must be https without credentials', ask: null };
  if (explicit !== true) {
    return { options: local, problem: 'crash policy does not set "uploadMinidumps": true', ask: null };
  }
  const withUrl = { ...local, submitURL: url.href };
  if (!consent || consent.url !== url.href) return { options: withUrl, problem: null, ask: url.href };
  return { options: { ...withUrl, uploadToServer: consent.agreed }, problem: null, ask: null };
}

/** The question main asks once (the answer is kept per URL). */
export function crashConsentQuestion(url: string): { message: string; detail: string; buttons: string[] } {
  return {
    message: `Send crash reports to ${new URL(url).host}?`,
    detail:
      'Your administrator asks that crash reports of Treasury Desk be sent to ' +
      `${url}. A crash report of the app's main process holds what it had in memory at the time: ` +
      'your bank access tokens, the key that encrypts your data on this computer, and customer data ' +
      '(RFIs, answers, documents). Reports stay on this computer unless you agree.',
    buttons: ['Keep them on this computer', 'Send crash reports'],
  };
}
