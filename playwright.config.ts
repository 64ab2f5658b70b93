import { defineConfig } from '@playwright/test';
import { chromiumArgs, chromiumExecutable } from './test/harness/chromium';

export default defineConfig({
  testDir: 'test/e2e',
  fullyParallel: true,
  workers: process.env['CI'] ? 2 : 2,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  forbidOnly: true,
  reporter: [['list'], ['json', { outputFile: 'reports/playwright.json' }]],
  globalSetup: './test/e2e/global-setup.ts',
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath: chromiumExecutable, args: chromiumArgs },
    viewport: { width: 1360, height: 880 },
    trace: 'retain-on-failure',
  },
});
