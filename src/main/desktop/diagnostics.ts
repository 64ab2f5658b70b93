/**
 * Help → Export diagnostics: a ZIP of the logs (redacted again on the way out) and the app and OS
 * versions, saved where the analyst chooses in main's native save dialog (the page never names a
 * path; nothing is sent anywhere). fflate builds the ZIP in memory: the logs are capped at ~25 MiB
 * by rotation (src/main/electron/log/file.ts), and it has no dependencies and no native code.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import type { Zippable } from 'fflate';
import type { Platform } from '../infra/platform';

export interface DiagnosticsInfo {
  app: { name: string; version: string; packaged: boolean };
  runtime: Record<string, string>;
  os: { platform: string; release: string; arch: string };
  /** When the export was made (ISO). */
  exportedAt: string;
}

/** Log files only: main.log and its numbered archives (nothing else from the folder). */
const logFile = /^main(\.\d+)?\.log$/;

export async function buildDiagnosticsZip(options: {
  logsDir: string;
  info: DiagnosticsInfo;
  redact(text: string): string;
}): Promise<{ zip: Uint8Array; entries: string[] }> {
  const files: Zippable = {};
  let names: string[] = [];
  try {
    names = (await readdir(options.logsDir)).filter((n) => logFile.test(n)).sort();
  } catch {
    // no logs folder yet: the versions still help
  }
  for (const name of names) {
    const text = await readFile(path.join(options.logsDir, name), 'utf8').catch(() => null);
    if (text !== null) files[`logs/${name}`] = strToU8(options.redact(text));
  }
  files['versions.json'] = strToU8(`${JSON.stringify(options.info, null, 2)}\n`);
  return { zip: zipSync(files, { level: 6 }), entries: Object.keys(files) };
}

/** Asks for the place (native save dialog), writes the ZIP there; null when cancelled. */
export async function exportDiagnostics(options: {
  platform: Pick<Platform, 'showSaveFileDialog'>;
  logsDir: string;
  info: DiagnosticsInfo;
  redact(text: string): string;
}): Promise<string | null> {
  const day = options.info.exportedAt.slice(0, 10);
  const target = await options.platform.showSaveFileDialog({
    title: 'Export diagnostics',
    defaultName: `treasury-desk-diagnostics-${day}.zip`,
    extensions: ['zip'],
  });
  if (!target) return null;
  const { zip } = await buildDiagnosticsZip(options);
  await writeFile(target, zip, { mode: 0o600 });
  return target;
}
