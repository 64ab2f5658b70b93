/**
 * Bundles a worker script that a test runs as its own Node process (to kill it with SIGKILL):
 * node starts the bundle in a fraction of tsx's time; packages stay external.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';

const cacheDir = path.resolve(import.meta.dirname, '../../node_modules/.cache');

/** Bundles `source` into node_modules/.cache/<outName>.mjs and answers the bundle's path. */
export async function bundleNodeWorker(source: string, outName: string): Promise<string> {
  const outfile = path.join(cacheDir, `${outName}.mjs`);
  await mkdir(path.dirname(outfile), { recursive: true });
  await build({
    entryPoints: [source],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
  return outfile;
}
