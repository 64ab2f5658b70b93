/**
 * Renderer JavaScript for the first screen, gzipped, against a 120 KiB budget. The suite builds
 * the app first (`electron-vite build`, so the figure is for the sources as they are; the smoke run
 * uses the build that is there), then:
 *
 * 1. static: the entry script and the modulepreloads index.html names (what the browser must
 *    fetch before anything renders);
 * 2. loaded: the page opened in Chromium through the harness at the home screen and at the RFI
 *    queue, every JavaScript file the page actually loaded (the entry, its static imports and the
 *    lazily loaded chunk of that screen), each gzipped from out/renderer.
 *
 * The budget is the baseline; the ratio says how much of it is used. All renderer JS gzipped is in
 * the note: what code-splitting keeps off the first screen.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from '@playwright/test';
import { rendererDir, repoRoot, startHarness } from '../../harness/harness';
import { chromiumArgs, chromiumExecutable } from '../../harness/chromium';
import type { BenchResult, BenchSuite } from '../types';
import { SMOKE } from '../support/scale';

const BUDGET_KIB = 120;

async function gzipKiB(file: string): Promise<number> {
  return gzipSync(await readFile(file), { level: 9 }).length / 1024;
}

async function staticScripts(): Promise<string[]> {
  const html = await readFile(path.join(rendererDir, 'index.html'), 'utf8');
  const refs = [
    ...html.matchAll(/<script[^>]*\bsrc="([^"]+\.js)"/g),
    ...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+\.js)"/g),
  ].map((m) => m[1]!);
  return [...new Set(refs.map((r) => path.normalize(r.replace(/^\.?\//, ''))))];
}

const suite: BenchSuite = {
  name: 'bundle-size',
  async run(): Promise<BenchResult[]> {
    // The smoke run uses the build `npm test` has just made: rebuilding out/ would pull it from
    // under the tests that boot it, running beside this one.
    if (!SMOKE) {
      execFileSync(process.platform === 'win32' ? 'npx.cmd' : 'npx', ['electron-vite', 'build'], {
        cwd: repoRoot,
        stdio: 'ignore',
      });
    } else if (!existsSync(path.join(rendererDir, 'index.html'))) {
      throw new Error('no renderer build in out/renderer: run npm run build first');
    }
    const assets = (await readdir(path.join(rendererDir, 'assets'))).filter((f) => f.endsWith('.js'));
    let allKiB = 0;
    for (const f of assets) allKiB += await gzipKiB(path.join(rendererDir, 'assets', f));

    const initial = await staticScripts();
    let staticKiB = 0;
    for (const f of initial) staticKiB += await gzipKiB(path.join(rendererDir, f));

    const harness = await startHarness({
      services: {
        environment: { kind: 'embedded-sandbox', sandbox: { visibilityDelayMs: { min: 0, max: 0 } } },
      },
    });
    const browser = await chromium.launch({ executablePath: chromiumExecutable, args: chromiumArgs });
    const loaded: Record<string, string[]> = {};
    try {
      for (const [screen, hash, ready] of [
        ['home screen', '#/', 'main h1'],
        ['RFI queue', '#/rfis', '[data-testid="rfi-row"]'],
      ] as const) {
        const context = await browser.newContext({ viewport: { width: 1360, height: 880 } });
        await harness.attach(context);
        const page = await context.newPage();
        const files = new Set<string>();
        page.on('response', (r) => {
          const u = new URL(r.url());
          if (u.pathname.endsWith('.js') && r.request().resourceType() === 'script') files.add(u.pathname);
        });
        await page.goto(`${harness.url}${hash}`);
        await page.waitForSelector(ready, { timeout: 30_000 });
        await page.waitForLoadState('networkidle');
        loaded[screen] = [...files];
        await context.close();
      }
    } finally {
      await browser.close();
      await harness.close();
    }

    const results: BenchResult[] = [
      {
        metric: `renderer JS named by index.html, gzipped (${initial.length} file${initial.length === 1 ? '' : 's'})`,
        value: staticKiB,
        unit: 'KiB',
        baseline: BUDGET_KIB,
        baselineLabel: 'first-screen budget',
        note: `gzip -9; all renderer JS ${allKiB.toFixed(1)} KiB in ${assets.length} files`,
      },
    ];
    for (const [screen, files] of Object.entries(loaded)) {
      let kib = 0;
      for (const f of files) kib += await gzipKiB(path.join(rendererDir, f.replace(/^\//, '')));
      results.push({
        metric: `renderer JS loaded to show the ${screen}, gzipped (${files.length} files)`,
        value: kib,
        unit: 'KiB',
        baseline: BUDGET_KIB,
        baselineLabel: 'first-screen budget',
        note: files.map((f) => path.basename(f)).join(', '),
      });
    }
    return results;
  },
};

export default suite;
