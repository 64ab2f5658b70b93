/**
 * A case file for an RFI with 20 questions and 40 documents (200 MB in all, answered through the
 * services' outbox against the embedded sandbox): the export (PDF + ZIP of the documents, streamed
 * from the bank's signed download URLs) beside copying the same 40 files on this disk, and the
 * peak RSS growth during the export (sampled every 20 ms) beside the 50 MB budget. The sandbox
 * runs in the same process (it streams its downloads from disk), so the memory figure is an upper
 * bound for the services alone.
 */
import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { createServices } from '../../../src/main/services';
import { createHeadlessPlatform } from '../../../src/main/infra/platform';
import { createLogger, memorySink } from '../../../src/main/infra/log';
import { unavailableKeyringBackend } from '../../../src/main/infra/keyring';
import type { BenchResult, BenchSuite } from '../types';
import { benchCount } from '../support/scale';
import { staffOf } from '../../support/sandbox-staff';

const MB = 1024 * 1024;
const QUESTIONS = benchCount('BENCH_CASE_FILE_QUESTIONS', 20, 2);
const DOCUMENTS = 2 * QUESTIONS;
const TOTAL = benchCount('BENCH_CASE_FILE_MB', 200, 1) * MB;
const EACH = Math.floor(TOTAL / DOCUMENTS);
const RSS_BUDGET_MB = 50;

async function writePdf(file: string, size: number, fill: number): Promise<void> {
  const out = createWriteStream(file);
  const head = Buffer.from('%PDF-1.4\n%');
  out.write(head);
  const block = Buffer.alloc(MB, fill);
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

const suite: BenchSuite = {
  name: 'case-file',
  async run(): Promise<BenchResult[]> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'td-bench-case-file-'));
    const platform = createHeadlessPlatform();
    const services = await createServices({
      dataDir: path.join(dir, 'data'),
      platform,
      log: createLogger(memorySink(), 'info'),
      keyring: unavailableKeyringBackend('bench'),
      environment: {
        kind: 'embedded-sandbox',
        sandbox: { visibilityDelayMs: { min: 0, max: 0 }, maxUploadBytes: EACH + MB },
      },
      rfis: { poll: { intervalMs: 3_600_000 } },
    });
    try {
      const le = services.sandbox?.fixtures.legal_entities[0];
      if (!le?.accounts[0]) throw new Error('no sandbox fixtures');
      await services.session.check();
      const rfi = await staffOf(services).createRfi({
        type: 'account',
        related_id: le.accounts[0].id,
        description: 'Bench case file',
        questions: Array.from({ length: QUESTIONS }, (_, i) => ({
          question_type: 'transaction.supporting_documents',
          question_text: `Supporting documents, batch ${i + 1}`,
        })),
      });
      const files: string[] = [];
      for (let i = 0; i < DOCUMENTS; i++) {
        const f = path.join(dir, `document-${String(i + 1).padStart(2, '0')}.pdf`);
        await writePdf(f, EACH, 0x30 + (i % 40));
        files.push(f);
      }
      const waitSent = async (id: string): Promise<void> => {
        for (;;) {
          const e = services.rfiAnswers.outbox.get(id);
          if (e?.state === 'sent') return;
          if (e && (e.state === 'failed' || e.state === 'conflict')) {
            throw new Error(`answer ${e.state}: ${e.lastError?.message ?? ''}`);
          }
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      // Two documents per question, through the outbox.
      for (let q = 0; q < QUESTIONS; q++) {
        const picked = await services.rfiAnswers.files.registerPicked(
          files.slice(2 * q, 2 * q + 2),
          'transaction_supporting_document',
        );
        const a = await services.rfiAnswers.submit({
          rfiId: rfi.id,
          questionId: rfi.questions[q]!.id,
          questionType: 'transaction.supporting_documents',
          text: '',
          files: picked.files.map((f) => f.ref),
        });
        await waitSent(a.id);
      }

      // The measured export.
      const out = path.join(dir, 'out');
      await mkdir(out);
      global.gc?.();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 20);
      const t0 = performance.now();
      const result = await services.caseFiles.write(
        [{ profileId: services.session.profile.id, rfiId: rfi.id }],
        path.join(out, 'case.pdf'),
        path.join(out, 'case.zip'),
      );
      const exportMs = performance.now() - t0;
      clearInterval(sampler);
      if (result.documents !== DOCUMENTS)
        throw new Error(`the case file holds ${result.documents} documents`);
      const zipBytes = (await stat(path.join(out, 'case.zip'))).size;

      // Baseline: copying the same files on this disk.
      const copies = path.join(dir, 'copies');
      await mkdir(copies);
      const c0 = performance.now();
      for (const f of files) await copyFile(f, path.join(copies, path.basename(f)));
      const copyMs = performance.now() - c0;

      const growth = (peak - before) / MB;
      return [
        {
          metric: `case file export, ${QUESTIONS} questions, ${DOCUMENTS} documents (${TOTAL / MB} MB): PDF + ZIP streamed from the bank`,
          value: exportMs,
          unit: 'ms',
          baseline: copyMs,
          baselineLabel: `copying the same ${DOCUMENTS} files on this disk`,
          note: `ZIP ${(zipBytes / MB).toFixed(1)} MB`,
        },
        {
          metric: 'peak RSS growth during the export',
          value: growth,
          unit: 'MB',
          baseline: RSS_BUDGET_MB,
          baselineLabel: 'budget',
          note: `${growth < RSS_BUDGET_MB ? 'within' : 'OVER'} budget; services and sandbox in one process, sampled every 20 ms`,
        },
      ];
    } finally {
      await services.dispose();
      await rm(dir, { recursive: true, force: true });
    }
  },
};

export default suite;
