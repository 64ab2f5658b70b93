import { assetLabel, assetTitle } from '../../../shared/activity';
import { decimalsOf, formatMinor, parseMinor } from '../../../shared/money';

export interface MoneyProps {
  /** Integer minor units as the wire string (e.g. "125000"), or a bigint. */
  amount: string | bigint | null | undefined;
  /** ISO 4217 currency or digital asset id; decides the number of decimals. */
  currency: string | null | undefined;
  /**
   * Show the currency after the number (default true): its code, or a digital asset's name
   * ("USDT", the network and the wire id on hover).
   */
  code?: boolean;
  className?: string;
  'data-testid'?: string;
}

/**
 * An amount in minor units shown with its currency's decimals and thousands separators
 * (`125000` USD → "1,250.00 USD"). A value that is not a minor-unit string is shown as it is,
 * marked, never as a wrong number.
 */
export function Money({ amount, currency, code = true, className, ...rest }: MoneyProps) {
  const cur = currency ?? '';
  if (amount === null || amount === undefined || amount === '') {
    return (
      <span className={`money money--none ${className ?? ''}`} data-testid={rest['data-testid']}>
        —
      </span>
    );
  }
  let text: string;
  let ok = true;
  try {
    const v = typeof amount === 'bigint' ? amount : parseMinor(amount);
    // Without a currency the decimals are unknown: show the minor units as such, never a guess.
    text = cur ? formatMinor(v, cur, { code: false }) : `${v.toString()} minor units`;
  } catch {
    ok = false;
    text = String(amount);
  }
  return (
    <span
      className={`money ${ok ? '' : 'money--raw'} ${className ?? ''}`.trim()}
      data-testid={rest['data-testid']}
      data-minor={String(amount)}
      data-decimals={cur ? decimalsOf(cur) : undefined}
      title={ok ? undefined : 'Not a minor-unit amount; shown as received'}
    >
      {text}
      {code && cur ? ' ' : ''}
      {code && cur ? (
        assetLabel(cur) === cur ? (
          cur
        ) : (
          <span title={assetTitle(cur)}>{assetLabel(cur)}</span>
        )
      ) : null}
    </span>
  );
}
