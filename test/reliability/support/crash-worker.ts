/**
 * The process the crash-safety scenario kills with SIGKILL. It builds the real services on a data
 * folder, prints what it finds there (drafts, outbox, store problems) as one READY line, then
 * autosaves drafts and queues RFI answers in a loop while the outbox sends them, printing an ACK
 * line only after the app acknowledged the write (the promise resolved). Lines go out with
 * writeSync so an acknowledged write is never lost in a stdout buffer.
 *
 * Config comes as JSON in TD_CRASH_WORKER; bundled and run by test/reliability/support/scenarios/crash.ts.
 */
import { writeSync } from 'node:fs';
import { createLogger, memorySink } from '../../../src/main/infra/log';
import { createHeadlessPlatform } from '../../../src/main/infra/platform';
import { createServices } from '../../../src/main/services';
import type { DocumentType } from '../../../src/shared/catalogue';
import { createRng } from '../../support/rng';
import { textSha } from './text-sha';

export interface CrashWorkerConfig {
  dataDir: string;
  baseUrl: string;
  token: string;
  seed: number;
  /** Draft sequence numbers of this run start here (strictly above every earlier run's). */
  seqStart: number;
  draftQuestions: Array<{ rfiId: string; questionId: string; questionType: string }>;
  answerQuestions: Array<{
    rfiId: string;
    questionId: string;
    questionType: string;
    files: Array<{ path: string; documentType: DocumentType }>;
  }>;
}

export interface CrashWorkerState {
  drafts: Record<string, string>;
  outbox: Array<{ rfiId: string; questionId: string; textSha: string; state: string; files: number }>;
  errors: string[];
  problems: number;
  /** What each problem says (the failure line shows them). */
  problemMessages?: string[];
}

const out = (line: string): void => {
  writeSync(1, `${line}\n`);
};

async function main(): Promise<void> {
  const cfg = JSON.parse(process.env.TD_CRASH_WORKER ?? '{}') as CrashWorkerConfig;
  const rng = createRng(cfg.seed);
  const sink = memorySink();
  const services = await createServices({
    dataDir: cfg.dataDir,
    platform: createHeadlessPlatform(),
    log: createLogger(sink, 'info'),
    environment: { kind: 'remote', baseUrl: cfg.baseUrl, token: cfg.token },
    bankTimeoutMs: 3000,
    bankRetry: { baseDelayMs: 10, maxDelayMs: 50 },
    rfiAnswers: { retry: { baseMs: 20, maxMs: 300 } },
  });
  const answers = services.rfiAnswers;

  // What survived the previous run.
  const drafts: Record<string, string> = {};
  for (const rfiId of new Set(cfg.draftQuestions.map((q) => q.rfiId))) {
    for (const [qid, d] of Object.entries(await answers.drafts.get(rfiId)))
      drafts[`${rfiId}/${qid}`] = d.text;
  }
  const outbox = answers.outbox.list().map((a) => ({
    rfiId: a.rfiId,
    questionId: a.questionId,
    textSha: textSha(a.text),
    state: a.state,
    files: a.files.length,
  }));
  const errors = sink.records
    .filter((r) => r.level === 'error' && /unreadable|moved aside|could not be read|corrupt/i.test(r.message))
    .map((r) => r.message);
  const state: CrashWorkerState = {
    drafts,
    outbox,
    errors,
    problems: services.stores.problems().length,
    problemMessages: services.stores.problems().map((p) => `${p.file}: ${p.message}`),
  };
  out(`READY ${JSON.stringify(state)}`);

  const queued = new Set(outbox.map((o) => `${o.rfiId}/${o.questionId}`));
  let seq = cfg.seqStart;
  for (;;) {
    const q = rng.pick(cfg.draftQuestions);
    seq++;
    const text = `d:${seq}:${'x'.repeat(rng.int(0, 20_000))}`;
    await answers.saveDraft({ ...q, text, files: [] });
    out(`ACK-D ${q.rfiId}/${q.questionId} ${seq} ${text.length}`);

    if (rng.chance(0.3)) {
      const a = cfg.answerQuestions.find((x) => !queued.has(`${x.rfiId}/${x.questionId}`));
      if (a) {
        queued.add(`${a.rfiId}/${a.questionId}`);
        const refs: string[] = [];
        for (const f of a.files) {
          const r = await answers.files.registerPicked([f.path], f.documentType);
          refs.push(r.files[0]!.ref);
        }
        const answerText = a.files.length > 0 ? '' : `answer ${a.questionId} run ${cfg.seed}`;
        const draft = {
          rfiId: a.rfiId,
          questionId: a.questionId,
          questionType: a.questionType,
          text: answerText,
          files: refs,
        };
        out(`INTENT-A ${a.rfiId}/${a.questionId} ${textSha(answerText)}`);
        await answers.submit(draft);
        out(`ACK-A ${a.rfiId}/${a.questionId} ${textSha(answerText)} ${refs.length}`);
      }
    }
    await new Promise((r) => setTimeout(r, rng.int(0, 8)));
  }
}

// Runs only as the spawned worker (importing this module for its types must not start it).
if (process.env.TD_CRASH_WORKER)
  main().catch((err: unknown) => {
    process.stderr.write(
      `crash-worker failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(3);
  });
