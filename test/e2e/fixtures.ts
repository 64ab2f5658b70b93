import { test as base } from '@playwright/test';
import type { Page } from '@playwright/test';
import { startHarness } from '../harness/harness';
import type { Harness, HarnessOptions } from '../harness/harness';

/**
 * `app`: a fresh harness (services + embedded sandbox) per test, with the renderer open in
 * Chromium. Tests that need other options call `startHarness` themselves.
 */
export const test = base.extend<{ harnessOptions: HarnessOptions; harness: Harness; app: Page }>({
  harnessOptions: [
    {
      services: {
        environment: { kind: 'embedded-sandbox', sandbox: { visibilityDelayMs: { min: 0, max: 0 } } },
      },
    },
    { option: true },
  ],
  harness: async ({ harnessOptions }, use) => {
    const h = await startHarness(harnessOptions);
    await use(h);
    await h.close();
  },
  app: async ({ harness, context }, use) => {
    await harness.attach(context);
    const page = await harness.open(context);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await use(page);
    if (errors.length > 0) throw new Error(`The page logged errors:\n${errors.join('\n')}`);
  },
});

export { expect } from '@playwright/test';
