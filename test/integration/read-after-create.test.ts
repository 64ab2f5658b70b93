import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDelay, defaultReadAfterCreateTiming } from '../../src/main/bank/read-after-create';
import type { ProgressUpdate } from '../../src/main/bank/read-after-create';
import { startFaultProxy } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';
import { startServices } from '../support/services';
import type { TestServices } from '../support/services';
import { staffOf } from '../support/sandbox-staff';

/** The 404 window after a creating call (api-gaps), against the sandbox with a real delay. */
describe('read-after-create backoff schedule', () => {
  it('first retry after about 1 s, then doubling with jitter, capped at 15 s', () => {
    const t = defaultReadAfterCreateTiming;
    expect(readDelay(1, t, () => 0)).toBe(800);
    expect(readDelay(1, t, () => 1)).toBe(1200);
    expect(readDelay(2, t, () => 0.5)).toBe(2000);
    expect(readDelay(3, t, () => 0.5)).toBe(4000);
    for (let n = 5; n < 12; n++) expect(readDelay(n, t, () => 1)).toBe(15_000);
    expect(t.stillProcessingAfterMs).toBe(60_000);
  });
});

describe('read-after-create against the sandbox', () => {
  let t: TestServices;
  let proxy: FaultProxy;
  const order = () => {
    const A = t.services.sandbox!.fixtures.legal_entities[0]!;
    return {
      side: 'buy' as const,
      priority: 'instant' as const,
      rail: 'rfq' as const,
      symbol: 'USDT-USD' as const,
      base_asset: 'ETHEREUM-USDT' as const,
      quote_asset: 'USD' as const,
      requested_asset: 'ETHEREUM-USDT',
      requested_amount: '2000000',
      customer_pays_account_id: A.accounts.find((a) => a.asset === 'USD')!.id,
      customer_receives_account_id: A.accounts.find((a) => a.asset === 'ETHEREUM-USDT')!.id,
    };
  };

  beforeAll(async () => {
    t = await startServices({
      environment: { kind: 'embedded-sandbox', sandbox: { visibilityDelayMs: { min: 1500, max: 1500 } } },
      readAfterCreate: {
        firstDelayMs: 100,
        maxDelayMs: 250,
        stillProcessingAfterMs: 300,
        giveUpAfterMs: 2500,
      },
    });
    proxy = await startFaultProxy(t.services.sandbox!.url);
  });
  afterAll(async () => {
    await proxy.close();
    await t.close();
  });

  it('shows processing, then still processing, then the record; reads only, never re-POSTs', async () => {
    const created = await t.services.operations.createCryptoOrder('quote-1', order());
    const states: ProgressUpdate[] = [];
    const tx = await t.services.readAfterCreate(created.transactionId, { onState: (u) => states.push(u) });
    expect(tx.transaction_id).toBe(created.transactionId);
    expect(tx.crypto_trade_v2?.customer_receives_amount).toBe('2000000');
    expect(states.map((s) => s.state)).toEqual(['processing', 'still_processing', 'visible']);
    expect(states.at(-1)!.attempts).toBeGreaterThan(2);
    // The same progress went out as push events for the renderer.
    const pushed = t.pushed
      .filter((m) => m.event === 'transaction.progress')
      .map((m) => (m.payload as ProgressUpdate).state);
    expect(pushed).toEqual(['processing', 'still_processing', 'visible']);
    // One order in the bank for that key: the 404s did not create a second one.
    const mine = (await staffOf(t.services).listTransactions()).data.filter(
      (d) => d.idempotency_key === created.idempotencyKey,
    );
    expect(mine).toHaveLength(1);
  });

  it('through a proxy: one POST, only GETs after it, and a 503 inside the window is waited out', async () => {
    const A = t.services.sandbox!.fixtures.legal_entities[0]!;
    const remote = await startServices({
      environment: { kind: 'remote', baseUrl: proxy.url, token: A.tokens.admin },
      readAfterCreate: {
        firstDelayMs: 100,
        maxDelayMs: 250,
        stillProcessingAfterMs: 5000,
        giveUpAfterMs: 5000,
      },
    });
    try {
      let failedOnce = false;
      proxy.rules.push((r) => {
        if (r.method === 'GET' && r.path.startsWith('/v1/transactions/') && !failedOnce) {
          failedOnce = true;
          return {
            kind: 'respond',
            status: 503,
            body: { error: { code: '503', status: 'UNAVAILABLE', message: 'busy' } },
          };
        }
        return undefined;
      });
      const created = await remote.services.operations.createCryptoOrder('quote-2', order());
      const tx = await remote.services.readAfterCreate(created.transactionId);
      expect(tx.status).toBe('in_progress');
      expect(failedOnce).toBe(true);
      const calls = proxy.seen.filter(
        (r) => r.path.startsWith('/v1/crypto/order') || r.path.startsWith('/v1/transactions/'),
      );
      expect(calls.filter((r) => r.method === 'POST')).toHaveLength(1);
      expect(calls.filter((r) => r.method === 'GET').length).toBeGreaterThan(2);
      expect(calls.slice(1).every((r) => r.method === 'GET')).toBe(true);
    } finally {
      proxy.rules.length = 0;
      await remote.close();
    }
  });

  it('gives up after the configured time with a clear message (and keeps nothing half-done)', async () => {
    const states: ProgressUpdate[] = [];
    const started = Date.now();
    await expect(
      t.services.readAfterCreate('txn_never_created', { onState: (u) => states.push(u) }),
    ).rejects.toMatchObject({ kind: 'not_found' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(2500);
    expect(states.at(-1)).toMatchObject({ state: 'failed' });
    expect(states.at(-1)!.message).toContain('txn_never_created');
  }, 15_000);

  it('stops at once when the token is refused (401 is not waited out)', async () => {
    await t.services.vault.set('sandbox', 'refused-token-123456');
    const states: ProgressUpdate[] = [];
    await expect(
      t.services.readAfterCreate('txn_whatever', { onState: (u) => states.push(u) }),
    ).rejects.toMatchObject({
      kind: 'unauthenticated',
    });
    expect(states.map((s) => s.state)).toEqual(['failed']);
    await t.services.session.useSandboxCredential('a-admin');
  });

  it('can be cancelled', async () => {
    const ctl = new AbortController();
    const p = t.services.readAfterCreate('txn_not_there', { signal: ctl.signal });
    setTimeout(() => ctl.abort(new Error('closed')), 150);
    await expect(p).rejects.toThrow('closed');
  });
});
