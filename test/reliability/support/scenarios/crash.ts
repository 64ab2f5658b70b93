/**
 * Crash safety: a child process runs the real services on one data folder, autosaving drafts and
 * queueing RFI answers while the outbox sends them; it is killed with SIGKILL at random moments
 * (during start-up and recovery too), then started again on the same folder. Every start checks
 * what the previous one acknowledged: each acknowledged draft is there (that save or a later one,
 * never a torn one), each acknowledged answer is in the outbox, no store had to be moved aside.
 * At the end the services start in-process and the outbox must deliver every queued answer
 * exactly once, documents with their exact bytes.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startSandbox } from '../../../../src/sandbox';
import type { Rfi } from '../../../../src/shared/api/rfis';
import { bundleNodeWorker } from '../../../support/bundle-worker';
import { startServices, tempDir } from '../../../support/services';
import type { CrashWorkerConfig, CrashWorkerState } from '../crash-worker';
import { textSha } from '../text-sha';
import { randomPlan, startFaultProxy } from '../../../support/fault-proxy';
import { createRng } from '../../../support/rng';
import { sandboxInspector } from '../sandbox-inspect';
import { documentAround } from '../../../support/documents';

export interface CrashFigures {
  seed: number;
  trials: number;
  killsDuringStartup: number;
  killsWhileWorking: number;
  /** The worker exited on its own (must be 0). */
  selfExits: number;
  draftAcks: number;
  answerAcks: number;
  /** Answers found in the outbox at the end (acknowledged or not). */
  answersQueued: number;
  answersLanded: number;
  documentsChecked: number;
  /** Must be 0. */
  lostDrafts: number;
  /** Must be 0: a draft that did not parse or was cut. */
  tornDrafts: number;
  /** Must be 0. */
  lostAnswers: number;
  /** Must be 0. */
  duplicates: number;
  /** Answers a start found not yet sent (summed over starts): the outbox resumed them. */
  pendingAtStart: number;
  pendingAtFinalStart: number;
  /** State files parsed after the kills (summed), and those that did not parse (must be 0). */
  jsonFilesChecked: number;
  tornFiles: number;
  /** Must be 0: files under the data folder holding the bearer token. */
  tokenOnDisk: number;
  /** Temp files left by writes the kills interrupted (harmless; never read). */
  orphanTempFiles: number;
  /** Must be 0: a store moved aside or unreadable after a kill. */
  storeProblems: number;
  /** Must be 0. */
  shaMismatches: number;
  meanRunMs: number;
  resumeDrainMs: number;
  durationMs: number;
}

/** Every JSON state file under the data folder must parse after a kill (temp files aside). */
async function parseAll(
  dir: string,
  token: string,
): Promise<{ files: number; torn: string[]; temps: number; withToken: string[] }> {
  const out = { files: 0, torn: [] as string[], temps: 0, withToken: [] as string[] };
  const needle = Buffer.from(token);
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        await walk(p);
        continue;
      }
      // No token on disk, whatever moment the process died at.
      if ((await readFile(p)).includes(needle)) out.withToken.push(path.relative(dir, p));
      if (e.name.endsWith('.tmp')) out.temps++;
      else if (e.name.endsWith('.json') && !e.name.startsWith('.')) {
        out.files++;
        try {
          JSON.parse(await readFile(p, 'utf8'));
        } catch {
          out.torn.push(path.relative(dir, p));
        }
      }
    }
  };
  await walk(dir);
  return out;
}

interface RunResult {
  state: CrashWorkerState | null;
  draftAcks: Array<{ key: string; seq: number; length: number }>;
  answerAcks: Array<{ key: string; sha: string }>;
  /** Answers about to be queued (printed before the call), with their text's fingerprint. */
  answerIntents: Array<{ key: string; sha: string }>;
  killedBeforeReady: boolean;
  selfExit: string | null;
  ms: number;
}

function runWorker(
  bundle: string,
  cfg: CrashWorkerConfig,
  killAfterReadyMs: number | null,
  killAtMs: number,
): Promise<RunResult> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [bundle], {
      env: { ...process.env, TD_CRASH_WORKER: JSON.stringify(cfg) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const res: RunResult = {
      state: null,
      draftAcks: [],
      answerAcks: [],
      answerIntents: [],
      killedBeforeReady: false,
      selfExit: null,
      ms: 0,
    };
    let buf = '';
    let stderr = '';
    let killed = false;
    const kill = (): void => {
      if (killed) return;
      killed = true;
      if (res.state === null) res.killedBeforeReady = true;
      child.kill('SIGKILL');
    };
    if (killAfterReadyMs === null) setTimeout(kill, killAtMs);
    const guard = setTimeout(kill, 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.startsWith('READY ')) {
          res.state = JSON.parse(line.slice(6)) as CrashWorkerState;
          if (killAfterReadyMs !== null) setTimeout(kill, killAfterReadyMs);
        } else if (line.startsWith('ACK-D ')) {
          const [, key, seq, length] = line.split(' ');
          res.draftAcks.push({ key: key!, seq: Number(seq), length: Number(length) });
        } else if (line.startsWith('ACK-A ')) {
          const [, key, sha] = line.split(' ');
          res.answerAcks.push({ key: key!, sha: sha! });
        } else if (line.startsWith('INTENT-A ')) {
          const [, key, sha] = line.split(' ');
          res.answerIntents.push({ key: key!, sha: sha! });
        }
      }
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    child.on('exit', (code, signal) => {
      clearTimeout(guard);
      res.ms = Date.now() - started;
      if (!killed || signal !== 'SIGKILL') res.selfExit = `exit ${code} ${signal}: ${stderr.slice(-800)}`;
      resolve(res);
    });
  });
}

export async function runCrashScenario(options: {
  seed: number;
  trials: number;
}): Promise<{ figures: CrashFigures; failures: string[] }> {
  const started = Date.now();
  const rng = createRng(options.seed);
  const bundle = await bundleNodeWorker(
    path.resolve(import.meta.dirname, '../crash-worker.ts'),
    'treasury-reliability/crash-worker',
  );
  const sandbox = await startSandbox({
    port: 0,
    seed: `crash-${options.seed}`,
    visibilityDelayMs: { min: 0, max: 0 },
  });
  const inspect = sandboxInspector(sandbox);
  const A = sandbox.fixtures.legal_entities[0]!;
  const token = A.tokens.admin;
  const incoming = A.incoming_transfers[0]!.transaction_id;
  // Latency (and a few lost answers) between the app and the bank, so kills land mid-upload and
  // mid-send, not only between them.
  const sandboxOrigin = sandbox.url;
  let proxyOrigin = '';
  const proxy = await startFaultProxy({
    target: sandbox.url,
    plan: randomPlan({
      rng: rng.fork(3),
      match: (r) =>
        r.path.startsWith('/v1/rfis/') ||
        r.path.startsWith('/v1/documents') ||
        r.path.startsWith('/uploads/'),
      weights: { pass: 10, 'reset-after': 1, 'status-after': 0.5 },
      latency: { p: 0.7, minMs: 20, maxMs: 250 },
    }),
    rewrite: (req, body) =>
      req.path.startsWith('/v1/documents/upload-url')
        ? Buffer.from(body.toString('utf8').split(sandboxOrigin).join(proxyOrigin))
        : body,
  });
  proxyOrigin = proxy.url;
  const dataDir = await tempDir('td-rel-crash-');
  const filesDir = await tempDir('td-rel-crash-files-');
  const failures: string[] = [];

  // RFIs: a few questions that only get drafts, and enough to answer for every run.
  const mkRfi = async (types: string[]): Promise<Rfi> =>
    (await inspect.send(`${sandbox.url}/v1/sandbox/rfis`, 'POST', {
      type: 'transaction',
      related_id: incoming,
      description: 'crash safety',
      questions: types.map((t) => ({ question_type: t, question_text: 'Explain.' })),
    })) as Rfi;
  const draftRfi = await mkRfi(Array.from({ length: 6 }, () => 'transaction.purpose'));
  const draftQuestions = draftRfi.questions.map((q) => ({
    rfiId: draftRfi.id,
    questionId: q.id,
    questionType: q.question_type,
  }));
  const answerQuestions: CrashWorkerConfig['answerQuestions'] = [];
  const docSha = new Map<string, string>();
  const wanted = options.trials * 4 + 10;
  while (answerQuestions.length < wanted) {
    const n = Math.min(50, wanted - answerQuestions.length);
    const types = Array.from({ length: n }, () =>
      rng.chance(0.3) ? 'identification.individual.passport' : 'transaction.purpose',
    );
    const rfi = await mkRfi(types);
    for (const q of rfi.questions) {
      const files: CrashWorkerConfig['answerQuestions'][number]['files'] = [];
      if (q.question_type === 'identification.individual.passport') {
        const bytes = documentAround(
          'pdf',
          Buffer.from(Array.from({ length: rng.int(100, 60_000) }, () => rng.int(0, 255))),
        );
        const file = path.join(filesDir, `${q.id}.pdf`);
        await writeFile(file, bytes);
        docSha.set(file, createHash('sha256').update(bytes).digest('hex'));
        files.push({ path: file, documentType: 'passport' });
      }
      answerQuestions.push({ rfiId: rfi.id, questionId: q.id, questionType: q.question_type, files });
    }
  }

  const ackedDraft = new Map<string, number>();
  const ackedAnswer = new Map<string, string>();
  const intendedAnswer = new Map<string, string>();
  let killsDuringStartup = 0;
  let killsWhileWorking = 0;
  let selfExits = 0;
  let draftAcks = 0;
  let answerAcks = 0;
  let lostDrafts = 0;
  let tornDrafts = 0;
  let lostAnswers = 0;
  let storeProblems = 0;
  let runMs = 0;
  let pendingAtStart = 0;
  let jsonFilesChecked = 0;
  let tornFiles = 0;
  let tokenOnDisk = 0;
  let orphanTempFiles = 0;

  const check = (state: CrashWorkerState, when: string): void => {
    if (state.errors.length > 0 || state.problems > 0) {
      storeProblems += state.errors.length + state.problems;
      failures.push(
        `${when}: store problems ${state.problems} (${(state.problemMessages ?? []).join(' | ')}), errors ${state.errors.join('; ')}`,
      );
    }
    for (const [key, text] of Object.entries(state.drafts)) {
      if (!/^d:\d+:x*$/.test(text)) {
        tornDrafts++;
        failures.push(`${when}: draft ${key} is not well formed (${text.slice(0, 40)}…)`);
      }
    }
    for (const [key, seq] of ackedDraft) {
      const text = state.drafts[key];
      const have = text ? Number(text.split(':')[1]) : -1;
      if (have < seq) {
        lostDrafts++;
        failures.push(`${when}: draft ${key} acknowledged at ${seq}, found ${have}`);
      }
    }
    for (const [key, sha] of ackedAnswer) {
      const e = state.outbox.find((o) => `${o.rfiId}/${o.questionId}` === key);
      // A sent answer keeps no text (the bank has it): its text is checked at the bank at the end.
      if (!e || (e.state !== 'sent' && e.textSha !== sha)) {
        lostAnswers++;
        failures.push(`${when}: acknowledged answer ${key} ${e ? 'changed' : 'missing from the outbox'}`);
      }
    }
  };

  try {
    for (let i = 0; i < options.trials; i++) {
      const tr = rng.fork(10 + i);
      const duringStartup = tr.chance(0.15);
      const cfg: CrashWorkerConfig = {
        dataDir,
        baseUrl: proxy.url,
        token,
        seed: options.seed + i,
        seqStart: (i + 1) * 1_000_000,
        draftQuestions,
        answerQuestions,
      };
      const r = await runWorker(bundle, cfg, duringStartup ? null : tr.int(0, 1500), tr.int(30, 700));
      runMs += r.ms;
      if (r.selfExit) {
        selfExits++;
        failures.push(`run ${i}: ${r.selfExit}`);
      }
      if (r.killedBeforeReady) killsDuringStartup++;
      else killsWhileWorking++;
      if (r.state) {
        check(r.state, `start ${i}`);
        pendingAtStart += r.state.outbox.filter((o) => o.state !== 'sent').length;
      }
      const files = await parseAll(dataDir, token);
      if (files.withToken.length > 0) {
        tokenOnDisk += files.withToken.length;
        failures.push(`after kill ${i}: the token is in ${files.withToken.join(', ')}`);
      }
      jsonFilesChecked += files.files;
      orphanTempFiles = files.temps;
      if (files.torn.length > 0) {
        tornFiles += files.torn.length;
        failures.push(`after kill ${i}: state files do not parse: ${files.torn.join(', ')}`);
      }
      for (const a of r.draftAcks) {
        ackedDraft.set(a.key, Math.max(ackedDraft.get(a.key) ?? 0, a.seq));
        draftAcks++;
      }
      for (const a of r.answerAcks) {
        ackedAnswer.set(a.key, a.sha);
        answerAcks++;
      }
      // A key is queued again only when no earlier call reached the outbox: the last intent wins.
      for (const a of r.answerIntents) intendedAnswer.set(a.key, a.sha);
    }

    // ---- in-process start on the same folder: the last kill checked, then the outbox resumes.
    // Same bank origin as the killed runs (queued work is only ever sent to the bank it was
    // written for), with the proxy's faults turned off.
    proxy.setPlan(() => ({ kind: 'pass' }));
    const app = await startServices({
      dataDir,
      environment: { kind: 'remote', baseUrl: proxy.url, token },
      rfiAnswers: { retry: { baseMs: 20, maxMs: 300 } },
    });
    let answersLanded = 0;
    let duplicates = 0;
    let shaMismatches = 0;
    let documentsChecked = 0;
    let resumeDrainMs = 0;
    let answersQueued = 0;
    let pendingAtFinalStart = 0;
    try {
      const drafts: Record<string, string> = {};
      for (const [qid, d] of Object.entries(await app.services.rfiAnswers.drafts.get(draftRfi.id))) {
        drafts[`${draftRfi.id}/${qid}`] = d.text;
      }
      const outboxNow = app.services.rfiAnswers.outbox.list();
      pendingAtFinalStart = outboxNow.filter((a) => a.state !== 'sent').length;
      check(
        {
          drafts,
          outbox: outboxNow.map((a) => ({
            rfiId: a.rfiId,
            questionId: a.questionId,
            textSha: textSha(a.text),
            state: a.state,
            files: a.files.length,
          })),
          errors: app.logs
            .filter(
              (l) =>
                l.level === 'error' && /unreadable|moved aside|could not be read|corrupt/i.test(l.message),
            )
            .map((l) => l.message),
          problems: app.services.stores.problems().length,
        },
        'final start',
      );
      const drainStart = Date.now();
      for (;;) {
        const list = app.services.rfiAnswers.outbox.list();
        if (list.every((a) => a.state === 'sent') || Date.now() - drainStart > 60_000) break;
        await new Promise((res) => setTimeout(res, 50));
      }
      resumeDrainMs = Date.now() - drainStart;
      const list = app.services.rfiAnswers.outbox.list();
      answersQueued = list.length;
      const rfis = new Map<string, Rfi>();
      for (const a of list) {
        if (a.state !== 'sent')
          failures.push(
            `answer ${a.rfiId}/${a.questionId} is ${a.state} after the resume (${JSON.stringify(a.lastError)})`,
          );
        let rfi = rfis.get(a.rfiId);
        if (!rfi) {
          rfi = (await inspect.rfi(a.rfiId, token)) as Rfi;
          rfis.set(a.rfiId, rfi);
        }
        const q = rfi.questions.find((x) => x.id === a.questionId)!;
        const ours = q.responses.filter((x) => x.responder_type === 'customer');
        if (ours.length === 1) answersLanded++;
        if (ours.length > 1) {
          duplicates += ours.length - 1;
          failures.push(`answer ${a.rfiId}/${a.questionId}: ${ours.length} responses at the bank`);
        }
        if (ours.length === 0) failures.push(`answer ${a.rfiId}/${a.questionId}: none at the bank`);
        const content = ours[0]?.response[a.questionType] as
          { response_text: string; document_ids: string[] } | undefined;
        // The text the worker queued (sent answers keep no text in the outbox).
        const intended = intendedAnswer.get(`${a.rfiId}/${a.questionId}`);
        if (ours[0] && (intended === undefined || textSha(content?.response_text ?? '') !== intended))
          failures.push(`answer ${a.rfiId}/${a.questionId}: text differs`);
        const planned = answerQuestions.find((x) => x.rfiId === a.rfiId && x.questionId === a.questionId);
        for (const [k, id] of (content?.document_ids ?? []).entries()) {
          documentsChecked++;
          const doc = await inspect.document(id);
          const want = planned?.files[k] ? docSha.get(planned.files[k].path) : undefined;
          if (doc.sha256 !== want) {
            shaMismatches++;
            failures.push(`answer ${a.rfiId}/${a.questionId}: document ${id} sha256 ${doc.sha256} ≠ ${want}`);
          }
        }
      }
      // Every question the bank shows answered was answered from an outbox entry (nothing extra).
      const answeredAtBank = new Set<string>();
      for (const rfi of rfis.values())
        for (const q of rfi.questions)
          if (q.responses.some((x) => x.responder_type === 'customer'))
            answeredAtBank.add(`${rfi.id}/${q.id}`);
      for (const key of answeredAtBank) {
        if (!list.some((a) => `${a.rfiId}/${a.questionId}` === key))
          failures.push(`${key} answered at the bank without an outbox entry`);
      }
    } finally {
      await app.close();
    }

    const figures: CrashFigures = {
      seed: options.seed,
      trials: options.trials,
      killsDuringStartup,
      killsWhileWorking,
      selfExits,
      draftAcks,
      answerAcks,
      answersQueued,
      answersLanded,
      documentsChecked,
      lostDrafts,
      tornDrafts,
      lostAnswers,
      duplicates,
      storeProblems,
      jsonFilesChecked,
      tornFiles,
      tokenOnDisk,
      orphanTempFiles,
      pendingAtStart,
      pendingAtFinalStart,
      shaMismatches,
      meanRunMs: Math.round(runMs / Math.max(1, options.trials)),
      resumeDrainMs,
      durationMs: Date.now() - started,
    };
    return { figures, failures };
  } finally {
    await proxy.close();
    await sandbox.close();
  }
}
