/** Builds the real services over a temp data folder for tests, and cleans up. */
import { rm } from 'node:fs/promises';
import { createServices } from '../../src/main/services';
import type { Services } from '../../src/main/core';
import type { ServicesOptions } from '../../src/main/services';
import { createHeadlessPlatform } from '../../src/main/infra/platform';
import type { HeadlessPlatform } from '../../src/main/infra/platform';
import { createLogger, memorySink } from '../../src/main/infra/log';
import type { LogRecord } from '../../src/main/infra/log';
import type { PushMessage } from '../../src/shared/ipc/bridge';
import { tempDir } from './temp-dir';

// Integration tests take both from here.
export { tempDir };

export interface TestServices {
  services: Services;
  platform: HeadlessPlatform;
  logs: LogRecord[];
  pushed: PushMessage[];
  dataDir: string;
  /** Disposes the services (keeps the data folder: restart scenarios). */
  stop(): Promise<void>;
  /** Disposes and removes the data folder. */
  close(): Promise<void>;
}

export async function startServices(
  options: Partial<Omit<ServicesOptions, 'platform' | 'log'>> = {},
): Promise<TestServices> {
  const dataDir = options.dataDir ?? (await tempDir());
  const sink = memorySink();
  const platform = createHeadlessPlatform();
  const services = await createServices({
    environment: { kind: 'embedded-sandbox', sandbox: { visibilityDelayMs: { min: 0, max: 0 } } },
    bankRetry: { baseDelayMs: 20, maxDelayMs: 100 },
    // The seeded RFIs include one hours from its timeout: tests of reminders turn them on.
    reminders: false,
    // The notification policy's rate limit has its own tests (notification-policy); elsewhere every
    // notification shows at once, so tests about other things count them as they happen.
    notifications: { intervalMs: 0 },
    ...options,
    dataDir,
    platform,
    log: createLogger(sink, 'debug'),
  });
  const pushed: PushMessage[] = [];
  services.events.attach((m) => pushed.push(m));
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await services.dispose();
  };
  return {
    services,
    platform,
    logs: sink.records,
    pushed,
    dataDir,
    stop,
    async close() {
      await stop();
      // Retried: a file appearing while the folder is removed (seen once, in the team suite's
      // afterAll) fails the whole file though every test passed; the note names it as left open.
      await rm(dataDir, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
    },
  };
}
