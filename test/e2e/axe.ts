import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from '@playwright/test';

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
  /** The offending elements' markup (cut to 300 characters), so a failure shows what to fix. */
  html: string[];
}

/**
 * Runs axe-core (WCAG 2.1 A/AA rules) on the page as it is and returns the serious and critical
 * violations. The script is injected through Playwright's isolated evaluate, so the app's CSP is
 * not loosened for it.
 */
export async function seriousA11yViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const results = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<unknown> } }).axe;
    // React Aria's live announcer (a visually hidden region it owns) holds each announcement for a
    // few seconds as an empty role="img" labelled by the announcing element's id; once that
    // element has unmounted axe reads it as an image without a name. It is the library's transient
    // speech queue, not the page: left out of the check.
    return (await axe.run(
      { exclude: [['[data-live-announcer]']] },
      {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
        resultTypes: ['violations'],
      },
    )) as {
      violations: Array<{
        id: string;
        impact: string | null;
        help: string;
        nodes: Array<{ target: string[]; html: string }>;
      }>;
    };
  });
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
      html: v.nodes.slice(0, 5).map((n) => n.html.slice(0, 300)),
    }));
}
