import { createHash, randomBytes } from 'node:crypto';
import { writeFile, rm } from 'node:fs/promises';
import { createServer as createNetServer } from 'node:net';
import type { Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox';
import type { RunningSandbox } from '../../src/sandbox';
import { BankClient } from '../../src/main/bank/client';
import { createServerClock } from '../../src/main/bank/clock';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { AppFailure } from '../../src/shared/ipc/errors';
import type { AppErrorKind } from '../../src/shared/ipc/errors';
import { startFaultProxy } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';
import { sandboxStaff } from '../support/sandbox-staff';

/**
 * The bank client against the real sandbox over HTTP: every endpoint, and every error kind the
 * renderer explains. Failures the sandbox does not produce (5xx, malformed answers, dropped
 * connections, unknown enum values) come from a fault proxy in front of it.
 */
let sandbox: RunningSandbox;
let proxy: FaultProxy;
const sink = memorySink();
const log = createLogger(sink, 'debug');

type Fx = RunningSandbox['fixtures']['legal_entities'][number];
let A: Fx;
let B: Fx;

function client(
  opts: { token?: string | null; baseUrl?: string; onUnauthenticated?: () => void } = {},
): BankClient {
  return new BankClient({
    getBaseUrl: () => opts.baseUrl ?? sandbox.url,
    getToken: async () => (opts.token === undefined ? A.tokens.admin : opts.token),
    log,
    clock: createServerClock(),
    retry: { baseDelayMs: 10, maxDelayMs: 40 },
    timeoutMs: 3000,
    ...(opts.onUnauthenticated ? { onUnauthenticated: opts.onUnauthenticated } : {}),
  });
}

/** The sandbox's staff endpoints (test support, not the app's client). */
const staff = () => sandboxStaff(sandbox);

async function failure(p: Promise<unknown>): Promise<AppFailure> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppFailure) return err;
    throw err;
  }
  throw new Error('expected a failure');
}

async function expectKind(p: Promise<unknown>, kind: AppErrorKind): Promise<AppFailure> {
  const f = await failure(p);
  expect(f.kind, f.message).toBe(kind);
  return f;
}

const usd = (le: Fx) => le.accounts.find((a) => a.asset === 'USD')!;
const usdt = (le: Fx) => le.accounts.find((a) => a.asset === 'ETHEREUM-USDT')!;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, visibilityDelayMs: { min: 0, max: 0 }, seed: 'bank-client' });
  A = sandbox.fixtures.legal_entities[0]!;
  B = sandbox.fixtures.legal_entities[1]!;
  proxy = await startFaultProxy(sandbox.url);
});

afterAll(async () => {
  await proxy.close();
  await sandbox.close();
});

describe('bank client: every endpoint against the sandbox', () => {
  it('returns: create intent, read it, cancel it, create again, confirm', async () => {
    const bank = client();
    const t = await staff().createIncomingTransfer({ legal_entity_id: A.id, amount: '50000' });
    const body = {
      transfer_return_type: 'SWIFT_FI_TO_FI_RETURN' as const,
      transaction_id: t.transaction_id,
      return_amount: '20000',
      status_reason_code: 'AC03' as const,
      description: 'wrong account',
    };
    const created = await bank.createReturnIntent(body, { idempotencyKey: 'k-return-1' });
    expect(created.transaction_id).toBe(t.transaction_id);
    const read = await bank.getTransaction(t.transaction_id);
    expect(read.status).toBe('intent_created');
    expect(read.fi_to_fi_swift_incoming?.return_transfer_amount).toBe('20000');
    expect(read.fi_to_fi_swift_incoming?.return_fee_amount).toBe('0');

    expect((await bank.cancelReturn(t.transaction_id)).transaction_id).toBe(t.transaction_id);
    expect((await bank.getTransaction(t.transaction_id)).status).toBe('completed');

    await bank.createReturnIntent(body, { idempotencyKey: 'k-return-2' });
    expect((await bank.confirmReturn(t.transaction_id)).transaction_id).toBe(t.transaction_id);
    expect((await bank.getTransaction(t.transaction_id)).status).toBe('in_progress');
  });

  it('crypto: quote, read the quote, confirm', async () => {
    const bank = client();
    const body = {
      side: 'buy' as const,
      priority: 'instant' as const,
      rail: 'rfq' as const,
      symbol: 'USDT-USD' as const,
      base_asset: 'ETHEREUM-USDT' as const,
      quote_asset: 'USD' as const,
      requested_asset: 'ETHEREUM-USDT',
      requested_amount: '1000000',
      customer_pays_account_id: usd(A).id,
      customer_receives_account_id: usdt(A).id,
    };
    const { transaction_id } = await bank.createCryptoOrder(body, { idempotencyKey: 'k-crypto-1' });
    const quote = await bank.getTransaction(transaction_id);
    expect(quote.type).toBe('CRYPTO-TRADE-V2');
    expect(quote.status).toBe('in_progress');
    expect(quote.crypto_trade_v2?.customer_receives_amount).toBe('1000000');
    expect(typeof quote.crypto_trade_v2?.quote_valid_until).toBe('string');
    expect((await bank.confirmCryptoOrder(transaction_id)).transaction_id).toBe(transaction_id);
    expect((await bank.getTransaction(transaction_id)).status).not.toBe('in_progress');
  });

  it('RFIs: list a page, iterate all pages, read one, upload a document streamed from disk, respond', async () => {
    const bank = client();
    const page = await bank.listRfis({ page_size: '2' });
    expect(page.data.length).toBe(2);
    expect(page.next_page_token).not.toBeNull();
    const all: string[] = [];
    for await (const rfi of bank.iterateRfis({ page_size: '2' })) all.push(rfi.id);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual(expect.arrayContaining(A.rfi_ids));
    expect(all.length).toBeGreaterThan(2);

    const rfi = await staff().createRfi({
      type: 'transaction',
      related_id: A.incoming_transfers[0]!.transaction_id,
      description: 'client test',
      questions: [
        { question_type: 'transaction.purpose', question_text: 'Why?' },
        { question_type: 'transaction.supporting_documents', question_text: 'Invoice please' },
      ],
    });
    const got = await bank.getRfi(rfi.id);
    expect(got.questions).toHaveLength(2);
    const [qText, qDoc] = got.questions;

    const answered = await bank.submitRfiResponse(rfi.id, qText!.id, {
      question_type: 'transaction.purpose',
      'transaction.purpose': { response_text: 'Supplier payment', document_ids: [] },
    });
    expect(answered.question_id).toBe(qText!.id);
    expect(answered.response['transaction.purpose']?.response_text).toBe('Supplier payment');

    const upload = await bank.createUploadUrl({
      related_id: rfi.id,
      content_type: 'application/pdf',
      document_type: 'transaction_supporting_document',
    });
    const file = path.join(os.tmpdir(), `td-upload-${process.pid}.pdf`);
    // Several read chunks of random bytes: the file is read into two buffers in turn while it is
    // sent, so a chunk overwritten before it was written would change what the bank stores.
    const bytes = Buffer.concat([
      Buffer.from('%PDF-1.4\n'),
      randomBytes(3 * 1024 * 1024 + 300_000),
      Buffer.from('\n%%EOF\n'),
    ]);
    await writeFile(file, bytes);
    const progress: Array<[number, number]> = [];
    try {
      const result = await bank.uploadDocument(upload.url, file, 'application/pdf', {
        onProgress: (sent, total) => progress.push([sent, total]),
      });
      expect(result.size_bytes).toBe(bytes.length);
      expect(result.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    } finally {
      await rm(file, { force: true });
    }
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toEqual([bytes.length, bytes.length]);
    const doc = await bank.getDocument(upload.id);
    expect(doc.size_bytes).toBe(bytes.length);
    expect((await staff().getDocument(upload.id)).uploaded).toBe(true);

    await bank.submitRfiResponse(rfi.id, qDoc!.id, {
      question_type: 'transaction.supporting_documents',
      'transaction.supporting_documents': { response_text: '', document_ids: [upload.id] },
    });
    expect((await bank.getRfi(rfi.id)).status).toBe('pending_review');

    // Staff side: follow-up, approve both, close the RFI.
    await staff().adminResponse(rfi.id, qText!.id, { response_text: 'Which supplier?' });
    await bank.submitRfiResponse(rfi.id, qText!.id, {
      question_type: 'transaction.purpose',
      'transaction.purpose': { response_text: 'Harbour Freight', document_ids: [] },
    });
    await staff().questionAction(rfi.id, qText!.id, { action: 'approve' });
    await staff().questionAction(rfi.id, qDoc!.id, { action: 'approve' });
    expect((await staff().rfiAction(rfi.id, { action: 'approve' })).status).toBe('approved');
  });

  it('webhook configuration: read and set', async () => {
    const bank = client({ token: B.tokens.admin });
    const before = await bank.getWebhookConfig();
    expect(before.legal_entity_id).toBe(B.id);
    expect(before.role).toBe('admin');
    const after = await bank.setWebhookUrl('http://127.0.0.1:9/hook');
    expect(after.webhook_url).toBe('http://127.0.0.1:9/hook');
    expect((await bank.setWebhookUrl('')).webhook_url).toBe('');
  });

  it('sandbox control (test support on the same route table): fixtures, clock, public key, lists', async () => {
    expect((await staff().getFixtures()).legal_entities.length).toBeGreaterThanOrEqual(2);
    const c0 = await staff().getClock();
    const c1 = await staff().advanceClock(60);
    expect(c1.offset_seconds - c0.offset_seconds).toBe(60);
    expect((await staff().getWebhookPublicKey()).public_key_pem).toContain('BEGIN PUBLIC KEY');
    expect((await staff().listTransactions()).data.length).toBeGreaterThan(0);
    expect((await staff().listAccounts()).data.length).toBeGreaterThan(0);
    expect(Array.isArray((await staff().listWebhookDeliveries()).data)).toBe(true);
  });
});

describe('bank client: error kinds', () => {
  it('offline: nothing listens on the port', async () => {
    const bank = client({ baseUrl: 'http://127.0.0.1:9' });
    const f = await expectKind(bank.getWebhookConfig(), 'offline');
    expect(f.message).toMatch(/could not be reached/);
  });

  it('offline: a bank that accepts but never answers times out (each attempt), then reports offline', async () => {
    const sockets: Socket[] = [];
    const blackHole = createNetServer((sock) => void sockets.push(sock));
    await new Promise<void>((r) => blackHole.listen(0, '127.0.0.1', r));
    const port = (blackHole.address() as { port: number }).port;
    try {
      const bank = new BankClient({
        getBaseUrl: () => `http://127.0.0.1:${port}`,
        getToken: async () => A.tokens.admin,
        log,
        clock: createServerClock(),
        timeoutMs: 200,
        retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 10 },
      });
      const started = Date.now();
      await expectKind(bank.getWebhookConfig(), 'offline');
      expect(Date.now() - started).toBeGreaterThanOrEqual(400);
      expect(sockets.length).toBe(2);
    } finally {
      sockets.forEach((s) => s.destroy());
      await new Promise<void>((r) => blackHole.close(() => r()));
    }
  });

  it('unauthenticated: a refused token is never retried and asks for a new token', async () => {
    let asked = 0;
    const bank = client({ token: 'not-a-real-token', baseUrl: proxy.url, onUnauthenticated: () => asked++ });
    const before = proxy.seen.length;
    const f = await expectKind(bank.getWebhookConfig(), 'unauthenticated');
    expect(f.status).toBe(401);
    expect(asked).toBe(1);
    expect(proxy.seen.length - before).toBe(1);
    expect(f.message).not.toContain('not-a-real-token');
  });

  it('unauthenticated: no token stored sends nothing', async () => {
    const bank = client({ token: null, baseUrl: proxy.url });
    const before = proxy.seen.length;
    await expectKind(bank.getTransaction('txn_x'), 'unauthenticated');
    expect(proxy.seen.length).toBe(before);
  });

  it('forbidden: a viewer may not write; an account of another legal entity is refused', async () => {
    const viewer = client({ token: A.tokens.viewer! });
    const f = await expectKind(viewer.setWebhookUrl(''), 'forbidden');
    expect(f.status).toBe(403);
    const admin = client();
    await expectKind(
      admin.createCryptoOrder(
        {
          side: 'buy',
          priority: 'instant',
          rail: 'rfq',
          symbol: 'USDT-USD',
          base_asset: 'ETHEREUM-USDT',
          quote_asset: 'USD',
          requested_asset: 'ETHEREUM-USDT',
          requested_amount: '1000000',
          customer_pays_account_id: usd(B).id,
          customer_receives_account_id: usdt(A).id,
        },
        { idempotencyKey: 'k-forbidden' },
      ),
      'forbidden',
    );
  });

  it('not_found', async () => {
    const f = await expectKind(client().getTransaction('txn_does_not_exist'), 'not_found');
    expect(f.status).toBe(404);
  });

  it('precondition with the bank reason', async () => {
    const small = A.accounts.find((a) => a.balance === '100000')!;
    const big = A.incoming_transfers.find(
      (t) => t.creditor_account_id === small.id && BigInt(t.amount) > 100_000n,
    )!;
    const f = await expectKind(
      client().createReturnIntent(
        {
          transfer_return_type: 'SWIFT_FI_TO_FI_RETURN',
          transaction_id: big.transaction_id,
          return_amount: big.amount,
          status_reason_code: 'FOCR',
        },
        { idempotencyKey: 'k-precondition' },
      ),
      'precondition',
    );
    expect(f.reason).toBe('INSUFFICIENT_BALANCE');
    expect(f.status).toBe(422);
  });

  it('invalid: the bank refuses a malformed request (400); our own checks refuse before sending', async () => {
    const bank = client({ baseUrl: proxy.url });
    const before = proxy.seen.length;
    const local = await expectKind(
      bank.createReturnIntent(
        {
          transfer_return_type: 'SWIFT_FI_TO_FI_RETURN',
          transaction_id: 'x',
          return_amount: '1',
          status_reason_code: 'NOPE' as 'AC03', // a wrong reason code on purpose
        },
        { idempotencyKey: 'k1' },
      ),
      'invalid_argument',
    );
    expect(local.field).toBe('status_reason_code');
    expect(proxy.seen.length).toBe(before);
    const remote = await expectKind(
      bank.request({
        method: 'POST',
        path: '/v1/transfer/return',
        body: { transaction_id: 'x' },
        schema: (await import('zod')).z.unknown(),
        idempotencyKey: 'k2',
      }),
      'invalid',
    );
    expect(remote.status).toBe(400);
  });

  it('invalid: a malformed answer is an error naming the field', async () => {
    proxy.rules.push((r) =>
      r.path.startsWith('/v1/webhook/url')
        ? { kind: 'rewrite', fn: (j) => ({ ...(j as object), legal_entity_id: 42 }) }
        : undefined,
    );
    try {
      const f = await expectKind(client({ baseUrl: proxy.url }).getWebhookConfig(), 'invalid');
      expect(f.field).toBe('legal_entity_id');
      expect(f.message).toContain('legal_entity_id');
    } finally {
      proxy.rules.length = 0;
    }
  });

  it('unknown enum values and extra fields pass through', async () => {
    const id = A.incoming_transfers[0]!.transaction_id;
    proxy.rules.push((r) =>
      r.path.startsWith(`/v1/transactions/${id}`)
        ? {
            kind: 'rewrite',
            fn: (j) => ({
              ...(j as object),
              status: 'quantum_pending',
              type: 'NEW-TYPE-V9',
              extra: { a: 1 },
            }),
          }
        : undefined,
    );
    try {
      const t = await client({ baseUrl: proxy.url }).getTransaction(id);
      expect(t.status).toBe('quantum_pending');
      expect(t.type).toBe('NEW-TYPE-V9');
      expect((t as Record<string, unknown>)['extra']).toEqual({ a: 1 });
    } finally {
      proxy.rules.length = 0;
    }
  });

  it('server: a GET is retried on 5xx and dropped connections, then succeeds', async () => {
    let n = 0;
    proxy.rules.push((r) => {
      if (!r.path.startsWith('/v1/webhook/url')) return undefined;
      n++;
      if (n === 1)
        return {
          kind: 'respond',
          status: 503,
          body: { error: { code: '503', status: 'UNAVAILABLE', message: 'busy' } },
        };
      if (n === 2) return { kind: 'drop' };
      return undefined;
    });
    try {
      const cfg = await client({ baseUrl: proxy.url }).getWebhookConfig();
      expect(cfg.legal_entity_id).toBe(A.id);
      expect(n).toBe(3);
    } finally {
      proxy.rules.length = 0;
    }
  });

  it('server: persistent 500 ends as kind server after the retry budget; a PUT is not retried', async () => {
    let gets = 0;
    let puts = 0;
    proxy.rules.push((r) => {
      if (r.method === 'GET' && r.path.startsWith('/v1/webhook/url')) gets++;
      else if (r.method === 'PUT' && r.path.startsWith('/v1/webhook/url')) puts++;
      else return undefined;
      return {
        kind: 'respond',
        status: 500,
        body: { error: { code: '500', status: 'INTERNAL', message: 'boom' } },
      };
    });
    try {
      const bank = client({ baseUrl: proxy.url });
      const f = await expectKind(bank.getWebhookConfig(), 'server');
      expect(f.status).toBe(500);
      expect(gets).toBe(4);
      await expectKind(bank.setWebhookUrl(''), 'server');
      expect(puts).toBe(1);
    } finally {
      proxy.rules.length = 0;
    }
  });

  it('a POST with an Idempotency-Key is retried with the same key after a dropped connection', async () => {
    const t = await staff().createIncomingTransfer({ legal_entity_id: A.id, amount: '7000' });
    let first = true;
    const keys: string[] = [];
    proxy.rules.push((r) => {
      if (r.method !== 'POST' || r.path !== '/v1/transfer/return') return undefined;
      keys.push(String(r.headers['idempotency-key']));
      if (first) {
        first = false;
        return { kind: 'drop' };
      }
      return undefined;
    });
    try {
      const res = await client({ baseUrl: proxy.url }).createReturnIntent(
        {
          transfer_return_type: 'SWIFT_FI_TO_FI_RETURN',
          transaction_id: t.transaction_id,
          return_amount: '7000',
          status_reason_code: 'AM09',
        },
        { idempotencyKey: 'k-same-key' },
      );
      expect(res.transaction_id).toBe(t.transaction_id);
      expect(keys).toEqual(['k-same-key', 'k-same-key']);
    } finally {
      proxy.rules.length = 0;
    }
  });

  it('conflict: the same key still in flight (409) is waited out on an idempotent POST', async () => {
    const slow = await startSandbox({
      port: 0,
      visibilityDelayMs: { min: 0, max: 0 },
      writeDelayMs: 300,
      seed: 'slow',
    });
    try {
      const a = slow.fixtures.legal_entities[0]!;
      const bank = new BankClient({
        getBaseUrl: () => slow.url,
        getToken: async () => a.tokens.admin,
        log,
        clock: createServerClock(),
        retry: { baseDelayMs: 200, maxDelayMs: 400, attempts: 5 },
      });
      const t = a.incoming_transfers[0]!;
      const body = {
        transfer_return_type: 'SWIFT_FI_TO_FI_RETURN' as const,
        transaction_id: t.transaction_id,
        return_amount: '100',
        status_reason_code: 'AC03' as const,
      };
      const [x, y] = await Promise.all([
        bank.createReturnIntent(body, { idempotencyKey: 'k-inflight' }),
        bank.createReturnIntent(body, { idempotencyKey: 'k-inflight' }),
      ]);
      expect(x.transaction_id).toBe(y.transaction_id);
      // Without the retry budget the second call surfaces as conflict.
      const once = new BankClient({
        getBaseUrl: () => slow.url,
        getToken: async () => a.tokens.admin,
        log,
        clock: createServerClock(),
        retry: { attempts: 1 },
      });
      const t2 = a.incoming_transfers[1]!;
      const body2 = { ...body, transaction_id: t2.transaction_id };
      const results = await Promise.allSettled([
        once.createReturnIntent(body2, { idempotencyKey: 'k-inflight-2' }),
        once.createReturnIntent(body2, { idempotencyKey: 'k-inflight-2' }),
      ]);
      const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(rejected).toHaveLength(1);
      expect((rejected[0]!.reason as AppFailure).kind).toBe('conflict');
    } finally {
      await slow.close();
    }
  });

  it('rate_limited: 429 waits Retry-After, then succeeds; too long a wait surfaces the kind', async () => {
    const limited = await startSandbox({
      port: 0,
      rateLimit: { requestsPerSecond: 1, burst: 1 },
      seed: 'limited',
    });
    try {
      const a = limited.fixtures.legal_entities[0]!;
      const mk = (maxRetryAfterMs: number) =>
        new BankClient({
          getBaseUrl: () => limited.url,
          getToken: async () => a.tokens.admin,
          log,
          clock: createServerClock(),
          retry: { maxRetryAfterMs },
        });
      const bank = mk(5000);
      await bank.getWebhookConfig();
      const started = Date.now();
      await bank.getWebhookConfig();
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      const impatient = mk(10);
      const f = await expectKind(impatient.getWebhookConfig(), 'rate_limited');
      expect(f.retryAfterMs).toBeGreaterThanOrEqual(1000);
    } finally {
      await limited.close();
    }
  });

  it('never logs a token', () => {
    const text = JSON.stringify(sink.records);
    for (const le of [A, B]) {
      expect(text).not.toContain(le.tokens.admin);
      if (le.tokens.viewer) expect(text).not.toContain(le.tokens.viewer);
    }
  });
});
