import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  baseToQuote,
  decimalToMinor,
  decimalsOf,
  divRound,
  formatMinor,
  isMinorUnits,
  isPositiveMinorUnits,
  minorToDecimal,
  minorToString,
  multiplyByRate,
  parseMinor,
  parseRate,
  quoteToBase,
  rateToString,
  sortableMinor,
} from '../../src/shared/money';

describe('parseMinor', () => {
  it('accepts plain integer strings only', () => {
    expect(parseMinor('0')).toBe(0n);
    expect(parseMinor('1050')).toBe(1050n);
    expect(parseMinor('123456789012345678901234567890')).toBe(123456789012345678901234567890n);
    for (const bad of ['', '01', '-1', '+1', '1.0', '1e3', ' 1', '1 ', '0x10', '١٢', 'NaN', '1_000']) {
      expect(() => parseMinor(bad), bad).toThrow();
    }
    expect(() => parseMinor(5 as unknown as string)).toThrow();
    expect(isMinorUnits('0')).toBe(true);
    expect(isPositiveMinorUnits('0')).toBe(false);
    expect(isPositiveMinorUnits('7')).toBe(true);
    expect(minorToString(42n)).toBe('42');
    expect(() => minorToString(-1n)).toThrow();
  });

  it('round-trips any non-negative bigint', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 40n }), (v) => parseMinor(v.toString()) === v));
  });
});

describe('decimals table', () => {
  it('knows ISO 4217 exceptions and the sandbox assets', () => {
    expect(decimalsOf('USD')).toBe(2);
    expect(decimalsOf('EUR')).toBe(2);
    expect(decimalsOf('JPY')).toBe(0);
    expect(decimalsOf('KRW')).toBe(0);
    for (const c of ['BHD', 'KWD', 'JOD', 'OMR', 'TND']) expect(decimalsOf(c)).toBe(3);
    expect(decimalsOf('ETHEREUM-USDC')).toBe(6);
    expect(decimalsOf('ETHEREUM-USDT')).toBe(6);
    expect(decimalsOf('usd')).toBe(2);
  });
});

describe('decimal ↔ minor units', () => {
  it('converts exactly and refuses excess precision and anything not a plain decimal', () => {
    expect(decimalToMinor('10', 2)).toBe(1000n);
    expect(decimalToMinor('10.5', 2)).toBe(1050n);
    expect(decimalToMinor('10.05', 2)).toBe(1005n);
    expect(decimalToMinor('0.000001', 6)).toBe(1n);
    expect(decimalToMinor('10', 0)).toBe(10n);
    expect(decimalToMinor('1.234', 3)).toBe(1234n);
    expect(() => decimalToMinor('10.001', 2)).toThrow(/decimal places/);
    expect(() => decimalToMinor('1.5', 0)).toThrow();
    for (const bad of ['', '.5', '5.', '-1', '1e2', '1,000.00', '01.5', ' 1', 'Infinity', '0x1']) {
      expect(() => decimalToMinor(bad, 2), bad).toThrow();
    }
    expect(minorToDecimal(1050n, 2)).toBe('10.50');
    expect(minorToDecimal(5n, 2)).toBe('0.05');
    expect(minorToDecimal(0n, 6)).toBe('0.000000');
    expect(minorToDecimal(10n, 0)).toBe('10');
    expect(minorToDecimal(-1050n, 2)).toBe('-10.50');
  });

  it('minorToDecimal then decimalToMinor is the identity (0–6 decimals)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 6 }), (v, d) => {
        return decimalToMinor(minorToDecimal(v, d), d) === v;
      }),
    );
  });
});

describe('formatMinor', () => {
  it('groups thousands and shows all decimals of the currency', () => {
    expect(formatMinor(123456n, 'USD')).toBe('1,234.56 USD');
    expect(formatMinor(123456n, 'JPY')).toBe('123,456 JPY');
    expect(formatMinor(1234567n, 'KWD')).toBe('1,234.567 KWD');
    expect(formatMinor(1n, 'ETHEREUM-USDT')).toBe('0.000001 ETHEREUM-USDT');
    // USDT and USDC read like dollars: 2 places unless a further place is significant.
    expect(formatMinor(25_000_000n, 'ETHEREUM-USDT')).toBe('25.00 ETHEREUM-USDT');
    expect(formatMinor(250_000_000_000n, 'ETHEREUM-USDC', { code: false })).toBe('250,000.00');
    expect(formatMinor(1_234_500n, 'ETHEREUM-USDC', { code: false })).toBe('1.2345');
    expect(formatMinor(1_230_000n, 'ETHEREUM-USDT', { code: false })).toBe('1.23');
    expect(formatMinor(100000000n, 'USD', { code: false })).toBe('1,000,000.00');
    expect(formatMinor(-5n, 'USD')).toBe('-0.05 USD');
  });
});

describe('rates and rounding', () => {
  it('parses exact decimal rates', () => {
    expect(parseRate('1.0013')).toEqual({ units: 10013n, scale: 4 });
    expect(rateToString(parseRate('0.9990'))).toBe('0.9990');
    expect(() => parseRate('0')).toThrow();
    expect(() => parseRate('1e-3')).toThrow();
  });

  it('rounds in the asked direction', () => {
    expect(divRound(10n, 3n, 'down')).toBe(3n);
    expect(divRound(10n, 3n, 'up')).toBe(4n);
    expect(divRound(9n, 3n, 'up')).toBe(3n);
    expect(() => divRound(1n, 0n, 'up')).toThrow();
    expect(multiplyByRate(1000n, parseRate('1.0015'), 'down')).toBe(1001n);
    expect(multiplyByRate(1000n, parseRate('1.0015'), 'up')).toBe(1002n);
  });

  it('converts between 6-decimal assets and 2-decimal USD exactly', () => {
    const r = parseRate('1.0010');
    // 100 USDT at 1.0010 = 100.10 USD
    expect(baseToQuote(100_000_000n, r, 6, 2, 'up')).toBe(10010n);
    // 1 micro-USDT costs at least one cent when rounding up, nothing when rounding down
    expect(baseToQuote(1n, r, 6, 2, 'up')).toBe(1n);
    expect(baseToQuote(1n, r, 6, 2, 'down')).toBe(0n);
    // 100.10 USD buys exactly 100 USDT
    expect(quoteToBase(10010n, r, 6, 2, 'down')).toBe(100_000_000n);
    expect(quoteToBase(10000n, r, 6, 2, 'down')).toBe(99_900_099n);
    expect(quoteToBase(10000n, r, 6, 2, 'up')).toBe(99_900_100n);
  });

  it('rounding up never undercharges and rounding down never overpays (bank’s favour)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 15n }),
        fc.integer({ min: 9000, max: 11000 }),
        (amt, units) => {
          const r = { units: BigInt(units), scale: 4 };
          const up = baseToQuote(amt, r, 6, 2, 'up');
          const down = baseToQuote(amt, r, 6, 2, 'down');
          // exact value = amt*units/10^8 (in USD cents)
          const exactNum = amt * BigInt(units);
          const den = 10n ** 8n;
          return up * den >= exactNum && down * den <= exactNum && up - down <= 1n;
        },
      ),
    );
  });
});

describe('sortableMinor', () => {
  it('orders amounts exactly past 2^53, and puts missing or malformed ones first', () => {
    const big = '9007199254740993'; // 2^53 + 1: a float makes it equal to 2^53
    expect(sortableMinor(big) > sortableMinor('9007199254740992')).toBe(true);
    expect(sortableMinor(null)).toBe(-1n);
    expect(sortableMinor('1.5')).toBe(-1n);
    expect(sortableMinor('0')).toBe(0n);
  });
});
