/**
 * The durable JSON store: the one way main reads and writes a state file (the idempotency ledger,
 * drafts, the outbox, the file registry, the RFI cache, the last RFI scopes, the window state, and
 * the pre-check of the settings-like stores).
 *
 * Reading a file:
 *   1. read it (a missing file is no problem: the caller starts empty; a file that cannot be read
 *      at all is treated like a damaged one);
 *   2. open the at-rest envelope when it is sealed (infra/at-rest.ts; plain files are accepted and
 *      flagged so the caller rewrites them sealed);
 *   3. parse the JSON and check it against the file's own stored schema, which carries a
 *      `version` field; an older version (or a file without one, version 0) is first upgraded by
 *      the format's migrations, one version at a time;
 *   4. a file that fails any of this is moved aside (`<name>.corrupt-<time>.<ext>`, bytes kept),
 *      logged, and reported to the analyst through `report` (the problems list in Settings).
 *
 * Writing a file: the whole content, sealed by the codec, through writeFileDurable (temp file,
 * fsync, rename with a bounded retry on Windows' EPERM/EACCES/EBUSY, fsync of the folder).
 *
 * Stored schemas live beside the module that owns the file, never in the IPC contract: a view can
 * change without an analyst's state being moved aside as corrupt.
 */
import type { Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { AtRestWaiting, isSealed, plainCodec } from './at-rest';
import type { AtRestCodec } from './at-rest';
import {
  createKeyedQueue,
  moveAside,
  openDurableStream,
  syncDirectory,
  writeFileDurable,
} from './durable-file';
import type { RenameFile } from './durable-file';
import type { Logger } from './log';

/** A file that could not be read: where it was, where its bytes are now, what the analyst reads. */
export interface StateFileProblem {
  file: string;
  movedTo: string | null;
  message: string;
}

/** Upgrades the content of one version to the next (version 0: a file without a version field). */
export type Migration = (raw: Record<string, unknown>) => Record<string, unknown>;

export interface StateFileFormat<T> {
  /** What the file holds, as the analyst reads it: "The outbox of RFI answers". */
  label: string;
  /** What follows for the analyst once the file is moved aside: "A new one was started." */
  consequence: string;
  /** The version new writes carry (and `schema` checks). */
  version: number;
  /** The stored shape of the current version, `version` field included. */
  schema: z.ZodType<T>;
  /** Upgrades by the version found: migrations[n] turns version n into n + 1. */
  migrations?: Readonly<Record<number, Migration>>;
  /** Spaces of indentation in the written JSON (default none). */
  indent?: number;
  /**
   * Read before the keychain answers, so never sealed: only for files without customer data,
   * identifiers or bank addresses (docs/security.md lists them and why).
   */
  plain?: true;
}

export interface StateFileOptions {
  /** Where unreadable files are logged (default: nowhere; `report` still tells). */
  log?: Logger;
  /** Seals and opens the content (default: plain). */
  codec?: AtRestCodec;
  /** Told about every file moved aside. */
  report?(problem: StateFileProblem): void;
  /** The rename of the durable write (tests inject a failing one). */
  rename?: RenameFile;
  /**
   * A sealed file while the codec waits for the keychain: it is left where it is (never moved
   * aside) and the read answers null; told here (default: reported once per file as waiting).
   */
  onWaiting?(waiting: AtRestWaiting): void;
}

export interface LoadedState<T> {
  value: T;
  /**
   * The file should be written again: it was plain while a data key is there, or of an older
   * version. Callers rewrite it when they are ready (at once, or at their next write).
   */
  stale: boolean;
}

export interface StateFile<T> {
  /**
   * The content of a file, or null when it is missing or could not be read (then moved aside and
   * reported). `check` refuses a valid content that is not the one expected (another RFI's, another
   * bank's): it answers why, or null to accept.
   */
  read(file: string, check?: (value: T) => string | null): Promise<LoadedState<T> | null>;
  /** Writes the whole content durably (sealed when the codec has a key). */
  write(file: string, value: T): Promise<void>;
  /**
   * Writes several files, each whole and atomically as `write` does, `concurrency` at a time, and
   * fsyncs their folders once at the end (not once per file); resolves when every one is durable.
   */
  writeMany(entries: ReadonlyArray<{ file: string; value: T }>, concurrency: number): Promise<void>;
}

/** Why a content was refused; thrown inside a read, caught there. */
class Unreadable extends Error {}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const field = issue.path.map(String).join('.');
  return field ? `${field}: ${issue.message}` : issue.message;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads, opens and decodes one file; moves it aside and reports it when any step fails. The
 * building block of StateFile; the stores (infra/stores.ts) use it with their own decoding.
 */
export async function loadStateFile<T>(
  file: string,
  decode: (raw: unknown) => T,
  o: StateFileOptions & { label: string; consequence: string },
): Promise<{ value: T; sealed: boolean } | null> {
  let why: string;
  try {
    const opened = await readSealed(o.codec ?? plainCodec, file);
    if (!opened) return null;
    const { text, sealed } = opened;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new Unreadable('not valid JSON');
    }
    return { value: decode(raw), sealed };
  } catch (err) {
    if (err instanceof AtRestWaiting) {
      o.log?.warn('state file: sealed, waiting for the keychain', { file });
      if (o.onWaiting) o.onWaiting(err);
      else {
        o.report?.({
          file,
          movedTo: null,
          message: `${o.label}: ${path.basename(file)} is encrypted and waiting for the keychain (${err.message}). It was left as it is and is opened once the keychain answers.`,
        });
      }
      return null;
    }
    why = err instanceof Error ? err.message : 'unreadable';
  }
  let movedTo: string | null = null;
  try {
    movedTo = await moveAside(file);
  } catch (err) {
    o.log?.error('state file: could not be moved aside', { file, error: err });
  }
  const where = movedTo ? `It was moved aside to ${path.basename(movedTo)}.` : 'It could not be moved aside.';
  const problem: StateFileProblem = {
    file,
    movedTo,
    message: `${o.label}: ${path.basename(file)} could not be read (${why}). ${where} ${o.consequence}`,
  };
  o.log?.error('state file: unreadable, moved aside', { file, movedTo, why });
  o.report?.(problem);
  return null;
}

/**
 * Upgrades a parsed content to the format's version and checks it; throws (with the reason the
 * analyst reads) when it cannot. `fill` supplies fields an older writer left out (the stores'
 * defaults); it applies after the migrations, never over what the file holds. Shared by
 * `stateFile` and the settings-like stores (infra/stores.ts).
 */
export function decodeVersioned<T>(
  format: StateFileFormat<T>,
  raw: unknown,
  fill?: Readonly<Record<string, unknown>>,
): { value: T; migrated: boolean } {
  if (!isObject(raw)) throw new Unreadable('not a JSON object');
  const found = raw['version'] === undefined ? 0 : raw['version'];
  if (typeof found !== 'number' || !Number.isInteger(found) || found < 0) {
    throw new Unreadable('its version is not a number');
  }
  if (found > format.version) {
    throw new Unreadable(`written by a newer version of the app (format ${found})`);
  }
  let content = raw;
  for (let v = found; v < format.version; v++) {
    const migrate = format.migrations?.[v];
    if (!migrate) throw new Unreadable(`format ${v} is no longer read`);
    content = { ...migrate(content), version: v + 1 };
  }
  if (fill) content = { ...fill, ...content, version: format.version };
  const r = format.schema.safeParse(content);
  if (!r.success) throw new Unreadable(`does not match the expected shape at ${firstIssue(r.error)}`);
  return { value: r.data, migrated: found !== format.version };
}

/** A state file format bound to its codec, log and problem report. */
export function stateFile<T>(format: StateFileFormat<T>, o: StateFileOptions): StateFile<T> {
  const codec = o.codec ?? plainCodec;
  const opts = { ...o, label: format.label, consequence: format.consequence };
  return {
    async read(file, check) {
      let migrated = false;
      const loaded = await loadStateFile(
        file,
        (raw) => {
          const d = decodeVersioned(format, raw);
          const refused = check?.(d.value) ?? null;
          if (refused !== null) throw new Unreadable(refused);
          migrated = d.migrated;
          return d.value;
        },
        opts,
      );
      if (!loaded) return null;
      return { value: loaded.value, stale: migrated || (!loaded.sealed && codec.encrypted) };
    },
    write(file, value) {
      const text = JSON.stringify(value, null, format.indent);
      return writeSealed(codec, file, text, o.rename ? { rename: o.rename } : {});
    },
    writeMany(entries, concurrency) {
      return writeSealedBatch(
        codec,
        entries.map((e) => ({ file: e.file, plain: () => JSON.stringify(e.value, null, format.indent) })),
        { concurrency, ...(o.rename ? { rename: o.rename } : {}) },
      );
    },
  };
}

/**
 * Several sealed files written as one batch: each sealed for its path and written atomically
 * (temp file, fsync, rename), `concurrency` at a time; then each folder is fsync'd once, and only
 * then the generations are recorded (a rename the folder's fsync has not made durable is never
 * taken for the expected generation). Files that were renamed before a failure stay written.
 * Each file's text is made in its turn, so the batch never holds every text at once.
 */
export function writeSealedBatch(
  codec: AtRestCodec,
  entries: ReadonlyArray<{ file: string; plain: () => string }>,
  options: { concurrency: number; rename?: RenameFile },
): Promise<void> {
  // After any write of these files still under way (the same order as writeSealed keeps).
  return writeTurns.all(
    entries.map((e) => e.file),
    async () => {
      const work = [...entries];
      const renamed: string[] = [];
      const writer = async (): Promise<void> => {
        for (let e = work.shift(); e; e = work.shift()) {
          await writeFileDurable(e.file, codec.seal(e.plain(), e.file), {
            ...(options.rename ? { rename: options.rename } : {}),
            syncDir: false,
          });
          renamed.push(e.file);
        }
      };
      const results = await Promise.allSettled(
        Array.from({ length: Math.max(1, Math.min(options.concurrency, entries.length)) }, writer),
      );
      for (const dir of new Set(renamed.map((f) => path.dirname(f)))) await syncDirectory(dir);
      for (const f of renamed) codec.written(f);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
  );
}

/**
 * The one durable write of a sealed file: sealed for its path with its next generation, written
 * atomically, then its generation recorded as the one expected on the next read.
 */
export function writeSealed(
  codec: AtRestCodec,
  file: string,
  plain: string,
  options: { rename?: RenameFile } = {},
): Promise<void> {
  // One write of a file at a time, sealed inside its turn: the file on disk always holds the
  // highest generation sealed for it, so two overlapping writes never look like a rollback.
  return writeTurns(file, async () => {
    await writeFileDurable(file, codec.seal(plain, file), options);
    codec.written(file);
  });
}

/** A sealed file written as its content arrives (see `openSealedStream`). */
export interface SealedStream {
  /** The next piece of the plain content. */
  write(plain: string): void;
  /** Seals the end, writes it durably over the file, and records its generation. */
  commit(): Promise<void>;
  /** Nothing is written: the file keeps what it held. */
  abort(): Promise<void>;
}

/**
 * A sealed file written piece by piece while its content still arrives (a full RFI listing, page
 * by page): sealed for its path and generation as `writeSealed` seals, written to a temp file as it
 * comes and renamed over the file at the commit. The file's write turn is held from the open to
 * the commit or abort, so no other write of it overlaps.
 */
export async function openSealedStream(codec: AtRestCodec, file: string): Promise<SealedStream> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const inTurn = new Promise<void>((resolve) => (entered = resolve));
  const turn = writeTurns(file, async () => {
    entered();
    await held;
  });
  await inTurn;
  const end = async (): Promise<void> => {
    release();
    await turn;
  };
  let seal: ReturnType<AtRestCodec['sealStream']>;
  let out: Awaited<ReturnType<typeof openDurableStream>>;
  try {
    seal = codec.sealStream(file);
    out = await openDurableStream(file);
  } catch (err) {
    await end();
    throw err;
  }
  if (seal.head) out.write(seal.head);
  return {
    write: (plain) => out.write(seal.update(plain)),
    async commit() {
      try {
        const { tail, patch } = seal.final();
        if (tail) out.write(tail);
        await out.commit(patch);
        codec.written(file);
      } finally {
        await end();
      }
    },
    async abort() {
      try {
        await out.abort();
      } finally {
        await end();
      }
    },
  };
}

/**
 * Where the durable store's sealed JSON files live in the data folder (relative paths; a folder
 * ends with '/'). The files read before the keychain answers are not among them (docs/security.md).
 */
const SEALED_PLACES = [
  'settings.json',
  'idempotency-ledger.json',
  'webhook-seen-events.json',
  'temp-files.json',
  'state/',
  'rfis/',
  'rfi-answers/',
  'locker/',
  'case-files/',
];
/** Read before the keychain answers, so kept plain (docs/security.md says why). */
const PLAIN_FILES = new Set(['state/desktop.json', 'window-state.json', 'crash-consent.json']);

async function jsonFilesUnder(dataDir: string, rel = ''): Promise<string[]> {
  let names: Dirent[];
  try {
    names = await readdir(path.join(dataDir, rel), { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const d of names) {
    const r = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) out.push(...(await jsonFilesUnder(dataDir, r)));
    else if (d.isFile() && d.name.endsWith('.json') && !d.name.includes('.corrupt-')) out.push(r);
  }
  return out;
}

/**
 * Writes every plain JSON file of the durable store again, sealed: run once the codec seals after
 * it did not (the keychain answered later in the run), so nothing written plain meanwhile stays
 * plain. Each file is read and written in its turn among the writes of that file (writeSealed's
 * order), so a write under way is never undone by an older content. Answers the files sealed.
 */
export async function resealPlainFiles(dataDir: string, codec: AtRestCodec, log?: Logger): Promise<string[]> {
  if (codec.state !== 'sealed') return [];
  const done: string[] = [];
  for (const rel of await jsonFilesUnder(dataDir)) {
    if (PLAIN_FILES.has(rel) || !SEALED_PLACES.some((p) => (p.endsWith('/') ? rel.startsWith(p) : rel === p)))
      continue;
    const file = path.join(dataDir, rel);
    try {
      if (await resealIfPlain(codec, file)) done.push(rel);
    } catch (err) {
      log?.warn('at rest: a plain file was not sealed', { file: rel, error: err });
    }
  }
  if (done.length > 0)
    log?.info('at rest: files written plain before the keychain answered are sealed', { count: done.length });
  return done;
}

/** Seals a plain file where it is, in its turn among the writes of that file; false when already sealed or gone. */
function resealIfPlain(codec: AtRestCodec, file: string): Promise<boolean> {
  return writeTurns(file, async () => {
    let stored: string;
    try {
      stored = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
    if (isSealed(stored)) return false;
    await writeFileDurable(file, codec.seal(stored, file));
    codec.written(file);
    return true;
  });
}

/** The writes of each file, one at a time in order (writeSealed, a batch, a re-seal). */
const writeTurns = createKeyedQueue();

/** Reads a sealed (or plain) file whole; null when missing. Throws AtRestError / AtRestWaiting. */
export async function readSealed(
  codec: AtRestCodec,
  file: string,
): Promise<{ text: string; sealed: boolean } | null> {
  let stored: string;
  try {
    stored = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return codec.open(stored, file);
}
