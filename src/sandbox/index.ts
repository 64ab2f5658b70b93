/**
 * The embedded sandbox bank. `startSandbox()` seeds it, listens (127.0.0.1, free port by
 * default) and answers the whole service interface; `close()` stops the server, timers and
 * webhook deliveries and removes its temporary data directory.
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Fixtures } from '../shared/api/sandbox';
import { SANDBOX_CONTROL_HEADER } from '../shared/api/routes';
import { Bank } from './bank';
import { Clock, Scheduler } from './clock';
import { makeSigner, registerUploads } from './documents';
import { allowedHostValues, newControlSecret } from './guard';
import { makeHandlers } from './handlers';
import { IdGen } from './ids';
import { resolveOptions, type SandboxOptions } from './options';
import { seed } from './seed';
import { buildServer } from './server';
import { WebhookSender } from './webhooks';

export type { SandboxOptions, WebhookRetryOptions, RateLimitOptions } from './options';
export { DEFAULT_OPTIONS, resolveOptions } from './options';
export { signWebhook } from './webhooks';
export { SANDBOX_CONTROL_HEADER } from '../shared/api/routes';

export interface RunningSandbox {
  /** e.g. http://127.0.0.1:43123 (no trailing slash). */
  url: string;
  /** Same shape as GET /v1/sandbox/fixtures, as seeded. */
  fixtures: Fixtures;
  /** Webhook signing public key (SPKI PEM). */
  publicKeyPem: string;
  /**
   * The secret of the control routes (/v1/sandbox/*, except the public key): whoever started the
   * sandbox holds it and sends it as the `Sandbox-Control-Secret` header.
   */
  controlSecret: string;
  /** `{'Sandbox-Control-Secret': controlSecret}`, to spread into a request's headers. */
  controlHeaders(): Record<string, string>;
  /** The options in effect (the control secret is not repeated here). */
  options: SandboxOptions;
  close(): Promise<void>;
}

function loadKey(pem: string | undefined): { priv: KeyObject; publicKeyPem: string } {
  let priv: KeyObject;
  if (pem) {
    priv = createPrivateKey(pem);
    const details = priv.asymmetricKeyDetails;
    if (priv.asymmetricKeyType !== 'ec' || details?.namedCurve !== 'prime256v1') {
      throw new Error('privateKeyPem must be an ECDSA P-256 private key');
    }
  } else {
    priv = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  }
  const publicKeyPem = createPublicKey(priv).export({ type: 'spki', format: 'pem' }).toString();
  return { priv, publicKeyPem };
}

export async function startSandbox(options?: Partial<SandboxOptions>): Promise<RunningSandbox> {
  const opts = resolveOptions(options);
  const ownsDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'treasury-sandbox-')));
  await mkdir(dataDir, { recursive: true });
  const clock = new Clock();
  const ids = new IdGen(String(opts.seed));
  const scheduler = new Scheduler(clock, (err) => console.error('[sandbox] scheduled task failed', err));
  const { priv, publicKeyPem } = loadKey(opts.privateKeyPem);
  const bank = new Bank(opts, clock, scheduler, ids);
  const webhooks = new WebhookSender(opts.webhookRetry, clock, ids, priv);
  let baseUrl = '';
  let allowedHosts: ReadonlySet<string> = new Set();
  const controlSecret = opts.controlSecret ?? newControlSecret();
  const signer = makeSigner(randomBytes(32), () => baseUrl);
  bank.state.signer = signer;
  try {
    await seed(bank, dataDir, opts.extraLegalEntities, opts.colleagueAdmin);
  } catch (err) {
    scheduler.stop();
    if (ownsDir) await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  bank.state.events = (le, type, data) => webhooks.emit(bank.webhookConfig.webhookUrls(le), type, data);
  const app = buildServer({
    bank,
    clock,
    options: opts,
    webhooks,
    handlers: makeHandlers({ bank, clock, webhooks, publicKeyPem }),
    registerRaw: (a) => registerUploads(a, { bank, dataDir, signer }),
    controlSecret,
    allowedHosts: () => allowedHosts,
  });
  try {
    await app.listen({ host: opts.host, port: opts.port });
  } catch (err) {
    scheduler.stop();
    await webhooks.close();
    if (ownsDir) await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  baseUrl = `http://${host}:${port}`;
  allowedHosts = allowedHostValues(opts.host, port, opts.allowedHosts);
  let closing: Promise<void> | null = null;
  return {
    url: baseUrl,
    fixtures: bank.parties.fixtures() as Fixtures,
    publicKeyPem,
    controlSecret,
    controlHeaders: () => ({ [SANDBOX_CONTROL_HEADER]: controlSecret }),
    options: { ...opts, port, controlSecret: undefined },
    close() {
      closing ??= (async () => {
        scheduler.stop();
        await webhooks.close();
        await app.close();
        if (ownsDir) await rm(dataDir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}
