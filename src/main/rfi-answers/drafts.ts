/**
 * Drafts of answers, one file per RFI and bank (`drafts/<hash of bank scope + RFI id>.json`), each
 * holding the drafts of its questions. The bank scope (profile + origin) is written into the file
 * and checked on read, so the same RFI id at another bank never finds these drafts. Every save
 * rewrites the file atomically (temp file, fsync, rename) through the at-rest codec (encrypted
 * with the data key when there is one), so a crash leaves the previous or the new draft, never a
 * torn one. Works with no connection: nothing here talks to the bank. A file that cannot be read
 * or decrypted is moved aside and reported, never silently reset. A file from before scoping
 * (named by the RFI id alone) is adopted by the bank active when it is first opened.
 */

import { createHash } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { AtRestCodec } from '../infra/at-rest';
import { createSerialQueue } from '../infra/durable-file';
import { stateFile } from '../infra/json-store';
import type { StateFileProblem } from '../infra/json-store';
import type { Logger } from '../infra/log';

const draftRecord = z.object({
  questionType: z.string(),
  text: z.string(),
  files: z.array(z.string()),
  updatedAt: z.string(),
});
export type DraftRecord = z.infer<typeof draftRecord>;
const draftFile = z.object({
  version: z.literal(1),
  rfiId: z.string(),
  /** The bank scope key (absent in files from before scoping). */
  scope: z.string().optional(),
  drafts: z.record(z.string(), draftRecord),
});
type DraftFile = z.infer<typeof draftFile>;

const draftFormat = {
  label: 'The drafts of an RFI',
  consequence: 'Its unsent drafts are no longer shown.',
  version: 1,
  schema: draftFile,
};

/**
 * Every call may name the bank scope key of the profile that owns the RFI (`bankKey`); without it,
 * the default scope's (the active profile's) drafts are meant.
 */
export interface DraftStore {
  get(rfiId: string, scope?: string): Promise<Record<string, DraftRecord>>;
  getOne(rfiId: string, questionId: string, scope?: string): Promise<DraftRecord | null>;
  save(
    rfiId: string,
    questionId: string,
    draft: Omit<DraftRecord, 'updatedAt'>,
    scope?: string,
  ): Promise<DraftRecord>;
  /** Removes a draft; answers the one removed (its files may be released). */
  discard(rfiId: string, questionId: string, scope?: string): Promise<DraftRecord | null>;
  /** Every file ref some draft still holds. */
  referencedFiles(): Promise<Set<string>>;
  /** Deletes every draft of a profile (its scope key starts with `<profileId>|`); answers how many. */
  removeProfile(profileId: string): Promise<{ drafts: number; files: string[] }>;
}

export async function openDraftStore(o: {
  dir: string;
  log: Logger;
  onProblem?: (message: string, file: string, movedTo: string | null) => void;
  /** Seals and opens the files (default: plain). */
  codec?: AtRestCodec;
  /** The active bank scope key (profile + origin); default: one scope. */
  scope?: () => string;
}): Promise<DraftStore> {
  await mkdir(o.dir, { recursive: true, mode: 0o700 });
  const fileOptions = {
    log: o.log,
    ...(o.codec ? { codec: o.codec } : {}),
    report: (p: StateFileProblem) => o.onProblem?.(p.message, p.file, p.movedTo),
  };
  const store = stateFile(draftFormat, fileOptions);
  const scopeOf = o.scope ?? (() => '');
  const serial = createSerialQueue();
  /** Keyed by scope + RFI id. */
  const cache = new Map<string, DraftFile>();
  /**
   * A draft file's own name (`<32 hex>.json`): a file moved aside as unreadable
   * (`<name>.corrupt-<time>.json`) or anything else in the folder is never read as drafts again.
   */
  const isDraftFileName = (name: string): boolean => /^[0-9a-f]{32}\.json$/.test(name);
  const hashName = (s: string): string => `${createHash('sha256').update(s).digest('hex').slice(0, 32)}.json`;
  const legacyFileOf = (rfiId: string): string => path.join(o.dir, hashName(rfiId));
  const keyOf = (scope: string, rfiId: string): string => (scope === '' ? rfiId : `${scope}\u0000${rfiId}`);
  const fileOf = (scope: string, rfiId: string): string => path.join(o.dir, hashName(keyOf(scope, rfiId)));

  /** Reads one draft file; null when absent, or unreadable (then moved aside and reported). */
  const readOne = async (
    file: string,
    rfiId: string,
    scope: string | null,
  ): Promise<{ value: DraftFile; stale: boolean } | null> =>
    // Named by its RFI in what the analyst reads.
    stateFile({ ...draftFormat, label: `The drafts of RFI ${rfiId}` }, fileOptions).read(file, (f) => {
      if (f.rfiId !== rfiId) return 'belongs to another RFI';
      if (scope !== null && (f.scope ?? '') !== scope) return 'belongs to another bank';
      return null;
    });

  const load = async (scope: string, rfiId: string): Promise<DraftFile> => {
    const key = keyOf(scope, rfiId);
    const cached = cache.get(key);
    if (cached) return cached;
    let value: DraftFile = { version: 1, rfiId, scope, drafts: {} };
    const found = await readOne(fileOf(scope, rfiId), rfiId, scope);
    if (found) value = found.value;
    else if (scope !== '' && !adopted.has(rfiId)) {
      const legacy = await readOne(legacyFileOf(rfiId), rfiId, null);
      if (legacy && legacy.value.scope === undefined) {
        // Written under the new name at the next save, which then removes the old file.
        value = { ...legacy.value, scope };
        adopted.set(rfiId, legacyFileOf(rfiId));
      }
    }
    cache.set(key, value);
    return value;
  };

  /** Any draft file, whichever RFI and bank it is of (an unreadable one is moved aside and reported). */
  const peek = (file: string): Promise<{ value: DraftFile; stale: boolean } | null> =>
    store.read(file).catch(() => null);

  /** RFI id → file from before scoping, adopted by the active bank and removed at the next save. */
  const adopted = new Map<string, string>();

  const write = async (f: DraftFile): Promise<void> => {
    await store.write(fileOf(f.scope ?? '', f.rfiId), f);
    const legacy = adopted.get(f.rfiId);
    if (legacy && legacy !== fileOf(f.scope ?? '', f.rfiId)) {
      await rm(legacy, { force: true });
      adopted.set(f.rfiId, '');
    }
  };

  // Plain files (from before encryption, or from a run without a data key) are rewritten sealed
  // now that a key is there; nothing else uses the store yet.
  if (o.codec?.encrypted) {
    for (const name of await readdir(o.dir)) {
      if (!isDraftFileName(name)) continue;
      const file = path.join(o.dir, name);
      const found = await peek(file);
      if (found?.stale) await store.write(file, found.value);
    }
  }

  // The keychain answered later in the run: drafts read while waiting for it (none could be saved
  // meanwhile) are read again from disk.
  o.codec?.onSealed(() => serial(async () => cache.clear()));

  return {
    async get(rfiId, scope) {
      return { ...(await load(scope ?? scopeOf(), rfiId)).drafts };
    },
    async getOne(rfiId, questionId, scope) {
      const f = await load(scope ?? scopeOf(), rfiId);
      // Own keys only: a question id such as "constructor" must not find Object.prototype's.
      return Object.hasOwn(f.drafts, questionId) ? (f.drafts[questionId] ?? null) : null;
    },
    save(rfiId, questionId, draft, owner) {
      const scope = owner ?? scopeOf();
      return serial(async () => {
        const f = await load(scope, rfiId);
        const rec: DraftRecord = { ...draft, files: [...draft.files], updatedAt: new Date().toISOString() };
        const next: DraftFile = { ...f, drafts: { ...f.drafts, [questionId]: rec } };
        await write(next);
        cache.set(keyOf(scope, rfiId), next);
        return rec;
      });
    },
    discard(rfiId, questionId, owner) {
      const scope = owner ?? scopeOf();
      return serial(async () => {
        const f = await load(scope, rfiId);
        const old = Object.hasOwn(f.drafts, questionId) ? (f.drafts[questionId] ?? null) : null;
        if (!old) return null;
        const drafts = { ...f.drafts };
        delete drafts[questionId];
        const next: DraftFile = { ...f, drafts };
        await write(next);
        cache.set(keyOf(scope, rfiId), next);
        return old;
      });
    },
    async referencedFiles() {
      const out = new Set<string>();
      for (const name of await readdir(o.dir)) {
        if (!isDraftFileName(name)) continue;
        const found = await peek(path.join(o.dir, name));
        if (!found) continue;
        const f = cache.get(keyOf(found.value.scope ?? '', found.value.rfiId)) ?? found.value;
        for (const d of Object.values(f.drafts)) for (const ref of d.files) out.add(ref);
      }
      return out;
    },
    removeProfile(profileId) {
      return serial(async () => {
        let drafts = 0;
        const files: string[] = [];
        for (const name of await readdir(o.dir)) {
          if (!isDraftFileName(name)) continue;
          const found = await peek(path.join(o.dir, name));
          if (!found?.value.scope?.startsWith(`${profileId}|`)) continue;
          const f = found.value;
          drafts += Object.keys(f.drafts).length;
          for (const d of Object.values(f.drafts)) files.push(...d.files);
          cache.delete(keyOf(f.scope ?? '', f.rfiId));
          await rm(path.join(o.dir, name), { force: true });
        }
        return { drafts, files };
      });
    },
  };
}
