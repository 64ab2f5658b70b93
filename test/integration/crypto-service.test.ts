import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMinor, parseMinor } from '../../src/shared/money';
import { createDispatcher } from '../../src/main/ipc/dispatcher';
import type { Dispatch } from '../../src/main/ipc/dispatcher';
import type { Envelope, AppError } from '../../src/shared/ipc/errors';
import type { CryptoContext, OrderView } from '../../src/shared/ipc/channels/crypto';
import { channels } from '../../src/shared/ipc/contract';
import { startSandbox } from '../../src/sandbox/index';
import { startServices } from '../support/services';
import type { TestServices } from '../support/services';
import { staffOf } from '../support/sandbox-staff';
import { sandboxProfileId } from '../../src/main/session/settings';

/** The exchange channels end to end through the dispatcher against the in-process sandbox. */
let t: TestServices;
let dispatch: Dispatch;
const sender = { url: 'app://desk/index.html', isMainFrame: true };

async function call<T>(channel: string, args?: unknown): Promise<T> {
  const env = (await dispatch(channel, args, sender)) as Envelope<T>;
  if (!env.ok) throw Object.assign(new Error(env.error.message), env.error);
  const def = channels[channel as keyof typeof channels];
  expect(def.result.safeParse(env.value).success, `${channel} result matches the contract`).toBe(true);
  return env.value;
}

async function callError(channel: string, args?: unknown): Promise<AppError> {
  const env = (await dispatch(channel, args, sender)) as Envelope<unknown>;
  if (env.ok) throw new Error(`${channel} succeeded`);
  return env.error;
}

function accountsOf(ctx: CryptoContext, asset: string): string {
  const a = ctx.accounts.find((x) => x.asset === asset && x.legalEntityId === ctx.legalEntityId);
  if (!a) throw new Error(`no ${asset} account`);
  return a.accountId;
}

async function visible(orderId: string): Promise<OrderView> {
  await expect
    .poll(
      async () => (await call<OrderView>('crypto.order', { profileId: sandboxProfileId, orderId })).phase,
      { timeout: 5000 },
    )
    .toBe('visible');
  return call<OrderView>('crypto.order', { profileId: sandboxProfileId, orderId });
}

beforeAll(async () => {
  t = await startServices({
    environment: {
      kind: 'embedded-sandbox',
      sandbox: { visibilityDelayMs: { min: 0, max: 0 }, quoteTtlSeconds: 30, settlementDelayMs: 200 },
    },
    // A wide margin, so "too close to expiry" leaves seconds of real time to spare on a loaded machine.
    crypto: { confirmMarginMs: 8000 },
  });
  dispatch = createDispatcher({
    handlers: t.services.handlers,
    isTrustedSender: () => true,
    log: t.services.log,
  });
});
afterAll(() => t.close());

describe('crypto exchange service', () => {
  it('seeds the account book from the sandbox fixtures and lets the analyst label accounts', async () => {
    const ctx = await call<CryptoContext>('crypto.context');
    const a = t.services.sandbox!.fixtures.legal_entities[0]!;
    expect(ctx.canTrade).toBe(true);
    expect(ctx.legalEntityId).toBe(a.id);
    for (const acc of a.accounts) expect(ctx.accounts.map((x) => x.accountId)).toContain(acc.id);
    const after = await call<CryptoContext>('crypto.saveAccount', {
      profileId: sandboxProfileId,
      accountId: 'acct_custom',
      label: 'Mine',
    });
    expect(after.accounts.find((x) => x.accountId === 'acct_custom')).toMatchObject({
      label: 'Mine',
      source: 'analyst',
    });
    const removed = await call<CryptoContext>('crypto.removeAccount', {
      profileId: sandboxProfileId,
      accountId: 'acct_custom',
    });
    expect(removed.accounts.some((x) => x.accountId === 'acct_custom')).toBe(false);
    expect(
      (await callError('crypto.saveAccount', { profileId: sandboxProfileId, accountId: 'x', label: '  ' }))
        .kind,
    ).toBe('invalid_argument');
  });

  it('quotes a USDT buy through the ledger, confirms it and follows it to completed with a notification', async () => {
    const ctx = await call<CryptoContext>('crypto.context');
    const quote = await call<OrderView>('crypto.quote', {
      profileId: sandboxProfileId,
      side: 'buy',
      symbol: 'USDT-USD',
      requestedAsset: 'ETHEREUM-USDT',
      requestedAmount: '25000000',
      paysAccountId: accountsOf(ctx, 'USD'),
      receivesAccountId: accountsOf(ctx, 'ETHEREUM-USDT'),
      description: 'unit test',
    });
    expect(quote.transactionId).toBeTruthy();
    expect(quote.idempotencyKey).toMatch(/^td-/);
    const v = await visible(quote.id);
    expect(v.status).toBe('in_progress');
    expect(v.crypto).toMatchObject({
      priority: 'instant',
      rail: 'rfq',
      customer_receives_amount: '25000000',
    });
    expect(v.confirmable).toBe(true);
    const confirmed = await call<OrderView>('crypto.confirm', {
      profileId: sandboxProfileId,
      orderId: quote.id,
    });
    expect(['pending_execution', 'completed']).toContain(confirmed.status);
    await expect
      .poll(
        async () =>
          (await call<OrderView>('crypto.order', { profileId: sandboxProfileId, orderId: quote.id })).status,
        {
          timeout: 8000,
        },
      )
      .toBe('completed');
    const done = await call<OrderView>('crypto.order', { profileId: sandboxProfileId, orderId: quote.id });
    expect(done.crypto?.transaction_hash).toMatch(/^0x[0-9a-f]{64}$/);
    // An order is named with the profile that owns it: under another profile's name it is not found.
    expect(
      await callError('crypto.order', { profileId: 'p_not_the_owner', orderId: quote.id }),
    ).toMatchObject({
      kind: 'not_found',
    });
    await expect.poll(() => t.platform.notifications.length).toBeGreaterThan(0);
    expect(t.platform.notifications.at(-1)?.title).toContain('Exchange settled');
    const audit = await t.services.audit.list({ limit: 20 });
    const ops = audit.entries.map((e) => `${e.operation}:${e.outcome}`);
    expect(ops).toContain('crypto.create_order:succeeded');
    expect(ops).toContain('crypto.confirm:succeeded');
    // in words, with the bank's own amounts for this order (exact minor units, no floats)
    const paid = formatMinor(parseMinor(done.crypto!.customer_pays_amount), 'USD');
    expect(audit.entries.find((e) => e.operation === 'crypto.confirm')?.summary).toBe(
      `Quote confirmed — buy 25.00 USDT for ${paid}`,
    );
    expect(audit.entries.find((e) => e.operation === 'crypto.create_order')?.summary).toBe(
      'Quote requested — buy 25.00 USDT',
    );
    expect((await call<{ orders: OrderView[] }>('crypto.list')).orders.map((o) => o.id)).toContain(quote.id);
  });

  it('main refuses to send a confirm too close to expiry in bank time, even if asked', async () => {
    const ctx = await call<CryptoContext>('crypto.context');
    const quote = await call<OrderView>('crypto.quote', {
      profileId: sandboxProfileId,
      side: 'buy',
      symbol: 'USDT-USD',
      requestedAsset: 'USD',
      requestedAmount: '1000',
      paysAccountId: accountsOf(ctx, 'USD'),
      receivesAccountId: accountsOf(ctx, 'ETHEREUM-USDT'),
    });
    await visible(quote.id);
    // 24 of 30 s pass in bank time: about 6 s are left, less than the 8 s margin.
    await staffOf(t.services).advanceClock(24);
    const err = await callError('crypto.confirm', { profileId: sandboxProfileId, orderId: quote.id });
    expect(err).toMatchObject({ kind: 'precondition', reason: 'QUOTE_TOO_CLOSE_TO_EXPIRY' });
    // Nothing was sent: the bank still has the quote in progress.
    const list = await staffOf(t.services).listTransactions();
    const row = list.data.find((d) => d.transaction.transaction_id === quote.transactionId);
    expect(row?.transaction.status).toBe('in_progress');
    const audit = await t.services.audit.list({ limit: 5 });
    expect(audit.entries[0]).toMatchObject({ operation: 'crypto.confirm', outcome: 'failed' });
    await staffOf(t.services).advanceClock(10);
    const expired = await call<OrderView>('crypto.order', {
      profileId: sandboxProfileId,
      orderId: quote.id,
      refresh: true,
    });
    expect(expired.displayStatus).toBe('expired');
    expect(expired.confirmable).toBe(false);
    const again = await callError('crypto.confirm', { profileId: sandboxProfileId, orderId: quote.id });
    expect(again.reason).toBe('QUOTE_EXPIRED');
  });

  it('requote makes a new order with the same parameters and a new idempotency key', async () => {
    const { orders } = await call<{ orders: OrderView[] }>('crypto.list');
    const first = orders.find((o) => o.displayStatus === 'expired')!;
    const re = await call<OrderView>('crypto.requote', { profileId: sandboxProfileId, orderId: first.id });
    expect(re.id).not.toBe(first.id);
    expect(re.requoteOf).toBe(first.id);
    expect(re.idempotencyKey).not.toBe(first.idempotencyKey);
    expect(re.request).toEqual(first.request);
  });

  it('never queues a confirm while offline: it fails clearly and sends nothing', async () => {
    const ctx = await call<CryptoContext>('crypto.context');
    const quote = await call<OrderView>('crypto.quote', {
      profileId: sandboxProfileId,
      side: 'sell',
      symbol: 'USDT-USD',
      requestedAsset: 'ETHEREUM-USDT',
      requestedAmount: '1000000',
      paysAccountId: accountsOf(ctx, 'ETHEREUM-USDT'),
      receivesAccountId: accountsOf(ctx, 'USD'),
    });
    await visible(quote.id);
    t.platform.fire('offline');
    const err = await callError('crypto.confirm', { profileId: sandboxProfileId, orderId: quote.id });
    expect(err.kind).toBe('offline');
    expect(err.message).toContain('never queued');
    t.platform.fire('online');
    // Coming back online sends nothing by itself: the quote is still only a quote at the bank.
    const tx = await t.services.bank.getTransaction(quote.transactionId!);
    expect(tx.status).toBe('in_progress');
    expect(tx.crypto_trade_v2?.quote_confirmed_at).toBeNull();
    // An explicit confirm online works.
    const confirmed = await call<OrderView>('crypto.confirm', {
      profileId: sandboxProfileId,
      orderId: quote.id,
    });
    expect(['pending_execution', 'completed']).toContain(confirmed.status);
  });

  it('refuses bad input at the channel and viewer writes before anything is sent', async () => {
    const base = {
      profileId: sandboxProfileId,
      side: 'buy',
      symbol: 'USDT-USD',
      requestedAsset: 'ETHEREUM-USDT',
      paysAccountId: 'a',
      receivesAccountId: 'b',
    };
    // The quote is for the profile the form names: never one main picks.
    const { profileId: _named, ...unnamed } = base;
    expect(await callError('crypto.quote', { ...unnamed, requestedAmount: '1000' })).toMatchObject({
      kind: 'invalid_argument',
      field: 'profileId',
    });
    expect(await callError('crypto.saveAccount', { accountId: 'acct_x', label: 'Payroll' })).toMatchObject({
      kind: 'invalid_argument',
      field: 'profileId',
    });
    expect((await callError('crypto.quote', { ...base, requestedAmount: '1.5' })).kind).toBe(
      'invalid_argument',
    );
    expect((await callError('crypto.quote', { ...base, requestedAmount: '0' })).kind).toBe(
      'invalid_argument',
    );
    expect(
      (await callError('crypto.quote', { ...base, requestedAsset: 'ETHEREUM-USDC', requestedAmount: '1' }))
        .kind,
    ).toBe('invalid_argument');
    const before = (await staffOf(t.services).listTransactions()).data.length;
    await call('session.useSandboxCredential', { credential: 'a-viewer' });
    const ctx = await call<CryptoContext>('crypto.context');
    expect(ctx.canTrade).toBe(false);
    expect(ctx.readOnlyReason).toContain('viewer');
    const err = await callError('crypto.quote', { ...base, requestedAmount: '1000000' });
    expect(err.kind).toBe('forbidden');
    expect((await staffOf(t.services).listTransactions()).data.length).toBe(before);
    // The viewer of the same legal entity still sees the admin's orders (made by the tests above);
    // B does not. The list follows the credential once the bank has confirmed it, so poll.
    await expect
      .poll(async () => (await call<{ orders: OrderView[] }>('crypto.list')).orders.length)
      .toBeGreaterThan(0);
    await call('session.useSandboxCredential', { credential: 'b-admin' });
    await expect.poll(async () => (await call<{ orders: OrderView[] }>('crypto.list')).orders).toEqual([]);
    await call('session.useSandboxCredential', { credential: 'a-admin' });
  });
});

describe('crypto exchange service when the bank goes away', () => {
  it('an unanswered quote request is reported as ambiguous, never as created, and nothing is confirmable', async () => {
    const own = await startServices();
    try {
      const d = createDispatcher({
        handlers: own.services.handlers,
        isTrustedSender: () => true,
        log: own.services.log,
      });
      const ok = async <T>(channel: string, args?: unknown): Promise<T> => {
        const env = (await d(channel, args, sender)) as Envelope<T>;
        if (!env.ok) throw Object.assign(new Error(env.error.message), env.error);
        return env.value;
      };
      const ctx = await ok<CryptoContext>('crypto.context');
      await own.services.sandbox!.close();
      const env = (await d(
        'crypto.quote',
        {
          profileId: own.services.session.profile.id,
          side: 'buy',
          symbol: 'USDT-USD',
          requestedAsset: 'USD',
          requestedAmount: '1000',
          paysAccountId: accountsOf(ctx, 'USD'),
          receivesAccountId: accountsOf(ctx, 'ETHEREUM-USDT'),
        },
        sender,
      )) as Envelope<OrderView>;
      expect(env.ok).toBe(false);
      if (!env.ok) expect(env.error.kind).toBe('offline');
      const { orders } = await ok<{ orders: OrderView[] }>('crypto.list');
      expect(orders[0]).toMatchObject({ phase: 'create_failed', transactionId: null, confirmable: false });
      expect(orders[0]?.error?.message).toContain('may or may not have made this quote');
      expect(orders[0]?.idempotencyKey).toMatch(/^td-/);
      const refused = (await d(
        'crypto.confirm',
        { profileId: sandboxProfileId, orderId: orders[0]!.id },
        sender,
      )) as Envelope<OrderView>;
      expect(refused).toMatchObject({ ok: false, error: { reason: 'QUOTE_NOT_CONFIRMABLE' } });
    } finally {
      await own.close();
    }
  });
});

describe('crypto exchange service: quote expiry reminder', () => {
  it('notifies natively 10 s before an unconfirmed quote expires', async () => {
    const own = await startServices({
      environment: {
        kind: 'embedded-sandbox',
        sandbox: { visibilityDelayMs: { min: 0, max: 0 }, quoteTtlSeconds: 12 },
      },
    });
    try {
      const ctx = await own.services.crypto.context();
      const quote = await own.services.crypto.quote({
        profileId: ctx.environmentId,
        side: 'buy',
        symbol: 'USDT-USD',
        requestedAsset: 'USD',
        requestedAmount: '1000',
        paysAccountId: accountsOf(ctx, 'USD'),
        receivesAccountId: accountsOf(ctx, 'ETHEREUM-USDT'),
      });
      await expect
        .poll(() => own.platform.notifications.map((n) => n.title), { timeout: 8000 })
        .toContain('Quote about to expire: USDT-USD buy');
      expect(own.platform.notifications.at(-1)?.body).toContain(quote.transactionId!);
    } finally {
      await own.close();
    }
  });
});

describe('crypto exchange service: following survives a restart', () => {
  it('an order confirmed before a restart is followed again at start, written once when it settles, and notified', async () => {
    const sb = await startSandbox({
      port: 0,
      visibilityDelayMs: { min: 0, max: 0 },
      settlementDelayMs: 2500,
    });
    const le = sb.fixtures.legal_entities[0]!;
    const environment = { kind: 'remote' as const, baseUrl: sb.url, token: le.tokens.admin };
    const first = await startServices({ environment });
    try {
      await expect.poll(async () => (await first.services.crypto.context()).canTrade).toBe(true);
      const account = (asset: string): string => le.accounts.find((x) => x.asset === asset)!.id;
      const quote = await first.services.crypto.quote({
        profileId: first.services.session.profile.id,
        side: 'buy',
        symbol: 'USDT-USD',
        requestedAsset: 'USD',
        requestedAmount: '1000',
        paysAccountId: account('USD'),
        receivesAccountId: account('ETHEREUM-USDT'),
      });
      await expect
        .poll(
          async () =>
            (await first.services.crypto.order({ profileId: quote.environmentId, orderId: quote.id })).phase,
          { timeout: 5000 },
        )
        .toBe('visible');
      const confirmed = await first.services.crypto.confirm({
        profileId: quote.environmentId,
        orderId: quote.id,
      });
      expect(confirmed.status).toBe('pending_execution');
      await first.stop();

      // The next run: nobody opens the list; the order is followed from the start.
      const second = await startServices({ environment, dataDir: first.dataDir });
      try {
        await expect
          .poll(() => second.platform.notifications.map((n) => `${n.title}: ${n.body}`), { timeout: 10_000 })
          .toContainEqual(
            expect.stringMatching(/^Exchange settled: Buy [\d.,]+ USDT for [\d.,]+ USD: done\.$/),
          );
        const pushes = second.pushed
          .filter((m) => m.event === 'crypto.orderChanged')
          .map((m) => (m.payload as OrderView).status);
        expect(pushes).toEqual(['completed']);
        const done = await second.services.crypto.order({
          profileId: quote.environmentId,
          orderId: quote.id,
        });
        expect(done).toMatchObject({ status: 'completed', transactionId: quote.transactionId });
      } finally {
        await second.stop();
      }
    } finally {
      await first.close();
      await sb.close();
    }
  });
});
