/**
 * The consolidated desk: three profiles (three legal entities of the embedded sandbox, the third
 * seeded with its `extraLegalEntities` option) × 10,000 RFIs each, in Chromium through the harness.
 *
 * (a) The consolidated queue's search keystroke over every entity's rows (main-thread time of the
 *     update, measured in the page) against the 16.7 ms frame.
 * (b) One poll round over the three profiles (their three pollers firing together) against three
 *     single-profile polls measured in the same run, alternating, as CPU time of this process (the
 *     app's main process and the in-process sandbox both: every request is served here) and as
 *     wall time. Incremental polls (the steady state: nothing changed) and full re-syncs (every
 *     RFI read again).
 *
 * Needs `npm run build` (the renderer in out/renderer). The host's load is printed with the
 * results: the figures are only comparable under the same load.
 */
import { loadavg } from 'node:os';
import { chromium } from '@playwright/test';
import { startHarness } from '../../harness/harness';
import type { Harness } from '../../harness/harness';
import { chromiumArgs, chromiumExecutable } from '../../harness/chromium';
import type { RfiService } from '../../../src/main/rfis/service';
import { staffOf } from '../../support/sandbox-staff';
import type { BenchResult, BenchSuite } from '../types';
import { benchCount, SMOKE } from '../support/scale';
import { FRAME_MS, waitForLoaded, median, p95, run, timedSearch } from '../support/queue-page';

const PER_ENTITY = benchCount('BENCH_DESK_RFIS', 10_000, 40);
const INCREMENTAL_ROUNDS = benchCount('BENCH_DESK_ROUNDS', 40, 2);
const FULL_ROUNDS = benchCount('BENCH_DESK_FULL_ROUNDS', 5, 1);

interface Cost {
  wall: number;
  cpu: number;
}

async function timed(fn: () => Promise<unknown>): Promise<Cost> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const c = process.cpuUsage(c0);
  return { wall: performance.now() - t0, cpu: (c.user + c.system) / 1000 };
}

const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');

async function bulk(harness: Harness, legalEntityId: string, count: number): Promise<void> {
  const sandbox = harness.services.sandbox!;
  if (count <= 0) return;
  const r = await fetch(`${sandbox.url}/v1/sandbox/rfis/bulk`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...sandbox.controlHeaders() },
    body: JSON.stringify({ count, legal_entity_id: legalEntityId }),
  });
  if (!r.ok) throw new Error(`bulk RFIs: ${r.status} ${await r.text()}`);
}

/** Per poll kind: the round's cost and the sum of the three single polls, per repetition. */
async function pollCosts(
  members: readonly RfiService[],
  full: boolean,
  rounds: number,
): Promise<{ round: Cost[]; singles: Cost[] }> {
  const round: Cost[] = [];
  const singles: Cost[] = [];
  const poll = (m: RfiService) => m.sync('poll', full);
  const measureSingles = async (): Promise<void> => {
    const each: Cost[] = [];
    for (const m of members) each.push(await timed(() => poll(m)));
    singles.push({
      wall: each.reduce((a, c) => a + c.wall, 0),
      cpu: each.reduce((a, c) => a + c.cpu, 0),
    });
  };
  const measureRound = async (): Promise<void> => {
    round.push(await timed(() => Promise.all(members.map(poll))));
  };
  // Warm-up, then alternate which goes first so neither side always runs on a warmer process.
  await measureRound();
  await measureSingles();
  round.length = 0;
  singles.length = 0;
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      await measureRound();
      await measureSingles();
    } else {
      await measureSingles();
      await measureRound();
    }
  }
  return { round, singles };
}

const suite: BenchSuite = {
  name: 'desk',
  async run(): Promise<BenchResult[]> {
    const loadBefore = load();
    const harness = await startHarness({
      services: {
        environment: {
          kind: 'embedded-sandbox',
          sandbox: { visibilityDelayMs: { min: 0, max: 0 }, extraLegalEntities: 1 },
        },
        // Polls only when the bench says so.
        rfis: { poll: { intervalMs: 3_600_000 }, webhook: { autoConfigureSandbox: false } },
      },
    });
    const browser = await chromium.launch({ executablePath: chromiumExecutable, args: chromiumArgs });
    try {
      const services = harness.services;
      const sandbox = services.sandbox!;
      const staff = staffOf(services);
      const entities = sandbox.fixtures.legal_entities.slice(0, 3);
      if (entities.length < 3) throw new Error('the sandbox has fewer than three legal entities');
      // Bulk RFIs share one update time; the newest RFI of each entity comes three minutes later
      // (sandbox clock), so an incremental poll (updated_since = newest − 60 s) reads what a
      // steady-state poll reads, not every bulk RFI again.
      for (const le of entities) await bulk(harness, le.id, PER_ENTITY - le.rfi_ids.length - 1);
      await staff.advanceClock(180);
      for (const le of entities) {
        await staff.createRfi({
          type: 'account',
          related_id: le.accounts[0]!.id,
          description: `Newest RFI of ${le.name}`,
          questions: [{ question_type: 'transaction.purpose', question_text: 'What is the account for?' }],
        });
      }

      // Profiles for B and C (their own admin tokens); the sandbox profile holds A's.
      const h = services.handlers;
      for (const le of entities.slice(1)) {
        harness.platform.nextConfirmAnswers.push(true);
        const view = await h['settings.addProfile']({ name: `Bench ${le.name}`, baseUrl: sandbox.url });
        const id = view.profiles.find((p) => p.name === `Bench ${le.name}`)!.id;
        await h['vault.setToken']({ profileId: id, token: le.tokens.admin });
      }
      // The active profile synced before the bulk RFIs existed (its poller waits an hour).
      await services.rfis.sync('sync', true);
      const expected = PER_ENTITY * 3;
      const deadline = Date.now() + 300_000;
      for (;;) {
        await services.entityWatch.reconcile();
        if (services.entityWatch.watched().size === 2) {
          const total = (await services.entityWatch.list({ limit: 1 })).counts.total;
          if (total >= expected) break;
        }
        if (Date.now() > deadline) {
          const l = await services.entityWatch.list({ limit: 1 });
          throw new Error(
            `the three profiles did not finish their first sync: ${JSON.stringify(l.entities.map((e) => ({ name: e.name, total: e.total, sync: e.sync, connection: e.connection, problem: e.problem })))}`,
          );
        }
        await new Promise((r) => setTimeout(r, 500));
      }
      const members = [services.rfis, ...[...services.entityWatch.watched().values()].map((w) => w.rfis)];

      // (b) poll rounds, before the browser opens (nothing else runs in this process then).
      const incremental = await pollCosts(members, false, INCREMENTAL_ROUNDS);
      const full = await pollCosts(members, true, FULL_ROUNDS);

      // (a) the consolidated queue's search keystroke in Chromium.
      const context = await browser.newContext({ viewport: { width: 1360, height: 880 } });
      await harness.attach(context);
      const page = await context.newPage();
      page.on('pageerror', (e) => console.error('[page error]', e.message));
      await page.goto(`${harness.url}#/rfis`);
      await page.waitForSelector('[data-testid="rfi-row"]');
      await waitForLoaded(page, expected);
      const entityCount = await run<number>(
        page,
        `() => Number(document.querySelector('[data-testid="rfi-filter-entity"]')?.getAttribute('data-count') ?? 1)`,
      );
      const search: number[] = [];
      const words = ['b', 'bu', 'bul', 'bulk', 'bulk ', 'bulk 9', 'bulk 99', 'bulk 9', 'bulk', ''];
      for (let round = 0; round < (SMOKE ? 1 : 3); round++) {
        for (const w of words) search.push(await timedSearch(page, w));
      }
      await context.close();
      const loadAfter = load();

      const under = `host load average (1/5/15 min) ${loadBefore} before, ${loadAfter} after; 2 cores shared`;
      const ratioRow = (
        metric: string,
        x: { round: Cost[]; singles: Cost[] },
        kind: keyof Cost,
        note: string,
      ): BenchResult => {
        const r = median(x.round.map((c) => c[kind]));
        const s = median(x.singles.map((c) => c[kind]));
        return {
          metric,
          value: r,
          unit: 'ms',
          baseline: s,
          baselineLabel: 'three single-profile polls',
          note: `${note}; target ratio ≤ 1.2; round p95 ${p95(x.round.map((c) => c[kind])).toFixed(1)} ms, singles p95 ${p95(x.singles.map((c) => c[kind])).toFixed(1)} ms, n=${x.round.length}`,
        };
      };
      return [
        {
          metric: `consolidated queue search keystroke, ${expected} RFIs of ${entityCount} entities (median)`,
          value: median(search),
          unit: 'ms',
          baseline: FRAME_MS,
          baselineLabel: 'frame budget (60 Hz)',
          note: `filter + sort in the renderer, React commit, layout; p95 ${p95(search).toFixed(1)} ms, max ${Math.max(...search).toFixed(1)} ms, n=${search.length}; ${under}`,
        },
        ratioRow(
          'poll round over 3 profiles, incremental, CPU (median)',
          incremental,
          'cpu',
          'nothing changed at the bank: updated_since read per profile; CPU of main + in-process sandbox',
        ),
        ratioRow(
          'poll round over 3 profiles, incremental, wall (median)',
          incremental,
          'wall',
          'the three pollers at once vs one after the other',
        ),
        ratioRow(
          `poll round over 3 profiles, full re-sync of ${PER_ENTITY} RFIs each, CPU (median)`,
          full,
          'cpu',
          'every RFI read again and diffed against the cache',
        ),
        ratioRow(
          `poll round over 3 profiles, full re-sync of ${PER_ENTITY} RFIs each, wall (median)`,
          full,
          'wall',
          under,
        ),
      ];
    } finally {
      await browser.close();
      await harness.close();
    }
  },
};

export default suite;
