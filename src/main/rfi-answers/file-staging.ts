/**
 * Dropped files: bytes the page sends in chunks (base64) are sealed as they arrive into the
 * staging folder under a name main chooses (`<ref>.bin.part`, renamed into place once whole), never
 * kept whole in memory and never written plain while a data key exists. A file is accepted once
 * all its declared bytes arrived and its structure is that of a type the bank takes.
 */
import path from 'node:path';
import { UPLOAD_CONTENT_TYPES } from '../../shared/catalogue';
import type { DocumentType } from '../../shared/catalogue';
import { cleanFileName } from '../../shared/names';
import { AppFailure } from '../../shared/ipc/errors';
import type { BlobCodec, BlobWriter } from '../infra/sealed-blob';
import { blobWriter } from '../infra/sealed-blob';
import { checkStored } from './file-checks';
import { newId } from './file-registry';
import type { StagedFile } from './file-registry';

export const CHUNK_BYTES = 512 * 1024;
/** Files arriving at once. */
const MAX_ARRIVING = 8;

interface Arriving {
  ref: string;
  writer: BlobWriter;
  final: string;
  sizeBytes: number;
  name: string;
  documentType: DocumentType;
  profileId: string | null;
}

/** What the page says of a file it is about to drop; the name is for display only. */
export interface DroppedFileStart {
  name: string;
  contentType: string;
  sizeBytes: number;
  documentType: DocumentType;
  /** The profile whose answer the file is for (null or absent: bound on first use). */
  profileId?: string | null | undefined;
}

export interface DroppedFiles {
  begin(o: DroppedFileStart): Promise<string>;
  chunk(stagingId: string, offset: number, base64: string): Promise<number>;
  /** The whole file, checked, as a record (the caller registers it). */
  commit(stagingId: string): Promise<StagedFile>;
  abort(stagingId: string): Promise<void>;
  /** Bytes announced by files still arriving. */
  arrivingBytes(): number;
  dispose(): Promise<void>;
}

const noSuchFile = (): AppFailure =>
  new AppFailure({ kind: 'invalid_argument', field: 'stagingId', message: 'No such file being added.' });

export function droppedFiles(o: {
  stagingDir: string;
  blobs: () => BlobCodec;
  maxBytes: () => number;
  tooLarge: (size: number) => string;
  /** The refusal when `adding` more bytes would pass the staging quota, else null. */
  overQuota: (adding: number) => AppFailure | null;
}): DroppedFiles {
  const arriving = new Map<string, Arriving>();
  const get = (stagingId: string): Arriving => {
    const s = arriving.get(stagingId);
    if (!s) throw noSuchFile();
    return s;
  };
  const files: DroppedFiles = {
    async begin(b) {
      if (b.sizeBytes > o.maxBytes()) {
        throw new AppFailure({
          kind: 'invalid_argument',
          field: 'sizeBytes',
          message: o.tooLarge(b.sizeBytes),
        });
      }
      const declared = b.contentType.split(';')[0]?.trim().toLowerCase() ?? '';
      if (declared !== '' && !(UPLOAD_CONTENT_TYPES as readonly string[]).includes(declared)) {
        throw new AppFailure({
          kind: 'invalid_argument',
          field: 'contentType',
          message: `${cleanFileName(b.name)} is ${declared}; the bank accepts PDF, PNG and JPEG files only.`,
        });
      }
      if (arriving.size >= MAX_ARRIVING) {
        throw new AppFailure({ kind: 'local', message: 'Too many files are being added at once.' });
      }
      const full = o.overQuota(b.sizeBytes);
      if (full) throw full;
      const id = newId('s');
      const ref = newId('f');
      // The name on disk is ours; the page's file name is kept for display only.
      const final = path.join(o.stagingDir, `${ref}.bin`);
      const writer = await blobWriter(o.blobs(), final);
      arriving.set(id, {
        ref,
        writer,
        final,
        sizeBytes: b.sizeBytes,
        name: cleanFileName(b.name),
        documentType: b.documentType,
        profileId: b.profileId ?? null,
      });
      return id;
    },
    async chunk(stagingId, offset, base64) {
      const s = get(stagingId);
      if (offset !== s.writer.received) {
        throw new AppFailure({
          kind: 'invalid_argument',
          field: 'offset',
          message: `Expected the chunk at ${s.writer.received}, got ${offset}.`,
        });
      }
      const bytes = Buffer.from(base64, 'base64');
      if (bytes.length === 0 || bytes.length > CHUNK_BYTES) {
        throw new AppFailure({
          kind: 'invalid_argument',
          field: 'data',
          message: `A chunk holds 1 to ${CHUNK_BYTES} bytes.`,
        });
      }
      if (s.writer.received + bytes.length > s.sizeBytes) {
        await files.abort(stagingId);
        throw new AppFailure({
          kind: 'invalid_argument',
          field: 'data',
          message: 'More bytes than the declared size.',
        });
      }
      await s.writer.write(bytes);
      return s.writer.received;
    },
    async commit(stagingId) {
      const s = get(stagingId);
      if (s.writer.received !== s.sizeBytes) {
        throw new AppFailure({
          kind: 'invalid_argument',
          field: 'stagingId',
          message: `Only ${s.writer.received} of ${s.sizeBytes} bytes arrived.`,
        });
      }
      arriving.delete(stagingId);
      let written: Awaited<ReturnType<BlobWriter['finish']>>;
      try {
        written = await s.writer.finish();
      } catch (err) {
        await s.writer.abort();
        throw err;
      }
      const contentType = await checkStored(o.blobs(), s.final, written.sealed, s.name, 'data');
      return {
        ref: s.ref,
        kind: 'dropped',
        path: s.final,
        name: s.name,
        sizeBytes: written.sizeBytes,
        contentType,
        documentType: s.documentType,
        createdAt: new Date().toISOString(),
        sealed: written.sealed,
        sha256: written.sha256,
        profileId: s.profileId,
      };
    },
    async abort(stagingId) {
      const s = arriving.get(stagingId);
      if (!s) return;
      arriving.delete(stagingId);
      await s.writer.abort();
    },
    arrivingBytes() {
      let sum = 0;
      for (const s of arriving.values()) sum += s.sizeBytes;
      return sum;
    },
    async dispose() {
      for (const id of [...arriving.keys()]) await files.abort(id);
    },
  };
  return files;
}
