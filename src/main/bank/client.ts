/**
 * The bank API client (the spec and docs/api-decisions.md), on got.
 *
 * - Every call is typed by the shared route table and its zod schemas; request bodies are checked
 *   before they leave (a clear invalid_argument naming the field), answers are validated (a
 *   malformed answer is an `invalid` error naming the field; unknown enum values pass because
 *   the shared schemas are tolerant).
 * - Retries (which failure is which: shared/failure-policy): GETs on network errors and 5xx with
 *   jittered exponential backoff; POSTs that carry an Idempotency-Key on every failure that is not
 *   a refusal (network, 5xx, 409 still in flight), always with the SAME key; other writes are
 *   never retried automatically. 429 waits Retry-After (any method: the bank did not process it).
 *   401 is never retried: it asks for a new token (onUnauthenticated).
 * - Every answer's Date header feeds the server clock.
 * - One request, one identity: the base URL, the token and the environment's abort signal are
 *   taken together once per request, and every retry reuses that same pair. The token is attached
 *   only when the origin it was entered for is the origin of that base URL; never to a signed
 *   upload URL; never in an error or a log line. A profile switch aborts the old identity's signal.
 * - Ids that go into a path are checked (no `.`/`..`, no `/`); upload URLs must be https unless
 *   they point at loopback.
 */

import type { Readable } from 'node:stream';
import got from 'got';
import type { Response } from 'got';
import type { z } from 'zod';
import { AppFailure } from '../../shared/ipc/errors';
import { fillRoutePath, IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_RE, routes } from '../../shared/api';
import { BANK_ID_RE, BANK_ID_RULE } from '../../shared/api/common';
import { isLoopbackHost, originOf } from '../infra/origins';
import { pathSource } from '../infra/sealed-blob';
import type { UploadSource } from '../infra/sealed-blob';
import type { RouteId, RouteRequestBody, RouteResponse } from '../../shared/api';
import type { ServerClock } from './clock';
import type { Logger } from '../infra/log';
import { failureFromResponse, offlineFailure, parseRetryAfter } from './errors';
import { defaultRetryPolicy, backoff, mayRetry, retryableStatus } from './retry';
import type { RetryMode, RetryPolicy } from './retry';
import { abortableSleep, abortedBy, linkSignals } from './signals';

export { abortableSleep } from './signals';
export { defaultRetryPolicy } from './retry';
export type { RetryMode, RetryPolicy } from './retry';

/** Who a request speaks as and to: taken once per request, reused by its retries. */
export interface BankIdentity {
  /** The environment's base URL ('' when no bank is configured). */
  baseUrl: string;
  /** The bearer token; null when none is stored (or it was not asked for). */
  token: string | null;
  /** The origin the token was entered for; the token is sent to that origin only. */
  tokenOrigin: string | null;
  /** Aborted when the environment changes: requests of the old one stop. */
  signal?: AbortSignal;
}

export interface BankClientOptions {
  /**
   * The active environment's identity, resolved once per request (the session's). `withToken`
   * is false for calls that carry no token (the signed upload URL).
   */
  identity?(options: { withToken: boolean }): Promise<BankIdentity>;
  /** Simpler form (tests, benches): base URL and token, bound to the base URL's origin. */
  getBaseUrl?(): string;
  getToken?(): Promise<string | null>;
  log: Logger;
  clock: ServerClock;
  /** Per-attempt timeout of a JSON call. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Told when the bank refuses the token (401), so the session can ask for a new one. */
  onUnauthenticated?(): void;
  /**
   * Told after every attempt whether the bank answered at all (any HTTP status: reachable) or the
   * network failed (unreachable); the session's status line follows it.
   */
  onReachability?(reachable: boolean): void;
  /**
   * The origin of the embedded sandbox this process started (null when none runs): the only place
   * a document download may use plain http. Any other download URL must be https, so a hostile
   * bank answer cannot make the app fetch a local service's answer into a case file.
   */
  embeddedOrigin?(): string | null;
  /** Waiting between attempts (tests may speed it up). */
  sleep?(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface RawRequest<S extends z.ZodType> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  schema: S;
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** Attach the bearer token (default true). */
  auth?: boolean;
  idempotencyKey?: string;
  retry?: RetryMode;
  signal?: AbortSignal;
  /**
   * Told the answer's body as received, once it parsed and passed `schema` (a caller that keeps
   * the bytes, as the RFI cache keeps a full listing's pages, need not serialise them again).
   */
  onText?(text: string): void;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface UploadOptions extends CallOptions {
  onProgress?(sentBytes: number, totalBytes: number): void;
}

type Body<K extends RouteId> = RouteRequestBody<K>;

/**
 * Body of an RFI response: `question_type` and one field named exactly as that type. (Typed here
 * because the shared schema's inferred type, a catch-all record, does not admit the string key;
 * the body is still checked against the shared schema before it is sent.)
 */
export type RfiResponseBody = {
  question_type: string;
  [questionType: string]: string | { response_text: string; document_ids: string[] };
};
type Res<K extends RouteId> = RouteResponse<K>;

/** An id that becomes one path segment: the shared id rule (no `.`/`..`, no `/`), encoded. */
export function pathParam(value: string, name: string): string {
  if (typeof value !== 'string' || !BANK_ID_RE.test(value)) {
    throw new AppFailure({
      kind: 'invalid_argument',
      field: name,
      message: `${name} ${BANK_ID_RULE}.`,
    });
  }
  return encodeURIComponent(value);
}

/**
 * A signed upload or download URL from the bank, resolved against its base URL: https, or plain
 * http only to this machine (a local test bank), and no credentials in it (the URL is its own
 * credential; the bearer token never goes with it).
 */
function signedUrl(url: string, baseUrl: string, purpose: 'upload' | 'download'): URL {
  let target: URL;
  try {
    target = new URL(url, `${baseUrl}/`);
  } catch {
    throw new AppFailure({
      kind: 'invalid_argument',
      field: 'url',
      message: `The ${purpose} URL is not a URL.`,
    });
  }
  if (
    !(target.protocol === 'https:' || (target.protocol === 'http:' && isLoopbackHost(target.hostname))) ||
    target.username ||
    target.password
  ) {
    throw new AppFailure({
      kind: 'invalid_argument',
      field: 'url',
      message: `The ${purpose} URL must use https (plain http only to this machine) and carry no credentials.`,
    });
  }
  return target;
}

function describeIssues(error: z.ZodError): { field: string; message: string } {
  const issue = error.issues[0];
  const field = issue ? issue.path.map(String).join('.') : '';
  return { field, message: issue?.message ?? 'unexpected shape' };
}

/**
 * Follows a paginated listing (`next_page_token`) page after page. A bank that hands out a token
 * it already gave would loop forever: that is refused as a server error.
 */
export async function* followPages<P extends { next_page_token?: string | null }>(
  fetchPage: (pageToken: string | undefined) => Promise<P>,
): AsyncGenerator<P> {
  const seen = new Set<string>();
  let pageToken: string | undefined;
  for (;;) {
    const page = await fetchPage(pageToken);
    yield page;
    const next = page.next_page_token;
    if (!next) return;
    if (seen.has(next)) {
      throw new AppFailure({
        kind: 'server',
        message: 'The bank repeated a page token while listing RFIs.',
      });
    }
    seen.add(next);
    pageToken = next;
  }
}

export class BankClient {
  private readonly options: BankClientOptions;
  private readonly policy: RetryPolicy;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(options: BankClientOptions) {
    this.options = options;
    this.policy = { ...defaultRetryPolicy, ...options.retry };
    this.sleep = options.sleep ?? abortableSleep;
  }

  /** The identity of one request: base URL, token and the environment's signal, together. */
  private async identity(withToken: boolean): Promise<BankIdentity> {
    if (this.options.identity) {
      const id = await this.options.identity({ withToken });
      return { ...id, baseUrl: id.baseUrl.replace(/\/+$/, '') };
    }
    const baseUrl = (this.options.getBaseUrl?.() ?? '').replace(/\/+$/, '');
    const token = withToken ? ((await this.options.getToken?.()) ?? null) : null;
    return { baseUrl, token, tokenOrigin: originOf(baseUrl) };
  }

  /** Checks a request body against the route's schema before it is sent. */
  private checkBody<K extends RouteId>(id: K, body: unknown): void {
    const schema = (routes[id] as { body?: unknown }).body;
    if (!schema || schema === 'binary') return;
    const r = (schema as z.ZodType).safeParse(body);
    if (!r.success) {
      const { field, message } = describeIssues(r.error);
      throw new AppFailure({
        kind: 'invalid_argument',
        field,
        message: `${field ? `${field}: ` : ''}${message}`,
      });
    }
  }

  /** One bank call with the retry policy, error mapping and answer validation. */
  async request<S extends z.ZodType>(req: RawRequest<S>): Promise<z.output<S>> {
    const mode = req.retry ?? (req.method === 'GET' ? 'safe' : req.idempotencyKey ? 'idempotent' : 'none');
    const auth = req.auth ?? true;
    // Base URL and token together, once: every retry below speaks as this same identity.
    const identity = await this.identity(auth);
    const base = identity.baseUrl;
    if (!base) {
      throw new AppFailure({
        kind: 'offline',
        message: 'No bank is configured for this environment (or the embedded sandbox is not running).',
      });
    }
    if (!req.path.startsWith('/') || /(^|\/)\.{1,2}(\/|$)/.test(req.path)) {
      throw new AppFailure({ kind: 'invalid_argument', field: 'path', message: 'Not a bank API path.' });
    }
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) qs.set(k, v);
    const url = `${base}${req.path}${qs.size > 0 ? `?${qs.toString()}` : ''}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (auth) {
      if (!identity.token) {
        throw new AppFailure({
          kind: 'unauthenticated',
          message: 'No token is stored for this environment. Enter a token in Settings.',
        });
      }
      // The token goes only to the origin it was entered for, whatever the base URL says now.
      const origin = originOf(url);
      if (!origin || identity.tokenOrigin !== origin) {
        this.options.log.warn('bank: token not sent to an origin it was not entered for', {
          origin,
          tokenOrigin: identity.tokenOrigin,
        });
        throw new AppFailure({
          kind: 'unauthenticated',
          reason: 'TOKEN_ORIGIN_MISMATCH',
          message: `The stored token was entered for another address, not ${origin ?? 'this one'}. Enter the token for this environment in Settings.`,
        });
      }
      headers['authorization'] = `Bearer ${identity.token}`;
    }
    if (req.idempotencyKey !== undefined) headers[IDEMPOTENCY_HEADER] = req.idempotencyKey;
    const linked = linkSignals([req.signal, identity.signal]);
    try {
      return await this.attempts(req, mode, url, headers, linked.signal);
    } finally {
      linked.dispose();
    }
  }

  /** The attempts of one request, all with the same URL and headers (the same identity). */
  private async attempts<S extends z.ZodType>(
    req: RawRequest<S>,
    mode: RetryMode,
    url: string,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<z.output<S>> {
    const shownPath = req.path;
    if (signal?.aborted) throw abortedBy(signal, new Error('aborted'));
    let attempt = 0;
    let limited = 0;
    for (;;) {
      attempt++;

      const sentAt = this.options.clock.localNow();
      let response: Response<string>;
      try {
        response = await got(url, {
          method: req.method,
          headers,
          ...(req.body !== undefined ? { json: req.body } : {}),
          throwHttpErrors: false,
          retry: { limit: 0 },
          followRedirect: false,
          timeout: { request: this.options.timeoutMs ?? 15_000 },
          responseType: 'text',
          ...(signal ? { signal } : {}),
        });
      } catch (err) {
        if (signal?.aborted) throw abortedBy(signal, err);
        const failure = offlineFailure(err);
        this.options.onReachability?.(false);
        if (mayRetry(mode, failure) && attempt < this.policy.attempts) {
          this.options.log.info('bank: network error, retrying', {
            method: req.method,
            path: shownPath,
            attempt,
            code: (err as { code?: string }).code,
          });
          await this.sleep(backoff(attempt, this.policy), signal);
          continue;
        }
        throw failure;
      }
      this.options.clock.observe(response.headers.date, sentAt, this.options.clock.localNow());
      this.options.onReachability?.(true);

      const status = response.statusCode;
      if (status >= 200 && status < 300) return this.parse(req, response);

      let body: unknown = null;
      try {
        body = response.body ? JSON.parse(response.body) : null;
      } catch {
        body = null;
      }
      const retryAfterHeader = response.headers['retry-after'];
      const retryAfter = typeof retryAfterHeader === 'string' ? retryAfterHeader : undefined;

      if (status === 401) {
        this.options.onUnauthenticated?.();
        throw failureFromResponse(status, body, retryAfter);
      }
      if (status === 429) {
        limited++;
        const waitMs = parseRetryAfter(retryAfter, this.options.clock.localNow()) ?? 1000;
        if (limited < this.policy.rateLimitAttempts && waitMs <= this.policy.maxRetryAfterMs) {
          this.options.log.info('bank: rate limited, waiting Retry-After', { path: shownPath, waitMs });
          await this.sleep(waitMs, signal);
          attempt--; // a 429 is not a failed attempt: the bank did not process the request
          continue;
        }
        throw failureFromResponse(status, body, retryAfter);
      }
      const failure = failureFromResponse(status, body, retryAfter);
      if (retryableStatus.has(status) && mayRetry(mode, failure) && attempt < this.policy.attempts) {
        this.options.log.info('bank: transient answer, retrying', {
          method: req.method,
          path: shownPath,
          status,
          attempt,
        });
        await this.sleep(backoff(attempt, this.policy), signal);
        continue;
      }
      throw failure;
    }
  }

  private parse<S extends z.ZodType>(req: RawRequest<S>, response: Response<string>): z.output<S> {
    let body: unknown;
    try {
      body = response.body ? JSON.parse(response.body) : null;
    } catch {
      throw new AppFailure({
        kind: 'invalid',
        status: response.statusCode,
        message: `The bank's answer to ${req.method} ${req.path} is not JSON.`,
      });
    }
    const parsed = req.schema.safeParse(body);
    if (parsed.success) req.onText?.(response.body);
    if (!parsed.success) {
      const { field, message } = describeIssues(parsed.error);
      this.options.log.warn('bank: malformed answer', {
        method: req.method,
        path: req.path,
        issues: parsed.error.issues.slice(0, 5),
      });
      throw new AppFailure({
        kind: 'invalid',
        status: response.statusCode,
        field,
        message: `The bank's answer to ${req.method} ${req.path} is malformed at "${field || '(body)'}": ${message}.`,
      });
    }
    return parsed.data;
  }

  /**
   * One endpoint of the shared route table: its method, its path with `params` filled in (each id
   * checked), its auth, its body schema (checked before sending) and its answer schema.
   */
  private async call<K extends RouteId>(
    id: K,
    opts: {
      params?: Record<string, string>;
      body?: unknown;
      query?: Record<string, string | undefined>;
      idempotencyKey?: string;
      signal?: AbortSignal;
    } = {},
  ): Promise<Res<K>> {
    const r = routes[id];
    if (r.auth === 'control')
      throw new Error(`${id} is a sandbox control route; the app does not call those.`);
    const params = opts.params ?? {};
    // The route's `transactionID` is reported as the field `transactionId`.
    for (const [name, value] of Object.entries(params)) pathParam(value, name.replace(/ID$/, 'Id'));
    if (opts.body !== undefined) this.checkBody(id, opts.body);
    return this.request({
      method: r.method,
      path: fillRoutePath(r.path, params),
      schema: r.response as z.ZodType<Res<K>>,
      auth: r.auth !== 'none',
      ...(opts.body !== undefined ? { body: opts.body } : {}),
      ...(opts.query ? { query: opts.query } : {}),
      ...(opts.idempotencyKey !== undefined ? { idempotencyKey: opts.idempotencyKey } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    }) as Promise<Res<K>>;
  }

  private static key(idempotencyKey: string): string {
    if (!IDEMPOTENCY_KEY_RE.test(idempotencyKey)) {
      throw new AppFailure({
        kind: 'invalid_argument',
        field: 'idempotencyKey',
        message: 'An idempotency key is 1 to 255 visible ASCII characters.',
      });
    }
    return idempotencyKey;
  }

  // ---- Transactions, returns, crypto ----

  /** GET /v1/transactions/:id. 404 right after creation: use readAfterCreate for that window. */
  async getTransaction(transactionId: string, o: CallOptions = {}): Promise<Res<'getTransaction'>> {
    return this.call('getTransaction', {
      params: { transactionID: transactionId },
      ...o,
    });
  }

  /** POST /v1/transfer/return (retried with the same key on ambiguous failures). */
  async createReturnIntent(
    body: Body<'createReturnIntent'>,
    o: CallOptions & { idempotencyKey: string },
  ): Promise<Res<'createReturnIntent'>> {
    return this.call('createReturnIntent', {
      body,
      idempotencyKey: BankClient.key(o.idempotencyKey),
      ...(o.signal ? { signal: o.signal } : {}),
    });
  }

  /** PUT /v1/transfer/return: confirms the intent (not retried automatically). */
  async confirmReturn(transactionId: string, o: CallOptions = {}): Promise<Res<'confirmReturn'>> {
    return this.call('confirmReturn', { body: { transaction_id: transactionId }, ...o });
  }

  /** DELETE /v1/transfer/return/:id: cancels an unconfirmed intent (not retried automatically). */
  async cancelReturn(transactionId: string, o: CallOptions = {}): Promise<Res<'cancelReturn'>> {
    return this.call('cancelReturn', {
      params: { transactionID: transactionId },
      ...o,
    });
  }

  /** POST /v1/crypto/order: a quote (retried with the same key on ambiguous failures). */
  async createCryptoOrder(
    body: Body<'createCryptoOrder'>,
    o: CallOptions & { idempotencyKey: string },
  ): Promise<Res<'createCryptoOrder'>> {
    return this.call('createCryptoOrder', {
      body,
      idempotencyKey: BankClient.key(o.idempotencyKey),
      ...(o.signal ? { signal: o.signal } : {}),
    });
  }

  /** PUT /v1/crypto/order: confirms the quote (not retried automatically). */
  async confirmCryptoOrder(transactionId: string, o: CallOptions = {}): Promise<Res<'confirmCryptoOrder'>> {
    return this.call('confirmCryptoOrder', { body: { transaction_id: transactionId }, ...o });
  }

  // ---- RFIs ----

  /** GET /v1/rfis: one page. */
  async listRfis(
    query: z.input<typeof routes.listRfis.query> = {},
    o: CallOptions = {},
  ): Promise<Res<'listRfis'>> {
    const q = routes.listRfis.query.safeParse(query);
    if (!q.success) {
      const { field, message } = describeIssues(q.error);
      throw new AppFailure({ kind: 'invalid_argument', field, message: `${field}: ${message}` });
    }
    return this.call('listRfis', { query: q.data as Record<string, string | undefined>, ...o });
  }

  /** Every RFI matching the query, page after page. */
  async *iterateRfis(
    query: Omit<z.input<typeof routes.listRfis.query>, 'page_token'> = {},
    o: CallOptions = {},
  ): AsyncGenerator<Res<'getRfi'>> {
    for await (const page of followPages((token) =>
      this.listRfis({ ...query, ...(token ? { page_token: token } : {}) }, o),
    )) {
      yield* page.data;
    }
  }

  async getRfi(rfiId: string, o: CallOptions = {}): Promise<Res<'getRfi'>> {
    return this.call('getRfi', { params: { rfiID: rfiId }, ...o });
  }

  /** POST …/questions/:q/responses. Not retried automatically (docs/api-decisions.md: re-read first). */
  async submitRfiResponse(
    rfiId: string,
    questionId: string,
    body: RfiResponseBody,
    o: CallOptions & { idempotencyKey?: string } = {},
  ): Promise<Res<'submitRfiResponse'>> {
    return this.call('submitRfiResponse', {
      params: { rfiID: rfiId, questionID: questionId },
      body,
      ...(o.idempotencyKey !== undefined ? { idempotencyKey: BankClient.key(o.idempotencyKey) } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
    });
  }

  // ---- Documents ----

  async createUploadUrl(body: Body<'createUploadUrl'>, o: CallOptions = {}): Promise<Res<'createUploadUrl'>> {
    return this.call('createUploadUrl', { body, ...o });
  }

  async getDocument(documentId: string, o: CallOptions = {}): Promise<Res<'getDocument'>> {
    return this.call('getDocument', { params: { documentID: documentId }, ...o });
  }

  /**
   * PUT {signed_url}: streams the file from disk (never read whole), reports progress, and sends
   * no bearer token (the URL is its own credential). Not retried automatically.
   */
  async uploadDocument(
    url: string,
    file: string | UploadSource,
    contentType: string,
    o: UploadOptions = {},
  ): Promise<Res<'uploadDocument'>> {
    const identity = await this.identity(false);
    const target = signedUrl(url, identity.baseUrl, 'upload');
    // Plain http to this machine only for a bank that is itself plain http on this machine (the
    // embedded sandbox, a test or development bank the analyst approved): an https bank's answer
    // never makes main send a document in clear to a local service.
    if (
      target.protocol !== 'https:' &&
      new URL(identity.baseUrl).protocol === 'https:' &&
      target.origin !== (this.options.embeddedOrigin?.() ?? null)
    ) {
      this.options.log.warn('bank: a plain-http upload URL from an https bank was refused', {
        host: target.host,
      });
      throw new AppFailure({
        kind: 'invalid_argument',
        field: 'url',
        message:
          'The bank answered an upload address that is not https; nothing was sent (plain http only when the bank itself is on this computer).',
      });
    }
    const linked = linkSignals([o.signal, identity.signal]);
    try {
      const source = typeof file === 'string' ? pathSource(file) : file;
      return await this.upload(target, identity.baseUrl, source, contentType, o, linked.signal);
    } finally {
      linked.dispose();
    }
  }

  private async upload(
    target: URL,
    baseUrl: string,
    source: UploadSource,
    contentType: string,
    o: UploadOptions,
    signal: AbortSignal | undefined,
  ): Promise<Res<'uploadDocument'>> {
    let size: number;
    try {
      size = await source.size();
    } catch (err) {
      throw new AppFailure({ kind: 'local', message: 'The file to upload cannot be read.' }, { cause: err });
    }
    const sentAt = this.options.clock.localNow();
    let response: Response<string>;
    try {
      const req = got(target, {
        method: 'PUT',
        body: source.open(),
        headers: { 'content-type': contentType, 'content-length': String(size), accept: 'application/json' },
        throwHttpErrors: false,
        retry: { limit: 0 },
        followRedirect: false,
        timeout: { connect: 10_000, send: 10 * 60_000, response: 60_000 },
        responseType: 'text',
        ...(signal ? { signal } : {}),
      });
      req.on('uploadProgress', (p) => o.onProgress?.(Math.min(p.transferred, size), size));
      response = await req;
    } catch (err) {
      if (signal?.aborted) throw abortedBy(signal, err);
      // The stored bytes were refused on the way (changed on disk): not the network's doing.
      const refused = source.failure?.();
      if (refused) {
        throw new AppFailure(
          { kind: 'local', message: 'The file to upload cannot be read.' },
          { cause: refused },
        );
      }
      throw offlineFailure(err);
    }
    if (target.origin === originOf(baseUrl)) {
      this.options.clock.observe(response.headers.date, sentAt, this.options.clock.localNow());
    }
    if (response.statusCode >= 300) {
      let body: unknown = null;
      try {
        body = JSON.parse(response.body);
      } catch {
        body = null;
      }
      throw failureFromResponse(response.statusCode, body);
    }
    return this.parse(
      {
        method: 'PUT',
        path: '{signed_url}',
        schema: routes.uploadDocument.response as z.ZodType<Res<'uploadDocument'>>,
      },
      response,
    );
  }

  /**
   * GET {signed download URL} (from getDocument): the document's bytes as a stream, never held
   * whole. Like uploads: https (plain http only to this machine), no credentials in the URL, no
   * bearer token, no redirects.
   */
  async downloadDocument(url: string, o: CallOptions = {}): Promise<Readable> {
    const identity = await this.identity(false);
    const target = signedUrl(url, identity.baseUrl, 'download');
    if (target.protocol !== 'https:' && target.origin !== (this.options.embeddedOrigin?.() ?? null)) {
      this.options.log.warn('bank: a plain-http document URL was refused', { host: target.host });
      throw new AppFailure({
        kind: 'invalid_argument',
        field: 'url',
        message:
          'The bank answered a document address that is not https; it was not downloaded (plain http only to the sandbox this app started).',
      });
    }
    const linked = linkSignals([o.signal, identity.signal]);
    const stream = got.stream(target, {
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      timeout: { connect: 10_000, response: 60_000 },
      ...(linked.signal ? { signal: linked.signal } : {}),
    });
    let disposed = false;
    const dispose = (): void => {
      if (disposed) return;
      disposed = true;
      linked.dispose();
    };
    for (const ev of ['end', 'error', 'close']) stream.once(ev, dispose);
    try {
      await new Promise<void>((resolve, reject) => {
        stream.once('response', (res: { statusCode: number }) => {
          if (res.statusCode >= 300) reject(failureFromResponse(res.statusCode, null));
          else resolve();
        });
        stream.once('error', reject);
      });
    } catch (err) {
      stream.destroy();
      if (err instanceof AppFailure) throw err;
      if (linked.signal?.aborted) throw abortedBy(linked.signal, err);
      throw offlineFailure(err);
    }
    return stream;
  }

  // ---- Webhook configuration ----

  /** GET /v1/webhook/url: the credential's webhook configuration (name, URL, legal entity, role). */
  async getWebhookConfig(o: CallOptions = {}): Promise<Res<'getWebhookUrl'>> {
    return this.call('getWebhookUrl', o);
  }

  /** PUT /v1/webhook/url ("" clears). */
  async setWebhookUrl(url: string, o: CallOptions = {}): Promise<Res<'setWebhookUrl'>> {
    return this.call('setWebhookUrl', { body: { webhook_url: url }, ...o });
  }
}
