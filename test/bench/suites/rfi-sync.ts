/**
 * RFI sync: a full sync of 10,000 RFIs from the sandbox through the app's path (typed bank client
 * on got, the check of every record (rfis/rfi-records.ts: the schema's output shape, zod for the
 * rest), the change-detecting upsert, the listing's pages written into the cache's next snapshot
 * as they arrive and committed with the sync's meta in one atomic write with fsync, and shards
 * only where the cache differs from it), plain and sealed with a data key as the app writes it,
 * beside the least work that gets the same data onto disk: a bare `fetch` of the same
 * pages (page_size 500, following next_page_token), JSON.parse of each, and one durable write
 * (temp file, fsync, rename) of the same bytes. Also: an incremental sync with nothing new (beside
 * the same fetch + parse of its page, nothing to write), and opening the 10,000-RFI cache from
 * disk (a cold start) beside readFile + JSON.parse of the same files without validation.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import path from 'node:path';
import { BankClient } from '../../../src/main/bank/client';
import { randomBytes } from 'node:crypto';
import { createAtRestCodec } from '../../../src/main/infra/at-rest';
import { writeFileDurable } from '../../../src/main/infra/durable-file';
import { createServerClock } from '../../../src/main/bank/clock';
import { createLogger, memorySink } from '../../../src/main/infra/log';
import { openRfiRepository } from '../../../src/main/rfis/repository';
import { PAGE_SIZE, syncRepository } from '../../../src/main/rfis/sync';
import { startSandbox } from '../../../src/sandbox/index';
import type { BenchResult, BenchSuite } from '../types';
import { benchCount } from '../support/scale';
import { sandboxStaff } from '../../support/sandbox-staff';

const COUNT = benchCount('BENCH_RFIS', 10_000, 40);
const ROUNDS = benchCount('BENCH_ROUNDS', 7, 1);

/**
 * A full garbage collection before each timed run, so that neither path pays for the garbage the
 * other left (the bare path's parsed pages, the last full sync's 10,000 records): without it the
 * path timed second in a round paid for the first one's collection.
 */
v8.setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

const fmtMs = (ms: number): string => `${ms.toFixed(0)} ms`;

/** CPU time (user + system, ms) of this process over the last `timed` call: the host is shared. */
let lastCpuMs = 0;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  collect();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const t = performance.now() - t0;
  const c = process.cpuUsage(c0);
  lastCpuMs = (c.user + c.system) / 1000;
  return t;
}

/**
 * Every page of GET /v1/rfis with a bare fetch, each parsed with JSON.parse (no schema), then,
 * when `writeTo` is given, the bytes of all pages in one durable write (temp, fsync, rename).
 */
async function bareFetchAll(
  base: string,
  token: string,
  query = '',
  writeTo?: string,
): Promise<{ bytes: number; pages: number; items: number }> {
  let next: string | null = null;
  let bytes = 0;
  let pages = 0;
  let items = 0;
  const texts: string[] = [];
  do {
    const qs = new URLSearchParams(query);
    qs.set('page_size', String(PAGE_SIZE));
    if (next) qs.set('page_token', next);
    const res = await fetch(`${base}/v1/rfis?${qs.toString()}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`GET /v1/rfis: ${res.status}`);
    const page = JSON.parse(text) as { data: unknown[]; next_page_token?: string | null };
    bytes += text.length;
    items += page.data.length;
    pages++;
    texts.push(text);
    next = page.next_page_token ?? null;
  } while (next);
  if (writeTo) await writeFileDurable(writeTo, texts.join('\n'));
  return { bytes, pages, items };
}

const suite: BenchSuite = {
  name: 'rfi-sync',
  async run(): Promise<BenchResult[]> {
    const sb = await startSandbox({ port: 0, visibilityDelayMs: { min: 0, max: 0 } });
    const dirs: string[] = [];
    try {
      const le = sb.fixtures.legal_entities[0];
      if (!le) throw new Error('no seed');
      const bulk = await fetch(`${sb.url}/v1/sandbox/rfis/bulk`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...sb.controlHeaders() },
        body: JSON.stringify({ count: COUNT, legal_entity_id: le.id }),
      });
      if (!bulk.ok) throw new Error(`bulk RFIs: ${bulk.status}`);
      const token = le.tokens.admin;
      const log = createLogger(memorySink(), 'error');
      const bank = new BankClient({
        getBaseUrl: () => sb.url,
        getToken: async () => token,
        log,
        clock: createServerClock(),
      });

      // warm both paths twice (JIT, connections, the record check's compiled validator)
      const warm = await mkdtemp(path.join(os.tmpdir(), 'rfi-bench-'));
      dirs.push(warm);
      for (let w = 0; w < 2; w++) {
        const into = await mkdtemp(path.join(warm, 'w-'));
        await bareFetchAll(sb.url, token, '', path.join(into, 'bare.json'));
        await syncRepository(bank, await openRfiRepository({ dir: into, log }), {
          nowMs: Date.now(),
          full: true,
        });
      }

      const full: number[] = [];
      const sealed: number[] = [];
      const bare: number[] = [];
      const codec = createAtRestCodec({ id: 'dk_bench', key: randomBytes(32) }, { root: os.tmpdir() });
      const fullCpu: number[] = [];
      const bareCpu: number[] = [];
      // Where a full sync's time goes (open / fetch + check + upsert / the snapshot's write).
      const openPart: number[] = [];
      const writePart: number[] = [];
      let total = 0;
      let pages = 0;
      let lastDir = '';
      for (let i = 0; i < ROUNDS; i++) {
        const dir = await mkdtemp(path.join(os.tmpdir(), 'rfi-bench-'));
        dirs.push(dir);
        lastDir = dir;
        const bareDir = await mkdtemp(path.join(os.tmpdir(), 'rfi-bench-bare-'));
        dirs.push(bareDir);
        const timeBare = async (): Promise<void> => {
          bare.push(
            await timed(async () => {
              pages = (await bareFetchAll(sb.url, token, '', path.join(bareDir, 'rfis.json'))).pages;
            }),
          );
          bareCpu.push(lastCpuMs);
        };
        let opened = 0;
        let written = 0;
        // The two paths take turns at going first: a change in the shared host's load, or what the
        // first one leaves behind, falls on both alike.
        if (i % 2 === 0) await timeBare();
        full.push(
          await timed(async () => {
            const t0 = performance.now();
            const repo = await openRfiRepository({ dir, log });
            opened = performance.now() - t0;
            const flush = repo.flush.bind(repo);
            repo.flush = async (listing) => {
              const t1 = performance.now();
              await flush(listing);
              written += performance.now() - t1;
            };
            const out = await syncRepository(bank, repo, { nowMs: Date.now(), full: true });
            total = out.fetched;
          }),
        );
        fullCpu.push(lastCpuMs);
        openPart.push(opened);
        writePart.push(written);
        const sealedDir = await mkdtemp(path.join(os.tmpdir(), 'rfi-bench-sealed-'));
        dirs.push(sealedDir);
        sealed.push(
          await timed(async () => {
            const repo = await openRfiRepository({ dir: sealedDir, log, codec });
            await syncRepository(bank, repo, { nowMs: Date.now(), full: true });
          }),
        );
        if (i % 2 === 1) await timeBare();
      }
      const ratios = full.map((f, i) => f / (bare[i] ?? Number.NaN)).sort((a, b) => a - b);
      const sealedRatios = sealed.map((f, i) => f / (bare[i] ?? Number.NaN)).sort((a, b) => a - b);

      // incremental: an hour later one RFI is new (picked up once), then nothing changes
      const repo = await openRfiRepository({ dir: lastDir, log });
      await sandboxStaff(sb).advanceClock(3600);
      await sandboxStaff(sb).createRfi({
        type: 'account',
        related_id: le.accounts[0]?.id ?? le.id,
        questions: [{ question_type: 'transaction.purpose', question_text: 'Purpose?' }],
      });
      const picked = await syncRepository(bank, repo, { nowMs: Date.now() });
      if (picked.mode !== 'incremental' || picked.diffs.length !== 1) {
        throw new Error(`incremental sync: ${picked.mode}, ${picked.diffs.length} new`);
      }
      const since = new Date(
        Date.parse(repo.meta().cursor ?? new Date().toISOString()) - 60_000,
      ).toISOString();
      const inc: number[] = [];
      const incBare: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        incBare.push(
          await timed(() => bareFetchAll(sb.url, token, `updated_since=${encodeURIComponent(since)}`)),
        );
        inc.push(await timed(() => syncRepository(bank, repo, { nowMs: Date.now() })));
      }

      // cold start: open the cache from disk
      const open: number[] = [];
      const rawParse: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        rawParse.push(
          await timed(async () => {
            for (const f of (await readdir(lastDir)).filter((n) => /^(shard-..|snapshot)\.json$/.test(n))) {
              JSON.parse(await readFile(path.join(lastDir, f), 'utf8'));
            }
          }),
        );
        open.push(
          await timed(async () => {
            const r = await openRfiRepository({ dir: lastDir, log });
            if (r.size !== total + 1) throw new Error(`cache holds ${r.size}, expected ${total + 1}`);
          }),
        );
      }

      return [
        {
          metric: `full sync of ${total} RFIs into the on-disk cache (ms)`,
          value: median(full),
          unit: 'ms',
          baseline: median(bare),
          baselineLabel: `bare fetch + JSON.parse of the same ${pages} pages + one durable write of their bytes`,
          note: `median of ${ROUNDS} (a full collection before each run, the two paths taking turns at going first; per-round ratios ${ratios.map((r) => r.toFixed(2)).join(', ')}); client: got + a check per record + upsert + the pages written into the next snapshot as they arrive, committed with the meta as one fsync'd file (no shard differs); of which open ${fmtMs(median(openPart))}, the snapshot's end (meta, fsync, rename) ${fmtMs(median(writePart))}, the rest fetch + check + upsert + the pages' writes; CPU time of the process (the sandbox's included) ${fmtMs(median(fullCpu))} vs ${fmtMs(median(bareCpu))}`,
        },
        {
          metric: `full sync of ${total} RFIs, sealed with a data key as the app writes it (ms)`,
          value: median(sealed),
          unit: 'ms',
          baseline: median(bare),
          baselineLabel: `the same bare fetch + JSON.parse + one plain durable write`,
          note: `median of ${ROUNDS}, run right after the plain one in each round (per-round ratios ${sealedRatios.map((r) => r.toFixed(2)).join(', ')}): AES-256-GCM and base64 of each page as it arrives, the tag written into the envelope's head at the end`,
        },
        {
          metric: 'incremental sync, nothing changed (ms)',
          value: median(inc),
          unit: 'ms',
          baseline: median(incBare),
          baselineLabel: 'bare fetch + JSON.parse of the same updated_since page',
          note: 'one page: the RFI inside the 60 s cursor overlap is re-read, no write when nothing differs',
        },
        {
          metric: `open the cache of ${total} RFIs from disk, every record checked (ms)`,
          value: median(open),
          unit: 'ms',
          baseline: median(rawParse),
          baselineLabel: 'readFile + JSON.parse of the same files (snapshot and shards)',
        },
      ];
    } finally {
      await sb.close();
      for (const d of dirs) await rm(d, { recursive: true, force: true });
    }
  },
};

export default suite;
