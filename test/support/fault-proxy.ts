/**
 * A fault-injecting proxy for reliability tests, between the services and the sandbox. Loopback
 * only: it listens on 127.0.0.1 and refuses any target that is not a loopback address.
 *
 * It works at two levels:
 * - TCP: a connection fault decided when a connection is accepted (reset at once, or a
 *   black hole that accepts and never reads).
 * - HTTP: a plan per request (method, path, Idempotency-Key known), decided by a seeded plan
 *   function:
 *     pass           forward, answer as the server did
 *     reset-before   the connection is reset (RST) before the request reaches the server
 *     reset-after    the server processes (commits) the request, then the client sees an RST
 *     truncate       the server processes it; the client gets the headers and part of the body
 *     status         the proxy answers 5xx / 429 (Retry-After) itself; the server never sees it
 *     status-after   the server processes it; the client gets a gateway 5xx instead of the answer
 *     hang           the request never reaches the server and no answer ever comes
 *     hang-after     the server processes it; no answer ever comes
 *   with optional latency before forwarding (`delayMs`) and before answering (`answerDelayMs`).
 * - `down`: while set, the server "stops answering": every new request hangs.
 * - Rules, for tests that script one exchange: `rules` is checked first, in order, for every
 *   request; the first rule answering an action decides it:
 *     respond        the proxy answers this status, body and headers itself
 *     drop           the connection is dropped before the request reaches the server
 *     lose-answer    the server processes it, then the connection is dropped
 *     rewrite        the server's JSON answer is rewritten before the client gets it
 *   A rule answering undefined passes the request on to the next rule, then to the plan.
 *
 * Every request is in `seen` (method, path, headers) as soon as it arrives. Every request the
 * rules leave to the plan is logged with its plan and, when forwarded, the server's status, so a
 * scenario can tell "committed at the bank" from "never reached it".
 *
 * Used by the reliability scenarios, the integration tests and the e2e network test.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import type { Socket } from 'node:net';
import type { Rng } from './rng';

export type FaultKind =
  'pass' | 'reset-before' | 'reset-after' | 'truncate' | 'status' | 'status-after' | 'hang' | 'hang-after';

export interface FaultPlan {
  kind: FaultKind;
  /** For status / status-after: the status the client gets (500, 502, 503, 504, 429). */
  status?: number;
  /** For 429: the Retry-After header (seconds). */
  retryAfterSeconds?: number;
  /** Latency before the request is forwarded (or answered by the proxy). */
  delayMs?: number;
  /** Latency between the server's answer and the client getting it. */
  answerDelayMs?: number;
  /** For truncate: how many body bytes get through (default: half). */
  keepBytes?: number;
  /**
   * For truncate: announce the cut length, so the client reads a complete but cut 2xx body (what
   * a buffering gateway that lost the rest sends) instead of seeing the connection drop.
   */
  consistentLength?: boolean;
}

export type ConnectionFault = 'accept' | 'reset' | 'blackhole';

export interface RequestInfo {
  /** 0-based request number on this proxy. */
  n: number;
  method: string;
  /** Path with query. */
  path: string;
  headers: IncomingHttpHeaders;
  idempotencyKey: string | null;
  body: Buffer;
}

export interface ProxyLogEntry {
  n: number;
  method: string;
  path: string;
  idempotencyKey: string | null;
  plan: FaultPlan;
  /** The server's status when the request was forwarded and answered; null otherwise. */
  upstreamStatus: number | null;
  /** What the client was meant to see (a status, or the fault). */
  delivered: 'answer' | 'reset' | 'truncated' | 'gateway' | 'hang' | 'proxy-status' | 'upstream-error';
}

export type PlanFn = (req: RequestInfo) => FaultPlan;

/** What a rule makes of one request (see the header). */
export type FaultAction =
  | { kind: 'respond'; status: number; body?: unknown; headers?: Record<string, string> }
  | { kind: 'drop' }
  /** The request reaches the bank, but its answer is lost (connection dropped). */
  | { kind: 'lose-answer' }
  | { kind: 'rewrite'; fn: (json: unknown) => unknown };

/** A request as it arrived, before its body was read. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

export type FaultRule = (req: SeenRequest) => FaultAction | undefined;

export interface FaultProxyOptions {
  /** The server to forward to; must be a loopback http URL. */
  target: string;
  /** The plan per request (default: pass everything). Can be replaced at any time via `setPlan`. */
  plan?: PlanFn;
  /** Decides a connection-level fault per accepted TCP connection (default: accept). */
  connection?: (n: number) => ConnectionFault;
  /**
   * Rewrites a server answer before the client gets it (e.g. signed upload URLs that name the
   * server, so the uploads also go through the proxy).
   */
  rewrite?: (req: RequestInfo, body: Buffer) => Buffer;
}

export interface FaultProxy {
  readonly url: string;
  readonly log: ProxyLogEntry[];
  /** Every request as it arrived (a test may empty it: `seen.length = 0`). */
  readonly seen: SeenRequest[];
  /** First matching rule wins; checked before the plan (a test may empty it: `rules.length = 0`). */
  readonly rules: FaultRule[];
  setPlan(plan: PlanFn): void;
  setConnectionFaults(fn: ((n: number) => ConnectionFault) | null): void;
  /** While true, every new request hangs (a server that stops answering). */
  setDown(down: boolean): void;
  /** Resets every open connection, hung ones included. */
  dropAll(): void;
  close(): Promise<void>;
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export function assertLoopback(url: string): URL {
  const u = new URL(url);
  if (u.protocol !== 'http:' || !loopbackHosts.has(u.hostname)) {
    throw new Error(`fault proxy: only loopback http targets are allowed, not ${url}`);
  }
  return u;
}

const passAll: PlanFn = () => ({ kind: 'pass' });

function errorBody(status: number): string {
  const names: Record<number, string> = {
    429: 'RESOURCE_EXHAUSTED',
    500: 'INTERNAL',
    502: 'UNAVAILABLE',
    503: 'UNAVAILABLE',
    504: 'DEADLINE_EXCEEDED',
  };
  return JSON.stringify({
    error: {
      code: String(status),
      status: names[status] ?? 'UNKNOWN',
      message: `fault proxy: injected ${status}`,
    },
  });
}

function sleep(ms: number | undefined): Promise<void> {
  return ms && ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
}

function reset(socket: Socket): void {
  if (socket.destroyed) return;
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy();
  }
}

/** `startFaultProxy(url)` is `startFaultProxy({ target: url })`: everything passes until told. */
export async function startFaultProxy(targetOrOptions: string | FaultProxyOptions): Promise<FaultProxy> {
  const options: FaultProxyOptions =
    typeof targetOrOptions === 'string' ? { target: targetOrOptions } : targetOrOptions;
  const target = assertLoopback(options.target);
  let plan = options.plan ?? passAll;
  let connectionFault = options.connection ?? null;
  let down = false;
  let requests = 0;
  let connections = 0;
  const log: ProxyLogEntry[] = [];
  const seen: SeenRequest[] = [];
  const rules: FaultRule[] = [];
  const sockets = new Set<Socket>();
  let closed = false;

  const forward = (
    req: IncomingMessage,
    body: Buffer,
  ): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer } | null> =>
    new Promise((resolve) => {
      const headers: IncomingHttpHeaders = { ...req.headers, host: target.host, connection: 'close' };
      delete headers['keep-alive'];
      const up = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on('error', () => resolve(null));
        },
      );
      up.on('error', () => resolve(null));
      up.end(body);
    });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const arrived: SeenRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers };
    seen.push(arrived);
    let action: FaultAction | undefined;
    for (const rule of rules) {
      action = rule(arrived);
      if (action) break;
    }
    if (action?.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    if (action?.kind === 'respond') {
      const body =
        action.body === undefined
          ? ''
          : typeof action.body === 'string'
            ? action.body
            : JSON.stringify(action.body);
      res.writeHead(action.status, {
        'content-type': 'application/json',
        date: new Date().toUTCString(),
        ...action.headers,
      });
      res.end(body);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const keyHeader = req.headers['idempotency-key'];
    const info: RequestInfo = {
      n: requests++,
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      idempotencyKey: typeof keyHeader === 'string' ? keyHeader : null,
      body,
    };
    // A rule that forwards (lose-answer, rewrite) decides this request: the plan is not asked.
    const p: FaultPlan = down ? { kind: 'hang' } : action ? { kind: 'pass' } : plan(info);
    const entry: ProxyLogEntry = {
      n: info.n,
      method: info.method,
      path: info.path,
      idempotencyKey: info.idempotencyKey,
      plan: p,
      upstreamStatus: null,
      delivered: 'answer',
    };
    log.push(entry);
    const socket = req.socket;
    await sleep(p.delayMs);
    if (socket.destroyed) {
      entry.delivered = 'reset';
      return;
    }

    switch (p.kind) {
      case 'reset-before':
        entry.delivered = 'reset';
        reset(socket);
        return;
      case 'hang':
        entry.delivered = 'hang';
        return; // the socket stays open until the client gives up or the proxy closes
      case 'status': {
        const status = p.status ?? 503;
        entry.delivered = 'proxy-status';
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          date: new Date().toUTCString(),
        };
        if (status === 429) headers['retry-after'] = String(p.retryAfterSeconds ?? 0);
        res.writeHead(status, headers);
        res.end(errorBody(status));
        return;
      }
      default:
        break;
    }

    const up = await forward(req, body);
    if (!up) {
      entry.delivered = 'upstream-error';
      reset(socket);
      return;
    }
    entry.upstreamStatus = up.status;
    if (action?.kind === 'lose-answer') {
      entry.delivered = 'reset';
      req.socket.destroy();
      return;
    }
    if (action?.kind === 'rewrite') {
      up.body = Buffer.from(JSON.stringify(action.fn(JSON.parse(up.body.toString('utf8')) as unknown)));
    }
    if (options.rewrite) up.body = options.rewrite(info, up.body);
    await sleep(p.answerDelayMs);
    if (socket.destroyed) {
      entry.delivered = 'reset';
      return;
    }
    const headers = { ...up.headers };
    delete headers['transfer-encoding'];
    delete headers['connection'];
    delete headers['keep-alive'];
    switch (p.kind) {
      case 'reset-after':
        entry.delivered = 'reset';
        reset(socket);
        return;
      case 'hang-after':
        entry.delivered = 'hang';
        return;
      case 'status-after': {
        const status = p.status ?? 502;
        entry.delivered = 'gateway';
        res.writeHead(status, { 'content-type': 'application/json', date: new Date().toUTCString() });
        res.end(errorBody(status));
        return;
      }
      case 'truncate': {
        entry.delivered = 'truncated';
        // The announced length exceeds what is sent, so the client sees a cut answer; or, with
        // consistentLength, the cut body is all there is.
        const announced = Math.max(up.body.length, 1);
        const keep = Math.min(p.keepBytes ?? Math.floor(up.body.length / 2), announced - 1);
        if (p.consistentLength) {
          res.writeHead(up.status, { ...headers, 'content-length': String(keep) });
          res.end(up.body.subarray(0, keep));
          return;
        }
        res.writeHead(up.status, { ...headers, 'content-length': String(announced) });
        res.write(up.body.subarray(0, keep), () => reset(socket));
        return;
      }
      default:
        res.writeHead(up.status, { ...headers, 'content-length': String(up.body.length) });
        res.end(up.body);
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => reset(req.socket));
  });
  server.keepAliveTimeout = 5000;
  server.on('clientError', (_err, socket) => (socket as Socket).destroy());
  // The TCP front: decides a connection fault, then hands the connection to the HTTP server.
  const front = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const fault = connectionFault?.(connections++) ?? 'accept';
    if (fault === 'reset') reset(socket);
    else if (fault === 'accept') server.emit('connection', socket);
    // blackhole: accepted, never read, never answered.
  });

  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    front.listen(0, '127.0.0.1', () => resolve());
  });
  const address = front.address();
  if (!address || typeof address === 'string') throw new Error('fault proxy: no port');

  return {
    url: `http://127.0.0.1:${address.port}`,
    log,
    seen,
    rules,
    setPlan(fn) {
      plan = fn;
    },
    setConnectionFaults(fn) {
      connectionFault = fn;
    },
    setDown(value) {
      down = value;
    },
    dropAll() {
      for (const s of sockets) reset(s);
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const s of sockets) reset(s);
      await new Promise<void>((resolve) => front.close(() => resolve()));
      server.close();
    },
  };
}

// ---------------------------------------------------------------- seeded plans

export interface RandomPlanOptions {
  rng: Rng;
  /** Relative weights of the faults (a kind missing from the map never happens). */
  weights: Partial<Record<FaultKind, number>>;
  /** Status codes for status / status-after faults (picked at random). */
  statuses?: number[];
  /** Probability of a latency spike on a request, and its range. */
  latency?: { p: number; minMs: number; maxMs: number };
  /** Probability that a 5xx/429 fault starts a burst of this many consecutive ones. */
  burst?: { p: number; min: number; max: number };
  /** Only these requests get faults or latency; the others pass. */
  match?: (req: RequestInfo) => boolean;
}

/** A seeded plan: weighted faults, latency spikes, and bursts of 5xx / 429. */
export function randomPlan(o: RandomPlanOptions): PlanFn {
  let burstLeft = 0;
  let burstPlan: FaultPlan | null = null;
  const statuses = o.statuses ?? [500, 502, 503, 504, 429];
  return (req) => {
    // Requests that do not match pass untouched and draw nothing, so background traffic does
    // not shift the seeded sequence of the requests under test.
    if (o.match && !o.match(req)) return { kind: 'pass' };
    const latency =
      o.latency && o.rng.chance(o.latency.p) ? o.rng.int(o.latency.minMs, o.latency.maxMs) : undefined;
    const withLatency = (p: FaultPlan): FaultPlan =>
      latency === undefined ? p : { ...p, delayMs: (p.delayMs ?? 0) + latency };
    if (burstLeft > 0 && burstPlan) {
      burstLeft--;
      return withLatency(burstPlan);
    }
    const kind = o.rng.weighted(o.weights);
    let p: FaultPlan = { kind };
    if (kind === 'status' || kind === 'status-after') {
      const status = kind === 'status-after' ? o.rng.pick([502, 504]) : o.rng.pick(statuses);
      p = { kind, status, ...(status === 429 ? { retryAfterSeconds: 0 } : {}) };
      if (kind === 'status' && o.burst && o.rng.chance(o.burst.p)) {
        burstLeft = o.rng.int(o.burst.min, o.burst.max) - 1;
        burstPlan = p;
      }
    }
    if (kind === 'truncate') p = { kind, keepBytes: o.rng.int(0, 8), consistentLength: o.rng.chance(0.5) };
    return withLatency(p);
  };
}
