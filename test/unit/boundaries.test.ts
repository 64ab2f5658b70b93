import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Process boundaries, checked on the source text: only the Electron shell may import electron,
 * src/shared runs anywhere (no Node built-ins), and the renderer reaches main only through
 * window.desk.
 */
const root = path.resolve(import.meta.dirname, '../..');

function files(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, dir))) {
    const rel = path.join(dir, entry);
    if (statSync(path.join(root, rel)).isDirectory()) out.push(...files(rel));
    else if (/\.(ts|tsx|mts|cts|js|mjs)$/.test(entry)) out.push(rel.split(path.sep).join('/'));
  }
  return out;
}

const importPattern =
  /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

function importsOf(file: string): string[] {
  const text = readFileSync(path.join(root, file), 'utf8');
  return [...text.matchAll(importPattern)].map((m) => m[1] ?? m[2] ?? m[3] ?? m[4] ?? '');
}

const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
const shell = (f: string): boolean => f === 'src/main/index.ts' || f.startsWith('src/main/electron/');

describe('process boundaries', () => {
  it('finds the source files it checks', () => {
    expect(files('src/main').length).toBeGreaterThan(5);
    expect(files('src/shared').length).toBeGreaterThan(3);
  });

  it("only the Electron shell and the preload import 'electron'", () => {
    const offenders = ['src/main', 'src/shared', 'src/sandbox', 'src/renderer']
      .flatMap(files)
      .filter((f) => !shell(f))
      .filter((f) => importsOf(f).some((i) => i === 'electron' || i.startsWith('electron/')));
    expect(offenders).toEqual([]);
  });

  it('the shell really is where electron is used (the rule checks something)', () => {
    expect(importsOf('src/main/index.ts')).toContain('electron');
  });

  it('src/shared imports no Node built-in', () => {
    const offenders = files('src/shared').filter((f) => importsOf(f).some((i) => builtins.has(i)));
    expect(offenders).toEqual([]);
  });

  it('the renderer imports neither Node, main, sandbox nor preload code', () => {
    const offenders = files('src/renderer').filter((f) =>
      importsOf(f).some((i) => builtins.has(i) || /\/(main|sandbox|preload)\//.test(i)),
    );
    expect(offenders).toEqual([]);
  });

  it('the preload imports only electron and shared code', () => {
    const bad = files('src/preload').flatMap((f) =>
      importsOf(f).filter((i) => i !== 'electron' && !i.startsWith('../shared/')),
    );
    expect(bad).toEqual([]);
  });
});
