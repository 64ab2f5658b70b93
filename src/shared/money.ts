/**
 * Money rules. Amounts travel as strings of integer minor units and are computed as bigint; no
 * float ever touches an amount.
 */

const MINOR_RE = /^(0|[1-9][0-9]*)$/;
const DECIMAL_RE = /^(0|[1-9][0-9]*)(\.([0-9]+))?$/;

export class MoneyError extends Error {
  override name = 'MoneyError';
}

/** True when `s` is a plain minor-unit string (`0` or a positive integer without leading zeros). */
export function isMinorUnits(s: string): boolean {
  return MINOR_RE.test(s);
}

/** True when `s` is a strictly positive minor-unit string. */
export function isPositiveMinorUnits(s: string): boolean {
  return MINOR_RE.test(s) && s !== '0';
}

/** Parses a minor-unit string strictly (`^(0|[1-9][0-9]*)$`). Throws MoneyError otherwise. */
export function parseMinor(s: string): bigint {
  if (typeof s !== 'string' || !MINOR_RE.test(s)) {
    throw new MoneyError(`not a minor-unit amount: ${JSON.stringify(s)}`);
  }
  return BigInt(s);
}

/** Minor units as the wire string. Negative amounts are refused. */
/**
 * A sort key for an amount in minor units: the exact bigint (a float loses digits past 2^53);
 * missing or malformed amounts sort before every real one.
 */
export function sortableMinor(s: string | null | undefined): bigint {
  return s != null && isMinorUnits(s) ? parseMinor(s) : -1n;
}

export function minorToString(v: bigint): string {
  if (v < 0n) throw new MoneyError('negative amount');
  return v.toString();
}

const ZERO_DECIMAL = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'ISK',
  'JPY',
  'KMF',
  'KRW',
  'PYG',
  'RWF',
  'UGX',
  'UYI',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);
const THREE_DECIMAL = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);
const ASSET_DECIMALS: Record<string, number> = { 'ETHEREUM-USDC': 6, 'ETHEREUM-USDT': 6 };
/**
 * Decimals shown for an asset whose minor unit is finer than people read it: USDT and USDC are
 * kept to 6 places by the bank but read like dollars, so they show 2 places unless a further
 * place is significant (25.000000 → "25.00", 1.234500 → "1.2345"). Nothing is ever rounded away.
 */
const ASSET_DISPLAY_DECIMALS: Record<string, number> = { 'ETHEREUM-USDC': 2, 'ETHEREUM-USDT': 2 };

/** Number of minor-unit decimals of an ISO 4217 currency or a digital asset (2 when unknown). */
export function decimalsOf(assetOrCurrency: string): number {
  const a = assetOrCurrency.toUpperCase();
  const asset = ASSET_DECIMALS[a];
  if (asset !== undefined) return asset;
  if (ZERO_DECIMAL.has(a)) return 0;
  if (THREE_DECIMAL.has(a)) return 3;
  return 2;
}

/**
 * Decimal string (e.g. `"10.5"`) to minor units with `decimals` places, exactly. Refuses signs,
 * exponents, separators, blanks and more fractional digits than `decimals`.
 */
export function decimalToMinor(s: string, decimals: number): bigint {
  const m = typeof s === 'string' ? DECIMAL_RE.exec(s) : null;
  if (!m) throw new MoneyError(`not a plain decimal amount: ${JSON.stringify(s)}`);
  const whole = m[1] ?? '0';
  const frac = m[3] ?? '';
  if (frac.length > decimals) {
    throw new MoneyError(`too many decimal places (at most ${decimals}): ${s}`);
  }
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
}

/**
 * The amount without the thousands separators the app itself displays ("13,000.50" → "13000.50").
 * Only commas in the places the app puts them are accepted (groups of three in the whole part);
 * any other comma, a space or an apostrophe is refused (null), so "1,5" is never read as 15.
 */
function ungroup(raw: string): string | null {
  if (/[\s']/.test(raw)) return null;
  if (!raw.includes(',')) return raw;
  const [whole = '', ...rest] = raw.split('.');
  if (rest.length > 1 || rest.some((r) => r.includes(','))) return null;
  if (!/^[0-9]{1,3}(,[0-9]{3})+$/.test(whole)) return null;
  return [whole.replace(/,/g, ''), ...rest].join('.');
}

/** Why an amount a person typed cannot be read; each screen words it for its own field. */
export type AmountInputProblem =
  'empty' | 'separators' | 'negative' | 'not_plain' | 'too_many_decimals' | 'not_positive';

/**
 * An amount typed into a form, read exactly into positive minor units with `decimals` places, or
 * the problem with it. The one reading of typed amounts: every form words its problems from this.
 */
export function readAmountInput(
  input: string,
  decimals: number,
): { minor: bigint; problem?: undefined } | { problem: AmountInputProblem } {
  const raw = input.trim();
  if (raw === '') return { problem: 'empty' };
  if (raw.startsWith('-')) return { problem: 'negative' };
  const plain = ungroup(raw);
  if (plain === null) return { problem: 'separators' };
  const m = DECIMAL_RE.exec(plain);
  if (!m) return { problem: 'not_plain' };
  if ((m[3] ?? '').length > decimals) return { problem: 'too_many_decimals' };
  const minor = decimalToMinor(plain, decimals);
  return minor > 0n ? { minor } : { problem: 'not_positive' };
}

/** Minor units to a plain decimal string with exactly `decimals` places (`1050`, 2 → `"10.50"`). */
export function minorToDecimal(v: bigint, decimals: number): string {
  const neg = v < 0n;
  const abs = neg ? -v : v;
  if (decimals === 0) return `${neg ? '-' : ''}${abs.toString()}`;
  const s = abs.toString().padStart(decimals + 1, '0');
  return `${neg ? '-' : ''}${s.slice(0, -decimals)}.${s.slice(-decimals)}`;
}

/** Drops trailing zeros past the asset's display decimals (only zeros: the value is exact). */
function trimToDisplay(plain: string, assetOrCurrency: string): string {
  const shown = ASSET_DISPLAY_DECIMALS[assetOrCurrency.toUpperCase()];
  if (shown === undefined || !plain.includes('.')) return plain;
  const [whole, frac = ''] = plain.split('.');
  let end = frac.length;
  while (end > shown && frac[end - 1] === '0') end -= 1;
  return `${whole}.${frac.slice(0, end)}`;
}

/**
 * Display form: thousands separators, the currency's decimals (a digital asset's display
 * decimals, see ASSET_DISPLAY_DECIMALS) and the currency code,
 * e.g. `formatMinor(123456n, 'USD')` → `"1,234.56 USD"`, 25000000n USDT → "25.00 ETHEREUM-USDT".
 */
export function formatMinor(v: bigint, assetOrCurrency: string, opts: { code?: boolean } = {}): string {
  const decimals = decimalsOf(assetOrCurrency);
  const plain = trimToDisplay(minorToDecimal(v, decimals), assetOrCurrency);
  const neg = plain.startsWith('-');
  const body = neg ? plain.slice(1) : plain;
  const [whole = '0', frac] = body.split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const num = `${neg ? '-' : ''}${grouped}${frac !== undefined ? `.${frac}` : ''}`;
  return opts.code === false ? num : `${num} ${assetOrCurrency}`;
}

/** An exact decimal rate: `units / 10^scale` (e.g. `"1.0013"` → {units: 10013n, scale: 4}). */
export interface Rate {
  units: bigint;
  scale: number;
}

export function parseRate(s: string): Rate {
  const m = DECIMAL_RE.exec(s);
  if (!m) throw new MoneyError(`not a plain decimal rate: ${JSON.stringify(s)}`);
  const frac = m[3] ?? '';
  const units = BigInt((m[1] ?? '0') + frac);
  if (units === 0n) throw new MoneyError('rate must be positive');
  return { units, scale: frac.length };
}

export function rateToString(r: Rate): string {
  return minorToDecimal(r.units, r.scale);
}

export type Rounding = 'up' | 'down';

/** `n / d` for non-negative n and positive d, rounded in the given direction. */
export function divRound(n: bigint, d: bigint, rounding: Rounding): bigint {
  if (d <= 0n) throw new MoneyError('division by a non-positive number');
  if (n < 0n) throw new MoneyError('negative amount');
  const q = n / d;
  return rounding === 'up' && q * d !== n ? q + 1n : q;
}

/**
 * Converts a base-asset amount into quote-asset minor units at `rate` (quote per one base unit):
 * `base × rate`, rescaled from `baseDecimals` to `quoteDecimals`, rounded as asked.
 */
export function baseToQuote(
  baseMinor: bigint,
  rate: Rate,
  baseDecimals: number,
  quoteDecimals: number,
  rounding: Rounding,
): bigint {
  const n = baseMinor * rate.units * 10n ** BigInt(quoteDecimals);
  const d = 10n ** BigInt(rate.scale + baseDecimals);
  return divRound(n, d, rounding);
}

/** Converts quote-asset minor units into base-asset minor units at `rate`: `quote ÷ rate`, rescaled. */
export function quoteToBase(
  quoteMinor: bigint,
  rate: Rate,
  baseDecimals: number,
  quoteDecimals: number,
  rounding: Rounding,
): bigint {
  const n = quoteMinor * 10n ** BigInt(rate.scale + baseDecimals);
  const d = rate.units * 10n ** BigInt(quoteDecimals);
  return divRound(n, d, rounding);
}

/** Multiplies an amount by a rate with explicit rounding (same decimals in and out). */
export function multiplyByRate(amount: bigint, rate: Rate, rounding: Rounding): bigint {
  return divRound(amount * rate.units, 10n ** BigInt(rate.scale), rounding);
}
