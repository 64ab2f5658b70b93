/**
 * Creates exactly once: return intents and crypto orders go through `core.operations` (the
 * idempotency ledger) to the sandbox through the fault proxy, which mostly lets the bank commit
 * the request and then loses the answer (reset, truncated body, gateway 5xx, no answer), or
 * refuses before it arrives (reset, 5xx/429 bursts). The "analyst" retries each failed operation
 * with the same operation id, sometimes after restarting the app on the same data folder, until
 * it succeeds. Afterwards the sandbox's own transaction list must hold exactly one transaction per
 * intended operation, under the key the ledger wrote, and none may be missing.
 */
import { startSandbox } from '../../../../src/sandbox';
import type { RunningSandbox } from '../../../../src/sandbox';
import type { CryptoOrderRequest, ReturnIntentRequest } from '../../../../src/shared/api';
import { AppFailure } from '../../../../src/shared/ipc/errors';
import { startServices, tempDir } from '../../../support/services';
import type { TestServices } from '../../../support/services';
import { randomPlan, startFaultProxy } from '../../../support/fault-proxy';
import type { FaultKind, FaultProxy } from '../../../support/fault-proxy';
import { createRng } from '../../../support/rng';
import { sandboxInspector } from '../sandbox-inspect';

export interface CreatesFigures {
  seed: number;
  trials: number;
  returns: number;
  cryptoOrders: number;
  /** POSTs that reached the proxy. */
  posts: number;
  /** POSTs the bank processed but whose answer the client never got intact. */
  committedButLost: number;
  /** POSTs refused or dropped before they reached the bank. */
  refusedBeforeBank: number;
  faults: Partial<Record<FaultKind, number>>;
  /** Calls of createReturnIntent/createCryptoOrder that threw and were retried by the "analyst". */
  analystRetries: number;
  restarts: number;
  maxAttemptsForOneOperation: number;
  /** Must be 0. */
  duplicates: number;
  /** Must be 0. */
  lost: number;
  /** Must be 0: a create sent under a second key. */
  keysPerOperationAboveOne: number;
  /** Must be 0: a returned transaction id that differs from the sandbox's record. */
  mismatched: number;
  durationMs: number;
}

interface Op {
  id: string;
  kind: 'return' | 'crypto';
  transactionId: string | null;
  key: string | null;
  attempts: number;
}

const CREATE_PATHS = new Set(['/v1/transfer/return', '/v1/crypto/order']);

export async function runCreatesScenario(options: {
  seed: number;
  trials: number;
  /** Probability that a failed attempt is retried after a restart (new services, same data folder). */
  restartProbability?: number;
  onProgress?: (done: number) => void;
}): Promise<{ figures: CreatesFigures; failures: string[] }> {
  const started = Date.now();
  const rng = createRng(options.seed);
  const restartP = options.restartProbability ?? 0.25;
  const sandbox: RunningSandbox = await startSandbox({
    port: 0,
    seed: `creates-${options.seed}`,
    visibilityDelayMs: { min: 0, max: 0 },
    returnCompletionDelayMs: 3_600_000,
    settlementDelayMs: 3_600_000,
  });
  const inspect = sandboxInspector(sandbox);
  const A = sandbox.fixtures.legal_entities[0]!;
  const usd = A.accounts.find((a) => a.asset === 'USD')!;
  const usdt = A.accounts.find((a) => a.asset === 'ETHEREUM-USDT')!;
  const proxy: FaultProxy = await startFaultProxy({
    target: sandbox.url,
    plan: randomPlan({
      rng: rng.fork(1),
      match: (r) => r.method === 'POST' && CREATE_PATHS.has(r.path),
      weights: {
        pass: 3,
        'reset-after': 6,
        'reset-before': 1,
        truncate: 2,
        'status-after': 1.5,
        status: 1.5,
        'hang-after': 0.2,
      },
      burst: { p: 0.3, min: 2, max: 4 },
      latency: { p: 0.1, minMs: 1, maxMs: 30 },
    }),
  });
  const dataDir = await tempDir('td-rel-creates-');
  const environment = { kind: 'remote' as const, baseUrl: proxy.url, token: A.tokens.admin };
  const boot = (): Promise<TestServices> =>
    startServices({
      dataDir,
      environment,
      bankRetry: { attempts: 4, baseDelayMs: 1, maxDelayMs: 4, rateLimitAttempts: 3 },
      bankTimeoutMs: 400,
    });
  let app = await boot();
  const ops: Op[] = [];
  const failures: string[] = [];
  let analystRetries = 0;
  let restarts = 0;

  try {
    for (let i = 0; i < options.trials; i++) {
      const tr = rng.fork(1000 + i);
      const kind = tr.chance(0.5) ? 'return' : 'crypto';
      const op: Op = { id: `op-${options.seed}-${i}`, kind, transactionId: null, key: null, attempts: 0 };
      ops.push(op);
      let body: ReturnIntentRequest | CryptoOrderRequest;
      if (kind === 'return') {
        const amount = tr.int(1_000, 500_000);
        const incoming = await inspect.incomingTransfer({
          legal_entity_id: A.id,
          creditor_account_id: usd.id,
          amount: String(amount),
        });
        body = {
          transfer_return_type: 'SWIFT_FI_TO_FI_RETURN',
          transaction_id: incoming.transaction_id,
          return_amount: String(tr.int(1, amount)),
          status_reason_code: tr.pick(['FOCR', 'AC03', 'AM09'] as const),
          description: `reliability trial ${i}`,
        };
      } else {
        body = {
          side: 'buy',
          priority: 'instant',
          rail: 'rfq',
          symbol: 'USDT-USD',
          base_asset: 'ETHEREUM-USDT',
          quote_asset: 'USD',
          requested_asset: 'ETHEREUM-USDT',
          requested_amount: String(tr.int(1_000_000, 9_000_000)),
          customer_pays_account_id: usd.id,
          customer_receives_account_id: usdt.id,
          description: `reliability trial ${i}`,
        };
      }
      for (;;) {
        op.attempts++;
        try {
          const res =
            kind === 'return'
              ? await app.services.operations.createReturnIntent(op.id, body as ReturnIntentRequest)
              : await app.services.operations.createCryptoOrder(op.id, body as CryptoOrderRequest);
          op.transactionId = res.transactionId;
          op.key = res.idempotencyKey;
          break;
        } catch (err) {
          // The analyst tries again unless the bank clearly refused (a 4xx other than 409/429):
          // a network error, a 5xx, or an answer that could not be read leaves the outcome open.
          const refusedByBank =
            err instanceof AppFailure &&
            err.status !== undefined &&
            err.status >= 400 &&
            err.status < 500 &&
            err.status !== 409 &&
            err.status !== 429;
          const ambiguous = err instanceof AppFailure && !refusedByBank && err.kind !== 'local';
          if (!ambiguous || op.attempts >= 40) {
            failures.push(
              `trial ${i} (${op.id}, ${kind}): gave up after ${op.attempts} attempts: ${
                err instanceof AppFailure ? `${err.kind} ${err.reason ?? ''} ${err.message}` : String(err)
              }`,
            );
            op.key = app.services.ledger.get(op.id)?.key ?? null;
            break;
          }
          analystRetries++;
          if (tr.chance(restartP)) {
            // The analyst quits and starts the app again: a new process state, the same data folder.
            await app.stop();
            app = await boot();
            restarts++;
          }
        }
      }
      options.onProgress?.(i + 1);
    }

    // ---- the sandbox's own state
    const txns = await inspect.transactions();
    const byKey = new Map<string, typeof txns>();
    for (const t of txns) {
      if (!t.idempotency_key) continue;
      byKey.set(t.idempotency_key, [...(byKey.get(t.idempotency_key) ?? []), t]);
    }
    const ledgerKeys = new Set(app.services.ledger.list().map((e) => e.key));
    let duplicates = 0;
    let lost = 0;
    let mismatched = 0;
    let keysAboveOne = 0;
    const keysSeenByOp = new Map<string, Set<string>>();
    const opOfKey = new Map<string, string>();
    for (const e of app.services.ledger.list()) opOfKey.set(e.key, e.operationId);
    for (const entry of proxy.log) {
      if (entry.method !== 'POST' || !CREATE_PATHS.has(entry.path)) continue;
      const key = entry.idempotencyKey ?? '(none)';
      const opId = opOfKey.get(key) ?? `(unknown key ${key})`;
      keysSeenByOp.set(opId, (keysSeenByOp.get(opId) ?? new Set()).add(key));
    }
    for (const [opId, keys] of keysSeenByOp) {
      if (keys.size > 1 || opId.startsWith('(unknown')) {
        keysAboveOne++;
        failures.push(`${opId}: creates sent under ${keys.size} keys: ${[...keys].join(', ')}`);
      }
    }
    for (const op of ops) {
      const entry = app.services.ledger.get(op.id);
      const recs = op.key ? (byKey.get(op.key) ?? []) : [];
      if (!entry || entry.state !== 'succeeded' || !op.transactionId) {
        lost++;
        failures.push(`${op.id}: not succeeded locally (ledger ${entry?.state ?? 'missing'})`);
        continue;
      }
      if (recs.length === 0) {
        lost++;
        failures.push(`${op.id}: no transaction at the bank under key ${op.key}`);
      } else if (recs.length > 1) {
        duplicates += recs.length - 1;
        failures.push(`${op.id}: ${recs.length} transactions under one key`);
      }
      const rec = recs[0];
      if (rec && rec.transaction.transaction_id !== op.transactionId) {
        mismatched++;
        failures.push(`${op.id}: app says ${op.transactionId}, bank says ${rec.transaction.transaction_id}`);
      }
      if (rec && op.kind === 'return' && rec.transaction.status !== 'intent_created') {
        failures.push(`${op.id}: return status ${rec.transaction.status}, expected intent_created`);
      }
    }
    // Anything the bank created under a key the app does not know is a create sent twice.
    const createdByRun = txns.filter((t) => t.idempotency_key !== null);
    for (const t of createdByRun) {
      if (!ledgerKeys.has(t.idempotency_key!)) {
        duplicates++;
        failures.push(`bank holds ${t.transaction.transaction_id} under a key no operation owns`);
      }
    }
    const cryptoAtBank = txns.filter(
      (t) => t.transaction.type !== 'SWIFT-FI-TO-FI-CUSTOMER-CREDIT-INCOMING' && t.idempotency_key,
    ).length;
    const cryptoOps = ops.filter((o) => o.kind === 'crypto').length;
    if (cryptoAtBank !== cryptoOps) {
      failures.push(`bank holds ${cryptoAtBank} crypto orders for ${cryptoOps} intended ones`);
      if (cryptoAtBank > cryptoOps) duplicates += cryptoAtBank - cryptoOps;
      else lost += cryptoOps - cryptoAtBank;
    }

    const posts = proxy.log.filter((e) => e.method === 'POST' && CREATE_PATHS.has(e.path));
    const faults: Partial<Record<FaultKind, number>> = {};
    for (const e of posts) faults[e.plan.kind] = (faults[e.plan.kind] ?? 0) + 1;
    const figures: CreatesFigures = {
      seed: options.seed,
      trials: options.trials,
      returns: ops.filter((o) => o.kind === 'return').length,
      cryptoOrders: cryptoOps,
      posts: posts.length,
      committedButLost: posts.filter((e) => e.upstreamStatus === 200 && e.delivered !== 'answer').length,
      refusedBeforeBank: posts.filter((e) => e.upstreamStatus === null).length,
      faults,
      analystRetries,
      restarts,
      maxAttemptsForOneOperation: Math.max(0, ...ops.map((o) => o.attempts)),
      duplicates,
      lost,
      keysPerOperationAboveOne: keysAboveOne,
      mismatched,
      durationMs: Date.now() - started,
    };
    return { figures, failures };
  } finally {
    await app.close();
    await proxy.close();
    await sandbox.close();
  }
}
