import { test as base, expect } from '@playwright/test';
import type { Page } from '@playwright/test';
import { startSandbox } from '../../src/sandbox';
import type { RunningSandbox } from '../../src/sandbox';
import { startHarness } from '../harness/harness';
import type { Harness } from '../harness/harness';
import { startFaultProxy } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';
import { chooseOption } from './ui-controls';

/**
 * Returns over a network that misbehaves: a loopback proxy between main and the sandbox sees every
 * request and can lose an answer after the bank processed the request, or answer 404 while the
 * bank has not yet shown a just-created record. Main talks to the proxy as a remote profile.
 */
interface Rig {
  sandbox: RunningSandbox;
  proxy: FaultProxy;
  harness: Harness;
  app: Page;
  transferId: string;
}

const test = base.extend<{ rig: Rig; retryAttempts: number }>({
  retryAttempts: [4, { option: true }],
  rig: async ({ context, retryAttempts }, use) => {
    const sandbox = await startSandbox({ visibilityDelayMs: { min: 0, max: 0 } });
    const proxy = await startFaultProxy(sandbox.url);
    const le = sandbox.fixtures.legal_entities[0];
    const transfer = le?.incoming_transfers.find((t) => t.amount === '1250000');
    if (!le || !transfer) throw new Error('seed changed: no 12,500.00 USD transfer of legal entity A');
    const harness = await startHarness({
      services: {
        environment: { kind: 'remote', baseUrl: proxy.url, name: 'Bank via proxy', token: le.tokens.admin },
        bankRetry: { attempts: retryAttempts, baseDelayMs: 20, maxDelayMs: 100 },
        readAfterCreate: { firstDelayMs: 300, maxDelayMs: 800 },
      },
    });
    await harness.attach(context);
    const app = await harness.open(context);
    const errors: string[] = [];
    app.on('pageerror', (e) => errors.push(e.message));
    await expect(app.getByTestId('connection-role')).toHaveText('Admin');
    await use({ sandbox, proxy, harness, app, transferId: transfer.transaction_id });
    await harness.close();
    await proxy.close();
    await sandbox.close();
    expect(errors).toEqual([]);
  },
});

const isPost = (r: { method: string; path: string }) =>
  r.method === 'POST' && r.path === '/v1/transfer/return';

async function fillReturn(app: Page, id: string): Promise<void> {
  await app.getByRole('link', { name: 'Returns' }).click();
  await app.getByLabel('Transaction id of the incoming transfer').fill(id);
  await app.getByRole('button', { name: 'Open', exact: true }).click();
  await expect(app.getByTestId('transfer-amount')).toHaveText('12,500.00 USD');
  await app.getByRole('button', { name: 'Return this transfer…' }).click();
  await app.getByLabel('Amount to return (USD)').fill('250');
  await chooseOption(app, app, 'Reason', /\(FOCR\)$/);
  await app.getByRole('button', { name: 'Create return intent' }).click();
}

/** Transactions of the sandbox that carry a return, with the key that created it. */
async function returnsAtTheBank(sandbox: RunningSandbox): Promise<Array<{ id: string; key: string | null }>> {
  const res = await fetch(`${sandbox.url}/v1/sandbox/transactions`, { headers: sandbox.controlHeaders() });
  const body = (await res.json()) as {
    data: Array<{
      transaction: { transaction_id: string; fi_to_fi_swift_incoming?: { return_transfer_amount?: string } };
      idempotency_key: string | null;
    }>;
  };
  return body.data
    .filter((d) => d.transaction.fi_to_fi_swift_incoming?.return_transfer_amount !== undefined)
    .map((d) => ({ id: d.transaction.transaction_id, key: d.idempotency_key }));
}

test.describe('returns over an unreliable network', () => {
  test('the 404 window after creation shows "processing", then the review pane; nothing is sent twice', async ({
    rig,
  }) => {
    const { app, proxy, transferId } = rig;
    // The bank's read-after-create window: the record answers 404 for 2.5 s after the POST.
    let visibleAt = 0;
    let notFound = 0;
    proxy.rules.push((req) => {
      if (isPost(req)) {
        visibleAt = Date.now() + 2500;
        return undefined;
      }
      if (req.method === 'GET' && req.path === `/v1/transactions/${transferId}` && Date.now() < visibleAt) {
        notFound++;
        return {
          kind: 'respond',
          status: 404,
          body: {
            error: { code: '404', status: 'NOT_FOUND', message: `transaction ${transferId} not found` },
          },
        };
      }
      return undefined;
    });
    await fillReturn(app, transferId);
    const processing = app.getByTestId('return-processing');
    await expect(processing).toContainText('Processing.');
    await expect(processing).toContainText('Waiting for the bank to show it');
    await expect.poll(() => notFound).toBeGreaterThanOrEqual(2);
    await expect(processing).toBeVisible();
    await expect(app.getByTestId('return-review')).toBeVisible({ timeout: 15_000 });
    await expect(processing).toBeHidden();
    await expect(app.getByTestId('return-amount')).toHaveText('250.00 USD');
    await expect(app.getByTestId('return-reason')).toContainText('FOCR');
    expect(notFound).toBeGreaterThanOrEqual(2);
    expect(proxy.seen.filter(isPost)).toHaveLength(1);
  });

  test('a lost answer is retried by main with the same key: the analyst sees the review and the bank holds one intent', async ({
    rig,
  }) => {
    const { app, proxy, sandbox, transferId } = rig;
    let lost = 0;
    proxy.rules.push((req) => {
      if (isPost(req) && lost === 0) {
        lost++;
        return { kind: 'lose-answer' };
      }
      return undefined;
    });
    await fillReturn(app, transferId);
    await expect(app.getByTestId('return-review')).toBeVisible();
    const posts = proxy.seen.filter(isPost);
    expect(posts).toHaveLength(2);
    expect(posts[1]?.headers['idempotency-key']).toBe(posts[0]?.headers['idempotency-key']);
    expect(await returnsAtTheBank(sandbox)).toEqual([
      { id: transferId, key: posts[0]?.headers['idempotency-key'] },
    ]);
  });

  test.describe('without automatic retries', () => {
    test.use({ retryAttempts: 1 });

    test('the answer to the POST is lost after the bank processed it; "Send again" reuses the key and exactly one intent exists', async ({
      rig,
    }) => {
      const { app, proxy, sandbox, harness, transferId } = rig;
      let lost = 0;
      proxy.rules.push((req) => {
        if (isPost(req) && lost === 0) {
          lost++;
          return { kind: 'lose-answer' };
        }
        return undefined;
      });
      await fillReturn(app, transferId);
      const problem = app.getByTestId('return-send-problem');
      await expect(problem).toContainText(
        'it is not known whether the request arrived. Send again when the connection is back: the same key is used, so no second return is created.',
      );
      // The bank did create the intent: one return exists already.
      expect(await returnsAtTheBank(sandbox)).toHaveLength(1);

      await problem.getByRole('button', { name: 'Send again' }).click();
      await expect(app.getByTestId('return-review')).toBeVisible();
      await expect(app.getByTestId('return-amount')).toHaveText('250.00 USD');

      const posts = proxy.seen.filter(isPost);
      expect(posts).toHaveLength(2);
      const key = posts[0]?.headers['idempotency-key'];
      expect(typeof key).toBe('string');
      expect(posts[1]?.headers['idempotency-key']).toBe(key);
      expect(await returnsAtTheBank(sandbox)).toEqual([{ id: transferId, key }]);
      expect(harness.services.ledger.list()).toMatchObject([
        { key, state: 'succeeded', transactionId: transferId, attempt: 1 },
      ]);
      // The return's writes (main's own approval of the proxy's address is audited too).
      const { entries } = await harness.services.audit.list();
      const returnLines = entries.filter((e) => e.operation === 'return.create_intent');
      expect(returnLines.map((e) => [e.operation, e.outcome, e.idempotencyKey])).toEqual([
        ['return.create_intent', 'succeeded', key],
        ['return.create_intent', 'pending', key],
      ]);

      await app.getByRole('link', { name: 'Back to Returns' }).click();
      await expect(app.getByTestId('returns-row')).toHaveCount(1);
      await expect(app.getByTestId('returns-row-phase')).toHaveText('Intent created');
    });
  });
});
