import {
  SANDBOX_CONTROL_HEADER,
  startSandbox,
  type RunningSandbox,
  type SandboxOptions,
} from '../../src/sandbox/index';

export type Json = Record<string, unknown>;

export interface Res<T = Json> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export async function start(opts: Partial<SandboxOptions> = {}): Promise<RunningSandbox> {
  return startSandbox({
    port: 0,
    visibilityDelayMs: { min: 0, max: 0 },
    validateResponses: true,
    returnCompletionDelayMs: 60_000,
    settlementDelayMs: 60_000,
    webhookRetry: { initialMs: 50, maxMs: 200, giveUpAfterMs: 5000, timeoutMs: 1000 },
    ...opts,
  });
}

/**
 * A small HTTP client of the sandbox. Requests to the control routes (/v1/sandbox/*) carry the
 * sandbox's control secret unless `control` says otherwise (false: none; a string: that value).
 */
export function client(sb: RunningSandbox) {
  const call = async <T = Json>(
    method: string,
    path: string,
    opts: {
      token?: string | null;
      body?: unknown;
      headers?: Record<string, string>;
      idem?: string;
      raw?: string;
      control?: boolean | string;
    } = {},
  ): Promise<Res<T>> => {
    const headers: Record<string, string> = {};
    const control = opts.control ?? path.startsWith('/v1/sandbox/');
    if (control !== false) headers[SANDBOX_CONTROL_HEADER] = control === true ? sb.controlSecret : control;
    Object.assign(headers, opts.headers);
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.idem !== undefined) headers['idempotency-key'] = opts.idem;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined && headers['content-type'] === undefined)
      headers['content-type'] = 'application/json';
    const res = await fetch(`${sb.url}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    return { status: res.status, body: parsed as T, headers: res.headers, text };
  };
  return call;
}

export function fx(sb: RunningSandbox) {
  const [a, b] = sb.fixtures.legal_entities;
  if (!a || !b) throw new Error('seed must have two legal entities');
  const acc = (le: typeof a, asset: string, i = 0) => {
    const x = le.accounts.filter((y) => y.asset === asset)[i];
    if (!x) throw new Error(`no ${asset} account ${i}`);
    return x;
  };
  return {
    a,
    b,
    adminA: a.tokens.admin,
    viewerA: a.tokens.viewer ?? '',
    adminB: b.tokens.admin,
    acc,
  };
}

/** Error body shape check; returns the error object. */
export function err(res: Res): { code: string; status: string; message: string; reason?: string } {
  const e = (res.body as { error?: { code: string; status: string; message: string; reason?: string } })
    .error;
  if (!e) throw new Error(`expected an error body, got ${res.status} ${res.text}`);
  return e;
}
