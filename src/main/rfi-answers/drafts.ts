import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { createSerialQueue, moveAside, writeFileDurable } from '../durable-file';
import type { Logger } from '../log';

/**
 * Drafts of answers, one file per RFI (`drafts/<hash of the RFI id>.json`), each holding the
 * drafts of its questions. Every save rewrites the file atomically (temp file, fsync, rename), so a
 * crash leaves the previous or the new draft, never a torn one. Works with no connection: nothing
 * here talks to the bank. A file that cannot be read is moved aside, never silently reset.
 */
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
  drafts: z.record(z.string(), draftRecord),
});
type DraftFile = z.infer<typeof draftFile>;

export interface DraftStore {
  get(rfiId: string): Promise<Record<string, DraftRecord>>;
  getOne(rfiId: string, questionId: string): Promise<DraftRecord | null>;
  save(rfiId: string, questionId: string, draft: Omit<DraftRecord, 'updatedAt'>): Promise<DraftRecord>;
  /** Removes a draft; answers the one removed (its files may be released). */
  discard(rfiId: string, questionId: string): Promise<DraftRecord | null>;
  /** Every file ref some draft still holds. */
  referencedFiles(): Promise<Set<string>>;
}

export async function openDraftStore(o: {
  dir: string;
  log: Logger;
  onProblem?: (message: string, file: string, movedTo: string | null) => void;
}): Promise<DraftStore> {
  await mkdir(o.dir, { recursive: true, mode: 0o700 });
  const serial = createSerialQueue();
  const cache = new Map<string, DraftFile>();
  const fileOf = (rfiId: string): string =>
    path.join(o.dir, `${createHash('sha256').update(rfiId).digest('hex').slice(0, 32)}.json`);

  const load = async (rfiId: string): Promise<DraftFile> => {
    const cached = cache.get(rfiId);
    if (cached) return cached;
    const file = fileOf(rfiId);
    let value: DraftFile = { version: 1, rfiId, drafts: {} };
    try {
      const raw = await readFile(file, 'utf8');
      const parsed = draftFile.safeParse(JSON.parse(raw));
      if (parsed.success && parsed.data.rfiId === rfiId) value = parsed.data;
      else throw new Error(parsed.success ? 'belongs to another RFI' : 'does not match the draft schema');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        const movedTo = await moveAside(file).catch(() => null);
        const message = `The drafts of RFI ${rfiId} could not be read; the file was moved aside.`;
        o.log.error('rfi-answers: drafts unreadable', { rfiId, movedTo, error: err });
        o.onProblem?.(message, file, movedTo);
      }
    }
    cache.set(rfiId, value);
    return value;
  };

  const write = async (f: DraftFile): Promise<void> => {
    await writeFileDurable(fileOf(f.rfiId), JSON.stringify(f));
  };

  return {
    async get(rfiId) {
      return { ...(await load(rfiId)).drafts };
    },
    async getOne(rfiId, questionId) {
      const f = await load(rfiId);
      // Own keys only: a question id such as "constructor" must not find Object.prototype's.
      return Object.hasOwn(f.drafts, questionId) ? (f.drafts[questionId] ?? null) : null;
    },
    save(rfiId, questionId, draft) {
      return serial(async () => {
        const f = await load(rfiId);
        const rec: DraftRecord = { ...draft, files: [...draft.files], updatedAt: new Date().toISOString() };
        const next: DraftFile = { ...f, drafts: { ...f.drafts, [questionId]: rec } };
        await write(next);
        cache.set(rfiId, next);
        return rec;
      });
    },
    discard(rfiId, questionId) {
      return serial(async () => {
        const f = await load(rfiId);
        const old = Object.hasOwn(f.drafts, questionId) ? (f.drafts[questionId] ?? null) : null;
        if (!old) return null;
        const drafts = { ...f.drafts };
        delete drafts[questionId];
        const next: DraftFile = { ...f, drafts };
        await write(next);
        cache.set(rfiId, next);
        return old;
      });
    },
    async referencedFiles() {
      const out = new Set<string>();
      for (const name of await readdir(o.dir)) {
        if (!name.endsWith('.json') || name.startsWith('.')) continue;
        try {
          const parsed = draftFile.safeParse(JSON.parse(await readFile(path.join(o.dir, name), 'utf8')));
          if (!parsed.success) continue;
          const f = cache.get(parsed.data.rfiId) ?? parsed.data;
          for (const d of Object.values(f.drafts)) for (const ref of d.files) out.add(ref);
        } catch {
          // unreadable files are handled when their RFI is opened
        }
      }
      return out;
    },
  };
}
