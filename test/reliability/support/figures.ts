/**
 * Figures of a reliability run: each scenario writes its own JSON to
 * test-results/reliability/<name>.json (soak runs to soak-<name>.json); `npm run test:soak`
 * then renders the soak figures into docs/reliability.md (test/reliability/support/reliability-report.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { soak } from '../../support/rng';

export const figuresDir = path.resolve(import.meta.dirname, '../../../test-results/reliability');

export async function recordFigures(name: string, figures: object): Promise<void> {
  await mkdir(figuresDir, { recursive: true });
  const file = path.join(figuresDir, `${soak ? 'soak-' : ''}${name}.json`);
  const data = {
    scenario: name,
    soak,
    finishedAt: new Date().toISOString(),
    node: process.version,
    ...figures,
  };
  await writeFile(file, `${JSON.stringify(data, null, 2)}\n`);
  console.log(`[reliability] ${name}: ${JSON.stringify(figures)}`);
}
