import { describe, expect, it } from 'vitest';
import { quoteTitle, returnTitle } from '../../src/renderer/src/features/overview/labels';
import { weekRange } from '../../src/renderer/src/features/rfis/queue-store';

describe('overview names', () => {
  it('names a quote by what is bought or sold, in asset labels, amount from minor units', () => {
    const base = { base_asset: 'ETHEREUM-USDT', quote_asset: 'USD' };
    expect(
      quoteTitle({ ...base, side: 'buy', requested_asset: 'ETHEREUM-USDT', requested_amount: '25000000' }),
    ).toBe('Buy 25.00 USDT for USD');
    expect(quoteTitle({ ...base, side: 'sell', requested_asset: 'USD', requested_amount: '320050' })).toBe(
      'Sell USDT for 3,200.50 USD',
    );
  });

  it('names a return by its debtor when known', () => {
    expect(returnTitle('Kestrel Components SA')).toBe('Return to Kestrel Components SA');
    expect(returnTitle(null)).toBe('Return of a transfer');
  });
});

describe('weekRange', () => {
  it('is the seven local days from the Monday named, and nothing for a non-date', () => {
    const r = weekRange('2026-11-02')!;
    expect(new Date(r.start).getDate()).toBe(2);
    expect(new Date(r.end).getDate()).toBe(9);
    expect(r.label).toMatch(/2/);
    expect(weekRange('2026-02-30')).toBeNull();
    expect(weekRange('last week')).toBeNull();
  });
});
