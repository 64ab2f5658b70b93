/**
 * `npm run start:browser`: the whole app without Electron. The services and the embedded sandbox
 * run in this process; Debian's Chromium shows the renderer (headed when DISPLAY is set, e.g.
 * under xvfb-run) with window.desk bound to the services. Ctrl+C or closing the window stops it.
 */
import { createInterface } from 'node:readline/promises';
import { chromium } from '@playwright/test';
import { startHarness } from './harness';
import { chromiumArgs, chromiumExecutable } from './chromium';

const headless = !process.env['DISPLAY'];
const harness = await startHarness({ dataDir: process.env['TREASURY_DESK_DATA_DIR'] });
// Main's native approval dialog (a new bank address, a webhook URL), asked in this terminal;
// without a terminal it is declined.
harness.platform.confirmDestination = async (request) => {
  harness.platform.confirmations.push(request);
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question(
      `\n${request.title}\n${request.message}\n${request.detail}\nApprove? [y/N] `,
    );
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
};
const browser = await chromium.launch({ executablePath: chromiumExecutable, args: chromiumArgs, headless });
const context = await browser.newContext({ viewport: { width: 1360, height: 880 } });
await harness.attach(context);
const page = await harness.open(context);

console.log(`Treasury Desk (browser harness) at ${harness.url}`);
console.log(
  'Use the Chromium window this command opened: the app core is attached only there (the address in another browser shows how to run the app).',
);
console.log(`Bank: ${harness.services.environment.name} ${harness.services.environment.baseUrl}`);
if (headless)
  console.log('No DISPLAY: running headless. Use xvfb-run or a desktop session to see the window.');

let stopping = false;
const stop = async (): Promise<void> => {
  if (stopping) return;
  stopping = true;
  await browser.close().catch(() => undefined);
  await harness.close();
  process.exit(0);
};
page.on('close', () => void stop());
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
