import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox';
import type { RunningSandbox } from '../../src/sandbox';
import { canonicalJson, hashBody, openLedger } from '../../src/main/bank/ledger';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { AppFailure } from '../../src/shared/ipc/errors';
import { startFaultProxy } from '../support/fault-proxy';
import { startServices, tempDir } from '../support/services';

const log = createLogger(memorySink());

describe('idempotency ledger (disk)', () => {
  it('hashes bodies canonically (key order does not matter, values do)', () => {
    expect(canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] })).toBe('{"a":[2,{"c":4,"d":3}],"b":1}');
    expect(hashBody({ a: '1', b: '2' })).toBe(hashBody({ b: '2', a: '1' }));
    expect(hashBody({ a: '1' })).not.toBe(hashBody({ a: '2' }));
  });

  it('writes the key before answering, reuses it after a restart, refuses a changed body', async () => {
    const dir = await tempDir();
    const l1 = await openLedger({ dataDir: dir, log });
    const body = { transaction_id: 'txn_1', return_amount: '100' };
    const first = await l1.begin('op-1', 'return_intent', body);
    expect(first).toMatchObject({ state: 'pending', reused: false, attempt: 1 });
    // Durable before the request: the file already holds the key, owner-only.
    expect(await readFile(l1.file, 'utf8')).toContain(first.key);
    expect((await stat(l1.file)).mode & 0o777).toBe(0o600);

    const l2 = await openLedger({ dataDir: dir, log }); // "restart"
    const again = await l2.begin('op-1', 'return_intent', { return_amount: '100', transaction_id: 'txn_1' });
    expect(again).toMatchObject({ key: first.key, reused: true, state: 'pending' });

    const changed = l2.begin('op-1', 'return_intent', { ...body, return_amount: '101' });
    await expect(changed).rejects.toBeInstanceOf(AppFailure);
    await expect(changed).rejects.toMatchObject({ reason: 'IDEMPOTENCY_BODY_CHANGED' });

    // An ambiguous failure keeps the key; a success answers the transaction without a new send.
    await l2.settle('op-1', { error: { kind: 'offline', message: 'down' } });
    expect((await l2.begin('op-1', 'return_intent', body)).key).toBe(first.key);
    await l2.settle('op-1', { transactionId: 'txn_1' });
    const l3 = await openLedger({ dataDir: dir, log });
    expect(await l3.begin('op-1', 'return_intent', body)).toMatchObject({
      state: 'succeeded',
      transactionId: 'txn_1',
      key: first.key,
    });
    expect(l3.list()).toHaveLength(1);
  });

  it('after a definitive refusal the next attempt gets a fresh key', async () => {
    const dir = await tempDir();
    const l = await openLedger({ dataDir: dir, log });
    const a = await l.begin('op-2', 'crypto_order', { x: 1 });
    await l.settle('op-2', {
      error: { kind: 'precondition', reason: 'INSUFFICIENT_BALANCE', message: 'no' },
    });
    expect(l.get('op-2')?.state).toBe('failed');
    const b = await l.begin('op-2', 'crypto_order', { x: 1 });
    expect(b.key).not.toBe(a.key);
    expect(b.attempt).toBe(2);
  });

  it('keeps the key exactly when the audit says pending: a local refusal fails, a 401 keeps it', async () => {
    const dir = await tempDir();
    const l = await openLedger({ dataDir: dir, log });
    // Refused on our side before anything was sent: the entry fails, the next attempt is fresh.
    const a = await l.begin('op-local', 'return_intent', { x: 1 });
    await l.settle('op-local', { error: { kind: 'local', message: 'state refused' } });
    expect(l.get('op-local')?.state).toBe('failed');
    expect((await l.begin('op-local', 'return_intent', { x: 1 })).key).not.toBe(a.key);
    // 401 after the client's attempts: an earlier attempt with this key may have reached the bank.
    const b = await l.begin('op-401', 'return_intent', { x: 2 });
    await l.settle('op-401', { error: { kind: 'unauthenticated', status: 401, message: 'token' } });
    expect(l.get('op-401')?.state).toBe('pending');
    expect((await l.begin('op-401', 'return_intent', { x: 2 })).key).toBe(b.key);
  });

  it('does not resend a pending operation older than the bank keeps keys', async () => {
    const dir = await tempDir();
    let now = Date.parse('2026-01-01T00:00:00Z');
    const l = await openLedger({ dataDir: dir, log, now: () => now });
    await l.begin('op-3', 'return_intent', { x: 1 });
    now += 25 * 3600_000;
    await expect(l.begin('op-3', 'return_intent', { x: 1 })).rejects.toMatchObject({
      reason: 'IDEMPOTENCY_KEY_EXPIRED',
    });
  });

  it('a corrupt ledger is moved aside, not silently reset', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'idempotency-ledger.json'), '{"version":1,"entries":[{"trunc');
    const sink = memorySink();
    const reported: string[] = [];
    const l = await openLedger({
      dataDir: dir,
      log: createLogger(sink),
      onProblem: (p) => reported.push(p.message),
    });
    expect(l.list()).toEqual([]);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatch(/check the bank before repeating/);
    const files = await readdir(dir);
    expect(files.some((f) => f.startsWith('idempotency-ledger.corrupt-'))).toBe(true);
    expect(sink.records.some((r) => r.level === 'error' && r.message.includes('moved aside'))).toBe(true);
  });
});

describe('idempotent creation against the sandbox, across a simulated restart', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, visibilityDelayMs: { min: 0, max: 0 }, seed: 'ledger' });
  });
  afterAll(() => sandbox.close());

  it('the answer is lost, the app restarts, the retry reuses the key: one intent, same transaction', async () => {
    const A = sandbox.fixtures.legal_entities[0]!;
    const proxy = await startFaultProxy(sandbox.url);
    const dataDir = await tempDir();
    const env = { kind: 'remote' as const, baseUrl: proxy.url, token: A.tokens.admin };
    const t = A.incoming_transfers.find((x) => x.status !== 'in_progress')!;
    const body = {
      transfer_return_type: 'SWIFT_FI_TO_FI_RETURN' as const,
      transaction_id: t.transaction_id,
      return_amount: '1000',
      status_reason_code: 'FOCR' as const,
    };
    try {
      // Run 1: the bank executes the POST (and the client's retries with the same key), but every
      // answer is lost on the way back.
      const run1 = await startServices({
        dataDir,
        environment: env,
        bankRetry: { attempts: 3, baseDelayMs: 10, maxDelayMs: 20 },
      });
      const keys: string[] = [];
      proxy.rules.push((r) => {
        if (r.method !== 'POST' || r.path !== '/v1/transfer/return') return undefined;
        keys.push(String(r.headers['idempotency-key']));
        return { kind: 'lose-answer' };
      });
      await expect(run1.services.operations.createReturnIntent('return-op-1', body)).rejects.toMatchObject({
        kind: 'offline',
      });
      const pending = run1.services.ledger.get('return-op-1');
      expect(pending?.state).toBe('pending');
      await run1.stop(); // the analyst quits

      proxy.rules.length = 0;
      const run2 = await startServices({ dataDir, environment: env });
      const res = await run2.services.operations.createReturnIntent('return-op-1', body);
      expect(res.idempotencyKey).toBe(pending!.key);
      expect(res.transactionId).toBe(t.transaction_id);
      const seenKeys = proxy.seen
        .filter((r) => r.method === 'POST' && r.path === '/v1/transfer/return')
        .map((r) => r.headers['idempotency-key']);
      expect(new Set([...keys, ...seenKeys])).toEqual(new Set([pending!.key]));
      // The bank holds exactly one return intent for it.
      const tx = await run2.services.bank.getTransaction(t.transaction_id);
      expect(tx.status).toBe('intent_created');
      expect(keys).toHaveLength(3); // run 1 tried three times, all with the one key

      // A third call does not send anything: the ledger knows it succeeded.
      const before = proxy.seen.length;
      expect(await run2.services.operations.createReturnIntent('return-op-1', body)).toMatchObject({
        alreadyDone: true,
        transactionId: t.transaction_id,
      });
      expect(proxy.seen.length).toBe(before);

      // The same operation with a changed body is refused locally, nothing sent.
      await expect(
        run2.services.operations.createReturnIntent('return-op-1', { ...body, return_amount: '999' }),
      ).rejects.toMatchObject({
        reason: 'IDEMPOTENCY_BODY_CHANGED',
      });
      expect(proxy.seen.length).toBe(before);

      // Audit: the ambiguous attempt and the success, both with the key.
      // (Main's own approval of the proxy's address at the first start is audited too.)
      const audit = await run2.services.audit.list();
      const returnLines = audit.entries.filter((e) => e.operation === 'return.create_intent');
      expect(returnLines.map((e) => [e.outcome, e.idempotencyKey])).toEqual([
        ['succeeded', pending!.key],
        ['pending', pending!.key],
      ]);
      await run2.close();
    } finally {
      await proxy.close();
    }
  });
});
