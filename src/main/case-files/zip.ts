/**
 * The case file's ZIP: each document streamed in from its temp file (stored, not recompressed:
 * PDFs and images are compressed already), named by its sha256 prefix and original name, written
 * with backpressure so memory stays flat, and a manifest.json listing them at the end.
 */

import { createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { Zip, ZipPassThrough } from 'fflate';
import { privateFileMode } from '../infra/durable-file';
import { cleanName } from './documents';
import type { DocInfo } from './documents';

export interface ManifestEntry {
  file: string;
  documentId: string;
  rfiId: string;
  questionId: string | null;
  name: string;
  documentType: string | null;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  uploadedAt: string | null;
}

export interface ZipSink {
  /** Adds a downloaded document (its plain bytes, hashed as `sha256`); answers its name in the ZIP. */
  add(info: DocInfo, sha256: string, bytes: AsyncIterable<Buffer | Uint8Array>): Promise<string>;
  /** Writes manifest.json (with `head` before the document list) and closes the file. */
  finish(head: Record<string, unknown>): Promise<void>;
  /** Stops writing (the caller removes the file). */
  destroy(): void;
}

/** Writes chunks to a file stream, waiting whenever the stream asks to (flat memory). */
function drainingWriter(out: WriteStream): {
  write(chunk: Uint8Array): Promise<void>;
  failed(): Error | null;
} {
  let error: Error | null = null;
  out.on('error', (e) => (error = e));
  return {
    async write(chunk) {
      if (error) throw error;
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', r));
    },
    failed: () => error,
  };
}

export function openZipSink(file: string): ZipSink {
  const out = createWriteStream(file, { mode: privateFileMode });
  const writer = drainingWriter(out);
  let zipError: Error | null = null;
  /** Chunks fflate produced, written with backpressure between pushes. */
  const pending: Uint8Array[] = [];
  const zip = new Zip((err, data) => {
    if (err) zipError = err;
    else pending.push(data);
  });
  const flush = async (): Promise<void> => {
    if (zipError) throw zipError;
    while (pending.length > 0) await writer.write(pending.shift()!);
  };
  const used = new Set<string>();
  const manifest: ManifestEntry[] = [];

  return {
    async add(info, sha256, bytes) {
      let name = `${sha256.slice(0, 12)}-${cleanName(info.name)}`;
      if (used.has(name)) name = `${sha256.slice(0, 12)}-${info.documentId}-${cleanName(info.name)}`;
      used.add(name);
      const entry = new ZipPassThrough(name);
      zip.add(entry);
      for await (const chunk of bytes) {
        entry.push(chunk);
        await flush();
      }
      entry.push(new Uint8Array(0), true);
      await flush();
      manifest.push({
        file: name,
        documentId: info.documentId,
        rfiId: info.rfiId,
        questionId: info.questionId,
        name: info.name,
        documentType: info.documentType,
        contentType: info.contentType,
        sizeBytes: info.sizeBytes ?? 0,
        sha256,
        uploadedAt: info.uploadedAt,
      });
      return name;
    },
    async finish(head) {
      const m = new ZipPassThrough('manifest.json');
      zip.add(m);
      const json = JSON.stringify({ ...head, documents: manifest }, null, 2);
      m.push(new TextEncoder().encode(json), true);
      zip.end();
      await flush();
      await new Promise<void>((resolve, reject) =>
        out.end((err?: Error | null) => (err ? reject(err) : resolve())),
      );
      const failed = writer.failed();
      if (failed) throw failed;
    },
    destroy: () => out.destroy(),
  };
}
