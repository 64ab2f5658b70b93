/** A fresh folder under the OS temp folder, for tests that write files (the caller removes it). */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export async function tempDir(prefix = 'td-test-'): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}
