/**
 * The embedded sandbox's seed for this data folder: made at random the first time and kept in
 * `sandbox-seed` (owner-only), so its ids and tokens stay the same for this install across
 * restarts but differ from every other install. A file that cannot be read as a seed is replaced.
 */

import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileDurable } from '../infra/durable-file';
import type { Logger } from '../infra/log';

export const SANDBOX_SEED_FILE = 'sandbox-seed';
const SEED_RE = /^[0-9a-f]{32}$/;

export async function sandboxSeedFor(dataDir: string, log: Logger): Promise<string> {
  const file = path.join(dataDir, SANDBOX_SEED_FILE);
  try {
    const text = (await readFile(file, 'utf8')).trim();
    if (SEED_RE.test(text)) return text;
    log.warn('sandbox: the stored seed is malformed; making a new one (sandbox tokens change)');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      log.warn('sandbox: the stored seed cannot be read; making a new one (sandbox tokens change)', {
        error: err,
      });
    }
  }
  const seed = randomBytes(16).toString('hex');
  await writeFileDurable(file, `${seed}\n`);
  return seed;
}
