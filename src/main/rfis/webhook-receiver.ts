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
 */

import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { WebhookEvent } from '../../shared/api/webhooks';
import type { WebhookEvent as WebhookEventBody } from '../../shared/api/webhooks';
import { plainCodec } from '../infra/at-rest';
import type { AtRestCodec } from '../infra/at-rest';
import { readSealed, writeSealed } from '../infra/json-store';
import type { Logger } from '../infra/log';
import { FAILURE_TEXT, verifyWebhookSignature } from './signature';
import type { SignatureFailure } from './signature';

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
export const DEFAULT_MAX_CONNECTIONS = 32;
export const WEBHOOK_PATH = '/webhooks/rfi';
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
  /** Now in ms, on the bank's clock. */
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
  lastEvent: { id: string; type: string; rfiId: string; at: string } | null;
  lastFailure: { reason: string; at: string } | null;
}

/** One route: whose events it takes, the key they must be signed with, where they go. */
export interface ReceiverRoute {
  /** Duplicate event ids are dropped per scope (a profile id). */
  scope: string;
  /** The key pinned for this route's environment (null: every request to it is refused). */
  publicKey(): KeyObject | null;
  onEvent(event: WebhookEventBody): void;
}

export interface RouteCounters {
  accepted: number;
  duplicates: number;
  refused: number;
  lastEvent: ReceiverCounters['lastEvent'];
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

type Outcome =
  | { code: 202 | 200; body: Record<string, unknown> }
  | { code: 400 | 401 | 404 | 405 | 413 | 415 | 503; body: Record<string, unknown> };

export function createWebhookReceiver(options: ReceiverOptions): WebhookReceiver {
  const host = options.host ?? '127.0.0.1';
  const fixedPath = options.path ?? WEBHOOK_PATH;
  interface LiveRoute extends ReceiverRoute {
    path: string;
    counters: RouteCounters;
    paused: boolean;
  }
  const freshCounters = (): RouteCounters => ({ accepted: 0, duplicates: 0, refused: 0, lastEvent: null });
  /** Path → route. */
  const routes = new Map<string, LiveRoute>();
  /** Scope → its route's path. */
  const pathOf = new Map<string, string>();
  if (options.publicKey && options.onEvent) {
    const { publicKey, onEvent } = options;
    routes.set(fixedPath, {
      scope: '',
      publicKey,
      onEvent,
      path: fixedPath,
      counters: freshCounters(),
      paused: false,
    });
    pathOf.set('', fixedPath);
  }
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const tolerance = options.toleranceSeconds ?? 300;
  const remember = options.rememberIds ?? 50_000;
  const reportEvery = options.reportIntervalMs ?? REPORT_INTERVAL_MS;
  /** Accepted event id → its signature timestamp `t` (seconds, bank clock). */
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
  let origin: string | null = null;
  let startedAt: string | null = null;
  let loaded = false;

  // ---- coalesced reporting: one log line and one status push per interval at most ----
  let refusedSince = new Map<string, number>();
  let duplicatesSince = 0;
  let statusDirty = false;
  let lastReport = -Infinity;
  let reportTimer: NodeJS.Timeout | null = null;

  const pushStatus = (): void => {
    try {
      options.onStatus?.();
    } catch (err) {
      options.log.warn('webhook: status listener failed', { error: err });
    }
  };

  const report = (): void => {
    reportTimer = null;
    lastReport = Date.now();
    if (refusedSince.size > 0) {
      const reasons = Object.fromEntries(refusedSince);
      const count = [...refusedSince.values()].reduce((a, b) => a + b, 0);
      refusedSince = new Map();
      options.log.warn('webhook: requests refused', { count, reasons });
    }
    if (duplicatesSince > 0) {
      options.log.info('webhook: duplicate event ids, not processed again', { count: duplicatesSince });
      duplicatesSince = 0;
    }
    if (statusDirty) {
      statusDirty = false;
      pushStatus();
    }
  };

  /** Something changed: report now if the last report is old enough, else once the interval ends. */
  const changed = (): void => {
    statusDirty = true;
    if (reportTimer) return;
    const wait = lastReport + reportEvery - Date.now();
    if (wait <= 0) report();
    else {
      reportTimer = setTimeout(report, Math.max(0, wait));
      reportTimer.unref?.();
    }
  };

  const refuse = (reason: string, route?: LiveRoute): void => {
    if (route) route.counters.refused++;
    counters.verificationFailures++;
    counters.lastFailure = { reason, at: new Date().toISOString() };
    refusedSince.set(reason, (refusedSince.get(reason) ?? 0) + 1);
    changed();
  };

  // ---- seen event ids, kept across restarts until their timestamp leaves the tolerance ----
  const prune = (): void => {
    const oldest = Math.floor(options.nowMs() / 1000) - tolerance;
    for (const [id, t] of seenIds) if (t < oldest) seenIds.delete(id);
    while (seenIds.size > remember) {
      const first = seenIds.keys().next();
      if (first.done) break;
      seenIds.delete(first.value);
    }
  };

  const load = async (): Promise<void> => {
    if (loaded || !options.seenIdsFile) return;
    loaded = true;
    let text: string;
    try {
      const opened = await readSealed(options.codec ?? plainCodec, options.seenIdsFile);
      if (!opened) return;
      text = opened.text;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        options.log.warn('webhook: seen event ids unreadable; starting empty', { error: err });
      }
      return;
    }
    try {
      const parsed = JSON.parse(text) as { ids?: unknown };
      const ids = parsed.ids;
      if (ids && typeof ids === 'object' && !Array.isArray(ids)) {
        for (const [id, t] of Object.entries(ids as Record<string, unknown>)) {
          if (typeof t === 'number' && Number.isFinite(t)) seenIds.set(id, t);
        }
      }
    } catch (err) {
      options.log.warn('webhook: seen event ids unreadable; starting empty', { error: err });
    }
    prune();
  };

  let wanted = 0;
  let written = 0;
  let writing: Promise<void> | null = null;
  const writeOnce = async (file: string): Promise<void> => {
    const upTo = wanted;
    try {
      prune();
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      await writeSealed(
        options.codec ?? plainCodec,
        file,
        JSON.stringify({ version: 1, ids: Object.fromEntries(seenIds) }),
      );
      written = upTo;
    } finally {
      writing = null;
    }
  };
  /** Resolves once the file holds every id accepted so far (writes are batched). */
  const persist = async (): Promise<void> => {
    const file = options.seenIdsFile;
    if (!file) return;
    const target = ++wanted;
    try {
      while (written < target) await (writing ??= writeOnce(file));
    } catch (err) {
      options.log.warn('webhook: seen event ids not saved', { error: err });
    }
  };

  const handle = async (req: IncomingMessage, body: Buffer, route: LiveRoute): Promise<Outcome> => {
    const header = req.headers['service-signature'];
    const check = verifyWebhookSignature({
      header: Array.isArray(header) ? header.join(',') : header,
      body,
      publicKey: route.publicKey(),
      nowMs: options.nowMs(),
      toleranceSeconds: tolerance,
    });
    if (!check.ok) {
      refuse(FAILURE_TEXT[check.reason], route);
      return { code: 401, body: { error: errorOf(check.reason) } };
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
    if (routes.get(route.path) !== route) {
      refuse('the route was removed', route);
      return { code: 404, body: { error: 'not found' } };
    }
    // Ids are kept per scope (one profile's events never mark another's as seen); an id saved
    // by the one-route receiver of an earlier version (no scope) counts as seen everywhere.
    const key = route.scope ? `${route.scope}\u0000${event.id}` : event.id;
    if (seenIds.has(key) || seenIds.has(event.id)) {
      counters.duplicates++;
      route.counters.duplicates++;
      duplicatesSince++;
      // The bank retried with a fresh signature: remember the id as long as the newest t allows.
      seenIds.set(key, Math.max(seenIds.get(key) ?? 0, check.t));
      changed();
      return { code: 200, body: { status: 'duplicate' } };
    }
    seenIds.set(key, check.t);
    await persist();
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
    changed();
    return { code: 202, body: { status: 'accepted' } };
  };

  const answer = (res: ServerResponse, o: Outcome): void => {
    if (res.headersSent || res.destroyed) return;
    const text = JSON.stringify(o.body);
    res.writeHead(o.code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const pathOnly = (req.url ?? '/').split('?')[0] ?? '/';
    const route = routes.get(pathOnly);
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
    const declared = Number.parseInt(req.headers['content-length'] ?? '', 10);
    if (Number.isFinite(declared) && declared > maxBody) {
      refuse(`body larger than ${maxBody} bytes`, route);
      res.setHeader('connection', 'close');
      answer(res, { code: 413, body: { error: `body larger than ${maxBody} bytes` } });
      req.destroy();
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
        refuse(`body larger than ${maxBody} bytes`, route);
        res.setHeader('connection', 'close');
        answer(res, { code: 413, body: { error: `body larger than ${maxBody} bytes` } });
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (over) return;
      handle(req, Buffer.concat(chunks), route).then(
        (o) => answer(res, o),
        (err: unknown) => {
          options.log.error('webhook: request failed', { error: err });
          answer(res, { code: 400, body: { error: 'request failed' } });
        },
      );
    });
    req.on('error', () => {
      if (!over) answer(res, { code: 400, body: { error: 'request aborted' } });
    });
  };

  const fixedUrl = (): string | null => (origin && pathOf.has('') ? `${origin}${fixedPath}` : null);

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
    addRoute(route) {
      const existing = pathOf.get(route.scope);
      const live = existing ? routes.get(existing) : undefined;
      if (live) {
        live.publicKey = route.publicKey;
        live.onEvent = route.onEvent;
        live.paused = false;
        return live.path;
      }
      const p = `${WEBHOOK_PATH}/${randomBytes(16).toString('base64url')}`;
      routes.set(p, { ...route, path: p, counters: freshCounters(), paused: false });
      pathOf.set(route.scope, p);
      return p;
    },
    removeRoute(scope) {
      const p = pathOf.get(scope);
      if (p === undefined) return;
      pathOf.delete(scope);
      routes.delete(p);
    },
    pauseRoute(scope) {
      const p = pathOf.get(scope);
      const r = p === undefined ? undefined : routes.get(p);
      if (r) r.paused = true;
    },
    routeUrl(scope) {
      const p = pathOf.get(scope);
      return origin && p !== undefined ? `${origin}${p}` : null;
    },
    routeCounters(scope) {
      const p = pathOf.get(scope);
      const r = p === undefined ? undefined : routes.get(p);
      return r ? { ...r.counters } : null;
    },
    async start() {
      if (server && origin) return fixedUrl() ?? origin;
      await load();
      const s = createServer(
        {
          headersTimeout: HEADERS_TIMEOUT_MS,
          requestTimeout: REQUEST_TIMEOUT_MS,
          connectionsCheckingInterval: CHECK_INTERVAL_MS,
          keepAliveTimeout: 2000,
        },
        onRequest,
      );
      s.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
      // Node closes a connection beyond maxConnections as it arrives and tells us here.
      s.on('drop', () => refuse('too many connections'));
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
      origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
      startedAt = new Date().toISOString();
      // The route tokens are not logged: the log may be shared in a diagnostics bundle.
      options.log.info('webhook: receiver listening', { origin });
      pushStatus();
      return fixedUrl() ?? origin;
    },
    async close() {
      const s = server;
      server = null;
      origin = null;
      startedAt = null;
      if (reportTimer) {
        clearTimeout(reportTimer);
        report();
      }
      if (!s) return;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
      await writing?.catch(() => undefined);
      pushStatus();
    },
  };
}

function errorOf(reason: SignatureFailure): string {
  return FAILURE_TEXT[reason];
}
