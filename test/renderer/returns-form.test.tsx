import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TransferView } from '../../src/shared/ipc/channels/returns';
import { Money } from '../../src/renderer/src/components/Money';
import { StatusBadge } from '../../src/renderer/src/components/StatusBadge';
import { ReturnForm } from '../../src/renderer/src/features/returns/ReturnForm';
import { useReturns } from '../../src/renderer/src/features/returns/store';
import { defaultAmount, validateReturnForm } from '../../src/renderer/src/features/returns/validate';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const transfer = (
  currency: string,
  amount: string,
): TransferView & { incoming: NonNullable<TransferView['incoming']> } => ({
  transactionId: 'txn_1',
  status: 'completed',
  type: 'SWIFT-FI-TO-FI-CUSTOMER-CREDIT-INCOMING',
  timestamp: '2026-11-18T10:00:00.000Z',
  incoming: {
    amount,
    currency,
    creditorAccountId: 'acc_1',
    debtorName: 'Harbour Freight Ltd',
    debtorBic: 'DEUTDEFFXXX',
    uetr: 'u',
    remittanceInformation: 'INV-1',
    valueDate: '2026-11-18',
  },
  returnDetails: null,
  returnable: { ok: true, code: 'ok', reason: null },
  role: 'admin',
});

describe('return form validation', () => {
  const ok = { reasonCode: 'FOCR', description: '' };
  it('converts exactly for 0, 2 and 3 decimals and keeps to the original amount', () => {
    expect(
      validateReturnForm({ ...ok, amount: '12500' }, { amount: '12500', currency: 'JPY' }).amountMinor,
    ).toBe('12500');
    expect(
      validateReturnForm({ ...ok, amount: '100.5' }, { amount: '1250000', currency: 'USD' }).amountMinor,
    ).toBe('10050');
    expect(
      validateReturnForm({ ...ok, amount: ' 1.234 ' }, { amount: '5000', currency: 'KWD' }).amountMinor,
    ).toBe('1234');
    expect(
      validateReturnForm({ ...ok, amount: '12500.00' }, { amount: '1250000', currency: 'USD' }).amountMinor,
    ).toBe('1250000');
  });

  it('explains each bad amount at the field', () => {
    const usd = { amount: '1250000', currency: 'USD' };
    const err = (amount: string, orig = usd) => validateReturnForm({ ...ok, amount }, orig).errors.amount;
    expect(err('')).toBe('Enter the amount to return.');
    expect(err('10.001')).toBe('USD has 2 decimals: at most 2 digits after the dot.');
    expect(err('1.5', { amount: '100', currency: 'JPY' })).toBe(
      'JPY has no decimals: enter a whole number (e.g. 1250).',
    );
    expect(err('1.2345', { amount: '5000', currency: 'KWD' })).toBe(
      'KWD has 3 decimals: at most 3 digits after the dot.',
    );
    expect(err('12500.01')).toBe('The amount cannot be more than the original transfer (12,500.00 USD).');
    expect(err('0')).toBe('The amount must be more than zero.');
    expect(err('-5')).toBe('The amount must be more than zero.');
    // The grouping the app displays is accepted as typed; any other comma is refused.
    expect(err('1,000')).toBeUndefined();
    expect(err('1,0000')).toContain('commas only between groups of three');
    expect(err('1 000')).toContain('commas only between groups of three');
    expect(err('1e3')).toContain('Enter a plain number');
    expect(err('.5')).toContain('Enter a plain number');
  });

  it('asks for a known reason code and a short description', () => {
    const usd = { amount: '100', currency: 'USD' };
    expect(validateReturnForm({ amount: '1', reasonCode: '', description: '' }, usd).errors.reasonCode).toBe(
      'Choose the reason for the return.',
    );
    expect(
      validateReturnForm({ amount: '1', reasonCode: 'NOPE', description: '' }, usd).errors.reasonCode,
    ).toBe('Choose a reason code from the list.');
    expect(
      validateReturnForm({ amount: '1', reasonCode: 'FOCR', description: 'x'.repeat(501) }, usd).errors
        .description,
    ).toContain('at most 500');
  });

  it('defaults to the whole original amount in the currency units, grouped as the app shows amounts', () => {
    expect(defaultAmount('1250000', 'USD')).toBe('12,500.00');
    expect(defaultAmount('12500', 'JPY')).toBe('12,500');
    expect(defaultAmount('1234', 'KWD')).toBe('1.234');
    expect(defaultAmount('123456789012', 'USD')).toBe('1,234,567,890.12');
    // The form reads its own default back to the original amount.
    const usd = { amount: '123456789012', currency: 'USD' };
    expect(
      validateReturnForm(
        { amount: defaultAmount(usd.amount, 'USD'), reasonCode: 'FOCR', description: '' },
        usd,
      ).amountMinor,
    ).toBe('123456789012');
  });
});

/** The text of the elements an element's aria-describedby names. */
function describedBy(el: Element): string {
  return (el.getAttribute('aria-describedby') ?? '')
    .split(/\s+/)
    .map((id) => (id ? (document.getElementById(id)?.textContent ?? '') : ''))
    .join(' ');
}

describe('ReturnForm', () => {
  it('shows errors at the fields, focuses the first, and sends nothing until the input is valid', async () => {
    const invoke = vi.fn(async () => ({
      ok: true,
      value: { transactionId: 'txn_1', idempotencyKey: 'k', alreadyDone: false },
    }));
    vi.stubGlobal('desk', { invoke, subscribe: () => () => undefined });
    useReturns.setState({
      phase: 'form',
      operationId: 'ret-test-000001',
      sendProblem: null,
      pending: null,
      profileId: 'p_birch',
    });
    render(<ReturnForm transfer={transfer('USD', '1250000')} />);
    const amount = screen.getByLabelText('Amount to return (USD)');
    expect((amount as HTMLInputElement).value).toBe('12,500.00');
    fireEvent.change(amount, { target: { value: '12500.999' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create return intent' }));
    // The error is the field's own: said at the field and part of its accessible description.
    const amountError = 'USD has 2 decimals: at most 2 digits after the dot.';
    expect(screen.getByText(amountError)).toBeTruthy();
    expect(amount.getAttribute('aria-invalid')).toBe('true');
    expect(describedBy(amount)).toContain(amountError);
    expect(document.activeElement).toBe(amount);
    expect(screen.getByText('Choose the reason for the return.')).toBeTruthy();
    expect(invoke).not.toHaveBeenCalled();

    fireEvent.change(amount, { target: { value: '99.9' } });
    // React Aria's Select keeps a hidden native select in step with it (forms, autofill).
    const reason = document.querySelector<HTMLSelectElement>('select');
    if (!reason) throw new Error('the reason select has no hidden native select');
    fireEvent.change(reason, { target: { value: 'AM09' } });
    expect(screen.getByTestId('return-reason-meaning').textContent).toContain('Wrong amount');
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Create return intent' }));
    });
    expect(invoke).toHaveBeenCalledWith('returns.createIntent', {
      profileId: 'p_birch',
      operationId: 'ret-test-000001',
      transactionId: 'txn_1',
      amount: '9990',
      reasonCode: 'AM09',
    });
  });
});

describe('Money and StatusBadge', () => {
  it('formats minor units with the currency decimals and shows odd values as received', () => {
    render(
      <>
        <Money amount="1250000" currency="USD" data-testid="usd" />
        <Money amount="12500" currency="JPY" data-testid="jpy" />
        <Money amount="1234567" currency="KWD" data-testid="kwd" />
        <Money amount="12.5" currency="USD" data-testid="raw" />
        <Money amount={null} currency="USD" data-testid="none" />
        <Money amount="1050" currency={null} data-testid="nocur" />
      </>,
    );
    expect(screen.getByTestId('usd').textContent).toBe('12,500.00 USD');
    expect(screen.getByTestId('jpy').textContent).toBe('12,500 JPY');
    expect(screen.getByTestId('kwd').textContent).toBe('1,234.567 KWD');
    expect(screen.getByTestId('raw').textContent).toBe('12.5 USD');
    expect(screen.getByTestId('raw').className).toContain('money--raw');
    expect(screen.getByTestId('none').textContent).toBe('—');
    expect(screen.getByTestId('nocur').textContent).toBe('1050 minor units');
  });

  it('says the status in words, unknown ones included', () => {
    render(
      <>
        <StatusBadge status="return_completed" data-testid="a" />
        <StatusBadge status="held_for_review" data-testid="b" />
      </>,
    );
    expect(screen.getByTestId('a').textContent).toBe('Return completed');
    expect(screen.getByTestId('a').getAttribute('data-tone')).toBe('ok');
    expect(screen.getByTestId('b').textContent).toBe('Held for review');
    expect(screen.getByTestId('b').getAttribute('data-tone')).toBe('neutral');
  });
});
