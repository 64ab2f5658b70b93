import { describe, expect, it } from 'vitest';
import { outsideMandate, type MandateContent } from '../../src/main/team/exchange-mandates';

const buy: MandateContent = {
  kind: 'exchange',
  side: 'buy',
  asset: 'ETHEREUM-USDT',
  amount: '250000000',
  worstRate: '1.0010',
};
const order = (over: Partial<{ side: string; asset: string; amount: string; rate: string | null }> = {}) => ({
  side: 'buy',
  asset: 'ETHEREUM-USDT',
  amount: '250000000',
  rate: '1.0010',
  ...over,
});

describe('a quote against its mandate', () => {
  it('takes a rate equal to or better than the worst acceptable one, compared exactly as decimals', () => {
    expect(outsideMandate(buy, order())).toBeNull();
    expect(outsideMandate(buy, order({ rate: '1.00099999999999999' }))).toBeNull();
    expect(outsideMandate(buy, order({ rate: '1.001' }))).toBeNull();
    expect(outsideMandate(buy, order({ rate: '1.0010000000000001' }))).toContain('worse than');
    const sell: MandateContent = { ...buy, side: 'sell', worstRate: '0.9990' };
    expect(outsideMandate(sell, order({ side: 'sell', rate: '0.9991' }))).toBeNull();
    expect(outsideMandate(sell, order({ side: 'sell', rate: '0.9989' }))).toContain(
      'the quoted rate 0.9989 is worse than the mandate’s worst acceptable rate 0.9990',
    );
  });

  it('refuses another side, asset or amount, and a quote without a rate', () => {
    expect(outsideMandate(buy, order({ side: 'sell' }))).toContain('the mandate is to buy');
    expect(outsideMandate(buy, order({ asset: 'ETHEREUM-USDC' }))).toContain('for ETHEREUM-USDT');
    expect(outsideMandate(buy, order({ amount: '250000001' }))).toContain('amount');
    expect(outsideMandate(buy, order({ rate: null }))).toContain('not quoted a rate');
  });
});
