/**
 * The team server over HTTP, as main calls it: the analyst's access token (from memory, renewed
 * with the refresh token once when the server answers 401), a timeout on every call, answers
 * checked against the shared wire schemas, and two kinds of failure a caller can act on:
 * `TeamUnreachable` (no HTTP answer: queue and retry) and `TeamApiError` (the server's stable
 * error code, e.g. `held_by_other` with the holder).
 */
import type { z } from 'zod';
import { AppFailure } from '../../shared/ipc/errors';
import { TeamErrorBody, type TeamErrorCode } from '../../shared/team/schemas';

export class TeamUnreachable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TeamUnreachable';
  }
}

export class TeamApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: TeamErrorCode,
    message: string,
    readonly holder: string | null = null,
  ) {
    super(message);
    this.name = 'TeamApiError';
  }
}

export class TeamNotSignedIn extends Error {
  constructor() {
    super('Not signed in to the team server.');
    this.name = 'TeamNotSignedIn';
  }
}

export interface TeamHttpDeps {
  /** The team server's origin; null while none is configured. */
  baseUrl(): string | null;
  /** The current access token (`renew`: the last one was refused); null when not signed in. */
  accessToken(renew: boolean): Promise<string | null>;
  /** Told after every attempt whether the server answered at all. */
  onReachability?(reachable: boolean): void;
  timeoutMs?: number;
}

export interface TeamHttp {
  call<S extends z.ZodType>(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    schema: S,
    body?: unknown,
  ): Promise<z.infer<S>>;
  /** Opens a long-lived GET (the change stream) with the token; the caller reads the body. */
  open(path: string, headers: Record<string, string>, signal: AbortSignal): Promise<Response>;
  /**
   * A call whose body or answer is bytes (evidence): the answer's whole body, read within the
   * deadline (four times a call's unless given), after the same token handling; a response that is
   * not 2xx is turned into the same typed failures as `call`.
   */
  bytes(
    method: 'GET' | 'PUT',
    path: string,
    headers: Record<string, string>,
    body?: Uint8Array,
    timeoutMs?: number,
  ): Promise<Uint8Array>;
}

/** A response that is not 2xx, as the typed failure a caller acts on. */
function errorOf(status: number, json: unknown): never {
  if (status === 401) throw new TeamNotSignedIn();
  const parsed = TeamErrorBody.safeParse(json);
  if (status >= 500 && (!parsed.success || parsed.data.error.code === 'internal'))
    throw new TeamUnreachable(`The team server failed (${status}).`);
  if (!parsed.success) throw new TeamApiError(status, 'internal', `The team server answered ${status}.`);
  const e = parsed.data.error;
  throw new TeamApiError(status, e.code, e.message, e.holder ?? null);
}

/**
 * Runs a request with a deadline kept here, not only handed to fetch as a signal: Node's fetch can
 * lose the link from a signal to its request once the Request is garbage collected
 * (nodejs/node#55428), and a call must end in time whatever became of that link. At the deadline
 * the signal is aborted and the answer is `onLate()`, whatever `run` is still waiting for.
 */
export async function withinDeadline<T>(
  ms: number,
  run: (signal: AbortSignal) => Promise<T>,
  onLate: () => Error,
): Promise<T> {
  const deadline = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      deadline.abort();
      reject(onLate());
    }, ms);
  });
  late.catch(() => undefined);
  try {
    return await Promise.race([run(deadline.signal), late]);
  } finally {
    clearTimeout(timer);
  }
}

export function createTeamHttp(deps: TeamHttpDeps): TeamHttp {
  const timeoutMs = deps.timeoutMs ?? 15_000;

  const send = async (
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string | Uint8Array | undefined,
    signal: AbortSignal,
  ): Promise<Response> => {
    const base = deps.baseUrl();
    if (!base) throw new TeamNotSignedIn();
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const token = await deps.accessToken(attempt > 0);
      if (!token) throw new TeamNotSignedIn();
      let res: Response;
      try {
        res = await fetch(new URL(path, base), {
          method,
          headers: { ...headers, authorization: `Bearer ${token}` },
          body: body as RequestInit['body'],
          signal,
          redirect: 'error',
        });
      } catch (err) {
        deps.onReachability?.(false);
        throw new TeamUnreachable('The team server could not be reached.', { cause: err });
      }
      deps.onReachability?.(true);
      if (res.status === 401 && attempt === 0) {
        await res.body?.cancel();
        continue;
      }
      return res;
    }
    throw new TeamNotSignedIn();
  };

  const failure = async (res: Response): Promise<never> =>
    errorOf(res.status, await res.json().catch(() => null));

  return {
    bytes: (method, path, headers, body, ms) =>
      withinDeadline(
        ms ?? timeoutMs * 4,
        async (signal) => {
          const res = await send(method, path, headers, body, signal);
          if (!res.ok) return failure(res);
          return new Uint8Array(await res.arrayBuffer());
        },
        () => new TeamUnreachable('The team server did not answer in time.'),
      ),
    async call(method, path, schema, body) {
      const { res, json } = await withinDeadline(
        timeoutMs,
        async (signal) => {
          const res = await send(
            method,
            path,
            body === undefined ? {} : { 'content-type': 'application/json' },
            body === undefined ? undefined : JSON.stringify(body),
            signal,
          );
          try {
            return { res, json: (await res.json()) as unknown };
          } catch (err) {
            if (res.status >= 500)
              throw new TeamUnreachable(`The team server failed (${res.status}).`, { cause: err });
            throw new TeamApiError(
              res.status,
              'internal',
              'The team server answered something that is not JSON.',
            );
          }
        },
        () => new TeamUnreachable('The team server did not answer in time.'),
      );
      if (!res.ok) errorOf(res.status, json);
      const parsed = schema.safeParse(json);
      if (!parsed.success)
        throw new TeamApiError(res.status, 'internal', 'The team server’s answer has an unexpected shape.');
      return parsed.data as z.infer<typeof schema>;
    },
    open: (path, headers, signal) => send('GET', path, headers, undefined, signal),
  };
}

/**
 * A failed team call as the typed error the renderer reads: signed out and unreachable in the same
 * words everywhere; a refusal of the team server with its code mapped to a kind (`server` when the
 * caller names none) and put in words by the caller. A typed error already made passes through.
 */
export function teamCallFailure(
  err: unknown,
  kinds: Partial<Record<string, AppFailure['kind']>>,
  words: (refusal: TeamApiError) => string,
): never {
  if (err instanceof AppFailure) throw err;
  if (err instanceof TeamNotSignedIn)
    throw new AppFailure({
      kind: 'unauthenticated',
      reason: 'TEAM_SIGNED_OUT',
      message: 'Sign in to the team first (Settings → Team).',
    });
  if (err instanceof TeamUnreachable)
    throw new AppFailure({
      kind: 'offline',
      reason: 'TEAM_UNREACHABLE',
      message: 'The team server could not be reached. Try again when it is back.',
    });
  if (err instanceof TeamApiError)
    throw new AppFailure({
      kind: kinds[err.code] ?? 'server',
      reason: err.code.toUpperCase(),
      message: words(err),
    });
  throw err;
}
