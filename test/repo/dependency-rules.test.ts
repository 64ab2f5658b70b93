import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The import rules of .dependency-cruiser.cjs (process boundaries, layers, no cycles), run by
 * dependency-cruiser itself: over the real tree, and over a small tree with one offender per rule
 * so a rule that stopped matching anything would show here.
 */
const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const config = path.join(root, '.dependency-cruiser.cjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string; severity: string };
}

function cruise(cwd: string, dirs: string[]): { violations: Violation[]; modules: number } {
  const out = execFileSync(process.execPath, [cli, ...dirs, '--config', config, '--output-type', 'json'], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const result = JSON.parse(out) as {
    modules: unknown[];
    summary: { violations: Violation[] };
  };
  return { violations: result.summary.violations, modules: result.modules.length };
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'dep-rules-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function write(rel: string, text: string): void {
  mkdirSync(path.dirname(path.join(tmp, rel)), { recursive: true });
  writeFileSync(path.join(tmp, rel), text);
}

describe('import rules', () => {
  it('the source tree has no cycle and crosses no boundary', () => {
    const { violations, modules } = cruise(root, ['src']);
    expect(modules).toBeGreaterThan(100);
    expect(violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
  });

  it('each rule catches what it forbids', () => {
    write('tsconfig.json', JSON.stringify({ compilerOptions: { moduleResolution: 'bundler' } }));
    write('package.json', JSON.stringify({ name: 'dep-rules-fixture', type: 'module' }));
    mkdirSync(path.join(tmp, 'node_modules/electron'), { recursive: true });
    write('node_modules/electron/package.json', JSON.stringify({ name: 'electron', main: 'index.js' }));
    write('node_modules/electron/index.js', 'module.exports = {};\n');
    write('src/shared/money.ts', "import { createHash } from 'node:crypto';\nexport const h = createHash;\n");
    write('src/shared/leak.ts', "import { x } from '../main/a';\nexport const y = x;\n");
    write('src/main/a.ts', "import { b } from './b';\nexport const x = b;\n");
    write('src/main/b.ts', "import type { x } from './a';\nexport const b = 1;\nexport type X = typeof x;\n");
    write('src/main/uses-electron.ts', "import type { App } from 'electron';\nexport type A = App;\n");
    write('src/main/ui.ts', "import { view } from '../renderer/view';\nexport const v = view;\n");
    write('src/main/missing.ts', "import { gone } from './gone';\nexport const g = gone;\n");
    write('src/main/index.ts', "import { app } from 'electron';\nexport const a = app;\n");
    write(
      'src/renderer/view.ts',
      "import { readFileSync } from 'node:fs';\nexport const view = readFileSync;\n",
    );
    write('src/renderer/reach.ts', "import { x } from '../main/a';\nexport const r = x;\n");
    write('src/preload/index.ts', "import fs from 'node:fs';\nexport const p = fs;\n");
    write('src/sandbox/bank.ts', "import { x } from '../main/a';\nexport const s = x;\n");
    write('src/team-server/server.ts', "import { v } from '../main/ui';\nexport const t = v;\n");
    // The floors of main: each file reaches one floor up.
    write('src/main/infra/low.ts', "import { c } from '../bank/client';\nexport const l = c;\n");
    write('src/main/bank/client.ts', "import { s } from '../session/session';\nexport const c = s;\n");
    write('src/main/session/session.ts', "import { r } from '../returns/service';\nexport const s = r;\n");
    write('src/main/returns/service.ts', "import { root } from '../services';\nexport const r = root;\n");
    write('src/main/services.ts', 'export const root = 1;\n');

    const { violations } = cruise(tmp, ['src']);
    const caught = (rule: string): string[] =>
      violations.filter((v) => v.rule.name === rule).map((v) => `${v.from} → ${v.to}`);
    expect(caught('no-cycles').length).toBeGreaterThan(0);
    expect(caught('electron-only-in-the-shell')).toEqual([
      'src/main/uses-electron.ts → node_modules/electron/index.js',
    ]);
    expect(caught('shared-is-pure')).toEqual(['src/shared/money.ts → crypto']);
    expect(caught('shared-imports-only-shared')).toEqual(['src/shared/leak.ts → src/main/a.ts']);
    expect(caught('renderer-reaches-main-only-through-the-contract')).toEqual([
      'src/renderer/reach.ts → src/main/a.ts',
    ]);
    expect(caught('renderer-has-no-node')).toEqual(['src/renderer/view.ts → fs']);
    expect(caught('preload-imports-only-electron-and-shared')).toEqual(['src/preload/index.ts → fs']);
    expect(caught('sandbox-is-the-bank')).toEqual(['src/sandbox/bank.ts → src/main/a.ts']);
    expect(caught('team-server-stands-alone')).toEqual(['src/team-server/server.ts → src/main/ui.ts']);
    expect(caught('main-knows-no-renderer')).toEqual(['src/main/ui.ts → src/renderer/view.ts']);
    expect(caught('no-unresolvable-imports')).toEqual(['src/main/missing.ts → ./gone']);
    expect(caught('infra-floor-knows-nothing-above')).toEqual([
      'src/main/infra/low.ts → src/main/bank/client.ts',
    ]);
    expect(caught('bank-floor-knows-nothing-above')).toEqual([
      'src/main/bank/client.ts → src/main/session/session.ts',
    ]);
    expect(caught('profiles-floor-knows-no-feature')).toEqual([
      'src/main/session/session.ts → src/main/returns/service.ts',
    ]);
    expect(caught('features-know-no-root')).toEqual(['src/main/returns/service.ts → src/main/services.ts']);
    expect(caught('only-the-shell-imports-the-root')).toEqual([
      'src/main/returns/service.ts → src/main/services.ts',
    ]);
  });
});
