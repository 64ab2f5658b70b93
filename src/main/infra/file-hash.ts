/**
 * sha256 of a file, streamed (never held in memory). A large file is hashed on a worker thread:
 * sha256 runs at ~250 MB/s on a core without SHA instructions, so hashing a 200 MB document on
 * main's one thread costs a second that everything else on it (the upload the hash belongs to,
 * IPC) would wait for. The worker is plain CommonJS given as text, so no bundler has to know of a
 * second entry file.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';

/** Below this, starting a worker costs more than hashing in place. */
export const OFF_THREAD_FROM_BYTES = 8 * 1024 * 1024;

// Synchronous reads into one buffer: the worker has nothing else to do, and memory stays at that
// buffer (a read stream's fresh chunk per read left tens of MB of garbage until the worker's GC).
const HASH_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { closeSync, openSync, readSync } = require('node:fs');
let fd = null;
try {
  fd = openSync(workerData.file, 'r');
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) hash.update(buffer.subarray(0, n));
  parentPort.postMessage({ sha256: hash.digest('hex') });
} catch (err) {
  parentPort.postMessage({ error: err.message, code: err.code });
} finally {
  if (fd !== null) closeSync(fd);
}
`;

/** sha256 (hex) of a file on a worker thread; a read error rejects as the read's own error would. */
export function sha256OfFileOnWorker(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // No execArgv: the worker needs none of the parent's loaders or flags.
    const worker = new Worker(HASH_WORKER, { eval: true, workerData: { file }, execArgv: [] });
    worker.once('message', (m: { sha256?: string; error?: string; code?: string }) => {
      if (typeof m.sha256 === 'string') resolve(m.sha256);
      else reject(Object.assign(new Error(m.error ?? 'the file could not be hashed'), { code: m.code }));
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the hashing worker stopped (exit ${code})`)));
  });
}

async function sha256InPlace(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** sha256 (hex) of a file: in place when it is small, on a worker thread when it is large. */
export async function sha256OfFile(file: string): Promise<string> {
  const { size } = await stat(file);
  return size >= OFF_THREAD_FROM_BYTES ? sha256OfFileOnWorker(file) : sha256InPlace(file);
}
