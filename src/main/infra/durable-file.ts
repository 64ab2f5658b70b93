/**
 * Durable writes of the app's state files: owner-only mode, temp file + fsync + rename (retrying a
 * rename Windows refuses while the target is busy), durable appended lines, sweeping temp files
 * an interrupted write left, moving unreadable files aside, and a one-at-a-time write queue.
 */

import { randomBytes } from 'node:crypto';
import { open, readdir, rename, rm, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';

/** Owner-only: the app's state files hold business data of the analyst's bank. */
export const privateFileMode = 0o600;

async function fsyncDir(dir: string): Promise<void> {
  // Makes the rename itself durable. Not every platform lets a directory be opened (Windows).
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // best effort
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** Renames a file; the durable write's last step. Replaceable in tests (a failing rename). */
export type RenameFile = (from: string, to: string) => Promise<void>;

/** Rename errors Windows answers while another process (antivirus, indexer) holds the target. */
const busyRenameCodes = new Set(['EPERM', 'EACCES', 'EBUSY']);
const renameAttempts = 5;

/**
 * Renames, retrying a few times (20, 40, 80, 160 ms apart) on the errors Windows answers while the
 * target is briefly held open by another process; any other error, or the last one, is thrown.
 */
export async function renameWithRetry(
  from: string,
  to: string,
  renameFile: RenameFile = rename,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await renameFile(from, to);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (attempt >= renameAttempts || code === undefined || !busyRenameCodes.has(code)) throw err;
      await sleep(10 * 2 ** attempt);
    }
  }
}

export interface DurableWriteOptions {
  /** The rename used (tests inject a failing one). */
  rename?: RenameFile;
  /**
   * False: the folder is not fsync'd here; the caller writing several files into it calls
   * `syncDirectory` once after the last rename, before it reports them written.
   */
  syncDir?: boolean;
}

/** Makes the renames into a folder durable (one fsync of the folder for a batch of writes). */
export const syncDirectory = (dir: string): Promise<void> => fsyncDir(dir);

/**
 * Writes a whole file so that after a crash it holds either the old or the new content, never a
 * mix: temp file in the same folder, fsync, rename over the target (retried on Windows' transient
 * rename errors), fsync the folder.
 */
export async function writeFileDurable(
  file: string,
  data: string | Uint8Array,
  options: DurableWriteOptions = {},
): Promise<void> {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(tmp, 'wx', privateFileMode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw err;
  }
  await handle.close();
  await putInPlace(tmp, file, options);
}

/** The last steps of a durable write: the fsync'd temp file renamed over the target, the folder fsync'd. */
async function putInPlace(tmp: string, file: string, options: DurableWriteOptions): Promise<void> {
  try {
    await renameWithRetry(tmp, file, options.rename);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  if (options.syncDir !== false) await fsyncDir(path.dirname(file));
}

/** A whole file written piece by piece as its content arrives, then committed as writeFileDurable does. */
export interface DurableStream {
  /** Appends a piece (written in order, off the event loop, while the caller goes on). */
  write(text: string): void;
  /** After every piece: writes `patch` over the bytes at its offset, fsyncs, renames, fsyncs the folder. */
  commit(patch?: { offset: number; text: string } | null): Promise<void>;
  /** Drops the temp file: the target keeps what it held. */
  abort(): Promise<void>;
}

/**
 * Opens the temp file of a durable write whose content comes in pieces (the same temp name as
 * writeFileDurable, so a kill before the commit leaves only a temp file the start-up sweep removes).
 */
export async function openDurableStream(
  file: string,
  options: DurableWriteOptions = {},
): Promise<DurableStream> {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(tmp, 'wx', privateFileMode);
  let writing: Promise<unknown> = Promise.resolve();
  let failed: unknown = null;
  const drop = async (): Promise<void> => {
    await writing.catch(() => undefined);
    await handle.close().catch(() => undefined);
    await rm(tmp, { force: true });
  };
  return {
    write(text) {
      writing = writing.then(async () => {
        if (failed === null) await handle.write(text).catch((err: unknown) => (failed = err));
      });
    },
    async commit(patch) {
      try {
        await writing;
        if (failed !== null) throw failed;
        if (patch) {
          const bytes = Buffer.from(patch.text, 'utf8');
          await handle.write(bytes, 0, bytes.length, patch.offset);
        }
        await handle.sync();
      } catch (err) {
        await drop();
        throw err;
      }
      await handle.close();
      await putInPlace(tmp, file, options);
    },
    abort: drop,
  };
}

/** The temp-file name writeFileDurable uses: `.<target>.<12 hex>.tmp` beside the target. */
const tempFilePattern = /^\..+\.[0-9a-f]{12}\.tmp$/;

/**
 * Removes the temp files of writes that a crash or a kill interrupted before their rename. Their
 * targets still hold the previous content, so nothing is lost; call it once at start-up, before
 * anything writes (the app runs as a single instance). Returns how many were removed.
 */
export async function sweepInterruptedWrites(dir: string, depth = 4): Promise<number> {
  let removed = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && depth > 0) removed += await sweepInterruptedWrites(full, depth - 1);
    else if (entry.isFile() && tempFilePattern.test(entry.name)) {
      await rm(full, { force: true });
      removed++;
    }
  }
  return removed;
}

/** Appends one line (a newline is added) and fsyncs before resolving. */
export async function appendLineDurable(file: string, line: string): Promise<void> {
  const handle = await open(file, 'a', privateFileMode);
  try {
    await handle.appendFile(`${line}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function fileExists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/** Where a file that could not be read is kept: `name.corrupt-<time>.ext` beside it. */
export function asideName(file: string, now: Date = new Date()): string {
  const ext = path.extname(file);
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  return path.join(path.dirname(file), `${path.basename(file, ext)}.corrupt-${stamp}${ext}`);
}

/**
 * Moves a file that could not be read aside (name.corrupt-<time>.ext) so nothing is lost and a
 * fresh one can be started; answers the new path.
 */
export async function moveAside(file: string, now: Date = new Date()): Promise<string> {
  const target = asideName(file, now);
  await rename(file, target);
  return target;
}

/** A one-at-a-time queue: state files are rewritten whole, so writes must not interleave. */
export function createSerialQueue(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}

/**
 * One queue per key (a file's path): tasks of one key run one at a time, in order; tasks of
 * different keys run side by side. Nothing is kept for a key once its last task has ended.
 */
export interface KeyedQueue {
  <T>(key: string, task: () => Promise<T>): Promise<T>;
  /**
   * One task in the turn of several keys at once (a batch of files): it runs once every earlier
   * task of each key has ended, and every later task of any of them waits for it.
   */
  all<T>(keys: readonly string[], task: () => Promise<T>): Promise<T>;
}

export function createKeyedQueue(): KeyedQueue {
  const tails = new Map<string, Promise<void>>();
  const all = <T>(keys: readonly string[], task: () => Promise<T>): Promise<T> => {
    // A tail never rejects: a failed task does not stop the ones after it.
    const run = Promise.all(keys.map((k) => tails.get(k))).then(task);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    for (const key of keys) {
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
    }
    return run;
  };
  return Object.assign(<T>(key: string, task: () => Promise<T>): Promise<T> => all([key], task), { all });
}
