/**
 * A money send's lease while the bank write is under way. Maria's real workstation (her own bank
 * credential, the real team server, PostgreSQL and the sandbox bank, reached through a proxy that
 * holds each confirm longer than two leases) confirms what Jonas asked for and she approved (a
 * return; an exchange inside a mandate): her workstation renews the send job's lease meanwhile, so
 * Jonas's attempts to lease the job are refused throughout, PostgreSQL shows one holder whose
 * expiry moved on, the job ends done, and the bank confirmed it once.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { returnContentOf } from '../../src/main/team/return-approvals';
import type { Approval } from '../../src/shared/team/schemas';
import type { RunningSandbox } from '../../src/sandbox';
import type { FaultProxy } from '../support/fault-proxy';
import { sandboxStaff } from '../support/sandbox-staff';
import type { TestServices } from '../support/services';
import { startLeaseScene, type LeaseScene } from './lease-scene';
import type { TeamStack } from './support';

const LEASE_SECONDS = 2;
/** A confirm reaches the bank this long after it left: longer than two leases. */
const CONFIRM_DELAY_MS = 4_500;
/** The bank's confirm of a return intent or of a quote (their creation is a POST to the same path). */
const confirmOf = (path: string) => (r: { method: string; path: string }) =>
  r.method === 'PUT' && r.path.split('?')[0] === path;
const isReturnConfirm = confirmOf('/v1/transfer/return');
const isOrderConfirm = confirmOf('/v1/crypto/order');

let scene: LeaseScene;
let stack: TeamStack;
let sandbox: RunningSandbox;
let proxy: FaultProxy;
let maria: TestServices;
let entity: string;

beforeAll(async () => {
  scene = await startLeaseScene({
    seed: 'money-send-lease',
    leaseSeconds: LEASE_SECONDS,
    slow: (r) => isReturnConfirm(r) || isOrderConfirm(r),
    delayMs: CONFIRM_DELAY_MS,
    rules: [
      { kind: 'return', above: '100000' },
      { kind: 'exchange', above: '100000000' },
    ],
  });
  ({ stack, sandbox, proxy, maria, entity } = scene);
}, 120_000);

afterAll(async () => scene?.close());

const jobRows = async (objectId: string) =>
  (
    await stack.sql.query<{
      id: string;
      status: string;
      lease_number: number;
      leased_by: string | null;
      lease_expires_at: Date | null;
      bank_reference: string | null;
    }>(
      `SELECT id, status, lease_number, leased_by, lease_expires_at, bank_reference
         FROM send_jobs WHERE legal_entity_id = $1 AND object_id = $2`,
      [entity, objectId],
    )
  ).rows;

/**
 * Watches a money send job while its confirm is under way: Jonas tries to lease it again and again
 * and is refused each time, the holder stays Maria's lease 1 and its expiry moves on (the confirm
 * outlives the lease twice over). Resolves once the job left `leased`, with the job as it ended.
 */
async function heldThroughout(objectId: string, confirming: Promise<unknown>) {
  const started = Date.now();
  // A refused confirm fails the test here rather than leaving the loop waiting.
  let failed: unknown = null;
  confirming.catch((err: unknown) => (failed = err));
  await expect
    .poll(async () => failed ?? (await jobRows(objectId))[0]?.status, { timeout: 10_000, interval: 50 })
    .toBe('leased');
  const jonas = stack.as('jonas.weber');
  const expiries = new Set<number>();
  let refusals = 0;
  for (;;) {
    const rows = await jobRows(objectId);
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    if (row.status !== 'leased') break;
    expect(row).toMatchObject({ lease_number: 1, leased_by: 'maria.keller' });
    expiries.add(row.lease_expires_at!.getTime());
    const attempt = await jonas.post(`/v1/send-jobs/${row.id}/lease`, { workstation: 'jonas-laptop' });
    expect(attempt.status).toBe(409);
    expect(attempt.body).toMatchObject({ error: { code: 'not_leasable' } });
    refusals += 1;
    expect(Date.now() - started).toBeLessThan(30_000);
    await new Promise((r) => setTimeout(r, 300));
  }
  const sendMs = Date.now() - started;
  // The send outlived the lease twice over; the expiry was renewed meanwhile.
  expect(refusals).toBeGreaterThan(3);
  expect(expiries.size).toBeGreaterThan(2);
  const job = (await jobRows(objectId))[0]!;
  expect(job).toMatchObject({ status: 'done', lease_number: 1, leased_by: 'maria.keller' });
  // Renewals end with the send.
  expect(maria.services.approvals.leases.held().has(job.id)).toBe(false);
  return { sendMs, job };
}

/** The transaction as the bank holds it (control view: who confirmed its return). */
async function banked(txId: string) {
  const row = (await sandboxStaff(sandbox).listTransactions()).data.find(
    (t) => t.transaction.transaction_id === txId,
  );
  expect(row).toBeDefined();
  return row!;
}

/** The creditor account's money not held for anything, at the bank. */
async function available(accountId: string): Promise<bigint> {
  const a = (await sandboxStaff(sandbox).listAccounts()).data.find((x) => x.id === accountId)!;
  return BigInt(a.balance) - BigInt(a.held);
}

/** Jonas (maker) asks for approval of a return of 1,500.00 as the bank holds it, and Maria approves it. */
async function approvedReturn(debtor: string) {
  const m = maria.services.handlers;
  const profileId = maria.services.session.profile.id;
  const transfer = await sandboxStaff(sandbox).createIncomingTransfer({
    legal_entity_id: entity,
    amount: '250000',
    debtor_name: debtor,
  });
  const txId = transfer.transaction_id;
  const ref = { profileId, transactionId: txId };
  await m['returns.lookup'](ref);
  await m['returns.createIntent']({
    ...ref,
    operationId: `lease-return-${randomBytes(4).toString('hex')}`,
    amount: '150000',
    reasonCode: 'AC03',
  });
  const content = returnContentOf(await m['returns.lookup'](ref));
  expect(content).toMatchObject({ kind: 'return', transactionId: txId, amount: '150000' });
  const asked = await stack.as('jonas.weber').post<Approval>('/v1/approvals', {
    legalEntityId: entity,
    objectId: txId,
    content,
  });
  expect(asked.status).toBe(201);
  await expect
    .poll(
      async () =>
        (await m['team.returnApprovals'](undefined)).find((a) => a.transactionId === txId)?.mayDecide,
      { timeout: 15_000 },
    )
    .toBe(true);
  await m['team.decideReturnApproval']({
    ...ref,
    approvalId: asked.body.id,
    decision: 'approve',
    contentHash: asked.body.contentHash,
  });
  await expect.poll(async () => (await m['team.returnApproval'](ref)).covers, { timeout: 15_000 }).toBe(true);
  return { ref, txId };
}

describe('a return confirm longer than its lease', () => {
  it('is not taken over: the confirmer renews the lease until the bank confirmed the return once', async () => {
    const m = maria.services.handlers;
    const { ref, txId } = await approvedReturn('Harbour Freight Ltd');
    const accountId = (await banked(txId)).transaction.fi_to_fi_swift_incoming!.creditor_account_id;
    const before = await available(accountId);

    // Maria confirms: the bank holds the confirm longer than two leases.
    const confirming = m['returns.confirm'](ref);
    const { sendMs, job } = await heldThroughout(txId, confirming);
    const view = await confirming;
    expect(['in_progress', 'return_completed']).toContain(view.status);
    expect(sendMs).toBeGreaterThan(LEASE_SECONDS * 1000 * 2);
    expect(job).toMatchObject({ bank_reference: txId });
    // The bank confirmed the return once, with Maria's credential: one confirm reached it, and
    // the account's available money fell by the return's amount once.
    expect(proxy.log.filter((e) => isReturnConfirm(e)).map((e) => e.upstreamStatus)).toEqual([200]);
    const row = await banked(txId);
    expect(['in_progress', 'return_completed']).toContain(row.transaction.status);
    // Maria's credential at the bank (the sandbox's admin user of the entity).
    expect(row.return_confirmed_by).toMatchObject({ first_name: 'Alex', last_name: 'Morgan' });
    expect(before - (await available(accountId))).toBe(150_000n);
  }, 90_000);
});

/** Jonas (maker) asks for a mandate (buy 250 USDT at 1.0100 at most) and Maria approves it. */
async function approvedMandate(): Promise<string> {
  const m = maria.services.handlers;
  const profileId = maria.services.session.profile.id;
  const mandateId = `mandate-${randomBytes(6).toString('hex')}`;
  const asked = await stack.as('jonas.weber').post<Approval>('/v1/approvals', {
    legalEntityId: entity,
    objectId: mandateId,
    content: {
      kind: 'exchange',
      side: 'buy',
      asset: 'ETHEREUM-USDT',
      amount: '250000000',
      worstRate: '1.0100',
    },
  });
  expect(asked.status).toBe(201);
  await expect
    .poll(async () => (await m['team.mandates'](undefined)).find((x) => x.id === mandateId)?.mayDecide, {
      timeout: 15_000,
    })
    .toBe(true);
  await m['team.decideMandate']({
    profileId,
    approvalId: asked.body.id,
    decision: 'approve',
    contentHash: asked.body.contentHash,
  });
  await expect
    .poll(async () => (await m['team.mandates'](undefined)).find((x) => x.id === mandateId)?.status, {
      timeout: 15_000,
    })
    .toBe('approved');
  return mandateId;
}

/** Maria's quote inside the mandate (USD pays, USDT received), read until it may be confirmed. */
async function quoteInside(): Promise<{ profileId: string; orderId: string; transactionId: string }> {
  const m = maria.services.handlers;
  const profileId = maria.services.session.profile.id;
  const le = sandbox.fixtures.legal_entities[0]!;
  const quote = await m['crypto.quote']({
    profileId,
    side: 'buy',
    symbol: 'USDT-USD',
    requestedAsset: 'ETHEREUM-USDT',
    requestedAmount: '250000000',
    paysAccountId: le.accounts.find((a) => a.asset === 'USD')!.id,
    receivesAccountId: le.accounts.find((a) => a.asset === 'ETHEREUM-USDT')!.id,
  });
  const ref = { profileId, orderId: quote.id };
  await expect
    .poll(async () => (await m['crypto.order']({ ...ref, refresh: true })).confirmable, { timeout: 15_000 })
    .toBe(true);
  return { ...ref, transactionId: quote.transactionId! };
}

const mandateOf = async (mandateId: string) =>
  (await maria.services.handlers['team.mandates'](undefined)).find((x) => x.id === mandateId);

describe('an exchange confirm inside a mandate, longer than its lease', () => {
  it('is not taken over: the confirmer renews the lease until the bank confirmed the quote once', async () => {
    const m = maria.services.handlers;
    const mandateId = await approvedMandate();
    const { transactionId: _tx, ...ref } = await quoteInside();

    // Maria confirms: the bank holds the confirm longer than two leases.
    const confirming = m['crypto.confirm'](ref);
    const { sendMs, job } = await heldThroughout(mandateId, confirming);
    const view = await confirming;
    expect(sendMs).toBeGreaterThan(LEASE_SECONDS * 1000 * 2);
    expect(view.transactionId).toBeTruthy();
    expect(job).toMatchObject({ bank_reference: view.transactionId });
    // The bank confirmed the quote once: one confirm reached it, and the order is confirmed.
    expect(proxy.log.filter((e) => isOrderConfirm(e)).map((e) => e.upstreamStatus)).toEqual([200]);
    const row = await banked(view.transactionId!);
    expect(row.transaction.status).toMatch(/^(pending_execution|completed)$/);
    expect(row.transaction.crypto_trade_v2?.quote_confirmed_at).toBeTruthy();
    // The mandate reads as used.
    await expect.poll(async () => (await mandateOf(mandateId))?.used, { timeout: 15_000 }).toBe(true);
  }, 90_000);
});

describe('a mandate whose confirm did not go through, or whose answer was lost', () => {
  it('stays usable after the bank refused a confirm, and after a lost answer the next confirm reads the bank first and never exchanges twice', async () => {
    const m = maria.services.handlers;
    const mandateId = await approvedMandate();
    const confirmsOf = (txId: string) => async () =>
      (await banked(txId)).transaction.crypto_trade_v2?.quote_confirmed_at ?? null;

    // The bank refuses the first confirm (422): nothing changed there, so the mandate stays usable.
    const first = await quoteInside();
    proxy.rules.push((r) =>
      isOrderConfirm(r)
        ? { kind: 'respond', status: 422, body: { error: { message: 'rate moved' } } }
        : undefined,
    );
    await expect(m['crypto.confirm'](first)).rejects.toMatchObject({ kind: 'precondition' });
    proxy.rules.length = 0;
    expect(await jobRows(mandateId)).toEqual([
      expect.objectContaining({ status: 'queued', lease_number: 1, bank_reference: null }),
    ]);
    expect(await confirmsOf(first.transactionId)()).toBeNull();
    expect(await mandateOf(mandateId)).toMatchObject({ status: 'approved', used: false });

    // The second confirm reaches the bank, but its answer is lost: not known whether it went through.
    const second = await quoteInside();
    proxy.rules.push((r) => (isOrderConfirm(r) ? { kind: 'lose-answer' } : undefined));
    await expect(m['crypto.confirm'](second)).rejects.toBeDefined();
    proxy.rules.length = 0;
    expect(await confirmsOf(second.transactionId)()).toBeTruthy();
    const [row] = await jobRows(mandateId);
    expect(row).toMatchObject({ status: 'queued', bank_reference: second.transactionId });

    // A third quote under the same mandate: the bank is read first, the earlier exchange went
    // through, so the mandate is used and the third quote is never confirmed.
    const third = await quoteInside();
    const confirmsBefore = proxy.seen.filter(isOrderConfirm).length;
    await expect(m['crypto.confirm'](third)).rejects.toMatchObject({
      kind: 'conflict',
      reason: 'MANDATE_USED',
      message: expect.stringContaining('earlier exchange went through at the bank'),
    });
    expect(proxy.seen.filter(isOrderConfirm).length).toBe(confirmsBefore);
    expect(await confirmsOf(third.transactionId)()).toBeNull();
    expect(await jobRows(mandateId)).toEqual([
      expect.objectContaining({ status: 'done', bank_reference: second.transactionId }),
    ]);
    await expect.poll(async () => (await mandateOf(mandateId))?.used, { timeout: 15_000 }).toBe(true);
  }, 120_000);
});

describe('an approved return whose rule was dropped since', () => {
  it('is confirmed as its send job all the same: one job, done, one confirm at the bank', async () => {
    const m = maria.services.handlers;
    const rules = (await m['team.approvalRules'](undefined)).find((e) => e.legalEntityId === entity)!.rules;
    expect(rules).toContainEqual({ kind: 'return', above: '100000' });
    const { ref, txId } = await approvedReturn('Nordlicht Logistik GmbH');
    const confirmsBefore = proxy.log.filter((e) => isReturnConfirm(e)).length;
    // The admin drops the returns rule: by the rules now, the return needs no checker.
    try {
      await m['team.setApprovalRules']({
        legalEntityId: entity,
        rules: rules.filter((r) => r.kind !== 'return'),
      });
      await expect
        .poll(async () => m['team.returnApproval'](ref), { timeout: 15_000 })
        .toMatchObject({ required: false, covers: true });

      // Confirmed as the approval's send job, not straight through: the team's one job, done,
      // leased by Maria, holding the bank's reference; the bank confirmed once, with her credential.
      const view = await m['returns.confirm'](ref);
      expect(['in_progress', 'return_completed']).toContain(view.status);
      expect(await jobRows(txId)).toEqual([
        expect.objectContaining({
          status: 'done',
          lease_number: 1,
          leased_by: 'maria.keller',
          bank_reference: txId,
        }),
      ]);
      expect(
        proxy.log
          .filter((e) => isReturnConfirm(e))
          .slice(confirmsBefore)
          .map((e) => e.upstreamStatus),
      ).toEqual([200]);
      expect((await banked(txId)).return_confirmed_by).toMatchObject({
        first_name: 'Alex',
        last_name: 'Morgan',
      });
    } finally {
      await m['team.setApprovalRules']({ legalEntityId: entity, rules });
    }
  }, 60_000);
});
