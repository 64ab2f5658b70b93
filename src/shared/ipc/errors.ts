/**
 * The one error shape that crosses the process boundary. Every failure a channel can produce is
 * turned into a AppError so the renderer can explain it; nothing else (stack traces, raw server
 * bodies, tokens) ever crosses.
 */
export const appErrorKinds = [
  /** The argument did not match the channel's schema. */
  'invalid_argument',
  /** The call did not come from the app's own main frame. */
  'forbidden_sender',
  /** No such channel in the contract. */
  'unknown_channel',
  /** The bank could not be reached (network down, DNS, refused, timeout). */
  'offline',
  /** The bank refused the token (401): a new token is needed; never retried. */
  'unauthenticated',
  /** The credential may not do this (403: viewer role, account of another legal entity). */
  'forbidden',
  'not_found',
  /** A domain refusal (422 FAILED_PRECONDITION); `reason` carries the bank's machine word. */
  'precondition',
  /** The bank rejected the request as malformed (400), or answered with a malformed body. */
  'invalid',
  /** Same idempotency key still in flight (409). */
  'conflict',
  /** 429: `retryAfterMs` says when to try again. */
  'rate_limited',
  /** 5xx or an unexpected answer from the bank. */
  'server',
  /** No OS keychain could be used. */
  'keychain_unavailable',
  /**
   * A destination (bank address, webhook URL) the analyst did not approve in main's native dialog
   * and no administrator allow-listed: nothing was sent there.
   */
  'not_approved',
  /** The local state (settings, drafts, files) refused the operation. */
  'local',
  /** A bug on our side; the message is safe to show, details are in the log. */
  'internal',
] as const;

export type AppErrorKind = (typeof appErrorKinds)[number];

export interface AppError {
  kind: AppErrorKind;
  /** A sentence an analyst can read. */
  message: string;
  /** Machine-readable refusal word (e.g. INSUFFICIENT_BALANCE), when the bank gave one. */
  reason?: string;
  /** Dotted path of the offending field for invalid_argument / invalid. */
  field?: string;
  /** HTTP status, when the error came from the bank. */
  status?: number;
  /** For rate_limited: how long to wait before retrying. */
  retryAfterMs?: number;
}

/** An Error subclass main-side code throws; the dispatcher turns it into a AppError. */
export class AppFailure extends Error {
  readonly kind: AppErrorKind;
  readonly reason?: string;
  readonly field?: string;
  readonly status?: number;
  readonly retryAfterMs?: number;

  constructor(error: AppError, options?: { cause?: unknown }) {
    super(error.message, options);
    this.name = 'AppFailure';
    this.kind = error.kind;
    if (error.reason !== undefined) this.reason = error.reason;
    if (error.field !== undefined) this.field = error.field;
    if (error.status !== undefined) this.status = error.status;
    if (error.retryAfterMs !== undefined) this.retryAfterMs = error.retryAfterMs;
  }

  toAppError(): AppError {
    const out: AppError = { kind: this.kind, message: this.message };
    if (this.reason !== undefined) out.reason = this.reason;
    if (this.field !== undefined) out.field = this.field;
    if (this.status !== undefined) out.status = this.status;
    if (this.retryAfterMs !== undefined) out.retryAfterMs = this.retryAfterMs;
    return out;
  }
}

export function isAppFailure(value: unknown): value is AppFailure {
  return value instanceof AppFailure;
}

/** What every channel answers: the value, or a AppError. Plain data, safe for structured clone. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: AppError };
