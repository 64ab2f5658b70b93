/**
 * Schema-validated local state files (settings, drafts, caches, lists). The engine is `conf` in
 * Node and electron-store in the app (both write atomically); a factory passed to createServices
 * picks it. Every file is owner-only (0600).
 *
 * A file that cannot be parsed or does not match its schema is never silently reset: it is moved
 * aside (name.corrupt-<time>.json), the defaults start a new one, and the problem is reported
 * (log, `problems()`, and the `settings.problem` push event) so the analyst knows.
 */

import { renameSync } from 'node:fs';
import { chmod } from 'node:fs/promises';
import path from 'node:path';
import Conf from 'conf';
import type { z } from 'zod';
import { AppFailure } from '../../shared/ipc/errors';
import { AtRestWaiting, plainCodec } from './at-rest';
import type { AtRestCodec } from './at-rest';
import { asideName, privateFileMode } from './durable-file';
import { decodeVersioned, loadStateFile } from './json-store';
import type { StateFileFormat } from './json-store';
import type { Logger } from './log';

export interface StoreEngine {
  readonly path: string;
  store: Record<string, unknown>;
}

export interface StoreEngineOptions {
  /** Folder of the file. */
  cwd: string;
  /** File name without extension. */
  name: string;
  defaults: Record<string, unknown>;
  /** File mode (0600). */
  fileMode: number;
  /** Turns the content into the file's text (the at-rest codec seals it here). */
  serialize?: (value: Record<string, unknown>) => string;
  /** Turns the file's text back into content (the at-rest codec opens it here). */
  deserialize?: (text: string) => Record<string, unknown>;
}

export type StoreFactory = (options: StoreEngineOptions) => StoreEngine;

/** conf, for Node (tests, the browser harness). */
export const confStoreFactory: StoreFactory = (o) =>
  new Conf<Record<string, unknown>>({
    cwd: o.cwd,
    configName: o.name,
    projectName: 'treasury-desk',
    defaults: o.defaults,
    configFileMode: o.fileMode,
    clearInvalidConfig: false,
    accessPropertiesByDotNotation: false,
    ...(o.serialize ? { serialize: o.serialize } : {}),
    ...(o.deserialize ? { deserialize: o.deserialize } : {}),
  });

export interface LocalProblem {
  id: string;
  /** The file concerned, relative to the data folder. */
  file: string;
  /** Where the unreadable content was moved, relative to the data folder. */
  movedTo: string | null;
  message: string;
  at: string;
}

/**
 * The stored format of a store's file, defined beside its owner (never an IPC view schema): its
 * `schema` carries `version: z.literal(n)`; migrations[0] reads today's unversioned files.
 */
export type StoreFormat<T extends { version: number }> = StateFileFormat<T>;

/** A store's content as its owner sees it: the stored shape without its `version` field. */
export type StoreContent<T extends { version: number }> = Omit<T, 'version'>;

export interface TypedStore<T> {
  readonly path: string;
  get(): T;
  /** Validates and writes; a value that does not match the schema is refused (nothing written). */
  set(value: T): T;
  update(fn: (current: T) => T): T;
  /** Told when the content was read again from disk (the keychain answered later in the run). */
  onReloaded(listener: () => void): () => void;
}

export interface Stores {
  /**
   * Opens (or creates) `<dataDir>/state/<name>.json` in its stored format: an older version is
   * migrated (and written back), a damaged file or one of a newer version is moved aside and
   * reported, and the defaults start a new one.
   */
  open<T extends { version: number }>(
    name: string,
    format: StoreFormat<T>,
    defaults: StoreContent<T>,
  ): Promise<TypedStore<StoreContent<T>>>;
  /** Files that were unreadable and moved aside during this run. */
  problems(): LocalProblem[];
  /**
   * Records a problem found by another part of main (e.g. the ledger). Paths may be absolute or
   * relative to the data folder; they are kept relative.
   */
  report(problem: Omit<LocalProblem, 'id' | 'at'>): LocalProblem;
  dismiss(id: string): void;
  onProblem(listener: (p: LocalProblem) => void): () => void;
}

function firstIssue(error: z.ZodError): { field: string; message: string } {
  const issue = error.issues[0];
  const field = issue ? issue.path.map(String).join('.') : '';
  return { field, message: issue ? (field ? `${field}: ${issue.message}` : issue.message) : 'invalid' };
}

export interface StoresOptions {
  dataDir: string;
  factory: StoreFactory;
  log: Logger;
}

/** Stores plus opening a file in a given folder (main's own settings live in the data folder itself). */
export interface MainStores extends Stores {
  /**
   * The at-rest codec every store file goes through from now on (set once the keychain has
   * answered, before any store is opened).
   */
  useCodec(codec: AtRestCodec): void;
  openAt<T extends { version: number }>(
    dir: string,
    name: string,
    format: StoreFormat<T>,
    defaults: StoreContent<T>,
  ): Promise<TypedStore<StoreContent<T>>>;
}

export function createStores({ dataDir, factory, log }: StoresOptions): MainStores {
  const problems: LocalProblem[] = [];
  const listeners = new Set<(p: LocalProblem) => void>();
  let seq = 0;
  let storeCodec: AtRestCodec = plainCodec;
  /** Problems that only said a file waits for the keychain: gone once it answers. */
  const waitingProblems = new Set<string>();
  /** Each open store's switch to sealing, run when the codec seals (the keychain answered). */
  const sealedListeners = new Set<() => Promise<void>>();
  const rel = (p: string): string => path.relative(dataDir, p).split(path.sep).join('/');

  const inData = (p: string): string => (path.isAbsolute(p) ? rel(p) : p);
  const report: Stores['report'] = (p) => {
    const problem: LocalProblem = {
      file: inData(p.file),
      movedTo: p.movedTo === null ? null : inData(p.movedTo),
      message: p.message,
      id: `problem-${++seq}`,
      at: new Date().toISOString(),
    };
    problems.push(problem);
    // Nothing moved while the codec waits: the file only waits for the keychain.
    if (p.movedTo === null && storeCodec.state === 'waiting') waitingProblems.add(problem.id);
    log.error('local state: problem', {
      file: problem.file,
      movedTo: problem.movedTo,
      message: problem.message,
    });
    for (const l of [...listeners]) l(problem);
    return problem;
  };

  const openAt = async <T extends { version: number }>(
    dir: string,
    name: string,
    format: StoreFormat<T>,
    defaults: StoreContent<T>,
  ): Promise<TypedStore<StoreContent<T>>> => {
    type C = StoreContent<T>;
    if (!/^[a-z0-9][a-z0-9._-]{0,63}$/i.test(name)) throw new Error(`bad store name: ${name}`);
    const file = path.join(dir, `${name}.json`);
    const fill = defaults as Record<string, unknown>;
    const stored = (content: object): Record<string, unknown> => ({ ...content, version: format.version });
    const content = (value: T): C => {
      const { version: _version, ...rest } = value;
      return rest as C;
    };
    // Check (and migrate) the file before the engine sees it, through json-store's shared path:
    // conf would throw (or, configured so, reset); an unknown newer version must not be rewritten.
    const codec = format.plain ? plainCodec : storeCodec;
    /** The file's content, and whether it waits for the keychain (left as it is, not read). */
    const fromDisk = async () => {
      let waits = false;
      const value = await loadStateFile(file, (raw) => decodeVersioned(format, raw, fill), {
        log,
        report,
        codec,
        label: format.label,
        consequence: format.consequence,
        onWaiting: () => void (waits = true),
      });
      return { value, waits };
    };
    const { value: loaded, waits: waiting } = await fromDisk();
    const realEngine = (): StoreEngine =>
      factory({ cwd: dir, name, defaults: stored(defaults as object), ...sealedEngineOptions(codec, file) });
    let engine: StoreEngine;
    let inMemory = waiting || codec.state === 'waiting';
    if (inMemory) {
      // Sealed files and no key: the file stays as it is and nothing is written to disk (a write
      // would replace sealed content with plain text, or lose it). The run works in memory.
      const memory = { store: stored(loaded ? loaded.value.value : (defaults as object)) };
      engine = { path: file, store: memory.store };
    } else {
      engine = realEngine();
      codec.written(file);
      // An older version was read, or a plain file while a key is there: write it back as it should be.
      if (loaded && (loaded.value.migrated || (!loaded.sealed && codec.encrypted))) {
        engine.store = stored(loaded.value.value);
        codec.written(file);
      }
      await chmod(engine.path, privateFileMode).catch(() => undefined);
    }
    const reloadListeners = new Set<() => void>();

    /**
     * The codec seals now (the keychain answered later in the run): a file kept plain is written
     * again sealed; a store that ran in memory while waiting reads its sealed file (what is on
     * disk wins: changes made while waiting were said to last only for the run; a file that was
     * never written keeps them) and writes to disk from now on.
     */
    const onSealed = async (): Promise<void> => {
      if (codec === plainCodec || codec.state !== 'sealed') return;
      if (!inMemory) {
        const content = engine.store;
        engine.store = content;
        codec.written(file);
        return;
      }
      const again = await fromDisk();
      if (again.waits) return;
      const kept = engine.store;
      engine = realEngine();
      inMemory = false;
      engine.store = again.value ? stored(again.value.value.value) : kept;
      codec.written(file);
      await chmod(engine.path, privateFileMode).catch(() => undefined);
      for (const l of [...reloadListeners]) l();
    };
    sealedListeners.add(onSealed);

    const read = (): C => {
      let why = 'unreadable';
      try {
        return content(decodeVersioned(format, engine.store, fill).value);
      } catch (err) {
        if (err instanceof Error) why = err.message;
      }
      // Changed under us (edited by hand, disk trouble, a newer app): keep it aside, start from defaults.
      try {
        const movedTo = moveAsideSync(engine.path);
        report({
          file: rel(engine.path),
          movedTo: movedTo ? rel(movedTo) : null,
          message: `${format.label}: ${path.basename(engine.path)} became unreadable (${why}) and was moved aside. ${format.consequence}`,
        });
      } catch {
        // reported below by the write failing, if it does
      }
      try {
        engine.store = stored(defaults as object);
        codec.written(file);
      } catch {
        // waiting for the keychain: nothing is written
      }
      return defaults;
    };

    const typed: TypedStore<C> = {
      path: engine.path,
      get: read,
      set(value) {
        const r = format.schema.safeParse(stored(value as object));
        if (!r.success) {
          const { field, message } = firstIssue(r.error);
          throw new AppFailure({ kind: 'invalid_argument', field, message: `Not saved: ${message}` });
        }
        try {
          engine.store = r.data as Record<string, unknown>;
          codec.written(file);
        } catch (err) {
          if (err instanceof AtRestWaiting) {
            throw new AppFailure(
              {
                kind: 'keychain_unavailable',
                message: `Not saved: waiting for the keychain (${err.message}). Unlock it and restart Treasury Desk.`,
              },
              { cause: err },
            );
          }
          log.error('local state: write failed', { file: rel(engine.path), error: err });
          throw new AppFailure(
            { kind: 'local', message: `${path.basename(engine.path)} could not be written.` },
            { cause: err },
          );
        }
        return content(r.data);
      },
      update(fn) {
        return typed.set(fn(read()));
      },
      onReloaded(listener) {
        reloadListeners.add(listener);
        return () => reloadListeners.delete(listener);
      },
    };
    return typed;
  };

  return {
    useCodec(codec) {
      storeCodec = codec;
      codec.onSealed(async () => {
        for (let i = problems.length - 1; i >= 0; i--) {
          if (waitingProblems.has(problems[i]!.id)) problems.splice(i, 1);
        }
        waitingProblems.clear();
        for (const l of [...sealedListeners]) {
          try {
            await l();
          } catch (err) {
            log.error('local state: not written again sealed', { error: err });
          }
        }
      });
    },
    openAt,
    open: (name, format, defaults) => openAt(path.join(dataDir, 'state'), name, format, defaults),
    problems: () => [...problems],
    report,
    dismiss(id) {
      const i = problems.findIndex((p) => p.id === id);
      if (i >= 0) problems.splice(i, 1);
    },
    onProblem(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The engine's file mode and, unless the store is plain by design, its sealing through the codec. */
function sealedEngineOptions(
  codec: AtRestCodec,
  file: string,
): Pick<StoreEngineOptions, 'fileMode' | 'serialize' | 'deserialize'> {
  if (codec === plainCodec) return { fileMode: privateFileMode };
  return {
    fileMode: privateFileMode,
    serialize: (value) => codec.seal(JSON.stringify(value, null, '\t'), file),
    deserialize: (text) => JSON.parse(codec.open(text, file).text) as Record<string, unknown>,
  };
}

/** Synchronous move-aside for the read path (engines are synchronous). */
function moveAsideSync(file: string): string | null {
  const target = asideName(file);
  try {
    renameSync(file, target);
    return target;
  } catch {
    return null;
  }
}
