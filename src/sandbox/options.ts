/**
 * The sandbox's options (timings, limits, webhook retries, rate limits), their defaults, and
 * resolveOptions(), which fills in defaults and refuses invalid values.
 */

import { DEFAULT_MAX_UPLOAD_BYTES } from '../shared/catalogue';
import { CONTROL_SECRET_RE } from './guard';

export interface WebhookRetryOptions {
  /** First retry delay; doubles on each failure. */
  initialMs: number;
  /** Cap of the retry delay. */
  maxMs: number;
  /** Stop retrying this long after the first attempt. */
  giveUpAfterMs: number;
  /** An attempt without an answer within this time counts as failed. */
  timeoutMs: number;
}

export interface RateLimitOptions {
  /** Sustained requests per second per credential (or per client address without a token). */
  requestsPerSecond: number;
  /** Bucket size. */
  burst: number;
}

export interface SandboxOptions {
  host: string;
  /** 0 = a free port. */
  port: number;
  /** Ids and tokens are deterministic for a given seed. */
  seed: number | string;
  /** Read-after-create 404 window of a new transaction, drawn uniformly in [min, max]. */
  visibilityDelayMs: { min: number; max: number };
  quoteTtlSeconds: number;
  /** in_progress → return_completed after this delay (sandbox time). */
  returnCompletionDelayMs: number;
  /** Confirmed crypto order: pending_execution → completed/failed after this delay (sandbox time). */
  settlementDelayMs: number;
  uploadUrlTtlSeconds: number;
  maxUploadBytes: number;
  webhookRetry: WebhookRetryOptions;
  /** Tolerance a verifier should apply to `t` (documented; printed by the CLI). */
  webhookTimestampToleranceSeconds: number;
  /** Where uploaded documents are stored; default a fresh temp dir removed on close. */
  dataDir: string | undefined;
  /** PKCS#8 PEM of an ECDSA P-256 key to sign webhooks with; default a fresh key pair. */
  privateKeyPem: string | undefined;
  /** USDC the sandbox can sell (minor units, 6 decimals). */
  usdcInventory: bigint;
  /** Artificial processing time of creating calls (to observe 409 while in flight). */
  writeDelayMs: number;
  idempotencyRetentionSeconds: number;
  /** Off (null) by default. */
  rateLimit: RateLimitOptions | null;
  /** Validate every JSON response against its schema (tests). */
  validateResponses: boolean;
  /** Log requests to stdout (CLI). */
  logRequests: boolean;
  /**
   * Secret of the control routes (`Sandbox-Control-Secret` header); default a fresh random one
   * per run, handed to whoever started the sandbox (`RunningSandbox.controlSecret`).
   */
  controlSecret: string | undefined;
  /** Host names accepted in the Host header besides the loopback ones (with the sandbox's port). */
  allowedHosts: string[];
  /**
   * Legal entities seeded after A and B (C, D, …, at most 8), each with admin and viewer tokens
   * and a USD account, no RFIs: a group with more entities (listed by the fixtures like A and B).
   */
  extraLegalEntities: number;
  /**
   * A second admin credential of legal entity A, held by another person (Sam Ortiz), seeded last so
   * every other fixture is as without it (`tokens.colleague_admin`): two analysts of one entity,
   * each with their own credential.
   */
  colleagueAdmin: boolean;
}

export const DEFAULT_OPTIONS: SandboxOptions = {
  host: '127.0.0.1',
  port: 0,
  seed: 1,
  visibilityDelayMs: { min: 0, max: 3000 },
  quoteTtlSeconds: 30,
  returnCompletionDelayMs: 5000,
  settlementDelayMs: 2000,
  uploadUrlTtlSeconds: 900,
  maxUploadBytes: DEFAULT_MAX_UPLOAD_BYTES,
  webhookRetry: { initialMs: 1000, maxMs: 600_000, giveUpAfterMs: 72 * 3600_000, timeoutMs: 5000 },
  webhookTimestampToleranceSeconds: 300,
  dataDir: undefined,
  privateKeyPem: undefined,
  usdcInventory: 250_000_000n,
  writeDelayMs: 0,
  idempotencyRetentionSeconds: 24 * 3600,
  rateLimit: null,
  validateResponses: false,
  logRequests: false,
  controlSecret: undefined,
  allowedHosts: [],
  extraLegalEntities: 0,
  colleagueAdmin: false,
};

export function resolveOptions(o: Partial<SandboxOptions> = {}): SandboxOptions {
  const r: SandboxOptions = {
    ...DEFAULT_OPTIONS,
    ...o,
    visibilityDelayMs: { ...DEFAULT_OPTIONS.visibilityDelayMs, ...o.visibilityDelayMs },
    webhookRetry: { ...DEFAULT_OPTIONS.webhookRetry, ...o.webhookRetry },
  };
  if (r.visibilityDelayMs.max < r.visibilityDelayMs.min) r.visibilityDelayMs.max = r.visibilityDelayMs.min;
  for (const [k, v] of Object.entries({
    port: r.port,
    quoteTtlSeconds: r.quoteTtlSeconds,
    returnCompletionDelayMs: r.returnCompletionDelayMs,
    settlementDelayMs: r.settlementDelayMs,
    uploadUrlTtlSeconds: r.uploadUrlTtlSeconds,
    maxUploadBytes: r.maxUploadBytes,
    writeDelayMs: r.writeDelayMs,
    'visibilityDelayMs.min': r.visibilityDelayMs.min,
  })) {
    if (!Number.isFinite(v) || v < 0) throw new Error(`sandbox option ${k} must be a non-negative number`);
  }
  if (!Number.isInteger(r.extraLegalEntities) || r.extraLegalEntities < 0 || r.extraLegalEntities > 8) {
    throw new Error('sandbox option extraLegalEntities must be an integer from 0 to 8');
  }
  if (r.usdcInventory < 0n) throw new Error('sandbox option usdcInventory must not be negative');
  if (r.controlSecret !== undefined && !CONTROL_SECRET_RE.test(r.controlSecret)) {
    throw new Error('sandbox option controlSecret must be 16 to 256 visible ASCII characters');
  }
  return r;
}
