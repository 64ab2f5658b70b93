import { act, cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { QuoteView } from '../../src/renderer/src/features/crypto/QuoteView';
import { useCrypto } from '../../src/renderer/src/features/crypto/store';
import type { CryptoContext, OrderView } from '../../src/shared/ipc/channels/crypto';

/** The quote review against a fake `window.desk` answering fixed views. */
const context: CryptoContext = {
  environmentId: 'sandbox',
  role: 'admin',
  legalEntityId: 'le_a',
  canTrade: true,
  readOnlyReason: null,
  accounts: [],
  confirmMarginMs: 2000,
};

function orderView(over: Partial<OrderView> & { validInMs: number; serverAheadMs?: number }): OrderView {
  const serverNow = Date.now() + (over.serverAheadMs ?? 0);
  const { validInMs, serverAheadMs: _s, ...rest } = over;
  const iso = new Date(serverNow).toISOString();
  return {
    id: 'cx-1',
    environmentId: 'sandbox',
    createdAt: iso,
    requoteOf: null,
    request: {
      side: 'buy',
      symbol: 'USDT-USD',
      base_asset: 'ETHEREUM-USDT',
      quote_asset: 'USD',
      requested_asset: 'ETHEREUM-USDT',
      requested_amount: '1000000',
      customer_pays_account_id: 'acc_usd',
      customer_receives_account_id: 'acc_usdt',
      description: '',
      additional_details: '',
    },
    idempotencyKey: 'td-key',
    transactionId: 'txn_1',
    phase: 'visible',
    status: 'in_progress',
    displayStatus: 'in_progress',
    crypto: {
      transaction_id: 'txn_1',
      customer_legal_entity_id: 'le_a',
      initiated_by: { id: 'usr_1', first_name: 'Ada', last_name: 'Admin' },
      checked_by: null,
      checked_at: null,
      priority: 'instant',
      side: 'buy',
      rail: 'rfq',
      symbol: 'USDT-USD',
      base_asset: 'ETHEREUM-USDT',
      quote_asset: 'USD',
      customer_pays_account_id: 'acc_usd',
      customer_pays_account_name: 'Operating USD',
      customer_pays_account_iban: 'GB00TEST',
      customer_pays_account_wallet_address: '',
      customer_receives_account_id: 'acc_usdt',
      customer_receives_account_name: 'USDT wallet',
      customer_receives_account_iban: '',
      customer_receives_account_wallet_address: '0xabc',
      customer_requested_asset: 'ETHEREUM-USDT',
      customer_requested_amount: '1000000',
      customer_pays_asset: 'USD',
      customer_pays_amount: '101',
      customer_receives_asset: 'ETHEREUM-USDT',
      customer_receives_amount: '1000000',
      customer_rate: '1.0010',
      quote_valid_until: new Date(serverNow + validInMs).toISOString(),
      quote_confirmed_at: null,
      description: '',
      additional_details: '',
      document_ids: [],
      transaction_hash: '',
      customer_pays_network_fee_asset: '',
      customer_pays_network_fee_amount: null,
      customer_pays_network_fee_account_id: 'acc_usd',
      created_at: iso,
      updated_at: iso,
    },
    error: null,
    serverNow: iso,
    safetyMarginMs: 2100,
    confirmable: true,
    lastReadAt: iso,
    ...rest,
  };
}

let answer: OrderView;

beforeEach(() => {
  (globalThis as unknown as { desk: unknown }).desk = {
    invoke: async (channel: string) => {
      if (channel === 'crypto.context') return { ok: true, value: context };
      if (channel === 'crypto.order') return { ok: true, value: answer };
      // An order opened by its id alone (a link) is named with its owning profile from the list.
      if (channel === 'crypto.list') return { ok: true, value: { orders: [answer] } };
      return { ok: false, error: { kind: 'internal', message: `unexpected ${channel}` } };
    },
    subscribe: () => () => undefined,
  };
  useCrypto.setState({ orders: {}, errors: {}, busy: {}, context: null, offsetMs: 0 });
});
afterEach(() => cleanup());

async function show(): Promise<void> {
  render(<QuoteView orderId="cx-1" />);
  await act(async () => {
    await Promise.resolve();
  });
  await screen.findByTestId('crypto-facts');
}

describe('QuoteView', () => {
  it('shows the decision fields and enables Confirm with time to spare, in bank time', async () => {
    // The bank runs an hour ahead of this window; 30 s remain in bank time.
    answer = orderView({ validInMs: 30_000, serverAheadMs: 3600_000 });
    await show();
    expect(screen.getByTestId('crypto-pays').textContent).toBe('1.01 USD');
    expect(screen.getByTestId('crypto-receives').textContent).toBe('1.00 USDT');
    expect(screen.getByTestId('crypto-rate').textContent).toBe('1 USDT = 1.0010 USD');
    // Names before ids: the asset's name, its network and wire id on hover and in the facts.
    expect(
      within(screen.getByTestId('crypto-receives')).getByTitle('USDT · Ethereum (ETHEREUM-USDT)').textContent,
    ).toBe('USDT');
    // The pair in words first, its symbol after, secondary.
    const pair = screen.getByTestId('crypto-pair-words');
    expect(pair.textContent).toMatch(/^Buy USDT with USD USDT-USD$/);
    expect(within(pair).getByText('USDT-USD').tagName).toBe('CODE');
    expect(within(pair).getByTitle('USDT · Ethereum / USD')).toBeTruthy();
    expect(screen.getByTestId('crypto-initiated-by').textContent).toContain('Ada Admin');
    const remaining = Number(screen.getByTestId('crypto-countdown').getAttribute('data-remaining-seconds'));
    // 30 s in bank time, not the hour the window's clock is behind. The bank's clock is learnt when
    // the view arrives, so the milliseconds between building this view and its arrival can round the
    // whole seconds up by one.
    expect(remaining).toBeGreaterThanOrEqual(29);
    expect(remaining).toBeLessThanOrEqual(31);
    expect((screen.getByTestId('crypto-confirm') as HTMLButtonElement).disabled).toBe(false);
  });

  it('disables Confirm inside the safety margin even when main still said confirmable', async () => {
    answer = orderView({ validInMs: 1500 });
    await show();
    expect((screen.getByTestId('crypto-confirm') as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId('crypto-confirm-hint').textContent).toContain('safety margin');
    expect(screen.getByTestId('crypto-countdown').textContent).toContain('Urgent');
  });

  it('shows an unknown status as received, without a countdown or a Confirm', async () => {
    answer = orderView({
      validInMs: 30_000,
      status: 'queued_for_review',
      displayStatus: 'queued_for_review',
    });
    await show();
    expect(screen.getByTestId('crypto-status').textContent).toBe('Queued for review');
    expect(screen.queryByTestId('crypto-countdown')).toBeNull();
    expect((screen.getByTestId('crypto-confirm') as HTMLButtonElement).disabled).toBe(true);
  });

  it('shows a failed settlement with its reason and an expired quote as expired', async () => {
    const failed = orderView({
      validInMs: -5000,
      status: 'failed',
      displayStatus: 'failed',
      confirmable: false,
    });
    failed.crypto = {
      ...failed.crypto!,
      quote_confirmed_at: failed.serverNow,
      failure_reason: 'INSUFFICIENT_LIQUIDITY',
    };
    answer = failed;
    await show();
    // The bank's reason in words; its code stays on hover, never as the visible text.
    expect(screen.getByTestId('crypto-settlement-state').textContent).toContain('Insufficient liquidity');
    expect(screen.getByTestId('crypto-settlement-state').textContent).not.toContain('INSUFFICIENT_LIQUIDITY');
    expect(
      screen
        .getByTestId('crypto-settlement-state')
        .querySelector('[data-reason-code]')
        ?.getAttribute('title'),
    ).toContain('INSUFFICIENT_LIQUIDITY');
    cleanup();
    useCrypto.setState({ orders: {} });
    answer = orderView({ validInMs: -1000, displayStatus: 'expired', confirmable: false });
    await show();
    expect(screen.getByTestId('crypto-status').textContent).toBe('Expired');
    expect(screen.getByTestId('crypto-expired').textContent).toContain('Expired.');
  });

  it('says how long the quote stays valid on the bank clock, never "valid until now"', async () => {
    // The bank runs 10 minutes behind this window: 27 s remain by its clock.
    answer = orderView({ validInMs: 27_000, serverAheadMs: -600_000 });
    await show();
    const validity = screen.getByTestId('crypto-validity');
    expect(validity.getAttribute('data-state')).toBe('valid');
    expect(validity.textContent).toMatch(/by the bank’s clock: 2[67] seconds left/);
    expect(validity.textContent).toContain('Confirming closes 3 seconds before the end.');
    expect(validity.textContent).not.toMatch(/until now/i);
  });

  it('says plainly when the quote expired by the bank clock and leads to a new quote', async () => {
    // Main has not re-read it yet (still in progress), but the bank's clock is past its end.
    answer = orderView({ validInMs: -4000 });
    await show();
    const validity = screen.getByTestId('crypto-validity');
    expect(validity.getAttribute('data-state')).toBe('expired');
    expect(validity.textContent).toMatch(/^Expired at .+ by the bank’s clock, [45] seconds ago\./);
    expect(validity.textContent).toContain('ask for a new quote with the same details');
    expect((screen.getByTestId('crypto-confirm') as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId('crypto-confirm-hint').textContent).toContain('expired');
    expect(screen.getByTestId('crypto-requote').textContent).toBe('New quote with the same details');
  });

  it('inside the safety margin says it is too late to confirm and what to do', async () => {
    answer = orderView({ validInMs: 1500 });
    await show();
    const validity = screen.getByTestId('crypto-validity');
    expect(validity.getAttribute('data-state')).toBe('too-late');
    expect(validity.textContent).toMatch(/^Too late to confirm: the quote ends at .+, in [12] seconds?/);
    expect(validity.textContent).toContain('Ask for a new quote with the same details.');
  });
});
