/**
 * The registry of staged files (`rfi-answers/files.json`, sealed like every data file): which
 * opaque ref stands for which file, its checked type, its owning profile and, for bytes kept in
 * the staging folder, whether they are sealed and their sha256. At start, bytes in the staging
 * folder no ref points at (a registry write a kill lost) and parts of unfinished files are deleted.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { DOCUMENT_TYPES, UPLOAD_CONTENT_TYPES } from '../../shared/catalogue';
import type { StagedFileView } from '../../shared/ipc/channels/rfi-answers';
import type { AtRestCodec } from '../infra/at-rest';
import { createSerialQueue } from '../infra/durable-file';
import { stateFile } from '../infra/json-store';
import type { Logger } from '../infra/log';

const recordSchema = z.object({
  ref: z.string(),
  kind: z.enum(['picked', 'dropped']),
  path: z.string(),
  name: z.string(),
  sizeBytes: z.number().int(),
  contentType: z.enum(UPLOAD_CONTENT_TYPES),
  documentType: z.enum(DOCUMENT_TYPES),
  createdAt: z.string(),
  /** Dropped bytes sealed in chunks with the data key (absent: plain, from before sealing). */
  sealed: z.boolean().optional(),
  /**
   * sha256 of the plain bytes of a dropped file, taken as they arrived; of a picked file, taken
   * just after it was picked, while it keeps its size and `mtimeMs`.
   */
  sha256: z.string().optional(),
  /** A picked file's modification time when its sha256 was taken. */
  mtimeMs: z.number().optional(),
  /**
   * The profile (bank + credential) whose answer the file is for: named when it was staged, or
   * bound when an answer or draft of that profile first used it. Null: not bound yet.
   */
  profileId: z.string().nullable().optional(),
});
export type StagedFile = z.infer<typeof recordSchema>;

const registryFormat = {
  label: 'The list of files added to answers',
  consequence: 'Add the files of unsent answers again.',
  version: 1,
  schema: z.object({ version: z.literal(1), files: z.array(recordSchema) }),
};

export const newId = (prefix: string): string => `${prefix}_${randomBytes(12).toString('hex')}`;

export function toView(f: StagedFile): StagedFileView {
  return {
    ref: f.ref,
    name: f.name,
    sizeBytes: f.sizeBytes,
    contentType: f.contentType,
    documentType: f.documentType,
  };
}

export interface StagedRegistry {
  readonly files: Map<string, StagedFile>;
  readonly stagingDir: string;
  persist(): Promise<void>;
}

export async function openStagedRegistry(o: {
  dir: string;
  log: Logger;
  codec?: AtRestCodec | undefined;
  onProblem?: ((message: string, file: string, movedTo: string | null) => void) | undefined;
}): Promise<StagedRegistry> {
  const stagingDir = path.join(o.dir, 'staging');
  const registryFile = path.join(o.dir, 'files.json');
  await mkdir(stagingDir, { recursive: true, mode: 0o700 });
  const serial = createSerialQueue();
  const files = new Map<string, StagedFile>();
  const store = stateFile(registryFormat, {
    log: o.log,
    ...(o.codec ? { codec: o.codec } : {}),
    report: (p) => o.onProblem?.(p.message, p.file, p.movedTo),
  });
  const loaded = await store.read(registryFile);
  for (const f of loaded?.value.files ?? []) files.set(f.ref, f);
  const persist = (): Promise<void> =>
    serial(() => store.write(registryFile, { version: 1, files: [...files.values()] }));
  // A plain registry (from before encryption, or a run without a key) is rewritten sealed.
  if (loaded?.stale) await persist();
  // The keychain answered later in the run: a registry that waited for it is read now.
  o.codec?.onSealed(() =>
    serial(async () => {
      const again = await store.read(registryFile);
      for (const f of again?.value.files ?? []) if (!files.has(f.ref)) files.set(f.ref, f);
    }),
  );
  // Start-up: staged bytes no ref points at (a registry write a kill lost) are deleted; not while
  // the registry waits for the keychain (every staged file would look orphaned).
  const known = new Set([...files.values()].filter((f) => f.kind === 'dropped').map((f) => f.path));
  const waiting = o.codec?.state === 'waiting';
  for (const name of await readdir(stagingDir).catch(() => [] as string[])) {
    const full = path.join(stagingDir, name);
    if (name.endsWith('.part') || (name.endsWith('.bin') && !known.has(full) && !waiting))
      await rm(full, { force: true });
  }
  return { files, stagingDir, persist };
}
