import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MoneyError,
  decimalToMinor,
  decimalsOf,
  formatMinor,
  minorToDecimal,
  readAmountInput,
} from '../../src/shared/money';

/** Decimal ↔ minor units for 0-, 2- and 3-decimal currencies, as the return form uses them. */
describe('decimal ↔ minor units by currency', () => {
  it('knows the decimals of JPY (0), USD/EUR (2) and KWD/BHD (3)', () => {
    expect(decimalsOf('JPY')).toBe(0);
    expect(decimalsOf('USD')).toBe(2);
    expect(decimalsOf('EUR')).toBe(2);
    expect(decimalsOf('KWD')).toBe(3);
    expect(decimalsOf('BHD')).toBe(3);
  });

  it('0 decimals (JPY): whole numbers only', () => {
    const d = decimalsOf('JPY');
    expect(decimalToMinor('0', d)).toBe(0n);
    expect(decimalToMinor('12500', d)).toBe(12500n);
    expect(minorToDecimal(12500n, d)).toBe('12500');
    expect(formatMinor(1234567n, 'JPY')).toBe('1,234,567 JPY');
    expect(() => decimalToMinor('12500.5', d)).toThrow(MoneyError);
    expect(() => decimalToMinor('12500.0', d)).toThrow(/at most 0/);
  });

  it('2 decimals (USD): pads short fractions, keeps exact cents', () => {
    const d = decimalsOf('USD');
    expect(decimalToMinor('12500', d)).toBe(1_250_000n);
    expect(decimalToMinor('12500.5', d)).toBe(1_250_050n);
    expect(decimalToMinor('0.01', d)).toBe(1n);
    expect(decimalToMinor('0.10', d)).toBe(10n);
    // Values floats get wrong (0.1 + 0.2 !== 0.3; 19.99 * 100 !== 1999).
    expect(decimalToMinor('0.3', d)).toBe(30n);
    expect(decimalToMinor('19.99', d)).toBe(1999n);
    expect(minorToDecimal(1999n, d)).toBe('19.99');
    expect(minorToDecimal(5n, d)).toBe('0.05');
    expect(formatMinor(1_250_000n, 'USD')).toBe('12,500.00 USD');
  });

  it('2 decimals: rejects excess precision rather than rounding', () => {
    expect(() => decimalToMinor('10.001', 2)).toThrow(/too many decimal places \(at most 2\)/);
    expect(() => decimalToMinor('0.005', 2)).toThrow(MoneyError);
    expect(() => decimalToMinor('19.990', 2)).toThrow(MoneyError);
  });

  it('3 decimals (KWD): thousandths are exact; a fourth decimal is refused', () => {
    const d = decimalsOf('KWD');
    expect(decimalToMinor('1.5', d)).toBe(1500n);
    expect(decimalToMinor('1.234', d)).toBe(1234n);
    expect(decimalToMinor('0.001', d)).toBe(1n);
    expect(minorToDecimal(1234n, d)).toBe('1.234');
    expect(minorToDecimal(7n, d)).toBe('0.007');
    expect(formatMinor(1_234_567n, 'KWD')).toBe('1,234.567 KWD');
    expect(() => decimalToMinor('1.2345', d)).toThrow(/at most 3/);
  });

  it('refuses anything that is not a plain decimal', () => {
    for (const bad of [
      '',
      ' 1',
      '1 ',
      '-1',
      '+1',
      '1e3',
      '1,000',
      '1.',
      '.5',
      '01',
      '1..2',
      'NaN',
      '0x10',
      '１',
    ]) {
      expect(() => decimalToMinor(bad, 2), bad).toThrow(MoneyError);
    }
  });

  it('round-trips every amount exactly for 0, 2 and 3 decimals (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.constantFrom(0, 2, 3), (v, d) => {
        expect(decimalToMinor(minorToDecimal(v, d), d)).toBe(v);
      }),
    );
  });
});

describe('readAmountInput', () => {
  it('reads a typed amount exactly into positive minor units', () => {
    expect(readAmountInput(' 1250.5 ', 2)).toEqual({ minor: 125050n });
    expect(readAmountInput('12500', 0)).toEqual({ minor: 12500n });
    expect(readAmountInput('0.000001', 6)).toEqual({ minor: 1n });
    // The grouping the app displays is read as typed.
    expect(readAmountInput('13,000', 2)).toEqual({ minor: 1300000n });
    expect(readAmountInput('1,234,567.89', 2)).toEqual({ minor: 123456789n });
    expect(readAmountInput('123456789012345678.99', 2)).toEqual({ minor: 12345678901234567899n });
  });

  it('names the problem with anything else', () => {
    expect(readAmountInput('  ', 2)).toEqual({ problem: 'empty' });
    expect(readAmountInput('1,0000', 2)).toEqual({ problem: 'separators' });
    expect(readAmountInput('1,5', 2)).toEqual({ problem: 'separators' });
    expect(readAmountInput(',100', 2)).toEqual({ problem: 'separators' });
    expect(readAmountInput('1000.5,0', 2)).toEqual({ problem: 'separators' });
    expect(readAmountInput('1000,000', 2)).toEqual({ problem: 'separators' });
    expect(readAmountInput('1 000', 2)).toEqual({ problem: 'separators' });
    expect(readAmountInput("1'000", 2)).toEqual({ problem: 'separators' });
    expect(readAmountInput('-5', 2)).toEqual({ problem: 'negative' });
    expect(readAmountInput('1e3', 2)).toEqual({ problem: 'not_plain' });
    expect(readAmountInput('.5', 2)).toEqual({ problem: 'not_plain' });
    expect(readAmountInput('+5', 2)).toEqual({ problem: 'not_plain' });
    expect(readAmountInput('10.001', 2)).toEqual({ problem: 'too_many_decimals' });
    expect(readAmountInput('1.5', 0)).toEqual({ problem: 'too_many_decimals' });
    expect(readAmountInput('0', 2)).toEqual({ problem: 'not_positive' });
    expect(readAmountInput('0.00', 2)).toEqual({ problem: 'not_positive' });
  });
});
