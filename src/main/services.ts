import { mkdir } from 'node:fs/promises';
import { startSandbox } from '../sandbox';
import type { RunningSandbox, SandboxOptions } from '../sandbox';
import type { SessionStatus } from '../shared/ipc/channels/session';
import { BankClient } from './bank/client';
import { createEventHub } from './events';
import type { EventHub } from './events';
import { buildHandlers } from './handlers';
import type { Handlers } from './ipc/dispatcher';
import { consoleSink, createLogger } from './log';
import type { Logger } from './log';
import type { Platform } from './platform';

export type EnvironmentChoice =
  | { kind: 'embedded-sandbox'; sandbox?: Partial<SandboxOptions> }
  | { kind: 'remote'; baseUrl: string; name?: string; token?: string };

export interface ServicesOptions {
  /** The app's data folder (Electron's userData; a temp folder in tests). */
  dataDir: string;
  platform: Platform;
  log?: Logger;
  environment?: EnvironmentChoice;
}

/** What every handler can reach. */
export interface ServiceCore {
  environment: SessionStatus['environment'];
  bank: BankClient;
  events: EventHub;
  log: Logger;
  platform: Platform;
  dataDir: string;
  hasToken(): Promise<boolean>;
}

export interface Services extends ServiceCore {
  handlers: Handlers;
  /** The embedded sandbox, when the environment is the sandbox. */
  sandbox: RunningSandbox | null;
  dispose(): Promise<void>;
}

/**
 * The one composition function: the Electron shell, the browser harness and the tests all build
 * the services through it, so they run the same code.
 */
export async function createServices(options: ServicesOptions): Promise<Services> {
  const log = options.log ?? createLogger(consoleSink);
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  const events = createEventHub(log);
  const choice = options.environment ?? { kind: 'embedded-sandbox' };

  let sandbox: RunningSandbox | null = null;
  let environment: SessionStatus['environment'];
  let token: string | null;
  if (choice.kind === 'embedded-sandbox') {
    sandbox = await startSandbox({ host: '127.0.0.1', port: 0, ...choice.sandbox });
    environment = { id: 'sandbox', name: 'Embedded sandbox', kind: 'embedded-sandbox', baseUrl: sandbox.url };
    token = sandbox.fixtures.legal_entities[0]?.tokens.admin ?? null;
  } else {
    environment = { id: 'remote', name: choice.name ?? 'Bank', kind: 'remote', baseUrl: choice.baseUrl };
    token = choice.token ?? null;
  }
  if (token) log.addSecret(token);

  const bank = new BankClient({ baseUrl: environment.baseUrl, getToken: async () => token, log });
  const core: ServiceCore = {
    environment,
    bank,
    events,
    log,
    platform: options.platform,
    dataDir: options.dataDir,
    hasToken: async () => token !== null,
  };

  return {
    ...core,
    handlers: buildHandlers(core),
    sandbox,
    async dispose() {
      await sandbox?.close();
    },
  };
}
