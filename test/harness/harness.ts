/**
 * The browser harness: the real services in this Node process, the built renderer served over
 * loopback HTTP with the app's security headers, and `window.desk` bound to the services through
 * Playwright — the same contract as the Electron preload, over another transport.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { createReadStream, existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { BrowserContext, Page } from '@playwright/test';
import { createServices } from '../../src/main/services';
import type { Services } from '../../src/main/core';
import type { ServicesOptions } from '../../src/main/services';
import { createDispatcher, createSenderPolicy } from '../../src/main/ipc/dispatcher';
import type { Dispatch } from '../../src/main/ipc/dispatcher';
import { resolveAppAsset } from '../../src/main/electron/protocol/resolve';
import { securityHeaders } from '../../src/main/electron/protocol/policy';
import { createHeadlessPlatform } from '../../src/main/infra/platform';
import { createLinkHandler } from '../../src/main/electron/links/handle';
import type { HeadlessPlatform } from '../../src/main/infra/platform';
import { createLogger, memorySink } from '../../src/main/infra/log';
import type { LogRecord } from '../../src/main/infra/log';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '../..');
export const rendererDir = path.join(repoRoot, 'out/renderer');

let bridgeScript: Promise<string> | null = null;

/** The harness transport, bundled once per process. */
export function harnessBridgeScript(): Promise<string> {
  bridgeScript ??= build({
    entryPoints: [path.join(here, 'bridge-entry.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    write: false,
    logLevel: 'silent',
  }).then((r) => r.outputFiles[0]?.text ?? '');
  return bridgeScript;
}

export interface HarnessOptions {
  /** Passed to createServices (the environment, e.g. sandbox options). */
  services?: Partial<Omit<ServicesOptions, 'platform' | 'log'>>;
  /** Keep this data folder instead of a fresh temporary one (restart scenarios). */
  dataDir?: string;
}

export interface Harness {
  /** The renderer's URL (http://127.0.0.1:port/). */
  url: string;
  origin: string;
  services: Services;
  platform: HeadlessPlatform;
  logs: LogRecord[];
  dataDir: string;
  dispatch: Dispatch;
  /** Binds window.desk in every page of the context and forwards push events to them. */
  attach(context: BrowserContext): Promise<void>;
  /** Opens the app in a new page of the context. */
  open(context: BrowserContext): Promise<Page>;
  /**
   * A treasury-desk:// link handed to the app as the shell does (src/main/electron/links): parsed
   * in Node, then pushed as desktop.openLink. Answers whether it was accepted.
   */
  openLink(url: string): boolean;
  close(): Promise<void>;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  if (!existsSync(path.join(rendererDir, 'index.html'))) {
    throw new Error(`The renderer is not built (${rendererDir}). Run "npm run build" first.`);
  }
  const ownDataDir = !options.dataDir;
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'treasury-desk-')));
  const sink = memorySink();
  const log = createLogger(sink, 'debug');
  const platform = createHeadlessPlatform();

  const server: Server = createServer((req, res) => {
    const asset = resolveAppAsset(rendererDir, `${origin}${req.url ?? '/'}`, origin);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, securityHeaders).end();
      return;
    }
    if (!asset.ok) {
      res.writeHead(asset.status, { ...securityHeaders, 'content-type': 'text/plain' }).end(asset.reason);
      return;
    }
    const stream = createReadStream(asset.filePath);
    stream.on('error', () => res.writeHead(404, securityHeaders).end());
    stream.on('open', () => {
      res.writeHead(200, {
        ...securityHeaders,
        'content-type': asset.contentType,
        'cache-control': 'no-store',
      });
      stream.pipe(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('harness server has no port');
  const origin = `http://127.0.0.1:${address.port}`;

  // Deadline reminders are off unless a test turns them on (a seeded RFI is hours from its timeout).
  const services = await createServices({ dataDir, platform, log, reminders: false, ...options.services });
  const dispatch = createDispatcher({
    handlers: services.handlers,
    isTrustedSender: createSenderPolicy([origin]),
    log,
  });
  const script = await harnessBridgeScript();
  const detachers: Array<() => void> = [];

  const harness: Harness = {
    url: `${origin}/`,
    origin,
    services,
    platform,
    logs: sink.records,
    dataDir,
    dispatch,
    async attach(context) {
      await context.exposeBinding('__deskInvoke', (source, channel: unknown, args: unknown) =>
        dispatch(channel, args, {
          url: source.frame.url(),
          isMainFrame: source.frame === source.page.mainFrame(),
        }),
      );
      await context.addInitScript({ content: script });
      detachers.push(
        services.events.attach((message) => {
          for (const page of context.pages()) {
            page
              .evaluate(
                (m) => (globalThis as unknown as { __deskPush?: (m: unknown) => void }).__deskPush?.(m),
                message,
              )
              .catch(() => undefined);
          }
        }),
      );
    },
    async open(context) {
      const page = await context.newPage();
      await page.goto(harness.url);
      return page;
    },
    openLink: (url) =>
      createLinkHandler({ log, open: (route) => services.events.emit('desktop.openLink', route) })(
        url,
        'second-instance',
      ),
    async close() {
      detachers.forEach((d) => d());
      // No new call may start a write once disposal begins: the page's transport closes first.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await services.dispose();
      // A write the bank's last answer started may still be renaming its temp file: retry, as
      // rm's own ENOTEMPTY/EBUSY retries are meant for.
      if (ownDataDir) await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    },
  };
  return harness;
}
