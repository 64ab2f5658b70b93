import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { rendererDir, repoRoot } from '../harness/harness';

/** The e2e suite runs against the built renderer; build it when it is missing. */
export default function globalSetup(): void {
  if (!existsSync(path.join(rendererDir, 'index.html'))) {
    execFileSync('npx', ['electron-vite', 'build'], { cwd: repoRoot, stdio: 'inherit' });
  }
}
