/**
 * Following 1,000 open exchange orders: the crypto service (its transaction follower: backoff per
 * order, bounded reads in flight, one state-file write per batch of changes) beside the loop it
 * replaced, reimplemented here as it was (every followed order re-read each second, each read
 * rewriting the whole orders file and pushing the order), over the same N seconds.
 *
 * The bank is the real sandbox over HTTP, in a child process (test/bench/support/sandbox-process.ts)
 * so that `process.cpuUsage()` counts the client's CPU only: its BankClient on got, the zod checks,
 * the conf state file, the pushes. Each side gets 1,000 orders of its own, confirmed and not yet
 * settled (settlement an hour away in bank time), written to the state file as an earlier run
 * left them; halfway through, the bank's clock moves so that 100 of them settle, which both sides
 * must notice. Figures: CPU ms per second of wall time, state-file writes per second, bank reads
 * per second, and the event loop's delay (what every other call of main waits meanwhile).
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Fixtures } from '../../../src/shared/api';
import type { Transaction } from '../../../src/shared/api';
import { BankClient } from '../../../src/main/bank/client';
import { createServerClock } from '../../../src/main/bank/clock';
import type { ServerClock } from '../../../src/main/bank/clock';
import { createCryptoService } from '../../../src/main/crypto/service';
import type { CryptoDeps } from '../../../src/main/crypto/service';
import { createEventHub } from '../../../src/main/infra/events';
import type { EventHub } from '../../../src/main/infra/events';
import { createLogger, memorySink } from '../../../src/main/infra/log';
import type { Logger } from '../../../src/main/infra/log';
import { confStoreFactory, createStores } from '../../../src/main/infra/stores';
import type { StoreFactory } from '../../../src/main/infra/stores';
import { isFinalStatus } from '../../../src/main/crypto/order-book';
import { cryptoOrdersFormat, storedOrdersSchema } from '../../../src/main/crypto/stored';
import type { storedOrderRecordSchema } from '../../../src/main/crypto/stored';
import type { z } from 'zod';
import type { BenchResult, BenchSuite } from '../types';
import { benchCount } from '../support/scale';
import { sandboxStaff } from '../../support/sandbox-staff';
import { startChildSandbox } from '../support/child-sandbox';
import type { ChildSandbox } from '../support/child-sandbox';

const ORDERS = benchCount('BENCH_FOLLOW_ORDERS', 1000, 20);
const SETTLING = Math.round(ORDERS / 10);
const SECONDS = benchCount('BENCH_FOLLOW_SECONDS', 20, 2);
const ENV_ID = 'bench';
const SETTLEMENT_S = 3600;

/** The crypto service's order record, as the state file holds it. */
type OrderRecord = z.infer<typeof storedOrderRecordSchema>;

/** Makes and confirms `count` orders at the bank; answers them as the state file records them. */
async function openOrders(bank: BankClient, fixtures: Fixtures, count: number): Promise<OrderRecord[]> {
  const le = fixtures.legal_entities[0]!;
  const pays = le.accounts.find((a) => a.asset === 'USD')!.id;
  const receives = le.accounts.find((a) => a.asset === 'ETHEREUM-USDT')!.id;
  const body = {
    side: 'buy' as const,
    priority: 'instant' as const,
    rail: 'rfq' as const,
    symbol: 'USDT-USD' as const,
    base_asset: 'ETHEREUM-USDT' as const,
    quote_asset: 'USD' as const,
    requested_asset: 'USD',
    requested_amount: '100',
    customer_pays_account_id: pays,
    customer_receives_account_id: receives,
  };
  const out: OrderRecord[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next++;
      const key = `td-${randomUUID()}`;
      const { transaction_id: id } = await bank.createCryptoOrder(body, { idempotencyKey: key });
      await bank.confirmCryptoOrder(id);
      const tx = await bank.getTransaction(id);
      if (tx.status !== 'pending_execution') throw new Error(`order ${id} is ${tx.status}`);
      out.push({
        id: `cx-${randomUUID()}`,
        environmentId: ENV_ID,
        legalEntityId: le.id,
        createdAt: new Date().toISOString(),
        requoteOf: null,
        body: { ...body, description: '', additional_details: '' },
        idempotencyKey: key,
        transactionId: id,
        phase: 'visible',
        status: tx.status,
        crypto: tx.crypto_trade_v2 ?? null,
        error: null,
        lastReadAt: new Date().toISOString(),
        confirmedHere: true,
        notified: false,
      });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return out;
}

/** 100 orders that settle SETTLEMENT_S/2 after the next advance, then the rest that do not. */
async function prepareSide(bank: BankClient, sb: ChildSandbox): Promise<OrderRecord[]> {
  const settling = await openOrders(bank, sb.fixtures, SETTLING);
  await sandboxStaff(sb).advanceClock(SETTLEMENT_S / 2);
  const open = await openOrders(bank, sb.fixtures, ORDERS - SETTLING);
  return [...settling, ...open];
}

interface Counting {
  factory: StoreFactory;
  writes(): number;
}

/** conf, counting writes of the orders file. */
function countingFactory(): Counting {
  let writes = 0;
  return {
    writes: () => writes,
    factory: (o) => {
      const engine = confStoreFactory(o);
      const counted = o.name === 'crypto-orders';
      return {
        get path() {
          return engine.path;
        },
        get store() {
          return engine.store;
        },
        set store(value) {
          if (counted) writes++;
          engine.store = value;
        },
      };
    },
  };
}

interface Side {
  dataDir: string;
  bank: BankClient;
  reads(): number;
  clock: ServerClock;
  events: EventHub;
  log: Logger;
  counting: Counting;
}

async function side(sb: ChildSandbox, records: OrderRecord[]): Promise<Side> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'follow-bench-'));
  await mkdir(path.join(dataDir, 'state'), { recursive: true });
  await writeFile(
    path.join(dataDir, 'state', 'crypto-orders.json'),
    JSON.stringify(storedOrdersSchema.parse({ version: 1, orders: records })),
    { mode: 0o600 },
  );
  const log = createLogger(memorySink(), 'error');
  const clock = createServerClock();
  const bank = new BankClient({
    getBaseUrl: () => sb.url,
    getToken: async () => sb.fixtures.legal_entities[0]!.tokens.admin,
    log,
    clock,
  });
  let reads = 0;
  const getTransaction = bank.getTransaction.bind(bank);
  bank.getTransaction = (id, o) => {
    reads++;
    return getTransaction(id, o);
  };
  return {
    dataDir,
    bank,
    reads: () => reads,
    clock,
    events: createEventHub(log),
    log,
    counting: countingFactory(),
  };
}

interface Measured {
  cpuMsPerS: number;
  cpuMsPerRead: number;
  writesPerS: number;
  readsPerS: number;
  /** 99th percentile of the event loop's delay (ms): how long an IPC call would wait. */
  loopDelayP99Ms: number;
  settledSeen: number;
}

/** Runs `start`, advances the bank halfway, stops after SECONDS; CPU, writes and reads in that window. */
async function measure(
  s: Side,
  sb: ChildSandbox,
  start: () => Promise<{ settled(): number; stop(): Promise<void> }>,
): Promise<Measured> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const w0 = s.counting.writes();
  const r0 = s.reads();
  const advanced = sb.advanceLater((SECONDS * 1000) / 2, SETTLEMENT_S / 2);
  const run = await start();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  await advanced;
  const cpu = process.cpuUsage(cpu0);
  const wall = (performance.now() - t0) / 1000;
  const writes = s.counting.writes() - w0;
  const reads = s.reads() - r0;
  delay.disable();
  const settledSeen = run.settled();
  await run.stop();
  return {
    cpuMsPerS: (cpu.user + cpu.system) / 1000 / wall,
    cpuMsPerRead: (cpu.user + cpu.system) / 1000 / Math.max(1, reads),
    writesPerS: writes / wall,
    readsPerS: reads / wall,
    loopDelayP99Ms: delay.percentile(99) / 1e6,
    settledSeen,
  };
}

/** The crypto service as it is: it follows the unsettled orders of its state file from the start. */
async function followerSide(s: Side): Promise<{ settled(): number; stop(): Promise<void> }> {
  const stores = createStores({ dataDir: s.dataDir, factory: s.counting.factory, log: s.log });
  let settled = 0;
  const fail = (): never => {
    throw new Error('not used while following');
  };
  const deps: CryptoDeps = {
    owner: () => ({
      profileId: ENV_ID,
      bank: s.bank,
      clock: s.clock,
      credential: { role: 'admin', legalEntityId: 'le_bench' },
      check: async () => undefined,
      kind: 'remote',
      origin: 'http://127.0.0.1',
      readAfterCreate: fail,
    }),
    sandbox: () => null,
    stores,
    operations: {
      createReturnIntent: fail,
      createCryptoOrder: fail,
      audited: fail,
      record: fail,
      outcomeOf: fail,
    },
    ledger: {
      begin: fail,
      settle: fail,
      get: () => undefined,
      list: () => [],
    } as unknown as CryptoDeps['ledger'],
    settings: {
      get: () => ({ notifications: { transactionStatus: true, quoteExpiry: true } }),
    } as unknown as CryptoDeps['settings'],
    events: s.events,
    platform: {
      onSystemEvent: () => () => undefined,
      notify: () => {
        settled++;
      },
    } as unknown as CryptoDeps['platform'],
    log: s.log,
  };
  const crypto = await createCryptoService(deps);
  return {
    settled: () => settled,
    async stop() {
      crypto.dispose();
      await new Promise((r) => setTimeout(r, 200));
    },
  };
}

/**
 * The loop the follower replaced, as it was in the crypto service: each followed order sleeps
 * 1 s, finds its record in the orders file, re-reads the transaction, then writes the record back
 * (the whole file, the updated order first), pushes the order and, once settled, marks it
 * notified (a second write) and notifies.
 */
async function loopSide(s: Side): Promise<{ settled(): number; stop(): Promise<void> }> {
  const stores = createStores({ dataDir: s.dataDir, factory: s.counting.factory, log: s.log });
  const orders = await stores.open('crypto-orders', cryptoOrdersFormat, { orders: [] });
  const stop = new AbortController();
  // Every read in flight listens on this one signal (as in the old service); no warning for it here.
  setMaxListeners(0, stop.signal);
  let settled = 0;
  const running: Array<Promise<void>> = [];
  const putRecord = (next: OrderRecord): OrderRecord => {
    orders.update((file) => {
      const rest = file.orders.filter((o) => o.id !== next.id);
      const all = [next, ...rest];
      while (all.length > 500) {
        const i = all.map((o) => isFinalStatus(o.status)).lastIndexOf(true);
        if (i < 0) break;
        all.splice(i, 1);
      }
      return { orders: all };
    });
    return next;
  };
  const update = (id: string, patch: Partial<OrderRecord>): OrderRecord => {
    const current = orders.get().orders.find((o) => o.id === id);
    if (!current) throw new Error(`no order ${id}`);
    const next = putRecord({ ...current, ...patch });
    s.events.emit('crypto.orderChanged', {
      id: next.id,
      environmentId: next.environmentId,
      createdAt: next.createdAt,
      requoteOf: next.requoteOf,
      request: next.body,
      idempotencyKey: next.idempotencyKey,
      transactionId: next.transactionId,
      phase: next.phase,
      status: next.status,
      displayStatus: next.status ?? 'awaiting_bank',
      crypto: next.crypto,
      error: next.error,
      serverNow: new Date(s.clock.now()).toISOString(),
      safetyMarginMs: 2000,
      confirmable: false,
      lastReadAt: next.lastReadAt,
    });
    return next;
  };
  const apply = (id: string, tx: Transaction): OrderRecord => {
    const next = update(id, {
      status: tx.status,
      crypto: tx.crypto_trade_v2 ?? null,
      phase: 'visible',
      lastReadAt: new Date(s.clock.now()).toISOString(),
    });
    if (next.confirmedHere && !next.notified && (next.status === 'completed' || next.status === 'failed')) {
      update(id, { notified: true });
      settled++;
    }
    return next;
  };
  const follow = (id: string): Promise<void> =>
    (async () => {
      while (!stop.signal.aborted) {
        await new Promise((r) => setTimeout(r, 1000));
        if (stop.signal.aborted) return;
        const r = orders.get().orders.find((o) => o.id === id);
        if (!r?.transactionId) return;
        try {
          const tx = await s.bank.getTransaction(r.transactionId, { signal: stop.signal });
          if (stop.signal.aborted) return;
          const next = apply(id, tx);
          if (isFinalStatus(next.status)) return;
        } catch {
          if (stop.signal.aborted) return;
        }
      }
    })();
  for (const r of orders.get().orders) {
    if (r.phase === 'visible' && r.status === 'pending_execution') running.push(follow(r.id));
  }
  return {
    settled: () => settled,
    async stop() {
      stop.abort();
      await Promise.allSettled(running);
    },
  };
}

const suite: BenchSuite = {
  name: 'crypto-follow',
  async run(): Promise<BenchResult[]> {
    const sb = await startChildSandbox({
      visibilityDelayMs: { min: 0, max: 0 },
      quoteTtlSeconds: 3600,
      settlementDelayMs: SETTLEMENT_S * 1000,
    });
    const dirs: string[] = [];
    try {
      const setupLog = createLogger(memorySink(), 'error');
      const setupBank = new BankClient({
        getBaseUrl: () => sb.url,
        getToken: async () => sb.fixtures.legal_entities[0]!.tokens.admin,
        log: setupLog,
        clock: createServerClock(),
      });

      const setupStart = performance.now();
      const followerRecords = await prepareSide(setupBank, sb);
      const setupS = (performance.now() - setupStart) / 1000;
      const f = await side(sb, followerRecords);
      dirs.push(f.dataDir);
      const followed = await measure(f, sb, () => followerSide(f));

      const loopRecords = await prepareSide(setupBank, sb);
      const l = await side(sb, loopRecords);
      dirs.push(l.dataDir);
      const looped = await measure(l, sb, () => loopSide(l));

      const label = 'the loop it replaced (re-read all each second, rewrite the file per read)';
      const note = `${ORDERS} open orders, ${SECONDS} s, ${SETTLING} settle halfway; settled orders noticed: follower ${followed.settledSeen}, loop ${looped.settledSeen}; making the orders took ${setupS.toFixed(0)} s per side`;
      return [
        {
          metric: `CPU while following ${ORDERS} open orders (ms per s)`,
          value: followed.cpuMsPerS,
          unit: 'ms/s',
          baseline: looped.cpuMsPerS,
          baselineLabel: label,
          note,
        },
        {
          metric: 'CPU per bank read of an order (ms)',
          value: followed.cpuMsPerRead,
          unit: 'ms',
          baseline: looped.cpuMsPerRead,
          baselineLabel: label,
          note: 'the loop spends most of its wall time blocked in synchronous fsync-ed writes of the whole file, which CPU time does not count',
        },
        {
          metric: 'orders state-file writes per s',
          value: followed.writesPerS,
          unit: '/s',
          baseline: looped.writesPerS,
          baselineLabel: label,
          note: `the follower writes once per batch of changes; the loop writes once per read (${ORDERS}/s asked), or as many as its saturated process reaches`,
        },
        {
          metric: 'bank reads per s',
          value: followed.readsPerS,
          unit: '/s',
          baseline: looped.readsPerS,
          baselineLabel: label,
          note: `the loop asks for ${ORDERS}/s; what it reaches is what the process can do`,
        },
        {
          metric: 'event-loop delay, 99th percentile (ms)',
          value: followed.loopDelayP99Ms,
          unit: 'ms',
          baseline: looped.loopDelayP99Ms,
          baselineLabel: label,
          note: 'how long any other work of main (an IPC call) waits',
        },
      ];
    } finally {
      await sb.close();
      for (const d of dirs) await rm(d, { recursive: true, force: true });
    }
  },
};

export default suite;
