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
import { Readable } from 'node:stream';
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

// Reads the file a chunk at a time into a fresh buffer, hashes it, and hands that very buffer
// over (transferred: this thread can no longer touch it) to be sent, only as far as main has
// asked (credits), so memory stays at a few chunks. The hash of what it handed over comes last.
const READ_HASH_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { closeSync, openSync, readSync } = require('node:fs');
const hash = createHash('sha256');
let fd = null;
let credits = 0;
let ended = false;
function pump() {
  try {
    if (fd === null) fd = openSync(workerData.file, 'r');
    while (credits > 0 && !ended) {
      const buffer = new Uint8Array(workerData.chunkBytes);
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) {
        ended = true;
        closeSync(fd);
        parentPort.postMessage({ sha256: hash.digest('hex') });
        return;
      }
      const piece = buffer.subarray(0, n);
      hash.update(piece);
      credits--;
      parentPort.postMessage({ piece }, [buffer.buffer]);
    }
  } catch (err) {
    ended = true;
    parentPort.postMessage({ error: err.message, code: err.code });
  }
}
parentPort.on('message', (more) => {
  credits += more;
  pump();
});
`;

/** Chunks read ahead of what the upload has taken, at most. */
const READ_AHEAD_CHUNKS = 4;

/**
 * A file's bytes as a stream, read and hashed on a worker thread: each chunk is hashed there and
 * then handed over as it is (transferred, not copied), so the sha256 is of exactly the bytes the
 * stream delivers, main's thread only passes them on, and hashing overlaps sending. `onHashed`
 * is told the sha256 before the stream ends; never when it stops early or fails. A read error
 * fails the stream as the read's own error would.
 */
export function readHashedOnWorker(
  file: string,
  chunkBytes: number,
  onHashed: (sha256: string) => void,
): Readable {
  const worker = new Worker(READ_HASH_WORKER, { eval: true, workerData: { file, chunkBytes }, execArgv: [] });
  let asked = 0;
  let ended = false;
  const stream = new Readable({
    highWaterMark: chunkBytes,
    read() {
      if (asked >= READ_AHEAD_CHUNKS) return;
      worker.postMessage(READ_AHEAD_CHUNKS - asked);
      asked = READ_AHEAD_CHUNKS;
    },
    destroy(err, done) {
      ended = true;
      void worker.terminate();
      done(err);
    },
  });
  worker.on('message', (m: { piece?: Uint8Array; sha256?: string; error?: string; code?: string }) => {
    if (ended) return;
    if (m.piece) {
      asked--;
      stream.push(Buffer.from(m.piece.buffer, m.piece.byteOffset, m.piece.byteLength));
    } else if (typeof m.sha256 === 'string') {
      ended = true;
      onHashed(m.sha256);
      stream.push(null);
      void worker.terminate();
    } else {
      ended = true;
      stream.destroy(Object.assign(new Error(m.error ?? 'the file could not be read'), { code: m.code }));
    }
  });
  const fail = (err: Error): void => {
    if (ended) return;
    ended = true;
    stream.destroy(err);
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the hashing worker stopped (exit ${code})`)));
  return stream;
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
