/**
 * Quote confirmation under latency spikes: quotes with a short validity are confirmed through the
 * app's real confirm path (services.crypto.confirm: re-read, server-time guard, one PUT) at random
 * moments around their expiry, while the proxy delays the re-read and the PUT (and the PUT's
 * answer) by random spikes. The sandbox's own record decides: no order is ever confirmed at or
 * after its quote_valid_until, and what the app told the analyst matches the bank.
 */
import { startSandbox } from '../../../../src/sandbox';
import { AppFailure } from '../../../../src/shared/ipc/errors';
import type { OrderView } from '../../../../src/shared/ipc/channels/crypto';
import { startServices, tempDir } from '../../../support/services';
import { startFaultProxy } from '../../../support/fault-proxy';
import type { FaultPlan } from '../../../support/fault-proxy';
import { createRng } from '../../../support/rng';
import { sandboxInspector } from '../sandbox-inspect';

export interface QuoteFigures {
  seed: number;
  trials: number;
  quoteTtlSeconds: number;
  confirmMarginMs: number;
  confirmed: number;
  /** Refused by main's guard before sending (by reason). */
  refusedByGuard: Record<string, number>;
  /** The guard let it go, a spike delayed it past expiry, the bank refused: still not confirmed. */
  refusedByBank: number;
  otherErrors: number;
  latencySpikes: number;
  maxSpikeMs: number;
  /** The smallest quote_valid_until − quote_confirmed_at among confirmed orders (bank time). */
  minHeadroomMs: number | null;
  /** Must be 0. */
  confirmedAfterExpiry: number;
  /** Must be 0: the app said confirmed and the bank did not, or the other way round. */
  disagreements: number;
  durationMs: number;
}

export async function runQuoteScenario(options: {
  seed: number;
  trials: number;
  /** Trials run side by side (each in its own real time). */
  concurrency?: number;
}): Promise<{ figures: QuoteFigures; failures: string[] }> {
  const started = Date.now();
  const rng = createRng(options.seed);
  const ttl = 6;
  const sandbox = await startSandbox({
    port: 0,
    seed: `quotes-${options.seed}`,
    visibilityDelayMs: { min: 0, max: 0 },
    quoteTtlSeconds: ttl,
    // Confirmed orders settle (as the sandbox's default 2 s), so the app stops following them.
    settlementDelayMs: 1500,
  });
  const inspect = sandboxInspector(sandbox);
  const A = sandbox.fixtures.legal_entities[0]!;
  const usd = A.accounts.find((a) => a.asset === 'USD')!;
  const usdt = A.accounts.find((a) => a.asset === 'ETHEREUM-USDT')!;
  let spikes = 0;
  let maxSpike = 0;
  const spikeRng = rng.fork(7);
  const proxy = await startFaultProxy({
    target: sandbox.url,
    plan: (req): FaultPlan => {
      const confirmPut = req.method === 'PUT' && req.path === '/v1/crypto/order';
      const reRead = req.method === 'GET' && req.path.startsWith('/v1/transactions/');
      if (!confirmPut && !reRead) return { kind: 'pass' };
      const p: FaultPlan = { kind: 'pass' };
      if (spikeRng.chance(confirmPut ? 0.5 : 0.3)) {
        p.delayMs = spikeRng.int(50, confirmPut ? 2500 : 1200);
        spikes++;
        maxSpike = Math.max(maxSpike, p.delayMs);
      }
      if (confirmPut && spikeRng.chance(0.2)) {
        p.answerDelayMs = spikeRng.int(50, 1500);
        spikes++;
        maxSpike = Math.max(maxSpike, p.answerDelayMs);
      }
      return p;
    },
  });
  const dataDir = await tempDir('td-rel-quotes-');
  const app = await startServices({
    dataDir,
    environment: { kind: 'remote', baseUrl: proxy.url, token: A.tokens.admin },
    bankRetry: { baseDelayMs: 5, maxDelayMs: 20 },
  });
  const failures: string[] = [];
  const refusedByGuard: Record<string, number> = {};
  let confirmed = 0;
  let refusedByBank = 0;
  let otherErrors = 0;
  const outcomes: Array<{ trial: number; txId: string; said: 'confirmed' | 'refused' | 'unknown' }> = [];
  const margin = (await app.services.crypto.context()).confirmMarginMs;

  const trial = async (i: number): Promise<void> => {
    const tr = rng.fork(100 + i);
    let view: OrderView = await app.services.crypto.quote({
      profileId: app.services.session.profile.id,
      side: 'buy',
      symbol: 'USDT-USD',
      requestedAsset: 'ETHEREUM-USDT',
      requestedAmount: String(tr.int(1_000_000, 5_000_000)),
      paysAccountId: usd.id,
      receivesAccountId: usdt.id,
    });
    const visibleBy = Date.now() + 20_000;
    while (view.phase !== 'visible' && Date.now() < visibleBy) {
      await new Promise((r) => setTimeout(r, 20));
      view = await app.services.crypto.order({ profileId: view.environmentId, orderId: view.id });
    }
    if (!view.transactionId || view.phase !== 'visible') {
      failures.push(`trial ${i}: quote never became visible (${view.phase})`);
      return;
    }
    // Confirm with 5.8 s to −0.3 s left (local estimate): around the guard's margin and the expiry.
    const left = tr.int(-300, 5800);
    await new Promise((r) => setTimeout(r, Math.max(0, ttl * 1000 - left)));
    try {
      const after = await app.services.crypto.confirm({ profileId: view.environmentId, orderId: view.id });
      confirmed++;
      outcomes.push({ trial: i, txId: view.transactionId, said: 'confirmed' });
      if (after.status !== 'pending_execution' && after.status !== 'completed') {
        failures.push(`trial ${i}: confirm answered status ${after.status}`);
      }
    } catch (err) {
      if (err instanceof AppFailure && err.kind === 'precondition') {
        if (err.status === 422) refusedByBank++;
        else refusedByGuard[err.reason ?? 'none'] = (refusedByGuard[err.reason ?? 'none'] ?? 0) + 1;
        outcomes.push({ trial: i, txId: view.transactionId, said: 'refused' });
      } else {
        otherErrors++;
        outcomes.push({ trial: i, txId: view.transactionId, said: 'unknown' });
      }
    }
  };

  try {
    const concurrency = options.concurrency ?? 10;
    for (let b = 0; b < options.trials; b += concurrency) {
      const batch = Array.from({ length: Math.min(concurrency, options.trials - b) }, (_, k) => b + k);
      await Promise.all(batch.map((i) => trial(i)));
    }
    // ---- the bank's own record
    const txns = await inspect.transactions();
    const byId = new Map(txns.map((t) => [t.transaction.transaction_id, t.transaction]));
    let confirmedAfterExpiry = 0;
    let disagreements = 0;
    let minHeadroom: number | null = null;
    for (const t of txns) {
      const c = t.transaction.crypto_trade_v2 as
        { quote_confirmed_at: string | null; quote_valid_until: string } | null | undefined;
      if (!c || !c.quote_confirmed_at) continue;
      const headroom = Date.parse(c.quote_valid_until) - Date.parse(c.quote_confirmed_at);
      minHeadroom = minHeadroom === null ? headroom : Math.min(minHeadroom, headroom);
      if (headroom <= 0) {
        confirmedAfterExpiry++;
        failures.push(
          `${t.transaction.transaction_id}: confirmed at ${c.quote_confirmed_at}, valid until ${c.quote_valid_until}`,
        );
      }
    }
    for (const o of outcomes) {
      const t = byId.get(o.txId);
      const c = t?.crypto_trade_v2 as { quote_confirmed_at: string | null } | null | undefined;
      const atBank = Boolean(c?.quote_confirmed_at);
      if ((o.said === 'confirmed' && !atBank) || (o.said === 'refused' && atBank)) {
        disagreements++;
        failures.push(
          `trial ${o.trial} (${o.txId}): the app said ${o.said}, the bank ${atBank ? 'confirmed' : 'did not'}`,
        );
      }
    }
    const figures: QuoteFigures = {
      seed: options.seed,
      trials: options.trials,
      quoteTtlSeconds: ttl,
      confirmMarginMs: margin,
      confirmed,
      refusedByGuard,
      refusedByBank,
      otherErrors,
      latencySpikes: spikes,
      maxSpikeMs: maxSpike,
      minHeadroomMs: minHeadroom,
      confirmedAfterExpiry,
      disagreements,
      durationMs: Date.now() - started,
    };
    return { figures, failures };
  } finally {
    await app.close();
    await proxy.close();
    await sandbox.close();
  }
}
