/**
 * Bank failures as the app's typed errors: non-2xx answers and their error body mapped to one
 * AppFailure, network failures, and Retry-After parsing.
 */

import { AppFailure } from '../../shared/ipc/errors';
import type { AppError } from '../../shared/ipc/errors';

/** The error body of the bank (docs/api-decisions.md): {"error": {code, status, message, reason?}}. */
interface BankErrorBody {
  error?: { code?: unknown; status?: unknown; message?: unknown; reason?: unknown };
}

function text(v: unknown, max = 300): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v.slice(0, max) : undefined;
}

/** Parses Retry-After (seconds or an HTTP date) into milliseconds, within sane bounds. */
export function parseRetryAfter(value: string | undefined, nowMs: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed), 3600) * 1000;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.min(at - nowMs, 3600_000));
}

/** Turns an HTTP answer that is not 2xx into the one typed error the renderer understands. */
export function failureFromResponse(status: number, body: unknown, retryAfter?: string): AppFailure {
  const e = (body as BankErrorBody | null)?.error;
  const message = text(e?.message);
  const reason = text(e?.reason, 80);
  const base: Pick<AppError, 'status'> & { reason?: string } = { status };
  if (reason) base.reason = reason;
  switch (true) {
    case status === 400:
      return new AppFailure({
        ...base,
        kind: 'invalid',
        message: message ?? 'The bank refused the request as malformed.',
      });
    case status === 401:
      return new AppFailure({
        ...base,
        kind: 'unauthenticated',
        message: 'The bank did not accept the stored token. Enter a new token.',
      });
    case status === 403:
      return new AppFailure({
        ...base,
        kind: 'forbidden',
        message: message ?? 'This credential is not allowed to do that.',
      });
    case status === 404:
      return new AppFailure({
        ...base,
        kind: 'not_found',
        message: message ?? 'The bank has no such record.',
      });
    case status === 409:
      return new AppFailure({
        ...base,
        kind: 'conflict',
        message: message ?? 'The same request is still being processed.',
      });
    case status === 413:
      return new AppFailure({
        ...base,
        kind: 'invalid',
        message: message ?? 'The document is larger than the bank accepts.',
      });
    case status === 422:
      return new AppFailure({
        ...base,
        kind: 'precondition',
        message: message ?? 'The bank refused the operation.',
      });
    case status === 429: {
      const retryAfterMs = parseRetryAfter(retryAfter);
      return new AppFailure({
        ...base,
        kind: 'rate_limited',
        message: 'The bank asked us to slow down. Try again shortly.',
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      });
    }
    default:
      return new AppFailure({
        ...base,
        kind: 'server',
        message: message ?? `The bank answered with an error (${status}).`,
      });
  }
}

/** A network-level failure: the bank was not reached or did not answer. */
export function offlineFailure(cause: unknown): AppFailure {
  return new AppFailure(
    { kind: 'offline', message: 'The bank could not be reached. Check the connection.' },
    { cause },
  );
}
