/**
 * The local webhook receiver: node:http on 127.0.0.1 (loopback only), POST <route path>, body
 * limited (413 beyond), Service-Signature verified against the key pinned for THAT route (401 when
 * not), JSON checked (400), timestamps outside the tolerance refused (401), duplicate event ids
 * acknowledged (200, so the bank stops retrying) but not processed again. A verified event is
 * answered 202 as soon as its id is saved; the RFI is re-read in the background (events are thin).
 *
 * One server, several routes: each watched profile gets its own path
 * `/webhooks/rfi/<128-bit random token>` (`addRoute`), with its own key, its own handler and its
 * own duplicate-id scope; a path that is not a live route is refused (404) before the body is read.
 * The single fixed path (`options.path`, `/webhooks/rfi`) is still served when `publicKey` and
 * `onEvent` are given (one-route use).
 *
 * Against a local process flooding it:
 * - header and request timeouts are checked every second (`connectionsCheckingInterval`), so a
 *   client that sends its headers slowly is closed within about two seconds;
 * - at most `maxConnections` sockets at once; further connections are closed as they arrive;
 * - refusals are counted, and the log line and the status push (`onStatus`) are coalesced: at
 *   most one of each per second, the log line carrying the count per reason;
 * - the ids of accepted events are kept in `seenIdsFile` with their signature timestamp until that
 *   timestamp leaves the tolerance, so a captured event replayed after a restart is a duplicate.
 *
 * Its parts: the route table (`receiver-routes.ts`), the seen event ids (`seen-event-ids.ts`), the
 * coalesced reporting (`receiver-report.ts`) and the signature check (`signature.ts`); here, the
 * HTTP server, the body limits and the acceptance of one event.
 */

import { createServer } from 'node:http';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { KeyObject } from 'node:crypto';
import { WebhookEvent } from '../../shared/api/webhooks';
import type { WebhookEvent as WebhookEventBody } from '../../shared/api/webhooks';
import type { AtRestCodec } from '../infra/at-rest';
import type { Logger } from '../infra/log';
import { createReceiverReport } from './receiver-report';
import { createRouteTable, WEBHOOK_PATH } from './receiver-routes';
import type { LiveRoute, ReceiverRoute, RouteCounters } from './receiver-routes';
import { createSeenEventIds } from './seen-event-ids';
import { FAILURE_TEXT, verifyWebhookSignature } from './signature';

export { WEBHOOK_PATH } from './receiver-routes';
export type { ReceiverRoute, RouteCounters } from './receiver-routes';

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
export const DEFAULT_MAX_CONNECTIONS = 32;
/** Timeouts of the receiver's HTTP server; the check runs every `CHECK_INTERVAL_MS`. */
export const HEADERS_TIMEOUT_MS = 1000;
export const REQUEST_TIMEOUT_MS = 5000;
export const CHECK_INTERVAL_MS = 1000;
/** Refusal log lines and status pushes are at most this often. */
export const REPORT_INTERVAL_MS = 1000;

export interface ReceiverOptions {
  /** 127.0.0.1 unless a test says otherwise; never a public interface. */
  host?: string;
  port?: number;
  path?: string;
  maxBodyBytes?: number;
  toleranceSeconds?: number;
  /** The fixed route's key (null: none pinned, everything is refused); no fixed route without it. */
  publicKey?(): KeyObject | null;
  /**
   * Now in ms, on the bank's clock: for a route without a clock of its own, and for forgetting
   * seen event ids (give the earliest of the banks' clocks: an id is kept, never dropped, early).
   */
  nowMs(): number;
  /** The fixed route's handler. */
  onEvent?(event: WebhookEventBody): void;
  onStatus?(): void;
  log: Logger;
  /** How many event ids are remembered for duplicate detection (a bound on the file, too). */
  rememberIds?: number;
  /** Where the seen event ids are kept across restarts; memory only when absent. */
  seenIdsFile?: string;
  /** Seals the seen ids file (default plain). */
  codec?: AtRestCodec;
  /** Simultaneous connections; more are closed at once (default 32). */
  maxConnections?: number;
  /** Minimum time between two refusal log lines and two status pushes (default 1 s). */
  reportIntervalMs?: number;
}

export interface ReceiverCounters {
  received: number;
  accepted: number;
  duplicates: number;
  verificationFailures: number;
  lastEvent: RouteCounters['lastEvent'];
  lastFailure: { reason: string; at: string } | null;
}

export interface WebhookReceiver {
  /** Listens; resolves with the fixed route's URL, else the server's origin. */
  start(): Promise<string>;
  /** The fixed route's URL (null when not listening or no fixed route). */
  readonly url: string | null;
  /** http://127.0.0.1:<port> while listening. */
  readonly origin: string | null;
  readonly startedAt: string | null;
  counters(): ReceiverCounters;
  /**
   * Adds a route for `route.scope` under a fresh unguessable path, or re-binds the scope's live
   * route (same path) to a new key and handler. Returns the path.
   */
  addRoute(route: ReceiverRoute): string;
  /** Removes the scope's route: requests to its path are refused from now on. */
  removeRoute(scope: string): void;
  /**
   * Holds the scope's route (same path) without a handler: requests get 503 (the bank retries)
   * until `addRoute` binds it again or `removeRoute` drops it.
   */
  pauseRoute(scope: string): void;
  /** The scope's route URL (null: no route, or not listening). */
  routeUrl(scope: string): string | null;
  routeCounters(scope: string): RouteCounters | null;
  close(): Promise<void>;
}

/** What a request is answered. */
type Outcome =
  | { code: 202 | 200; body: Record<string, unknown> }
  | { code: 400 | 401 | 404 | 405 | 413 | 415 | 503; body: Record<string, unknown> };

function answer(res: ServerResponse, o: Outcome): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(o.body);
  res.writeHead(o.code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Reads a request body of at most `maxBody` bytes: beyond (declared or sent), answers 413, closes
 * the connection and tells `onOver`; otherwise hands the whole body to `onBody`.
 */
function readLimitedBody(
  req: IncomingMessage,
  res: ServerResponse,
  maxBody: number,
  onOver: () => void,
  onBody: (body: Buffer) => void,
): void {
  const tooLarge = (): void => {
    onOver();
    res.setHeader('connection', 'close');
    answer(res, { code: 413, body: { error: `body larger than ${maxBody} bytes` } });
    req.destroy();
  };
  const declared = Number.parseInt(req.headers['content-length'] ?? '', 10);
  if (Number.isFinite(declared) && declared > maxBody) {
    tooLarge();
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
      tooLarge();
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (!over) onBody(Buffer.concat(chunks));
  });
  req.on('error', () => {
    if (!over) answer(res, { code: 400, body: { error: 'request aborted' } });
  });
}

/** Listens on host:port (0: a free port) with the flood limits; answers the origin. */
async function listen(
  host: string,
  port: number,
  maxConnections: number,
  onRequest: RequestListener,
  onDrop: () => void,
): Promise<{ server: Server; origin: string }> {
  const s = createServer(
    {
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: CHECK_INTERVAL_MS,
      keepAliveTimeout: 2000,
    },
    onRequest,
  );
  s.maxConnections = maxConnections;
  // Node closes a connection beyond maxConnections as it arrives and tells us here.
  s.on('drop', onDrop);
  await new Promise<void>((resolve, reject) => {
    s.once('error', reject);
    s.listen(port, host, () => {
      s.off('error', reject);
      resolve();
    });
  });
  const addr = s.address();
  const bound = typeof addr === 'object' && addr ? addr.port : port;
  return { server: s, origin: `http://${host.includes(':') ? `[${host}]` : host}:${bound}` };
}

export function createWebhookReceiver(options: ReceiverOptions): WebhookReceiver {
  const host = options.host ?? '127.0.0.1';
  const fixedPath = options.path ?? WEBHOOK_PATH;
  const routes = createRouteTable();
  if (options.publicKey && options.onEvent) {
    routes.addFixed({ scope: '', publicKey: options.publicKey, onEvent: options.onEvent }, fixedPath);
  }
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const tolerance = options.toleranceSeconds ?? 300;
  const seenIds = createSeenEventIds({
    ...(options.seenIdsFile ? { file: options.seenIdsFile } : {}),
    ...(options.codec ? { codec: options.codec } : {}),
    log: options.log,
    nowMs: options.nowMs,
    toleranceSeconds: tolerance,
    remember: options.rememberIds ?? 50_000,
  });
  const report = createReceiverReport({
    log: options.log,
    ...(options.onStatus ? { onStatus: options.onStatus } : {}),
    intervalMs: options.reportIntervalMs ?? REPORT_INTERVAL_MS,
  });
  const counters: ReceiverCounters = {
    received: 0,
    accepted: 0,
    duplicates: 0,
    verificationFailures: 0,
    lastEvent: null,
    lastFailure: null,
  };
  let server: Server | null = null;
  let origin: string | null = null;
  let startedAt: string | null = null;

  const refuse = (reason: string, route?: LiveRoute): void => {
    if (route) route.counters.refused++;
    counters.verificationFailures++;
    counters.lastFailure = { reason, at: new Date().toISOString() };
    report.refused(reason);
  };

  /** Checks a body that arrived whole for its route; accepts, acknowledges or refuses it. */
  const handle = async (req: IncomingMessage, body: Buffer, route: LiveRoute): Promise<Outcome> => {
    const header = req.headers['service-signature'];
    const check = verifyWebhookSignature({
      header: Array.isArray(header) ? header.join(',') : header,
      body,
      publicKey: route.publicKey(),
      nowMs: route.nowMs ? route.nowMs() : options.nowMs(),
      toleranceSeconds: tolerance,
    });
    if (!check.ok) {
      refuse(FAILURE_TEXT[check.reason], route);
      return { code: 401, body: { error: FAILURE_TEXT[check.reason] } };
    }
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      refuse('the body is not JSON', route);
      return { code: 400, body: { error: 'body is not JSON' } };
    }
    const parsed = WebhookEvent.safeParse(json);
    if (!parsed.success) {
      refuse('the body is not an RFI event', route);
      return { code: 400, body: { error: 'body is not an RFI event' } };
    }
    const event = parsed.data;
    // The route was removed (its profile is no longer watched) or paused while the body arrived.
    if (route.paused) {
      refuse('route paused while its profile changes role', route);
      return { code: 503, body: { error: 'try again shortly' } };
    }
    if (routes.at(route.path) !== route) {
      refuse('the route was removed', route);
      return { code: 404, body: { error: 'not found' } };
    }
    // Ids are kept per scope (one profile's events never mark another's as seen); an id saved
    // by the one-route receiver of an earlier version (no scope) counts as seen everywhere.
    const key = route.scope ? `${route.scope}\u0000${event.id}` : event.id;
    if (seenIds.get(key) !== undefined || seenIds.get(event.id) !== undefined) {
      counters.duplicates++;
      route.counters.duplicates++;
      // The bank retried with a fresh signature: remember the id as long as the newest t allows.
      seenIds.set(key, Math.max(seenIds.get(key) ?? 0, check.t));
      report.duplicate();
      return { code: 200, body: { status: 'duplicate' } };
    }
    seenIds.set(key, check.t);
    await seenIds.persist();
    accepted(route, event);
    return { code: 202, body: { status: 'accepted' } };
  };

  /** Counts an accepted event and hands it to its route's handler. */
  const accepted = (route: LiveRoute, event: WebhookEventBody): void => {
    counters.accepted++;
    route.counters.accepted++;
    counters.lastEvent = {
      id: event.id,
      type: event.type,
      rfiId: event.data.rfi_id,
      at: new Date().toISOString(),
    };
    route.counters.lastEvent = counters.lastEvent;
    try {
      route.onEvent(event);
    } catch (err) {
      options.log.error('webhook: event handler failed', { error: err });
    }
    report.changed();
  };

  /** Path, pause and method are checked before a byte of the body is read. */
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const pathOnly = (req.url ?? '/').split('?')[0] ?? '/';
    const route = routes.at(pathOnly);
    if (!route) {
      req.resume();
      refuse('wrong path');
      answer(res, { code: 404, body: { error: 'not found' } });
      return;
    }
    if (route.paused) {
      req.resume();
      refuse('route paused while its profile changes role', route);
      res.setHeader('retry-after', '1');
      answer(res, { code: 503, body: { error: 'try again shortly' } });
      return;
    }
    if (req.method !== 'POST') {
      req.resume();
      refuse('not a POST', route);
      res.setHeader('allow', 'POST');
      answer(res, { code: 405, body: { error: 'POST only' } });
      return;
    }
    counters.received++;
    readLimitedBody(
      req,
      res,
      maxBody,
      () => refuse(`body larger than ${maxBody} bytes`, route),
      (body) =>
        handle(req, body, route).then(
          (o) => answer(res, o),
          (err: unknown) => {
            options.log.error('webhook: request failed', { error: err });
            answer(res, { code: 400, body: { error: 'request failed' } });
          },
        ),
    );
  };

  const fixedUrl = (): string | null =>
    origin && routes.pathOf('') !== undefined ? `${origin}${fixedPath}` : null;

  return {
    get url() {
      return fixedUrl();
    },
    get origin() {
      return origin;
    },
    get startedAt() {
      return startedAt;
    },
    counters: () => ({ ...counters }),
    addRoute: (route) => routes.add(route),
    removeRoute: (scope) => routes.remove(scope),
    pauseRoute: (scope) => routes.pause(scope),
    routeUrl(scope) {
      const p = routes.pathOf(scope);
      return origin && p !== undefined ? `${origin}${p}` : null;
    },
    routeCounters: (scope) => routes.counters(scope),
    async start() {
      if (server && origin) return fixedUrl() ?? origin;
      await seenIds.load();
      const listening = await listen(
        host,
        options.port ?? 0,
        options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
        onRequest,
        () => refuse('too many connections'),
      );
      server = listening.server;
      origin = listening.origin;
      startedAt = new Date().toISOString();
      // The route tokens are not logged: the log may be shared in a diagnostics bundle.
      options.log.info('webhook: receiver listening', { origin });
      report.pushStatus();
      return fixedUrl() ?? origin;
    },
    async close() {
      const s = server;
      server = null;
      origin = null;
      startedAt = null;
      report.flush();
      if (!s) return;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
      await seenIds.settled();
      report.pushStatus();
    },
  };
}
