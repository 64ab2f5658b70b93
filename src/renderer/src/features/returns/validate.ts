import { RETURN_REASON_CODES } from '../../../../shared/catalogue';
import {
  decimalsOf,
  formatMinor,
  minorToDecimal,
  parseMinor,
  readAmountInput,
} from '../../../../shared/money';

export interface ReturnFormValues {
  /** As typed, in the currency's units (e.g. "1250.50"). */
  amount: string;
  reasonCode: string;
  description: string;
}

export interface ReturnFormErrors {
  amount?: string;
  reasonCode?: string;
  description?: string;
}

export interface ValidatedReturn {
  errors: ReturnFormErrors;
  /** The amount in minor units when valid. */
  amountMinor: string | null;
}

export const DESCRIPTION_MAX = 500;

/**
 * The form's starting amount: the whole original, in the currency's units, grouped as the app
 * shows amounts ("12,500.00"; the field reads the grouping back).
 */
export function defaultAmount(originalMinor: string, currency: string): string {
  const [whole = '', fraction] = minorToDecimal(parseMinor(originalMinor), decimalsOf(currency)).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/**
 * Checks the return form before anything is sent. The amount is converted exactly (bigint, no
 * float) into minor units and must be positive and at most the original amount.
 */
export function validateReturnForm(
  values: ReturnFormValues,
  original: { amount: string; currency: string },
): ValidatedReturn {
  const errors: ReturnFormErrors = {};
  let amountMinor: string | null = null;
  const decimals = decimalsOf(original.currency);
  const example = decimals === 0 ? '1250' : `1250.${'5'.padEnd(decimals, '0')}`;
  const read = readAmountInput(values.amount, decimals);
  const max = parseMinor(original.amount);
  if (read.problem === undefined) {
    if (read.minor > max)
      errors.amount = `The amount cannot be more than the original transfer (${formatMinor(max, original.currency)}).`;
    else amountMinor = read.minor.toString();
  } else {
    errors.amount = {
      empty: 'Enter the amount to return.',
      separators: `Use digits${decimals > 0 ? ' and a dot for decimals' : ''}, with commas only between groups of three (e.g. ${example} or 1,250${decimals > 0 ? `.${'5'.padEnd(decimals, '0')}` : ''}).`,
      negative: 'The amount must be more than zero.',
      not_positive: 'The amount must be more than zero.',
      too_many_decimals:
        decimals === 0
          ? `${original.currency} has no decimals: enter a whole number (e.g. ${example}).`
          : `${original.currency} has ${decimals} decimals: at most ${decimals} digits after the dot.`,
      not_plain: `Enter a plain number${decimals > 0 ? ` with at most ${decimals} decimals` : ''} (e.g. ${example}).`,
    }[read.problem];
  }
  if (!values.reasonCode) errors.reasonCode = 'Choose the reason for the return.';
  else if (!Object.prototype.hasOwnProperty.call(RETURN_REASON_CODES, values.reasonCode))
    errors.reasonCode = 'Choose a reason code from the list.';
  if (values.description.length > DESCRIPTION_MAX)
    errors.description = `The description has ${values.description.length} characters; at most ${DESCRIPTION_MAX}.`;
  // eslint-disable-next-line no-control-regex
  else if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(values.description))
    errors.description = 'The description contains control characters; remove them.';
  return { errors, amountMinor };
}
