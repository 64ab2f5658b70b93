/**
 * Webhook sender: thin event bodies signed with ECDSA P-256 / SHA-256 over the raw body bytes
 * followed by the decimal timestamp, header `Service-Signature: t=<unix>,v1=<base64 DER>`.
 * At-least-once delivery: non-2xx or no answer within the timeout → retry from initialMs doubling,
 * capped at maxMs, until giveUpAfterMs after the first attempt. No ordering guarantee.
 */
import { randomBytes, sign, type KeyObject } from 'node:crypto';
import { iso, type Clock } from './clock';
import type { IdGen } from './ids';
import type { WebhookRetryOptions } from './options';

export interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  url: string;
  body: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  firstAttemptAt: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: number | null;
}

export function signWebhook(body: string, t: number, key: KeyObject): string {
  return sign(
    'sha256',
    Buffer.concat([Buffer.from(body, 'utf8'), Buffer.from(String(t), 'ascii')]),
    key,
  ).toString('base64');
}

export class WebhookSender {
  readonly deliveries: Delivery[] = [];
  private timers = new Set<NodeJS.Timeout>();
  private readonly abort = new AbortController();
  private closed = false;
  private inFlight = new Set<Promise<void>>();

  constructor(
    private readonly retry: WebhookRetryOptions,
    private readonly clock: Clock,
    private readonly ids: IdGen,
    private readonly key: KeyObject,
  ) {}

  emit(urls: string[], type: string, data: Record<string, unknown>): void {
    if (this.closed || urls.length === 0) return;
    // Event ids are random, not drawn from the seeded stream: a sandbox restarted with the same
    // seed must not reuse the ids of the previous run, which receivers remember as already seen.
    const event = {
      id: `evt_${randomBytes(10).toString('hex')}`,
      type,
      created_at: iso(this.clock.now()),
      data,
    };
    const body = JSON.stringify(event);
    for (const url of urls) {
      const d: Delivery = {
        id: this.ids.id('dlv'),
        eventId: event.id,
        eventType: type,
        url,
        body,
        status: 'pending',
        attempts: 0,
        firstAttemptAt: Date.now(),
        lastStatusCode: null,
        lastError: null,
        nextAttemptAt: this.clock.now(),
      };
      this.deliveries.push(d);
      if (this.deliveries.length > 10_000) this.deliveries.splice(0, this.deliveries.length - 10_000);
      this.later(d, 0);
    }
  }

  private later(d: Delivery, ms: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const p = this.attempt(d).finally(() => this.inFlight.delete(p));
      this.inFlight.add(p);
    }, ms);
    timer.unref?.();
    this.timers.add(timer);
  }

  private async attempt(d: Delivery): Promise<void> {
    if (this.closed) return;
    d.attempts++;
    const t = Math.floor(this.clock.now() / 1000);
    try {
      const res = await fetch(d.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'service-signature': `t=${t},v1=${signWebhook(d.body, t, this.key)}`,
          'user-agent': 'treasury-desk-sandbox-webhooks/1',
        },
        body: d.body,
        signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(this.retry.timeoutMs)]),
        redirect: 'manual',
      });
      d.lastStatusCode = res.status;
      await res.body?.cancel().catch(() => {});
      if (res.status >= 200 && res.status < 300) {
        d.status = 'delivered';
        d.lastError = null;
        d.nextAttemptAt = null;
        return;
      }
      d.lastError = `HTTP ${res.status}`;
    } catch (err) {
      if (this.closed) return;
      d.lastStatusCode = null;
      d.lastError = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    }
    const delay = Math.min(this.retry.initialMs * 2 ** (d.attempts - 1), this.retry.maxMs);
    if (Date.now() + delay - d.firstAttemptAt > this.retry.giveUpAfterMs) {
      d.status = 'failed';
      d.nextAttemptAt = null;
      return;
    }
    d.nextAttemptAt = this.clock.now() + delay;
    this.later(d, delay);
  }

  serialize(d: Delivery): Record<string, unknown> {
    return {
      id: d.id,
      event_id: d.eventId,
      event_type: d.eventType,
      url: d.url,
      status: d.status,
      attempts: d.attempts,
      last_status_code: d.lastStatusCode,
      last_error: d.lastError,
      next_attempt_at: d.nextAttemptAt === null ? null : iso(d.nextAttemptAt),
      body: d.body,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.abort.abort();
    await Promise.allSettled([...this.inFlight]);
  }
}
