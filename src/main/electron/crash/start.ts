import { app, crashReporter, dialog } from 'electron';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { privateFileMode } from '../../infra/durable-file';
import { crashConsentQuestion, crashPolicyPath, crashReporterOptions } from './policy';
import type { CrashConsent } from './policy';

const consentFile = (): string => path.join(app.getPath('userData'), 'crash-consent.json');

function readConsent(): CrashConsent | null {
  try {
    const c = JSON.parse(readFileSync(consentFile(), 'utf8')) as Partial<CrashConsent>;
    return typeof c.url === 'string' && typeof c.agreed === 'boolean'
      ? { url: c.url, agreed: c.agreed }
      : null;
  } catch {
    return null;
  }
}

/**
 * Starts Electron's crashReporter with the administrator's policy (./policy.ts), before ready,
 * uploads off unless the analyst already agreed for this URL; when the policy asks for uploads and
 * the analyst was never asked about this URL, asks once after ready (main's native dialog).
 */
export function startCrashReporter(productName: string, warn: (message: string) => void): void {
  let text: string | null = null;
  try {
    text = readFileSync(crashPolicyPath(), 'utf8');
  } catch {
    text = null;
  }
  const { options, problem, ask } = crashReporterOptions(text, productName, readConsent());
  if (problem) warn(`crash reports: ${problem}; kept local only`);
  crashReporter.start(options);
  if (!ask) return;
  void app
    .whenReady()
    .then(async () => {
      const q = crashConsentQuestion(ask);
      const r = await dialog.showMessageBox({
        type: 'question',
        title: 'Crash reports',
        message: q.message,
        detail: q.detail,
        buttons: q.buttons,
        defaultId: 0,
        cancelId: 0,
        noLink: true,
      });
      const agreed = r.response === 1;
      await writeFile(consentFile(), JSON.stringify({ url: ask, agreed }), { mode: privateFileMode });
      if (agreed) crashReporter.setUploadToServer(true);
    })
    .catch((err: unknown) => warn(`crash reports: consent not asked (${String(err)}); kept local only`));
}
