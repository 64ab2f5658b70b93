/**
 * Files an answer will upload. The renderer never names a path: the native picker (in main)
 * answers paths that are registered here under opaque refs, and dropped files arrive as bytes in
 * chunks written to a staging folder under the data folder, under a name main chooses. Every file
 * is checked before it is accepted: its content type is read from its first bytes (PDF, PNG,
 * JPEG: what the bank accepts), and its size against the upload limit.
 */

import { checkBytes, checkFile } from '../infra/file-structure';
import { cleanFileName } from '../../shared/names';
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { DOCUMENT_TYPES, UPLOAD_CONTENT_TYPES } from '../../shared/catalogue';
import type { DocumentType, UploadContentType } from '../../shared/catalogue';
import type { StagedFileView } from '../../shared/ipc/channels/rfi-answers';
import { DeskFailure } from '../../shared/ipc/errors';
import type { AtRestCodec } from '../infra/at-rest';
import { createSerialQueue, privateFileMode, writeFileDurable } from '../infra/durable-file';
import { stateFile } from '../infra/json-store';
import type { Logger } from '../infra/log';

export const CHUNK_BYTES = 512 * 1024;
export const UPLOAD_EXTENSIONS = ['pdf', 'png', 'jpg', 'jpeg'];

const recordSchema = z.object({
  ref: z.string(),
  kind: z.enum(['picked', 'dropped']),
  path: z.string(),
  name: z.string(),
  sizeBytes: z.number().int(),
  contentType: z.enum(UPLOAD_CONTENT_TYPES),
  documentType: z.enum(DOCUMENT_TYPES),
  createdAt: z.string(),
});
export type StagedFile = z.infer<typeof recordSchema>;
const fileSchema = z.object({ version: z.literal(1), files: z.array(recordSchema) });

const registryFormat = {
  label: 'The list of files added to answers',
  consequence: 'Add the files of unsent answers again.',
  version: 1,
  schema: fileSchema,
};

/** The content type of a file from its first bytes; null when it is none the bank accepts. */
export function sniffContentType(head: Uint8Array): UploadContentType | null {
  const b = Buffer.from(head);
  if (b.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  if (b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  return null;
}

/** A refusal by structure, in the words every refusal of a type uses. */
export function notAccepted(reason: string): string {
  return reason.startsWith('it is not a PDF')
    ? 'It is not a PDF, PNG or JPEG file (the types the bank accepts).'
    : `It is not a PDF, PNG or JPEG file the bank accepts: ${reason}.`;
}

const displayName = cleanFileName;

const newId = (prefix: string): string => `${prefix}_${randomBytes(12).toString('hex')}`;

interface Staging {
  id: string;
  ref: string;
  handle: FileHandle;
  partPath: string;
  received: number;
  sizeBytes: number;
  name: string;
  documentType: DocumentType;
}

export interface FileArea {
  readonly maxBytes: () => number;
  /** Registers files chosen in the native dialog (checked); answers accepted and refused files. */
  registerPicked(
    paths: string[],
    documentType: DocumentType,
  ): Promise<{ files: StagedFileView[]; refused: Array<{ name: string; message: string }> }>;
  begin(o: {
    name: string;
    contentType: string;
    sizeBytes: number;
    documentType: DocumentType;
  }): Promise<string>;
  chunk(stagingId: string, offset: number, base64: string): Promise<number>;
  commit(stagingId: string): Promise<StagedFileView>;
  abort(stagingId: string): Promise<void>;
  /**
   * Stages bytes main already holds (a locker document) as a dropped file under a name main
   * picks; they are checked like any other file.
   */
  adoptBytes(o: { name: string; documentType: DocumentType; bytes: Buffer }): Promise<StagedFileView>;
  /** The staged file of a ref; throws invalid_argument for a ref main never issued. */
  resolve(ref: string): StagedFile;
  view(ref: string): StagedFileView;
  /** Forgets refs (and deletes dropped bytes) no longer needed. */
  release(refs: string[]): Promise<void>;
  /**
   * Staged bytes expire: dropped files created before `before` (ms) whose ref is not in `keep`
   * (a queued answer's) are deleted and forgotten. Answers how many.
   */
  expire(before: number, keep: ReadonlySet<string>): Promise<number>;
  dispose(): Promise<void>;
}

export function toView(f: StagedFile): StagedFileView {
  return {
    ref: f.ref,
    name: f.name,
    sizeBytes: f.sizeBytes,
    contentType: f.contentType,
    documentType: f.documentType,
  };
}

export async function openFileArea(o: {
  dir: string;
  log: Logger;
  maxBytes: () => number;
  /** Seals and opens the registry (file names and paths) at rest (default: plain). */
  codec?: AtRestCodec;
  /** Told when the registry could not be read and was moved aside. */
  onProblem?: (message: string, file: string, movedTo: string | null) => void;
  /** The most bytes staged at once (dropped files kept plus files arriving); default 256 MiB. */
  quotaBytes?: number;
}): Promise<FileArea> {
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
  // A plain registry (from before encryption, or a run without a key) is rewritten sealed.
  const rewrite = loaded?.stale ?? false;
  const staging = new Map<string, Staging>();
  const persist = () => serial(() => store.write(registryFile, { version: 1, files: [...files.values()] }));
  if (rewrite) await persist();
  // Start-up: staged bytes no ref points at (a registry write a kill lost) are deleted.
  const known = new Set([...files.values()].filter((f) => f.kind === 'dropped').map((f) => f.path));
  for (const name of await readdir(stagingDir).catch(() => [] as string[])) {
    const full = path.join(stagingDir, name);
    if (name.endsWith('.part') || (name.endsWith('.bin') && !known.has(full)))
      await rm(full, { force: true });
  }
  const quota = o.quotaBytes ?? 256 * 1024 * 1024;
  const stagedBytes = (): number => {
    let sum = 0;
    for (const f of files.values()) if (f.kind === 'dropped') sum += f.sizeBytes;
    for (const s of staging.values()) sum += s.sizeBytes;
    return sum;
  };
  const overQuota = (adding: number): DeskFailure | null =>
    stagedBytes() + adding > quota
      ? new DeskFailure({
          kind: 'local',
          message: `Staged files would take more than ${(quota / (1024 * 1024)).toFixed(quota < 10 * 1024 * 1024 ? 1 : 0)} MiB on this computer. Send or remove answers with files first.`,
        })
      : null;

  const tooLarge = (size: number): string =>
    `The file is ${size} bytes; the bank accepts at most ${o.maxBytes()} bytes.`;

  const area: FileArea = {
    maxBytes: o.maxBytes,
    async registerPicked(paths, documentType) {
      const accepted: StagedFileView[] = [];
      const refused: Array<{ name: string; message: string }> = [];
      for (const p of paths) {
        const name = displayName(path.basename(p));
        try {
          if (!path.isAbsolute(p)) throw new Error('The dialog answered a relative path.');
          const s = await stat(p);
          if (!s.isFile()) throw new Error('It is not a file.');
          if (s.size === 0) throw new Error('The file is empty.');
          if (s.size > o.maxBytes()) throw new Error(tooLarge(s.size));
          const checked = await checkFile(p);
          if (!checked.ok) throw new Error(notAccepted(checked.reason));
          const ct = checked.type;
          const rec: StagedFile = {
            ref: newId('f'),
            kind: 'picked',
            path: p,
            name,
            sizeBytes: s.size,
            contentType: ct,
            documentType,
            createdAt: new Date().toISOString(),
          };
          files.set(rec.ref, rec);
          accepted.push(toView(rec));
        } catch (err) {
          refused.push({ name, message: err instanceof Error ? err.message : 'The file cannot be read.' });
        }
      }
      if (accepted.length > 0) await persist();
      return { files: accepted, refused };
    },
    async begin(b) {
      if (b.sizeBytes > o.maxBytes()) {
        throw new DeskFailure({
          kind: 'invalid_argument',
          field: 'sizeBytes',
          message: tooLarge(b.sizeBytes),
        });
      }
      const declared = b.contentType.split(';')[0]?.trim().toLowerCase() ?? '';
      if (declared !== '' && !(UPLOAD_CONTENT_TYPES as readonly string[]).includes(declared)) {
        throw new DeskFailure({
          kind: 'invalid_argument',
          field: 'contentType',
          message: `${displayName(b.name)} is ${declared}; the bank accepts PDF, PNG and JPEG files only.`,
        });
      }
      if (staging.size >= 8) {
        throw new DeskFailure({ kind: 'local', message: 'Too many files are being added at once.' });
      }
      const full = overQuota(b.sizeBytes);
      if (full) throw full;
      const id = newId('s');
      const ref = newId('f');
      // The name on disk is ours; the page's file name is kept for display only.
      const partPath = path.join(stagingDir, `${ref}.part`);
      const handle = await open(partPath, 'wx', privateFileMode);
      staging.set(id, {
        id,
        ref,
        handle,
        partPath,
        received: 0,
        sizeBytes: b.sizeBytes,
        name: displayName(b.name),
        documentType: b.documentType,
      });
      return id;
    },
    async chunk(stagingId, offset, base64) {
      const s = staging.get(stagingId);
      if (!s)
        throw new DeskFailure({
          kind: 'invalid_argument',
          field: 'stagingId',
          message: 'No such file being added.',
        });
      if (offset !== s.received) {
        throw new DeskFailure({
          kind: 'invalid_argument',
          field: 'offset',
          message: `Expected the chunk at ${s.received}, got ${offset}.`,
        });
      }
      const bytes = Buffer.from(base64, 'base64');
      if (bytes.length === 0 || bytes.length > CHUNK_BYTES) {
        throw new DeskFailure({
          kind: 'invalid_argument',
          field: 'data',
          message: `A chunk holds 1 to ${CHUNK_BYTES} bytes.`,
        });
      }
      if (s.received + bytes.length > s.sizeBytes) {
        await area.abort(stagingId);
        throw new DeskFailure({
          kind: 'invalid_argument',
          field: 'data',
          message: 'More bytes than the declared size.',
        });
      }
      await s.handle.write(bytes, 0, bytes.length, s.received);
      s.received += bytes.length;
      return s.received;
    },
    async commit(stagingId) {
      const s = staging.get(stagingId);
      if (!s)
        throw new DeskFailure({
          kind: 'invalid_argument',
          field: 'stagingId',
          message: 'No such file being added.',
        });
      if (s.received !== s.sizeBytes) {
        throw new DeskFailure({
          kind: 'invalid_argument',
          field: 'stagingId',
          message: `Only ${s.received} of ${s.sizeBytes} bytes arrived.`,
        });
      }
      staging.delete(stagingId);
      try {
        await s.handle.sync();
        await s.handle.close();
        const checked = await checkFile(s.partPath);
        if (!checked.ok) {
          throw new DeskFailure({
            kind: 'invalid_argument',
            field: 'data',
            message: `${s.name}: ${notAccepted(checked.reason)}`,
          });
        }
        const ct = checked.type;
        const final = path.join(stagingDir, `${s.ref}.bin`);
        await rename(s.partPath, final);
        const rec: StagedFile = {
          ref: s.ref,
          kind: 'dropped',
          path: final,
          name: s.name,
          sizeBytes: s.sizeBytes,
          contentType: ct,
          documentType: s.documentType,
          createdAt: new Date().toISOString(),
        };
        files.set(rec.ref, rec);
        await persist();
        return toView(rec);
      } catch (err) {
        await rm(s.partPath, { force: true });
        throw err;
      }
    },
    async abort(stagingId) {
      const s = staging.get(stagingId);
      if (!s) return;
      staging.delete(stagingId);
      await s.handle.close().catch(() => undefined);
      await rm(s.partPath, { force: true });
    },
    async adoptBytes({ name, documentType, bytes }) {
      const shown = displayName(name);
      if (bytes.length === 0 || bytes.length > o.maxBytes()) {
        throw new DeskFailure({
          kind: 'invalid_argument',
          field: 'files',
          message: `${shown}: ${tooLarge(bytes.length)}`,
        });
      }
      const checked = await checkBytes(bytes);
      if (!checked.ok) {
        throw new DeskFailure({
          kind: 'invalid_argument',
          field: 'files',
          message: `${shown}: ${notAccepted(checked.reason)}`,
        });
      }
      const ct = checked.type;
      const full = overQuota(bytes.length);
      if (full) throw full;
      const ref = newId('f');
      const final = path.join(stagingDir, `${ref}.bin`);
      await writeFileDurable(final, bytes);
      const rec: StagedFile = {
        ref,
        kind: 'dropped',
        path: final,
        name: shown,
        sizeBytes: bytes.length,
        contentType: ct,
        documentType,
        createdAt: new Date().toISOString(),
      };
      files.set(ref, rec);
      await persist();
      return toView(rec);
    },
    resolve(ref) {
      const f = files.get(ref);
      if (!f) {
        throw new DeskFailure({
          kind: 'invalid_argument',
          field: 'files',
          message: 'A file reference was not issued by this app (add the file again).',
        });
      }
      return f;
    },
    view(ref) {
      return toView(area.resolve(ref));
    },
    async release(refs) {
      let changed = false;
      for (const ref of refs) {
        const f = files.get(ref);
        if (!f) continue;
        files.delete(ref);
        changed = true;
        if (f.kind === 'dropped') await rm(f.path, { force: true });
      }
      if (changed) await persist();
    },
    async expire(before, keep) {
      const old = [...files.values()]
        .filter((f) => f.kind === 'dropped' && !keep.has(f.ref) && Date.parse(f.createdAt) < before)
        .map((f) => f.ref);
      await area.release(old);
      return old.length;
    },
    async dispose() {
      for (const id of [...staging.keys()]) await area.abort(id);
    },
  };
  return area;
}
