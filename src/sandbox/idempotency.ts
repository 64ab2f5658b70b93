/**
 * Idempotency-Key handling (docs/api-decisions.md): per credential, retained 24 h of sandbox time. Same key and
 * same body → the stored answer; same key, other body → 422 IDEMPOTENCY_KEY_REUSED; same key while
 * the first request still runs → 409. Only successful answers are stored: a refusal releases the
 * key so the caller can retry once the condition is fixed.
 */
import type { Clock } from './clock';
import { ApiError } from './errors';

interface Entry {
  fingerprint: string;
  createdAt: number;
  state: 'in_flight' | 'done';
  status: number;
  body: string;
}

export type IdemStart = { kind: 'new'; mapKey: string } | { kind: 'replay'; status: number; body: string };

/** Canonical JSON (sorted keys) so that key order does not change the fingerprint. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export class IdempotencyStore {
  private entries = new Map<string, Entry>();
  private inserts = 0;

  constructor(
    private readonly clock: Clock,
    private readonly retentionMs: number,
  ) {}

  begin(scope: string, key: string, fingerprint: string): IdemStart {
    const mapKey = `${scope}\u0000${key}`;
    const now = this.clock.now();
    const e = this.entries.get(mapKey);
    if (e && e.createdAt + this.retentionMs <= now) this.entries.delete(mapKey);
    const cur = this.entries.get(mapKey);
    if (cur) {
      if (cur.fingerprint !== fingerprint) {
        throw new ApiError(
          422,
          'Idempotency-Key: already used with a different request body',
          'IDEMPOTENCY_KEY_REUSED',
        );
      }
      if (cur.state === 'in_flight') {
        throw new ApiError(
          409,
          'Idempotency-Key: a request with this key is still in flight',
          'IDEMPOTENCY_KEY_IN_FLIGHT',
        );
      }
      return { kind: 'replay', status: cur.status, body: cur.body };
    }
    this.entries.set(mapKey, { fingerprint, createdAt: now, state: 'in_flight', status: 0, body: '' });
    if (++this.inserts % 1000 === 0) this.sweep();
    return { kind: 'new', mapKey };
  }

  complete(mapKey: string, status: number, body: string): void {
    const e = this.entries.get(mapKey);
    if (!e) return;
    e.state = 'done';
    e.status = status;
    e.body = body;
  }

  abort(mapKey: string): void {
    const e = this.entries.get(mapKey);
    if (e?.state === 'in_flight') this.entries.delete(mapKey);
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const [k, e] of this.entries) {
      if (e.state === 'done' && e.createdAt + this.retentionMs <= now) this.entries.delete(k);
    }
  }
}
