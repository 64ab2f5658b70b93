/**
 * Startup with 10,000 RFIs cached on disk (issue 8):
 *
 * 1. Services start: `createServices()` on a data folder whose RFI cache holds 10,000 RFIs, until
 *    `rfis.list` answers them (cache read from its snapshot file, parsed, summarised), beside the same
 *    start on an empty data folder. Both use a remote profile on a loopback sandbox (the one the
 *    cache was filled from), so neither waits for the bank: the cached scope is known from disk.
 * 2. Renderer, in Chromium through the harness with that cache: navigation to `#/rfis` → the first
 *    queue row painted (the frame after it entered the DOM) and → all 10,000 RFIs loaded in the
 *    queue ("10000 of 10000" painted), and navigation to the home screen → the overview's deadline
 *    chart painted; each in ms since the page's navigation start, beside the same page with legal
 *    entity B's few seeded RFIs cached (same build, server and harness; only the cache differs).
 *    The one rfis.list call of all rows over the harness's Playwright binding is timed too.
 * 3. The renderer's initial JavaScript (the entry chunk and its modulepreloads in index.html),
 *    gzipped, beside all of the renderer's JavaScript gzipped: what code-splitting keeps off the
 *    first screen.
 *
 * Needs `npm run build` (the renderer in out/renderer). The OS keychain is not used (tokens stay
 * in memory for the run).
 */
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from '@playwright/test';
import type { Browser, Page } from '@playwright/test';
import { startSandbox } from '../../../src/sandbox/index';
import type { RunningSandbox } from '../../../src/sandbox/index';
import { createServices } from '../../../src/main/services';
import type { ServicesOptions } from '../../../src/main/services';
import { createHeadlessPlatform } from '../../../src/main/infra/platform';
import { createLogger, memorySink } from '../../../src/main/infra/log';
import { unavailableKeyringBackend } from '../../../src/main/infra/keyring';
import { rendererDir, repoRoot, startHarness } from '../../harness/harness';
import type { Harness } from '../../harness/harness';
import { chromiumArgs, chromiumExecutable } from '../../harness/chromium';
import type { BenchResult, BenchSuite } from '../types';
import { benchCount } from '../support/scale';

const RFIS = benchCount('BENCH_RFIS', 10_000, 40);
const RUNS = benchCount('BENCH_STARTUP_RUNS', 5, 1);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}
const spread = (xs: number[]): string =>
  `min ${Math.min(...xs).toFixed(1)}, max ${Math.max(...xs).toFixed(1)}, n=${xs.length}`;

/** Services options for a remote profile on the sandbox, with one legal entity's admin token. */
function servicesOptions(sb: RunningSandbox, token: string): Omit<ServicesOptions, 'dataDir' | 'platform'> {
  return {
    log: createLogger(memorySink(), 'error'),
    keyring: unavailableKeyringBackend('bench: the OS keychain is not used'),
    environment: { kind: 'remote', baseUrl: sb.url, name: 'Bench sandbox', token },
    // No polling during the measurement (the first sync still runs, as at every start).
    rfis: { poll: { intervalMs: 3_600_000 } },
  };
}

/** Fills a data folder's RFI cache from the sandbox (a full sync) and answers its RFI count. */
async function fillCache(dataDir: string, sb: RunningSandbox, token: string): Promise<number> {
  const s = await createServices({
    dataDir,
    platform: createHeadlessPlatform(),
    ...servicesOptions(sb, token),
  });
  try {
    await s.rfis.ready();
    await s.rfis.sync('sync', true);
    return (await s.rfis.counts()).counts.total;
  } finally {
    await s.dispose();
  }
}

/** ms from createServices() to rfis.list answering; checks the number of RFIs it answered. */
async function timeStart(
  dataDir: string,
  sb: RunningSandbox,
  token: string,
  expect: number,
): Promise<number> {
  const t0 = performance.now();
  const s = await createServices({
    dataDir,
    platform: createHeadlessPlatform(),
    ...servicesOptions(sb, token),
  });
  const list = await s.rfis.list({ limit: 1 });
  const ms = performance.now() - t0;
  try {
    if (list.total !== expect)
      throw new Error(`services start: ${list.total} RFIs listed, ${expect} expected`);
    // Let the start's own first sync finish before the next run (it would otherwise overlap).
    await s.rfis.ready();
  } finally {
    await s.dispose();
  }
  return ms;
}

/** A moment to record in the page: the first frame after an element matches (and its text starts so). */
interface Mark {
  name: string;
  selector: string;
  textStartsWith?: string;
}

/**
 * Page-side probe: for each mark, performance.now() (ms since navigation start) of the frame after
 * the DOM first satisfied it, in window.__marks.
 */
const paintProbe = (marks: Mark[]): string => `(() => {
  const marks = ${JSON.stringify(marks)};
  const done = (window.__marks = {});
  const check = () => {
    for (const m of marks) {
      if (m.name in done) continue;
      const el = document.querySelector(m.selector);
      if (!el || (m.textStartsWith && !(el.textContent || '').startsWith(m.textStartsWith))) continue;
      done[m.name] = -1;
      requestAnimationFrame(() => { done[m.name] = performance.now(); });
    }
    if (marks.every((m) => m.name in done)) mo.disconnect();
  };
  const mo = new MutationObserver(check);
  mo.observe(document, { childList: true, subtree: true, characterData: true });
})();`;

interface ScreenTimes {
  /** Navigation → first queue row painted, per run. */
  firstRow: number[];
  /** Navigation → every RFI loaded in the queue ("N of N RFIs" painted), per run. */
  allRows: number[];
  /** Navigation → the overview's deadline chart painted, per run. */
  home: number[];
  /** rfis.list (all rows) over the harness binding, timed in the page, per run. */
  listCall: number[];
}

/** Opens a fresh page at `hash`, waits until every mark was painted and answers their times. */
async function timeScreen(
  browser: Browser,
  harness: Harness,
  hash: string,
  marks: Mark[],
): Promise<{ ms: Record<string, number>; page: Page; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1360, height: 880 } });
  await harness.attach(context);
  await context.addInitScript({ content: paintProbe(marks) });
  const page = await context.newPage();
  await page.goto(`${harness.url}${hash}`);
  const handle = await page.waitForFunction(
    (names) => {
      const done = (globalThis as unknown as { __marks?: Record<string, number> }).__marks ?? {};
      return names.every((n) => (done[n] ?? -1) >= 0) ? done : null;
    },
    marks.map((m) => m.name),
  );
  const ms = (await handle.jsonValue()) as Record<string, number>;
  return { ms, page, close: () => context.close() };
}

/** RUNS fresh pages each of the queue and of the home screen with the given cache. */
async function timeScreens(
  browser: Browser,
  dataDir: string,
  sb: RunningSandbox,
  token: string,
  rows: number,
): Promise<ScreenTimes> {
  const harness = await startHarness({ dataDir, services: servicesOptions(sb, token) });
  const out: ScreenTimes = { firstRow: [], allRows: [], home: [], listCall: [] };
  try {
    await harness.services.rfis.ready();
    const awaiting = (await harness.services.rfis.list({ status: ['action_required'] })).total;
    for (let i = 0; i < RUNS; i++) {
      const q = await timeScreen(browser, harness, '#/rfis', [
        { name: 'firstRow', selector: '[data-testid="rfi-row"]' },
        {
          name: 'allRows',
          selector: '[data-testid="rfi-visible-count"]',
          textStartsWith: `${rows} of ${rows} RFIs`,
        },
      ]);
      out.firstRow.push(q.ms['firstRow']!);
      out.allRows.push(q.ms['allRows']!);
      out.listCall.push(
        await q.page.evaluate(async () => {
          const desk = (
            globalThis as unknown as { desk: { invoke(c: string, a: unknown): Promise<unknown> } }
          ).desk;
          const t = performance.now();
          await desk.invoke('rfis.list', undefined);
          return performance.now() - t;
        }),
      );
      await q.close();
      const h = await timeScreen(browser, harness, '#/', [
        { name: 'home', selector: '[data-testid^="overview-band-"]' },
      ]);
      const bands = h.page.locator('[data-testid$="-count"][data-testid^="overview-band-"]');
      let sum = 0;
      for (const t of await bands.allTextContents()) sum += Number(t);
      const noneEl = h.page.getByTestId('overview-band-none');
      sum += (await noneEl.count()) > 0 ? Number.parseInt((await noneEl.textContent()) ?? '0', 10) : 0;
      if (sum !== awaiting)
        throw new Error(`overview shows ${sum} RFIs awaiting action, ${awaiting} expected`);
      out.home.push(h.ms['home']!);
      await h.close();
    }
  } finally {
    await harness.close();
  }
  return out;
}

/** The JS files index.html loads at start (entry script and modulepreloads), relative to out/renderer. */
async function initialScripts(): Promise<string[]> {
  const html = await readFile(path.join(rendererDir, 'index.html'), 'utf8');
  const refs = [
    ...html.matchAll(/<script[^>]*\bsrc="([^"]+\.js)"/g),
    ...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+\.js)"/g),
  ].map((m) => m[1]!);
  return [...new Set(refs.map((r) => path.normalize(r.replace(/^\.?\//, ''))))];
}

async function gzipSize(file: string): Promise<number> {
  return gzipSync(await readFile(file), { level: 9 }).length;
}

/** Whether a renderer/shared source is newer than the build (the figures would be stale). */
async function buildIsStale(): Promise<boolean> {
  const built = (await stat(path.join(rendererDir, 'index.html'))).mtimeMs;
  const walk = async (dir: string): Promise<boolean> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory() ? await walk(p) : (await stat(p)).mtimeMs > built) return true;
    }
    return false;
  };
  return (await walk(path.join(repoRoot, 'src/renderer'))) || (await walk(path.join(repoRoot, 'src/shared')));
}

const suite: BenchSuite = {
  name: 'startup',
  async run(): Promise<BenchResult[]> {
    const stale = await buildIsStale();
    const sb = await startSandbox({ port: 0, visibilityDelayMs: { min: 0, max: 0 } });
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'td-bench-startup-'));
    let browser: Browser | null = null;
    try {
      const [a, b] = sb.fixtures.legal_entities;
      if (!a || !b) throw new Error('the sandbox seed has no legal entities A and B');
      const seeded = a.rfi_ids.length;
      const bulk = await fetch(`${sb.url}/v1/sandbox/rfis/bulk`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...sb.controlHeaders() },
        body: JSON.stringify({ count: RFIS - seeded, legal_entity_id: a.id }),
      });
      if (!bulk.ok) throw new Error(`bulk RFIs: ${bulk.status} ${await bulk.text()}`);

      const cached = path.join(tmp, 'cached');
      const total = await fillCache(cached, sb, a.tokens.admin);
      if (total !== RFIS) throw new Error(`the cache holds ${total} RFIs, ${RFIS} expected`);
      const small = path.join(tmp, 'entity-b');
      const smallTotal = await fillCache(small, sb, b.tokens.admin);

      // 1. services start, alternating cached / empty so drift affects both alike
      const startCached: number[] = [];
      const startEmpty: number[] = [];
      await timeStart(cached, sb, a.tokens.admin, RFIS); // warm-up (module caches, JIT)
      for (let i = 0; i < RUNS; i++) {
        startCached.push(await timeStart(cached, sb, a.tokens.admin, RFIS));
        // B's token: the start's own first sync then fills 8 RFIs, not 10,000, before the next run.
        startEmpty.push(await timeStart(path.join(tmp, `empty-${i}`), sb, b.tokens.admin, 0));
      }

      // 2. navigation → first queue row painted
      browser = await chromium.launch({ executablePath: chromiumExecutable, args: chromiumArgs });
      const screensSmall = await timeScreens(browser, small, sb, b.tokens.admin, smallTotal);
      const screensLarge = await timeScreens(browser, cached, sb, a.tokens.admin, RFIS);

      // 3. initial JS vs all JS, gzipped
      const initial = await initialScripts();
      if (initial.length === 0) throw new Error('index.html loads no script');
      const assets = (await readdir(path.join(rendererDir, 'assets'))).filter((f) => f.endsWith('.js'));
      let initialGz = 0;
      for (const f of initial) initialGz += await gzipSize(path.join(rendererDir, f));
      let totalGz = 0;
      for (const f of assets) totalGz += await gzipSize(path.join(rendererDir, 'assets', f));

      return [
        {
          metric: `services start, ${RFIS} RFIs cached (createServices → rfis.list answers them, median)`,
          value: median(startCached),
          unit: 'ms',
          baseline: median(startEmpty),
          baselineLabel: 'same start, empty data folder',
          note: spread(startCached),
        },
        {
          metric: `navigation → first queue row painted, ${RFIS} RFIs cached (Chromium, median)`,
          value: median(screensLarge.firstRow),
          unit: 'ms',
          baseline: median(screensSmall.firstRow),
          baselineLabel: `same page, ${smallTotal} RFIs cached`,
          note: `ms since navigation start, the frame after the row entered the DOM; ${spread(screensLarge.firstRow)}`,
        },
        {
          metric: `navigation → all ${RFIS} RFIs in the queue ("${RFIS} of ${RFIS}" painted, median)`,
          value: median(screensLarge.allRows),
          unit: 'ms',
          baseline: median(screensSmall.allRows),
          baselineLabel: `same page, ${smallTotal} RFIs cached`,
          note: `the queue paints its most urgent rows first, then loads the rest; ${spread(screensLarge.allRows)}`,
        },
        {
          metric: `rfis.list of all ${RFIS} rows over the harness binding (in page, median)`,
          value: median(screensLarge.listCall),
          unit: 'ms',
          baseline: median(screensSmall.listCall),
          baselineLabel: `same call, ${smallTotal} rows`,
          note: 'most of the line above: Playwright binding serialization (the harness transport; Electron IPC uses structured clone)',
        },
        {
          metric: `navigation → home screen (overview) deadline chart painted, ${RFIS} RFIs cached (median)`,
          value: median(screensLarge.home),
          unit: 'ms',
          baseline: median(screensSmall.home),
          baselineLabel: `same page, ${smallTotal} RFIs cached`,
          note: `counts computed in main, no rows cross; ${spread(screensLarge.home)}`,
        },
        {
          metric: `renderer initial JS, gzipped (${initial.length} file${initial.length === 1 ? '' : 's'} loaded by index.html)`,
          value: initialGz / 1024,
          unit: 'KiB',
          baseline: totalGz / 1024,
          baselineLabel: `all renderer JS gzipped (${assets.length} files)`,
          note: `gzip -9${stale ? '; WARNING: sources are newer than out/renderer, run npm run build' : ''}`,
        },
      ];
    } finally {
      await browser?.close();
      await sb.close();
      await rm(tmp, { recursive: true, force: true });
    }
  },
};

export default suite;
