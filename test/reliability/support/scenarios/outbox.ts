/**
 * The RFI outbox under every fault of the proxy: answers (text, or documents with random bytes)
 * are queued through the real services while the proxy resets connections before and after the
 * bank committed, truncates answers, answers 5xx and 429 in bursts, delays, goes silent, and the
 * app restarts on the same data folder. Once the faults stop, every answer must land by itself
 * (no wake-up call), exactly once, with its documents' exact bytes (sha256 from the sandbox's own
 * record), within a bounded time.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startSandbox } from '../../../../src/sandbox';
import type { Rfi } from '../../../../src/shared/api/rfis';
import type { DocumentType } from '../../../../src/shared/catalogue';
import { startServices, tempDir } from '../../../support/services';
import type { TestServices } from '../../../support/services';
import { randomPlan, startFaultProxy } from '../../../support/fault-proxy';
import type { FaultKind, FaultPlan, PlanFn } from '../../../support/fault-proxy';
import { createRng } from '../../../support/rng';
import type { Rng } from '../../../support/rng';
import { sandboxInspector } from '../sandbox-inspect';
import { documentAround } from '../../../support/documents';

export interface OutboxFigures {
  seed: number;
  answers: number;
  textAnswers: number;
  documentAnswers: number;
  documents: number;
  documentBytes: number;
  requests: number;
  faults: Partial<Record<FaultKind, number>>;
  /** Requests the bank processed whose answer the app never got intact. */
  committedButLost: number;
  silentWindows: number;
  restarts: number;
  /** Longest time from "faults stop" to the last answer landing (ms). */
  drainMs: number;
  /** Must be 0. */
  lost: number;
  /** Must be 0: more than one customer response for one queued answer. */
  duplicates: number;
  /** Must be 0. */
  shaMismatches: number;
  /** Must be 0: answers that ended failed / in conflict / not sent. */
  stuck: number;
  durationMs: number;
}

const TEXT_TYPES = ['transaction.purpose', 'transaction.source_of_funds'] as const;
const DOC_TYPES: Array<[string, DocumentType]> = [
  ['identification.individual.passport', 'passport'],
  ['transaction.supporting_documents', 'transaction_supporting_document'],
  ['identification.individual.proof_of_address', 'proof_of_address'],
];

/** A file of random bytes behind a real PDF / PNG / JPEG signature (the app sniffs types). */
function randomDocument(rng: Rng, maxBytes: number): { bytes: Buffer; ext: string } {
  const kind = rng.pick(['pdf', 'png', 'jpg'] as const);
  const body = Buffer.alloc(Math.max(1, rng.int(1, maxBytes) - 120));
  for (let i = 0; i < body.length; i++) body[i] = Math.floor(rng.next() * 256);
  // Well-formed around random content: main checks each type by its structure.
  return { bytes: documentAround(kind, body), ext: kind };
}

interface Planned {
  rfiId: string;
  questionId: string;
  questionType: string;
  text: string;
  docs: Array<{ path: string; sha256: string; size: number; documentType: DocumentType }>;
}

export async function runOutboxScenario(options: {
  seed: number;
  answers: number;
  /** How long faults last (ms); answers are queued during it. */
  faultMs: number;
  maxDocumentBytes?: number;
  /** Deadline for every answer to land once faults stop. */
  drainDeadlineMs?: number;
}): Promise<{ figures: OutboxFigures; failures: string[] }> {
  const started = Date.now();
  const rng = createRng(options.seed);
  const sandbox = await startSandbox({
    port: 0,
    seed: `outbox-${options.seed}`,
    visibilityDelayMs: { min: 0, max: 0 },
    webhookRetry: { initialMs: 50, maxMs: 200, giveUpAfterMs: 1000, timeoutMs: 200 },
  });
  const inspect = sandboxInspector(sandbox);
  const A = sandbox.fixtures.legal_entities[0]!;
  const token = A.tokens.admin;
  const sandboxOrigin = Buffer.from(sandbox.url);
  let proxyOrigin = Buffer.alloc(0);

  const faultPlan = randomPlan({
    rng: rng.fork(1),
    match: (r) =>
      r.path.startsWith('/v1/rfis') || r.path.startsWith('/v1/documents') || r.path.startsWith('/uploads/'),
    weights: {
      pass: 4,
      'reset-before': 1,
      'reset-after': 2,
      truncate: 1,
      status: 1.5,
      'status-after': 1,
      hang: 0.3,
      'hang-after': 0.3,
    },
    burst: { p: 0.3, min: 2, max: 5 },
    latency: { p: 0.15, minMs: 5, maxMs: 300 },
  });
  // A silent upload would wait out the upload's own 60 s answer timeout; the scenario makes the
  // bank go silent with `setDown` and comes back with connection resets instead.
  const plan: PlanFn = (req): FaultPlan => {
    const p = faultPlan(req);
    if (req.path.startsWith('/uploads/') && (p.kind === 'hang' || p.kind === 'hang-after')) {
      return { ...p, kind: p.kind === 'hang' ? 'reset-before' : 'reset-after' };
    }
    return p;
  };
  const proxy = await startFaultProxy({
    target: sandbox.url,
    plan,
    rewrite: (req, body) =>
      req.path.startsWith('/v1/documents/upload-url')
        ? Buffer.from(body.toString('utf8').split(sandboxOrigin.toString()).join(proxyOrigin.toString()))
        : body,
  });
  proxyOrigin = Buffer.from(proxy.url);

  // ---- the work: fresh RFIs, one planned answer per question
  const filesDir = await tempDir('td-rel-outbox-files-');
  const planned: Planned[] = [];
  const maxDoc = options.maxDocumentBytes ?? 200_000;
  const incoming = A.incoming_transfers[0]!.transaction_id;
  while (planned.length < options.answers) {
    const n = Math.min(rng.int(1, 4), options.answers - planned.length);
    const kinds = Array.from({ length: n }, () => rng.chance(0.5));
    const questions = kinds.map((isText) => ({
      question_type: isText ? rng.pick(TEXT_TYPES) : rng.pick(DOC_TYPES)[0],
      question_text: 'Please explain or provide documents.',
    }));
    const rfi = (await inspect.send(`${sandbox.url}/v1/sandbox/rfis`, 'POST', {
      type: 'transaction',
      related_id: incoming,
      description: 'reliability',
      questions,
    })) as Rfi;
    for (const q of rfi.questions) {
      const isDoc = DOC_TYPES.some(([t]) => t === q.question_type);
      const p: Planned = {
        rfiId: rfi.id,
        questionId: q.id,
        questionType: q.question_type,
        text: isDoc ? '' : `Answer ${planned.length}: ${'payment for services ✓ '.repeat(rng.int(1, 5))}`,
        docs: [],
      };
      if (isDoc) {
        const docType = DOC_TYPES.find(([t]) => t === q.question_type)![1];
        for (let k = rng.int(1, 3); k > 0; k--) {
          const { bytes, ext } = randomDocument(rng, maxDoc);
          const file = path.join(filesDir, `doc-${planned.length}-${k}.${ext}`);
          await writeFile(file, bytes);
          p.docs.push({
            path: file,
            sha256: createHash('sha256').update(bytes).digest('hex'),
            size: bytes.length,
            documentType: docType,
          });
        }
      }
      planned.push(p);
    }
  }

  const dataDir = await tempDir('td-rel-outbox-');
  await mkdir(dataDir, { recursive: true });
  const boot = (): Promise<TestServices> =>
    startServices({
      dataDir,
      environment: { kind: 'remote', baseUrl: proxy.url, token },
      bankTimeoutMs: 1000,
      bankRetry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 30, rateLimitAttempts: 2 },
      rfiAnswers: { retry: { baseMs: 20, maxMs: 300 } },
    });
  let app = await boot();
  const failures: string[] = [];
  let restarts = 0;
  let silentWindows = 0;

  try {
    // ---- fault phase: queue every answer while the bank misbehaves and the app restarts
    const faultUntil = Date.now() + options.faultMs;
    let next = 0;
    const perTick = Math.max(1, Math.ceil(planned.length / Math.max(1, options.faultMs / 100)));
    while (Date.now() < faultUntil || next < planned.length) {
      for (let k = 0; k < perTick && next < planned.length; k++, next++) {
        const p = planned[next]!;
        const refs: string[] = [];
        for (const d of p.docs) {
          const r = await app.services.rfiAnswers.files.registerPicked([d.path], d.documentType);
          if (r.files.length !== 1) throw new Error(`file refused: ${JSON.stringify(r.refused)}`);
          refs.push(r.files[0]!.ref);
        }
        const draft = {
          rfiId: p.rfiId,
          questionId: p.questionId,
          questionType: p.questionType,
          text: p.text,
          files: refs,
        };
        if (rng.chance(0.5)) await app.services.rfiAnswers.saveDraft(draft);
        await app.services.rfiAnswers.submit(draft);
      }
      const r = rng.next();
      if (r < 0.04) {
        // The bank goes silent for a while, then comes back (its connections reset).
        silentWindows++;
        proxy.setDown(true);
        await new Promise((res) => setTimeout(res, rng.int(100, 900)));
        proxy.setDown(false);
        proxy.dropAll();
      } else if (r < 0.08) {
        await app.stop();
        app = await boot();
        restarts++;
      } else {
        await new Promise((res) => setTimeout(res, 100));
      }
    }

    // ---- faults stop: every answer must land by itself
    proxy.setPlan(() => ({ kind: 'pass' }));
    proxy.setDown(false);
    const drainStart = Date.now();
    const deadline = drainStart + (options.drainDeadlineMs ?? 30_000);
    let drainMs = 0;
    for (;;) {
      const list = app.services.rfiAnswers.outbox.list();
      if (list.length === planned.length && list.every((a) => a.state === 'sent')) {
        drainMs = Date.now() - drainStart;
        break;
      }
      if (Date.now() > deadline) {
        drainMs = Date.now() - drainStart;
        break;
      }
      await new Promise((res) => setTimeout(res, 50));
    }

    // ---- the bank's own record
    const views = app.services.rfiAnswers.outbox.list();
    let lost = 0;
    let duplicates = 0;
    let shaMismatches = 0;
    let stuck = 0;
    const rfis = new Map<string, Rfi>();
    for (const p of planned) {
      const v = views.filter((a) => a.rfiId === p.rfiId && a.questionId === p.questionId);
      if (v.length !== 1) {
        lost++;
        failures.push(`${p.rfiId}/${p.questionId}: ${v.length} outbox entries`);
        continue;
      }
      if (v[0]!.state !== 'sent') {
        stuck++;
        failures.push(
          `${p.rfiId}/${p.questionId}: ${v[0]!.state} after the faults stopped (${JSON.stringify(v[0]!.lastError)})`,
        );
      }
      let rfi = rfis.get(p.rfiId);
      if (!rfi) {
        rfi = (await inspect.rfi(p.rfiId, token)) as Rfi;
        rfis.set(p.rfiId, rfi);
      }
      const q = rfi.questions.find((x) => x.id === p.questionId)!;
      const ours = q.responses.filter((r) => r.responder_type === 'customer');
      if (ours.length === 0) {
        lost++;
        failures.push(`${p.rfiId}/${p.questionId}: no response at the bank`);
        continue;
      }
      if (ours.length > 1) {
        duplicates += ours.length - 1;
        failures.push(`${p.rfiId}/${p.questionId}: ${ours.length} responses at the bank`);
      }
      const resp = ours[0]!;
      if (v[0]!.responseId !== resp.id) {
        failures.push(`${p.rfiId}/${p.questionId}: app says response ${v[0]!.responseId}, bank ${resp.id}`);
      }
      const content = resp.response[p.questionType] as
        { response_text: string; document_ids: string[] } | undefined;
      if (!content || content.response_text !== p.text) {
        failures.push(`${p.rfiId}/${p.questionId}: text differs at the bank`);
      }
      const ids = content?.document_ids ?? [];
      if (ids.length !== p.docs.length) {
        failures.push(
          `${p.rfiId}/${p.questionId}: ${ids.length} documents at the bank, ${p.docs.length} sent`,
        );
      }
      const want = p.docs.map((d) => d.sha256).sort();
      const got: string[] = [];
      for (const id of ids) {
        const doc = await inspect.document(id);
        if (!doc.uploaded || doc.related_id !== p.rfiId) {
          failures.push(
            `${p.rfiId}/${p.questionId}: document ${id} uploaded=${doc.uploaded} related=${doc.related_id}`,
          );
        }
        got.push(doc.sha256 ?? '(none)');
      }
      got.sort();
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        shaMismatches++;
        failures.push(
          `${p.rfiId}/${p.questionId}: sha256 at the bank ${got.join(',')} ≠ sent ${want.join(',')}`,
        );
      }
    }

    const matched = proxy.log.filter(
      (e) =>
        e.path.startsWith('/v1/rfis') || e.path.startsWith('/v1/documents') || e.path.startsWith('/uploads/'),
    );
    const faults: Partial<Record<FaultKind, number>> = {};
    for (const e of matched) faults[e.plan.kind] = (faults[e.plan.kind] ?? 0) + 1;
    const figures: OutboxFigures = {
      seed: options.seed,
      answers: planned.length,
      textAnswers: planned.filter((p) => p.docs.length === 0).length,
      documentAnswers: planned.filter((p) => p.docs.length > 0).length,
      documents: planned.reduce((n, p) => n + p.docs.length, 0),
      documentBytes: planned.reduce((n, p) => n + p.docs.reduce((m, d) => m + d.size, 0), 0),
      requests: matched.length,
      faults,
      committedButLost: matched.filter(
        (e) => e.upstreamStatus !== null && e.upstreamStatus < 300 && e.delivered !== 'answer',
      ).length,
      silentWindows,
      restarts,
      drainMs,
      lost,
      duplicates,
      shaMismatches,
      stuck,
      durationMs: Date.now() - started,
    };
    return { figures, failures };
  } finally {
    await app.close();
    await proxy.close();
    await sandbox.close();
  }
}
