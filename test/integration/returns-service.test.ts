import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox';
import type { RunningSandbox } from '../../src/sandbox';
import type { ReturnEntry } from '../../src/shared/ipc/channels/returns';
import { startFaultProxy } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';
import { startServices, tempDir } from '../support/services';
import type { TestServices } from '../support/services';

/** The returns service through its IPC handlers, against the sandbox behind a loopback proxy. */
let sandbox: RunningSandbox;
let proxy: FaultProxy;
const open: TestServices[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({
    visibilityDelayMs: { min: 0, max: 0 },
    returnCompletionDelayMs: 200,
    seed: 'returns-service',
  });
  proxy = await startFaultProxy(sandbox.url);
});
afterEach(async () => {
  proxy.rules.length = 0;
  // Two runs of one test can share a data folder: stop them all before any folder is removed.
  const all = open.splice(0);
  await Promise.all(all.map((s) => s.stop()));
  await Promise.all(all.map((s) => s.close()));
});
afterAll(async () => {
  await proxy.close();
  await sandbox.close();
});

const A = () => sandbox.fixtures.legal_entities[0]!;

async function services(opts: { dataDir?: string; attempts?: number } = {}): Promise<TestServices> {
  const s = await startServices({
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    environment: { kind: 'remote', baseUrl: proxy.url, token: A().tokens.admin },
    bankRetry: { attempts: opts.attempts ?? 1, baseDelayMs: 10, maxDelayMs: 20 },
  });
  open.push(s);
  await s.services.session.check();
  return s;
}

/** A fresh settled transfer of legal entity A's big account, so tests do not share state. */
async function freshTransfer(amount = '500000'): Promise<string> {
  const account = A().accounts.find((a) => a.name === 'Alder USD operating')!;
  const res = await fetch(`${sandbox.url}/v1/sandbox/incoming-transfers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...sandbox.controlHeaders() },
    body: JSON.stringify({ legal_entity_id: A().id, creditor_account_id: account.id, amount }),
  });
  return ((await res.json()) as { transaction_id: string }).transaction_id;
}

const isPost = (r: { method: string; path: string }) =>
  r.method === 'POST' && r.path === '/v1/transfer/return';

describe('returns service', () => {
  it('lookup shows the transfer, remembers it in the recent list and says a return is possible', async () => {
    const s = await services();
    const id = await freshTransfer('123456');
    const view = await s.services.handlers['returns.lookup']({
      profileId: s.services.session.profile.id,
      transactionId: id,
    });
    expect(view).toMatchObject({
      transactionId: id,
      status: 'completed',
      incoming: { amount: '123456', currency: 'USD' },
      returnDetails: null,
      returnable: { ok: true, code: 'ok', reason: null },
      role: 'admin',
    });
    const { items } = await s.services.handlers['returns.recent'](undefined);
    expect(items[0]).toMatchObject({
      transactionId: id,
      amount: '123456',
      currency: 'USD',
      status: 'completed',
    });
  });

  it('create → review → confirm → followed to return_completed: list, event and native notification', async () => {
    const s = await services();
    const id = await freshTransfer('200000');
    await s.services.handlers['returns.lookup']({
      profileId: s.services.session.profile.id,
      transactionId: id,
    });
    const created = await s.services.handlers['returns.createIntent']({
      profileId: s.services.session.profile.id,
      operationId: 'ret-svc-full-1',
      transactionId: id,
      amount: '150000',
      reasonCode: 'AM09',
      description: 'Wrong amount',
    });
    expect(created).toMatchObject({ transactionId: id, alreadyDone: false });
    const review = await s.services.handlers['returns.review']({
      profileId: s.services.session.profile.id,
      transactionId: id,
    });
    expect(review.returnDetails).toMatchObject({
      amount: '150000',
      fee: '0',
      description: 'Wrong amount',
      reasonCode: 'AM09',
      reasonMeaning: 'Wrong amount: the amount received is not the amount agreed or expected',
      initiatedBy: { firstName: 'Alex', lastName: 'Morgan' },
    });
    const confirmed = await s.services.handlers['returns.confirm']({
      profileId: s.services.session.profile.id,
      transactionId: id,
    });
    expect(confirmed.status).toBe('in_progress');
    await expect
      .poll(() => s.platform.notifications.map((n) => n.body), { timeout: 10_000 })
      .toEqual([`The return 1,500.00 USD of transfer ${id} is completed.`]);
    const changed = s.pushed
      .filter((m) => m.event === 'returns.changed')
      .map((m) => (m.payload as ReturnEntry).phase);
    expect(changed).toContain('completed');
    const { entries } = await s.services.handlers['returns.list'](undefined);
    expect(entries).toMatchObject([
      { operationId: 'ret-svc-full-1', phase: 'completed', status: 'return_completed', currency: 'USD' },
    ]);
  });

  it("the server's 403 is explained in plain words even when the local role said admin", async () => {
    const s = await services();
    const id = await freshTransfer();
    proxy.rules.push((r) =>
      isPost(r)
        ? {
            kind: 'respond',
            status: 403,
            body: { error: { code: '403', status: 'PERMISSION_DENIED', message: 'viewer role' } },
          }
        : undefined,
    );
    await expect(
      s.services.handlers['returns.createIntent']({
        profileId: s.services.session.profile.id,
        operationId: 'ret-svc-403-1',
        transactionId: id,
        amount: '100',
        reasonCode: 'FOCR',
      }),
    ).rejects.toMatchObject({
      kind: 'forbidden',
      message: expect.stringContaining('may not make returns') as unknown as string,
    });
    expect(s.services.ledger.get('ret-svc-403-1')?.state).toBe('failed');
    const { entries } = await s.services.handlers['returns.list'](undefined);
    expect(entries.find((e) => e.operationId === 'ret-svc-403-1')?.phase).toBe('refused');
  });

  it('a second return of the same transfer, and a return of an unsettled one, are refused with what to do', async () => {
    const s = await services();
    const id = await freshTransfer();
    await s.services.handlers['returns.createIntent']({
      profileId: s.services.session.profile.id,
      operationId: 'ret-svc-dup-1',
      transactionId: id,
      amount: '100',
      reasonCode: 'DUPL',
    });
    await expect(
      s.services.handlers['returns.createIntent']({
        profileId: s.services.session.profile.id,
        operationId: 'ret-svc-dup-2',
        transactionId: id,
        amount: '100',
        reasonCode: 'DUPL',
      }),
    ).rejects.toMatchObject({
      reason: 'RETURN_ALREADY_ACTIVE',
      message: expect.stringContaining('Open it from the Returns list') as unknown as string,
    });
    const unsettled = A().incoming_transfers.find((t) => t.status === 'in_progress')!;
    const view = await s.services.handlers['returns.lookup']({
      profileId: s.services.session.profile.id,
      transactionId: unsettled.transaction_id,
    });
    expect(view.returnable).toMatchObject({ ok: false, code: 'not_settled' });
    await expect(
      s.services.handlers['returns.createIntent']({
        profileId: s.services.session.profile.id,
        operationId: 'ret-svc-unsettled-1',
        transactionId: unsettled.transaction_id,
        amount: '100',
        reasonCode: 'FOCR',
      }),
    ).rejects.toMatchObject({
      reason: 'TRANSACTION_NOT_SETTLED',
      message: expect.stringContaining('try again once it shows completed') as unknown as string,
    });
  });

  it('an ambiguous send survives a restart: the list shows it and sending again reuses the key', async () => {
    const dataDir = await tempDir();
    const run1 = await services({ dataDir });
    const id = await freshTransfer();
    await run1.services.handlers['returns.lookup']({
      profileId: run1.services.session.profile.id,
      transactionId: id,
    });
    proxy.rules.push((r) => (isPost(r) ? { kind: 'lose-answer' } : undefined));
    await expect(
      run1.services.handlers['returns.createIntent']({
        profileId: run1.services.session.profile.id,
        operationId: 'ret-svc-restart-1',
        transactionId: id,
        amount: '4200',
        reasonCode: 'CUST',
      }),
    ).rejects.toMatchObject({ kind: 'offline' });
    const key = run1.services.ledger.get('ret-svc-restart-1')?.key;
    await run1.stop();
    proxy.rules.length = 0;

    const run2 = await services({ dataDir });
    const before = await run2.services.handlers['returns.list'](undefined);
    expect(before.entries).toMatchObject([{ operationId: 'ret-svc-restart-1', idempotencyKey: key }]);
    const again = await run2.services.handlers['returns.createIntent']({
      profileId: run2.services.session.profile.id,
      operationId: 'ret-svc-restart-1',
      transactionId: id,
      amount: '4200',
      reasonCode: 'CUST',
    });
    expect(again).toMatchObject({ transactionId: id, idempotencyKey: key });
    const keys = proxy.seen.filter(isPost).map((r) => r.headers['idempotency-key']);
    expect(keys.filter((k) => k === key)).toHaveLength(2);
    const tx = await run2.services.bank.getTransaction(id);
    expect(tx.fi_to_fi_swift_incoming?.return_transfer_amount).toBe('4200');
  });

  it('cancel puts the transfer back to completed and the entry to cancelled; both writes are audited', async () => {
    const s = await services();
    const id = await freshTransfer();
    const transfer = await s.services.handlers['returns.lookup']({
      profileId: s.services.session.profile.id,
      transactionId: id,
    });
    await s.services.handlers['returns.createIntent']({
      profileId: s.services.session.profile.id,
      operationId: 'ret-svc-cancel-1',
      transactionId: id,
      amount: '500',
      reasonCode: 'FOCR',
    });
    const view = await s.services.handlers['returns.cancel']({
      profileId: s.services.session.profile.id,
      transactionId: id,
    });
    expect(view).toMatchObject({ status: 'completed', returnDetails: null, returnable: { ok: true } });
    const { entries } = await s.services.handlers['returns.list'](undefined);
    expect(entries[0]).toMatchObject({ phase: 'cancelled', status: 'completed' });
    // The writes of the return (main's own approval of the bank address at start is audited too).
    const audit = await s.services.audit.list();
    const returnLines = audit.entries.filter((e) => e.operation.startsWith('return.'));
    expect(returnLines.map((e) => `${e.operation}:${e.outcome}`)).toEqual([
      'return.cancel:succeeded',
      'return.create_intent:succeeded',
    ]);
    // in words: the amount, the transfer's debtor as the bank has it, and the reason code
    const debtor = transfer.incoming?.debtorName;
    expect(debtor).toBeTruthy();
    expect(returnLines.map((e) => e.summary)).toEqual([
      `Return cancelled — 5.00 USD to ${debtor}, reason: following cancellation request`,
      `Return intent created — 5.00 USD to ${debtor}, reason: following cancellation request`,
    ]);
    // Cancelling again is refused in plain words.
    await expect(
      s.services.handlers['returns.cancel']({ profileId: s.services.session.profile.id, transactionId: id }),
    ).rejects.toMatchObject({
      reason: 'NO_RETURN_INTENT',
    });
  });
});

describe('returns service: following survives a restart', () => {
  it('a return confirmed before a restart is followed again at start and notified once when it completes', async () => {
    const own = await startSandbox({ visibilityDelayMs: { min: 0, max: 0 }, returnCompletionDelayMs: 2500 });
    const le = own.fixtures.legal_entities[0]!;
    const environment = { kind: 'remote' as const, baseUrl: own.url, token: le.tokens.admin };
    const account = le.accounts.find((a) => a.name === 'Alder USD operating')!;
    const res = await fetch(`${own.url}/v1/sandbox/incoming-transfers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...own.controlHeaders() },
      body: JSON.stringify({ legal_entity_id: le.id, creditor_account_id: account.id, amount: '300000' }),
    });
    const id = ((await res.json()) as { transaction_id: string }).transaction_id;
    const run1 = await startServices({ environment });
    try {
      await run1.services.session.check();
      await run1.services.handlers['returns.lookup']({
        profileId: run1.services.session.profile.id,
        transactionId: id,
      });
      await run1.services.handlers['returns.createIntent']({
        profileId: run1.services.session.profile.id,
        operationId: 'ret-svc-follow-restart-1',
        transactionId: id,
        amount: '1000',
        reasonCode: 'CUST',
      });
      await run1.services.handlers['returns.review']({
        profileId: run1.services.session.profile.id,
        transactionId: id,
      });
      const confirmed = await run1.services.handlers['returns.confirm']({
        profileId: run1.services.session.profile.id,
        transactionId: id,
      });
      expect(confirmed.status).toBe('in_progress');
      expect(run1.services.returns.following()).toEqual([id]);
      await run1.stop();

      // The next run: nothing is opened; the confirmed return is followed from the start.
      const run2 = await startServices({ environment, dataDir: run1.dataDir });
      try {
        await expect
          .poll(() => run2.platform.notifications.map((n) => n.body), { timeout: 10_000 })
          .toEqual([`The return 10.00 USD of transfer ${id} is completed.`]);
        const changed = run2.pushed
          .filter((m) => m.event === 'returns.changed')
          .map((m) => (m.payload as ReturnEntry).phase);
        expect(changed).toEqual(['completed']);
        expect(run2.services.returns.following()).toEqual([]);
      } finally {
        await run2.stop();
      }
    } finally {
      await run1.close();
      await own.close();
    }
  });
});
