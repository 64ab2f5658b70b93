/**
 * `npm start`: builds the app, then runs it in Electron on the embedded sandbox. When the Electron
 * binary is missing it is installed with Electron's own installer (node_modules/electron/install.js,
 * the `install-electron` bin). Where Electron cannot be had (no display, a Node older than its
 * tooling asks for, no network), one line says why and what would fix it, and the same app opens
 * in browser mode (test/harness/start-browser.ts). The decision is planStart() in
 * scripts/start-plan.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { electronExecutableName, hasDisplay, planStart } from './start-plan';
import type { StartInputs } from './start-plan';

const root = path.resolve(import.meta.dirname, '..');
const resolver = createRequire(path.join(root, 'package.json'));
const electronDir = path.dirname(resolver.resolve('electron/package.json'));
const electronPackage = JSON.parse(readFileSync(path.join(electronDir, 'package.json'), 'utf8')) as {
  version: string;
  engines: { node: string };
};
const electronVite = path.join(
  path.dirname(resolver.resolve('electron-vite/package.json')),
  'bin/electron-vite.js',
);

/** How long the reachability check of the download host and the download itself may take. */
const probeTimeoutMs = 5_000;
const installTimeoutMs = 10 * 60_000;

/** The Electron executable, where Electron's own index.js and electron-vite would look for it. */
function findElectron(): string | null {
  const candidates: string[] = [];
  const execPath = process.env['ELECTRON_EXEC_PATH'];
  if (execPath) candidates.push(execPath);
  const override = process.env['ELECTRON_OVERRIDE_DIST_PATH'];
  if (override) candidates.push(path.join(override, electronExecutableName(process.platform)));
  const pathFile = path.join(electronDir, 'path.txt');
  if (existsSync(pathFile)) {
    candidates.push(path.join(electronDir, 'dist', readFileSync(pathFile, 'utf8').trim()));
  }
  return candidates.find((c) => existsSync(c)) ?? null;
}

/** Electron's installer, bounded: a quick look at the download host first, then the download. */
async function installElectron(): Promise<{ ok: true } | { ok: false; reason: string }> {
  const mirror = process.env['ELECTRON_MIRROR'] ?? 'https://github.com/electron/electron/releases/';
  try {
    await fetch(mirror, { method: 'HEAD', signal: AbortSignal.timeout(probeTimeoutMs) });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return { ok: false, reason: `${new URL(mirror).host} not reachable${cause ? `: ${cause}` : ''}` };
  }
  console.log(`Downloading Electron ${electronPackage.version} (once)…`);
  const run = spawnSync(process.execPath, [path.join(electronDir, 'install.js')], {
    cwd: root,
    encoding: 'utf8',
    timeout: installTimeoutMs,
  });
  if (run.error) return { ok: false, reason: run.error.message };
  if (run.status !== 0) {
    const last =
      `${run.stderr}`
        .trim()
        .split('\n')
        .find((l) => l.trim()) ?? `exit code ${run.status}`;
    return { ok: false, reason: last.trim().slice(0, 200) };
  }
  return { ok: true };
}

/** Runs a child with the terminal, forwarding Ctrl+C / SIGTERM, and exits with its code. */
function runAttached(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  const child = spawn(command, args, { cwd: root, stdio: 'inherit', env });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (child.exitCode === null) child.kill(signal);
    });
  }
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

const build = spawnSync(process.execPath, [electronVite, 'build', '--logLevel', 'warn'], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);

const inputs: StartInputs = {
  nodeVersion: process.versions.node,
  electronVersion: electronPackage.version,
  electronToolingNode: electronPackage.engines.node,
  electronBinary: findElectron(),
  display: hasDisplay(process.platform, process.env),
  install: null,
};
let plan = planStart(inputs);
if (plan.action === 'install') {
  inputs.install = await installElectron();
  inputs.electronBinary = findElectron();
  plan = planStart(inputs);
}

if (plan.action === 'electron') {
  runAttached(process.execPath, [electronVite, 'preview', '--skipBuild'], {
    ...process.env,
    ELECTRON_EXEC_PATH: plan.executable,
  });
} else if (plan.action === 'browser') {
  console.log(plan.why);
  runAttached(process.execPath, ['--import', 'tsx', 'test/harness/start-browser.ts']);
} else {
  throw new Error(`unexpected start plan ${plan.action}`);
}
