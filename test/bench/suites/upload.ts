/**
 * A 200 MB document answer through the services (outbox: upload URL, streamed PUT, response POST)
 * against the embedded sandbox, beside `curl -T` of the same file to a fresh signed URL of the same
 * sandbox; and the services' peak memory growth (RSS and heap sampled every 20 ms during the
 * upload), beside the file size. The sandbox runs in the same process (it streams to disk too), so
 * the memory figure is an upper bound for the services alone.
 *
 * The same document dropped by the page (staged in chunks, sealed at rest with the data key) is
 * sent the same way: decrypted as it goes out. The data key lives in a keychain held in memory
 * here (the bench measures the upload, not the Secret Service).
 */
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { createServices } from '../../../src/main/services';
import { createHeadlessPlatform } from '../../../src/main/infra/platform';
import { createLogger, memorySink } from '../../../src/main/infra/log';
import type { KeyringBackend } from '../../../src/main/infra/keyring';
import { CHUNK_BYTES } from '../../../src/main/rfi-answers/files';
import type { BenchResult, BenchSuite } from '../types';
import { benchCount } from '../support/scale';
import { staffOf } from '../../support/sandbox-staff';

const MB = 1024 * 1024;
const SIZE = benchCount('BENCH_UPLOAD_MB', 200, 2) * MB;

async function writePdf(file: string, size: number): Promise<void> {
  const out = createWriteStream(file);
  const head = Buffer.from('%PDF-1.4\n%');
  out.write(head);
  const block = Buffer.alloc(MB, 0x41);
  let left = size - head.length - 6;
  while (left > 0) {
    const part = left >= block.length ? block : block.subarray(0, left);
    left -= part.length;
    if (!out.write(part)) await once(out, 'drain');
  }
  // A cross-reference table and the trailer pointing at it: main checks PDFs by their structure.
  out.end(`\nxref\n0 1\n0000000000 65535 f \ntrailer<<>>\nstartxref\n${size - 6 + 1}\n%%EOF\n`);
  await once(out, 'finish');
}

function curlPut(url: string, file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = spawn('curl', [
      '-sS',
      '--fail',
      '-T',
      file,
      '-H',
      'Content-Type: application/pdf',
      '-o',
      '/dev/null',
      url,
    ]);
    let err = '';
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('close', (code) =>
      code === 0 ? resolve(performance.now() - t0) : reject(new Error(`curl: ${code} ${err}`)),
    );
  });
}

/** A keychain held in memory: the data key is created and read as from the real one. */
function memoryKeyring(): KeyringBackend {
  const m = new Map<string, string>();
  return {
    name: 'memory',
    get: async (s, a) => m.get(`${s}\n${a}`) ?? null,
    set: async (s, a, secret) => void m.set(`${s}\n${a}`, secret),
    delete: async (s, a) => m.delete(`${s}\n${a}`),
  };
}

const suite: BenchSuite = {
  name: 'upload',
  async run(): Promise<BenchResult[]> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'td-bench-upload-'));
    const services = await createServices({
      dataDir: path.join(dir, 'data'),
      platform: createHeadlessPlatform(),
      log: createLogger(memorySink(), 'info'),
      keyring: memoryKeyring(),
      environment: {
        kind: 'embedded-sandbox',
        sandbox: { visibilityDelayMs: { min: 0, max: 0 }, maxUploadBytes: SIZE + MB },
      },
      rfis: { poll: { intervalMs: 3_600_000 } },
    });
    try {
      const file = path.join(dir, 'large.pdf');
      await writePdf(file, SIZE);
      const le = services.sandbox?.fixtures.legal_entities[0];
      if (!le?.accounts[0]) throw new Error('no sandbox fixtures');
      const newRfi = () =>
        staffOf(services).createRfi({
          type: 'account',
          related_id: le.accounts[0]!.id,
          description: 'Bench upload',
          questions: [
            { question_type: 'transaction.supporting_documents', question_text: 'Upload the contract.' },
          ],
        });
      await services.session.check();

      // Warm-up (connections, JIT) with a small file.
      const small = path.join(dir, 'small.pdf');
      await writePdf(small, MB);
      const warm = await newRfi();
      const [warmPick] = (await services.rfiAnswers.files.registerPicked([small], 'other')).files;
      const warmAnswer = await services.rfiAnswers.submit({
        rfiId: warm.id,
        questionId: warm.questions[0]!.id,
        questionType: 'transaction.supporting_documents',
        text: '',
        files: [warmPick!.ref],
      });
      const waitSent = async (id: string): Promise<void> => {
        for (;;) {
          const e = services.rfiAnswers.outbox.get(id);
          if (e?.state === 'sent') return;
          if (e && (e.state === 'failed' || e.state === 'conflict')) {
            throw new Error(`upload answer ${e.state}: ${e.lastError?.message ?? ''}`);
          }
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      await waitSent(warmAnswer.id);
      /** An answer with one document, from submit until the bank has it (ms). */
      const timedAnswer = async (
        on: { id: string; questions: Array<{ id: string }> },
        ref: string,
      ): Promise<number> => {
        const t0 = performance.now();
        const answer = await services.rfiAnswers.submit({
          rfiId: on.id,
          questionId: on.questions[0]!.id,
          questionType: 'transaction.supporting_documents',
          text: '',
          files: [ref],
        });
        await waitSent(answer.id);
        return performance.now() - t0;
      };

      // The measured run.
      const rfi = await newRfi();
      const [picked] = (await services.rfiAnswers.files.registerPicked([file], 'other')).files;
      if (!picked) throw new Error('the 200 MB file was refused');
      global.gc?.();
      const before = process.memoryUsage();
      let peakRss = before.rss;
      let peakHeap = before.heapUsed;
      const sampler = setInterval(() => {
        const m = process.memoryUsage();
        peakRss = Math.max(peakRss, m.rss);
        peakHeap = Math.max(peakHeap, m.heapUsed);
      }, 20);
      const servicesMs = await timedAnswer(rfi, picked.ref);
      clearInterval(sampler);

      // The same document dropped by the page: staged in chunks (sealed), then sent.
      const files = services.rfiAnswers.files;
      const stagingId = await files.begin({
        name: 'large.pdf',
        contentType: 'application/pdf',
        sizeBytes: (await stat(file)).size,
        documentType: 'other',
      });
      let offset = 0;
      for await (const piece of createReadStream(file, { highWaterMark: CHUNK_BYTES })) {
        offset = await files.chunk(stagingId, offset, (piece as Buffer).toString('base64'));
      }
      const dropped = await files.commit(stagingId);
      const droppedMs = await timedAnswer(await newRfi(), dropped.ref);

      // Baseline: curl PUT of the same file to a fresh signed URL of the same sandbox.
      const baseRfi = await newRfi();
      const url = await services.bank.createUploadUrl({
        related_id: baseRfi.id,
        content_type: 'application/pdf',
        document_type: 'other',
      });
      const curlMs = await curlPut(url.url, file);

      const mbps = (ms: number) => SIZE / MB / (ms / 1000);
      return [
        {
          metric: `${SIZE / MB} MB document answer through the services (upload URL + streamed PUT + POST)`,
          value: mbps(servicesMs),
          unit: 'MB/s',
          baseline: mbps(curlMs),
          baselineLabel: 'curl -T to a fresh signed URL of the same sandbox',
          note: `${servicesMs.toFixed(0)} ms vs ${curlMs.toFixed(0)} ms`,
        },
        {
          metric: `${SIZE / MB} MB dropped document, sealed at rest, decrypted as it is sent`,
          value: mbps(droppedMs),
          unit: 'MB/s',
          baseline: mbps(curlMs),
          baselineLabel: 'curl -T to a fresh signed URL of the same sandbox',
          note: `${droppedMs.toFixed(0)} ms vs ${curlMs.toFixed(0)} ms`,
        },
        {
          metric: 'peak RSS growth during the upload',
          value: (peakRss - before.rss) / MB,
          unit: 'MB',
          baseline: SIZE / MB,
          baselineLabel: 'file size',
          note: 'services and sandbox in one process; sampled every 20 ms',
        },
        {
          metric: 'peak heap growth during the upload',
          value: (peakHeap - before.heapUsed) / MB,
          unit: 'MB',
          baseline: SIZE / MB,
          baselineLabel: 'file size',
        },
      ];
    } finally {
      await services.dispose();
      await rm(dir, { recursive: true, force: true });
    }
  },
};

export default suite;
