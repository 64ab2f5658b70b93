import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCliOptions, usage } from '../../src/sandbox/cli-options';
import type { RunningSandbox } from '../../src/sandbox/index';
import { startSandbox } from '../../src/sandbox/index';
import { ClockState, SandboxTransactionList, Transaction } from '../../src/shared/api';
import { client, err, fx, start, type Json } from './helpers';

let sb: RunningSandbox;
let c: ReturnType<typeof client>;
let f: ReturnType<typeof fx>;

beforeAll(async () => {
  sb = await start();
  c = client(sb);
  f = fx(sb);
});
afterAll(async () => {
  await sb.close();
});

describe('sandbox clock', () => {
  it('GET returns sandbox time; POST advances it (never backwards); the Date header follows', async () => {
    const t0 = ClockState.parse((await c('GET', '/v1/sandbox/clock')).body);
    const r = await c('POST', '/v1/sandbox/clock', { body: { advance_seconds: 3600 } });
    const t1 = ClockState.parse(r.body);
    expect(t1.offset_seconds - t0.offset_seconds).toBe(3600);
    expect(Date.parse(t1.now) - Date.parse(t0.now)).toBeGreaterThanOrEqual(3600_000);
    expect(Math.abs(Date.parse(r.headers.get('date') ?? '') - Date.parse(t1.now))).toBeLessThan(2000);
    for (const body of [{ advance_seconds: -1 }, { advance_seconds: 1.5 }, { advance_seconds: '10' }, {}]) {
      const bad = await c('POST', '/v1/sandbox/clock', { body });
      expect(bad.status).toBe(400);
      expect(err(bad).message).toContain('advance_seconds');
    }
  });
});

describe('incoming transfers', () => {
  it('POST /v1/sandbox/incoming-transfers books a settled transfer and credits the account', async () => {
    const acc = f.acc(f.b, 'USD');
    const before = await c<{ data: { id: string; balance: string }[] }>('GET', '/v1/sandbox/accounts');
    const bal0 = BigInt(before.body.data.find((a) => a.id === acc.id)?.balance ?? '0');
    const r = await c('POST', '/v1/sandbox/incoming-transfers', {
      body: { legal_entity_id: f.b.id, amount: '123456', debtor_name: 'Test Debtor' },
    });
    expect(r.status).toBe(200);
    const t = Transaction.parse(r.body);
    expect(t).toMatchObject({ status: 'completed', type: 'SWIFT-FI-TO-FI-CUSTOMER-CREDIT-INCOMING' });
    expect(t.fi_to_fi_swift_incoming).toMatchObject({
      amount: '123456',
      currency: 'USD',
      creditor_account_id: acc.id,
      debtor_name: 'Test Debtor',
    });
    expect(t.fi_to_fi_swift_incoming?.uetr).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    const after = await c<{ data: { id: string; balance: string }[] }>('GET', '/v1/sandbox/accounts');
    expect(BigInt(after.body.data.find((a) => a.id === acc.id)?.balance ?? '0')).toBe(bal0 + 123456n);
    expect((await c('GET', `/v1/transactions/${t.transaction_id}`, { token: f.adminB })).status).toBe(200);
    const fixtures = (
      await c<{ legal_entities: { incoming_transfers: { transaction_id: string }[] }[] }>(
        'GET',
        '/v1/sandbox/fixtures',
      )
    ).body;
    expect(
      fixtures.legal_entities[1]?.incoming_transfers.some((x) => x.transaction_id === t.transaction_id),
    ).toBe(true);
    const list = SandboxTransactionList.parse((await c('GET', '/v1/sandbox/transactions')).body);
    expect(list.data.some((x) => x.transaction.transaction_id === t.transaction_id)).toBe(true);
  });

  it('refuses a wallet as creditor, unknown accounts and entities', async () => {
    const wallet = await c('POST', '/v1/sandbox/incoming-transfers', {
      body: { creditor_account_id: f.acc(f.a, 'ETHEREUM-USDT').id },
    });
    expect(wallet.status).toBe(400);
    expect(
      (await c('POST', '/v1/sandbox/incoming-transfers', { body: { creditor_account_id: 'acc_x' } })).status,
    ).toBe(404);
    expect(
      (await c('POST', '/v1/sandbox/incoming-transfers', { body: { legal_entity_id: 'le_x' } })).status,
    ).toBe(404);
  });
});

describe('bulk RFIs', () => {
  it('creates 10,000 RFIs and still pages 100 at a time quickly', async () => {
    const s2 = await start();
    try {
      const c2 = client(s2);
      const f2 = fx(s2);
      const r = await c2<Json>('POST', '/v1/sandbox/rfis/bulk', { body: { count: 10_000 } });
      expect(r.body.created).toBe(10_000);
      const t0 = performance.now();
      let token: string | null = null;
      let n = 0;
      for (let i = 0; i < 20; i++) {
        const page: { body: { data: unknown[]; next_page_token: string | null } } = await c2(
          'GET',
          `/v1/rfis?page_size=100${token ? `&page_token=${token}` : ''}`,
          {
            token: f2.adminA,
          },
        );
        n += page.body.data.length;
        token = page.body.next_page_token;
      }
      expect(n).toBe(2000);
      expect(performance.now() - t0).toBeLessThan(20_000);
    } finally {
      await s2.close();
    }
  });
});

describe('rate limiting (optional)', () => {
  it('is off by default; when on, answers 429 RESOURCE_EXHAUSTED with Retry-After', async () => {
    const many = await Promise.all(
      Array.from({ length: 30 }, () => c('GET', '/v1/webhook/url', { token: f.adminA })),
    );
    expect(many.every((r) => r.status === 200)).toBe(true);
    const s2 = await startSandbox({ port: 0, rateLimit: { requestsPerSecond: 0.05, burst: 3 } });
    try {
      const c2 = client(s2);
      const tok = s2.fixtures.legal_entities[0]?.tokens.admin ?? '';
      const rs = [];
      for (let i = 0; i < 5; i++) rs.push(await c2('GET', '/v1/webhook/url', { token: tok }));
      expect(rs.slice(0, 3).every((r) => r.status === 200)).toBe(true);
      const limited = rs[4];
      expect(limited?.status).toBe(429);
      if (!limited) throw new Error('no response');
      expect(err(limited)).toMatchObject({
        code: '429',
        status: 'RESOURCE_EXHAUSTED',
        reason: 'RATE_LIMITED',
      });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await s2.close();
    }
  });
});

describe('options', () => {
  it('loads a given signing key and rejects a key of the wrong type', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const s2 = await startSandbox({ port: 0, privateKeyPem: pem });
    try {
      expect(s2.publicKeyPem).toBe(publicKey.export({ type: 'spki', format: 'pem' }).toString());
    } finally {
      await s2.close();
    }
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    });
    await expect(startSandbox({ port: 0, privateKeyPem: rsa.toString() })).rejects.toThrow(/P-256/);
    await expect(startSandbox({ port: 0, quoteTtlSeconds: -1 })).rejects.toThrow(/quoteTtlSeconds/);
  });

  it('CLI flags and TREASURY_SANDBOX_* env map onto every option; flags win', () => {
    const o = parseCliOptions(
      [
        '--port',
        '4011',
        '--host=0.0.0.0',
        '--seed',
        'demo',
        '--visibility-delay-min-ms',
        '10',
        '--visibility-delay-max-ms',
        '20',
        '--quote-ttl-seconds',
        '5',
        '--return-completion-delay-ms',
        '7',
        '--settlement-delay-ms',
        '8',
        '--upload-url-ttl-seconds',
        '9',
        '--max-upload-bytes',
        '1000',
        '--webhook-initial-ms',
        '11',
        '--webhook-max-ms',
        '12',
        '--webhook-give-up-after-ms',
        '13',
        '--webhook-timeout-ms',
        '14',
        '--webhook-tolerance-seconds',
        '15',
        '--data-dir',
        '/tmp/x',
        '--usdc-inventory',
        '42',
        '--write-delay-ms',
        '3',
        '--idempotency-retention-seconds',
        '60',
        '--rate-limit-rps',
        '5',
        '--validate-responses',
        '--log-requests=false',
      ],
      {
        TREASURY_SANDBOX_PORT: '9999',
        TREASURY_SANDBOX_QUOTE_TTL_SECONDS: '99',
        TREASURY_SANDBOX_SEED: 'env',
      },
    );
    expect(o).toMatchObject({
      port: 4011,
      host: '0.0.0.0',
      seed: 'demo',
      visibilityDelayMs: { min: 10, max: 20 },
      quoteTtlSeconds: 5,
      returnCompletionDelayMs: 7,
      settlementDelayMs: 8,
      uploadUrlTtlSeconds: 9,
      maxUploadBytes: 1000,
      webhookRetry: { initialMs: 11, maxMs: 12, giveUpAfterMs: 13, timeoutMs: 14 },
      webhookTimestampToleranceSeconds: 15,
      dataDir: '/tmp/x',
      usdcInventory: 42n,
      writeDelayMs: 3,
      idempotencyRetentionSeconds: 60,
      rateLimit: { requestsPerSecond: 5, burst: 10 },
      validateResponses: true,
      logRequests: false,
    });
    const env = parseCliOptions([], {
      TREASURY_SANDBOX_PORT: '4020',
      TREASURY_SANDBOX_MAX_UPLOAD_BYTES: '5',
    });
    expect(env).toMatchObject({ port: 4020, maxUploadBytes: 5 });
    expect(parseCliOptions([], {}).port).toBe(4010);
    expect(() => parseCliOptions(['--nope'], {})).toThrow(/unknown option/);
    expect(() => parseCliOptions(['--port', 'x'], {})).toThrow(/--port/);
    expect(usage()).toContain('TREASURY_SANDBOX_QUOTE_TTL_SECONDS');
  });
});

describe('CLI', () => {
  it('npm run sandbox: prints the URL, tokens and public key, serves, and stops on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/sandbox/cli.ts', '--port', '0', '--seed', 'cli'],
      {
        cwd: new URL('../../', import.meta.url),
        env: { ...process.env, TREASURY_SANDBOX_QUOTE_TTL_SECONDS: '12' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const end = Date.now() + 20_000;
      while (!out.includes('END PUBLIC KEY') && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      expect(out).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
      expect(out).toMatch(/admin token: +tds_admin_/);
      expect(out).toMatch(/viewer token: +tds_viewer_/);
      expect(out).toContain('BEGIN PUBLIC KEY');
      expect(out).toContain('quote TTL 12 s');
      const url = /listening on (http:\S+)/.exec(out)?.[1] ?? '';
      const secret = /Control secret \(header Sandbox-Control-Secret, for \/v1\/sandbox\/\*\): (\S+)/.exec(
        out,
      )?.[1];
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect((await fetch(`${url}/v1/sandbox/fixtures`)).status).toBe(403);
      const r = await fetch(`${url}/v1/sandbox/fixtures`, {
        headers: { 'Sandbox-Control-Secret': secret ?? '' },
      });
      expect(r.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
