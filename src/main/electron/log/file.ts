/**
 * The log file's rules, pure so they are tested in Node: one JSON line per record (already
 * redacted by src/main/infra/log.ts before any sink sees it), a size limit, and rotation keeping a few
 * numbered archives (main.1.log is the newest). src/main/electron/log/sink.ts plugs these into
 * electron-log's file transport.
 */
import { renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { LogRecord } from '../../infra/log';

export const logFileName = 'main.log';
/** Rotate when the current file passes 5 MiB. */
export const logMaxSize = 5 * 1024 * 1024;
/** Archives kept besides the current file: at most ~25 MiB of logs on disk. */
export const logArchives = 4;

export function formatLogLine(record: LogRecord): string {
  return JSON.stringify(record);
}

/** main.log → main.1.log → … → main.N.log; the oldest is deleted. Synchronous (electron-log's contract). */
export function rotateLogFile(filePath: string, keep: number = logArchives): void {
  const { dir, name, ext } = path.parse(filePath);
  const archive = (n: number): string => path.join(dir, `${name}.${n}${ext}`);
  rmSync(archive(keep), { force: true });
  for (let n = keep - 1; n >= 1; n--) {
    try {
      renameSync(archive(n), archive(n + 1));
    } catch {
      // a missing archive is fine
    }
  }
  renameSync(filePath, archive(1));
}
