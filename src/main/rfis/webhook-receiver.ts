import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { KeyObject } from 'node:crypto';
import { WebhookEvent } from '../../shared/api/webhooks';
import type { WebhookEvent as WebhookEventBody } from '../../shared/api/webhooks';
import type { Logger } from '../log';
import { FAILURE_TEXT, verifyWebhookSignature } from './signature';
import type { SignatureFailure } from './signature';

/**
 * The local webhook receiver: node:http on 127.0.0.1 (loopback only), POST <path>, body limited
 * (413 beyond), Service-Signature verified against the pinned key of the active environment
 * (401 when not), JSON checked (400), timestamps outside the tolerance refused (401), duplicate
 * event ids acknowledged (200, so the bank stops retrying) but not processed again. A verified
 * event is answered 202 at once; the RFI is re-read in the background (events are thin).
 */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
export const WEBHOOK_PATH = '/webhooks/rfi';

export interface ReceiverOptions {
  /** 127.0.0.1 unless a test says otherwise; never a public interface. */
  host?: string;
  port?: number;
  path?: string;
  maxBodyBytes?: number;
  toleranceSeconds?: number;
  /** The pinned key of the active environment (null: none pinned, everything is refused). */
  publicKey(): KeyObject | null;
  /** Now in ms, on the bank's clock. */
  nowMs(): number;
  onEvent(event: WebhookEventBody): void;
  onStatus?(): void;
  log: Logger;
  /** How many event ids are remembered for duplicate detection. */
  rememberIds?: number;
}

export interface ReceiverCounters {
  received: number;
  accepted: number;
  duplicates: number;
  verificationFailures: number;
  lastEvent: { id: string; type: string; rfiId: string; at: string } | null;
  lastFailure: { reason: string; at: string } | null;
}

export interface WebhookReceiver {
  start(): Promise<string>;
  readonly url: string | null;
  readonly startedAt: string | null;
  counters(): ReceiverCounters;
  close(): Promise<void>;
}

type Outcome =
  | { code: 202 | 200; body: Record<string, unknown> }
  | { code: 400 | 401 | 404 | 405 | 413 | 415; body: Record<string, unknown> };

export function createWebhookReceiver(options: ReceiverOptions): WebhookReceiver {
  const host = options.host ?? '127.0.0.1';
  const route = options.path ?? WEBHOOK_PATH;
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const tolerance = options.toleranceSeconds ?? 300;
  const remember = options.rememberIds ?? 50_000;
  const seenIds = new Map<string, number>();
  const counters: ReceiverCounters = {
    received: 0,
    accepted: 0,
    duplicates: 0,
    verificationFailures: 0,
    lastEvent: null,
    lastFailure: null,
  };
  let server: Server | null = null;
  let url: string | null = null;
  let startedAt: string | null = null;

  const status = () => {
    try {
      options.onStatus?.();
    } catch (err) {
      options.log.warn('webhook: status listener failed', { error: err });
    }
  };

  const fail = (reason: string): void => {
    counters.verificationFailures++;
    counters.lastFailure = { reason, at: new Date().toISOString() };
    options.log.warn('webhook: event refused', { reason });
  };

  const handle = (req: IncomingMessage, body: Buffer): Outcome => {
    const header = req.headers['service-signature'];
    const check = verifyWebhookSignature({
      header: Array.isArray(header) ? header.join(',') : header,
      body,
      publicKey: options.publicKey(),
      nowMs: options.nowMs(),
      toleranceSeconds: tolerance,
    });
    if (!check.ok) {
      fail(FAILURE_TEXT[check.reason]);
      return { code: 401, body: { error: errorOf(check.reason) } };
    }
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      fail('the body is not JSON');
      return { code: 400, body: { error: 'body is not JSON' } };
    }
    const parsed = WebhookEvent.safeParse(json);
    if (!parsed.success) {
      fail('the body is not an RFI event');
      return { code: 400, body: { error: 'body is not an RFI event' } };
    }
    const event = parsed.data;
    if (seenIds.has(event.id)) {
      counters.duplicates++;
      options.log.info('webhook: duplicate event id, not processed again', { id: event.id });
      return { code: 200, body: { status: 'duplicate' } };
    }
    seenIds.set(event.id, Date.now());
    while (seenIds.size > remember) {
      const first = seenIds.keys().next();
      if (first.done) break;
      seenIds.delete(first.value);
    }
    counters.accepted++;
    counters.lastEvent = {
      id: event.id,
      type: event.type,
      rfiId: event.data.rfi_id,
      at: new Date().toISOString(),
    };
    try {
      options.onEvent(event);
    } catch (err) {
      options.log.error('webhook: event handler failed', { error: err });
    }
    return { code: 202, body: { status: 'accepted' } };
  };

  const answer = (res: ServerResponse, o: Outcome): void => {
    const text = JSON.stringify(o.body);
    res.writeHead(o.code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const pathOnly = (req.url ?? '/').split('?')[0];
    if (pathOnly !== route) {
      req.resume();
      answer(res, { code: 404, body: { error: 'not found' } });
      return;
    }
    if (req.method !== 'POST') {
      req.resume();
      res.setHeader('allow', 'POST');
      answer(res, { code: 405, body: { error: 'POST only' } });
      return;
    }
    counters.received++;
    const declared = Number.parseInt(req.headers['content-length'] ?? '', 10);
    if (Number.isFinite(declared) && declared > maxBody) {
      fail(`body larger than ${maxBody} bytes`);
      res.setHeader('connection', 'close');
      answer(res, { code: 413, body: { error: `body larger than ${maxBody} bytes` } });
      req.destroy();
      status();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > maxBody) {
        over = true;
        fail(`body larger than ${maxBody} bytes`);
        res.setHeader('connection', 'close');
        answer(res, { code: 413, body: { error: `body larger than ${maxBody} bytes` } });
        req.destroy();
        status();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (over) return;
      answer(res, handle(req, Buffer.concat(chunks)));
      status();
    });
    req.on('error', () => {
      if (!res.headersSent && !over) answer(res, { code: 400, body: { error: 'request aborted' } });
    });
  };

  return {
    get url() {
      return url;
    },
    get startedAt() {
      return startedAt;
    },
    counters: () => ({ ...counters }),
    async start() {
      if (server && url) return url;
      const s = createServer({ requestTimeout: 10_000, headersTimeout: 5_000 }, onRequest);
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(options.port ?? 0, host, () => {
          s.off('error', reject);
          resolve();
        });
      });
      server = s;
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : options.port;
      url = `http://${host.includes(':') ? `[${host}]` : host}:${port}${route}`;
      startedAt = new Date().toISOString();
      options.log.info('webhook: receiver listening', { url });
      status();
      return url;
    },
    async close() {
      const s = server;
      server = null;
      url = null;
      startedAt = null;
      if (!s) return;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
      status();
    },
  };
}

function errorOf(reason: SignatureFailure): string {
  return FAILURE_TEXT[reason];
}
