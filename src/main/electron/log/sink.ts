import log from 'electron-log/main';
import path from 'node:path';
import type { LogRecord, LogSink } from '../../infra/log';
import { formatLogLine, logFileName, logMaxSize, rotateLogFile } from './file';

export interface FileLog {
  /** The sink for createLogger(): lines arrive already redacted. */
  sink: LogSink;
  /** The folder holding main.log and its archives (Help → Open logs folder). */
  dir: string;
}

/**
 * electron-log as the file sink: rotated by size (src/main/electron/log/file.ts), one JSON line per
 * record, nothing else routed to it (no renderer IPC transport, no error catching that would
 * bypass the redacting logger). Console output only in development.
 */
export function createFileLog(isPackaged: boolean): FileLog {
  const file = log.transports.file;
  file.fileName = logFileName;
  file.maxSize = logMaxSize;
  file.format = '{text}';
  file.level = 'debug';
  file.archiveLogFn = (oldFile) => {
    try {
      rotateLogFile(oldFile.path);
    } catch {
      oldFile.clear();
    }
  };
  log.transports.console.level = isPackaged ? false : 'debug';
  if (log.transports.ipc) log.transports.ipc.level = false;
  const sink: LogSink = (record: LogRecord) => {
    log[record.level](formatLogLine(record));
  };
  return { sink, dir: path.dirname(file.getFile().path) };
}
