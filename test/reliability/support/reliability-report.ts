/**
 * Renders the figures of the last soak run (test-results/reliability/soak-*.json, written by the
 * reliability tests under TREASURY_SOAK=1) into docs/reliability.md, between the figures markers.
 * `npm run test:soak` runs it after the tests; it refuses to write when a scenario is missing.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { figuresDir } from './figures';

const doc = path.resolve(import.meta.dirname, '../../../docs/reliability.md');
const readme = path.resolve(import.meta.dirname, '../../../README.md');
const START = '<!-- soak-figures:start -->';
const SUMMARY_START = '<!-- soak-summary:start -->';
const SUMMARY_END = '<!-- soak-summary:end -->';
const END = '<!-- soak-figures:end -->';
const scenarios = ['creates', 'outbox', 'quotes', 'crash', 'ipc-fuzz'] as const;

type Figures = Record<string, unknown> & { finishedAt: string; seed: number; durationMs?: number };

const fmt = (v: unknown): string =>
  typeof v === 'number'
    ? v.toLocaleString('en-US')
    : v && typeof v === 'object'
      ? Object.entries(v as Record<string, unknown>)
          .map(([k, x]) => `${k} ${fmt(x)}`)
          .join(', ')
      : String(v);

const rows: Record<(typeof scenarios)[number], Array<[string, string]>> = {
  creates: [
    ['trials', 'operations (returns + crypto orders)'],
    ['returns', 'return intents'],
    ['cryptoOrders', 'crypto orders'],
    ['posts', 'create POSTs sent'],
    [
      'committedButLost',
      'POSTs the bank committed whose answer was lost (reset, truncated, gateway 5xx, silence)',
    ],
    ['refusedBeforeBank', 'POSTs refused or reset before reaching the bank'],
    ['faults', 'faults injected on create POSTs'],
    ['analystRetries', 'operations retried by the analyst with the same operation id'],
    ['restarts', 'app restarts before a retry'],
    ['duplicates', 'transactions created twice (must be 0)'],
    ['lost', 'operations without their transaction (must be 0)'],
    ['keysPerOperationAboveOne', 'operations sent under more than one key (must be 0)'],
    ['mismatched', 'transaction ids the app reported wrongly (must be 0)'],
  ],
  outbox: [
    ['answers', 'answers queued'],
    ['documents', 'documents uploaded'],
    ['documentBytes', 'document bytes'],
    ['requests', 'RFI / document / upload requests'],
    ['faults', 'faults injected'],
    ['committedButLost', 'requests the bank processed whose answer was lost'],
    ['silentWindows', 'windows in which the bank stopped answering'],
    ['restarts', 'app restarts during the run'],
    ['drainMs', 'ms until every answer had landed once faults stopped'],
    ['lost', 'answers lost (must be 0)'],
    ['duplicates', 'answers posted twice (must be 0)'],
    ['shaMismatches', 'documents whose sha256 at the bank differs (must be 0)'],
    ['stuck', 'answers not sent after the faults stopped (must be 0)'],
  ],
  quotes: [
    ['trials', 'quotes confirmed at a random moment around expiry'],
    ['quoteTtlSeconds', 'quote validity (s)'],
    ['confirmMarginMs', "main's confirm margin (ms, plus round trip and clock uncertainty)"],
    ['confirmed', 'confirmed'],
    ['refusedByGuard', "refused by main's guard before sending"],
    ['refusedByBank', 'let through, delayed past expiry by a spike, refused by the bank'],
    ['latencySpikes', 'latency spikes injected'],
    ['maxSpikeMs', 'largest spike (ms)'],
    ['minHeadroomMs', 'smallest quote_valid_until − quote_confirmed_at (ms, bank time)'],
    ['confirmedAfterExpiry', 'confirmed at or after quote_valid_until (must be 0)'],
    ['disagreements', 'app and bank disagree on confirmed (must be 0)'],
  ],
  crash: [
    ['trials', 'SIGKILLs'],
    ['killsDuringStartup', 'kills during start-up / recovery'],
    ['killsWhileWorking', 'kills while drafts autosaved and the outbox sent'],
    ['draftAcks', 'acknowledged draft saves'],
    ['answerAcks', 'acknowledged queued answers'],
    ['pendingAtStart', 'unsent answers found at a start (resumed)'],
    ['answersLanded', 'answers landed exactly once at the end'],
    ['documentsChecked', 'documents checked by sha256'],
    ['meanRunMs', 'mean life of a process (ms)'],
    ['lostDrafts', 'acknowledged drafts lost (must be 0)'],
    ['tornDrafts', 'torn drafts (must be 0)'],
    ['lostAnswers', 'acknowledged answers lost (must be 0)'],
    ['duplicates', 'answers posted twice (must be 0)'],
    ['storeProblems', 'stores moved aside or unreadable (must be 0)'],
    ['jsonFilesChecked', 'state files parsed after the kills'],
    ['tornFiles', 'state files that did not parse (must be 0)'],
    ['tokenOnDisk', 'files under the data folder holding the token (must be 0)'],
    ['orphanTempFiles', 'temp files left by interrupted writes (never read)'],
    ['pendingAtFinalStart', 'unsent answers at the final start'],
    ['resumeDrainMs', 'ms until the final start had delivered them'],
    ['selfExits', 'processes that died on their own (must be 0)'],
  ],
  'ipc-fuzz': [
    ['channels', 'channels in the contract'],
    ['randomRunsPerChannel', 'random argument sets per channel'],
    ['fixedHostileValuesPerChannel', 'fixed hostile values per channel'],
    ['calls', 'calls'],
    ['okAnswers', 'calls that succeeded'],
    ['errorKinds', 'typed errors by kind'],
    ['problems', 'untyped errors, internal errors, throws, pollution (must be 0)'],
    ['crashes', 'uncaught exceptions / unhandled rejections (must be 0)'],
    ['filesOutsideDataDir', 'files created outside the data folder (must be 0)'],
  ],
};

const titles: Record<(typeof scenarios)[number], string> = {
  creates: 'Creates exactly once (return intents and crypto orders)',
  outbox: 'RFI outbox under every fault',
  quotes: 'Quote confirmation under latency spikes',
  crash: 'Crash safety (kill -9)',
  'ipc-fuzz': 'IPC fuzz (every channel)',
};

async function main(): Promise<void> {
  const parts: string[] = [];
  const all = {} as Record<(typeof scenarios)[number], Figures>;
  for (const s of scenarios) {
    const file = path.join(figuresDir, `soak-${s}.json`);
    let f: Figures;
    try {
      f = JSON.parse(await readFile(file, 'utf8')) as Figures;
    } catch {
      throw new Error(`no soak figures for ${s} (${file}); run npm run test:soak`);
    }
    all[s] = f;
    parts.push(
      `### ${titles[s]}\n\nRun finished ${f.finishedAt}, seed ${f.seed}, ${Math.round((f.durationMs ?? 0) / 1000)} s.\n\n| figure | value |\n| --- | --- |\n${rows[
        s
      ]
        .map(([k, label]) => `| ${label} | ${fmt(f[k])} |`)
        .join('\n')}\n`,
    );
  }
  await replaceBetween(doc, START, END, parts.join('\n'));
  await replaceBetween(readme, SUMMARY_START, SUMMARY_END, summary(all));
  console.log(`reliability figures written to ${path.relative(process.cwd(), doc)} and README.md`);
}

async function replaceBetween(file: string, start: string, end: string, body: string): Promise<void> {
  const text = await readFile(file, 'utf8');
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a < 0 || b < a) throw new Error(`${file} has no ${start} … ${end} section`);
  await writeFile(file, `${text.slice(0, a + start.length)}\n\n${body}\n\n${text.slice(b)}`);
}

const n = (v: unknown): string => fmt(v ?? 0);

/** The few lines the README shows. */
function summary(f: Record<(typeof scenarios)[number], Figures>): string {
  const c = f.creates;
  const o = f.outbox;
  const q = f.quotes;
  const k = f.crash;
  const z = f['ipc-fuzz'];
  return [
    `Run of ${f.creates.finishedAt.slice(0, 10)} (seeds in docs/reliability.md).`,
    '',
    '| scenario | run | result |',
    '| --- | --- | --- |',
    `| creates exactly once | ${n(c.trials)} operations, ${n(c.committedButLost)} answers lost after the bank committed, ${n(c.restarts)} restarts | ${n(c.duplicates)} duplicates, ${n(c.lost)} lost |`,
    `| RFI outbox | ${n(o.answers)} answers, ${n(o.documents)} documents (${n(o.documentBytes)} bytes), ${n(o.requests)} requests under faults, ${n(o.restarts)} restarts | ${n(o.duplicates)} duplicates, ${n(o.lost)} lost, ${n(o.shaMismatches)} sha256 mismatches, ${n(o.stuck)} stuck; drained in ${n(o.drainMs)} ms |`,
    `| quote confirmation | ${n(q.trials)} quotes, ${n(q.latencySpikes)} latency spikes up to ${n(q.maxSpikeMs)} ms | ${n(q.confirmed)} confirmed (smallest headroom ${n(q.minHeadroomMs)} ms), ${n(q.confirmedAfterExpiry)} after expiry |`,
    `| crash safety | ${n(k.trials)} SIGKILLs, ${n(k.draftAcks)} acknowledged drafts, ${n(k.answerAcks)} acknowledged answers | ${n(k.lostDrafts)} drafts lost, ${n(k.tornDrafts)} torn, ${n(k.lostAnswers)} answers lost, ${n(k.duplicates)} duplicates, ${n(k.storeProblems)} store problems |`,
    `| IPC fuzz | ${n(z.calls)} calls over ${n(z.channels)} channels | ${n(z.problems)} untyped/internal errors, ${n(z.crashes)} crashes, ${n(z.filesOutsideDataDir)} files outside the data folder |`,
  ].join('\n');
}

await main();
