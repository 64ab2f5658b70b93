import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Countdown, formatSeconds, remainingMs } from '../../src/renderer/src/components/Countdown';
import { accountsFor, amountToMinor } from '../../src/renderer/src/features/crypto/order-draft';
import type { CryptoContext } from '../../src/shared/ipc/channels/crypto';

describe('Countdown', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-01-01T00:00:00.000Z'));
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
  });

  it('counts down in the reference clock, not the local one', () => {
    // The bank is one hour ahead; its deadline is 25 s after its "now".
    const offsetMs = 3600_000;
    const deadline = Date.now() + offsetMs + 25_000;
    render(<Countdown deadline={deadline} offsetMs={offsetMs} label="Quote valid for" data-testid="cd" />);
    const el = screen.getByTestId('cd');
    expect(el.getAttribute('data-remaining-seconds')).toBe('25');
    expect(el.textContent).toBe('0:25 left');
    expect(el.getAttribute('data-state')).toBe('running');
    expect(el.getAttribute('role')).toBe('timer');
  });

  it('turns urgent in the last 10 s with words, then says expired', () => {
    const deadline = new Date(Date.now() + 12_000).toISOString();
    render(<Countdown deadline={deadline} offsetMs={0} label="Quote valid for" data-testid="cd" />);
    const el = screen.getByTestId('cd');
    expect(el.getAttribute('data-state')).toBe('running');
    act(() => {
      vi.advanceTimersByTime(2500);
    });
    expect(el.getAttribute('data-state')).toBe('urgent');
    expect(el.textContent).toContain('Urgent: 0:10 left');
    expect(el.getAttribute('aria-label')).toBe('Quote valid for: Urgent: 0:10 left');
    act(() => {
      vi.advanceTimersByTime(10_000);
    });
    expect(el.getAttribute('data-state')).toBe('expired');
    expect(el.textContent).toBe('Expired');
    expect(el.getAttribute('data-remaining-seconds')).toBe('0');
  });

  it('shows an unknown deadline as such, never NaN', () => {
    render(<Countdown deadline="not a time" offsetMs={0} label="Quote valid for" data-testid="cd" />);
    expect(screen.getByTestId('cd').textContent).toBe('Quote valid for: unknown deadline');
  });

  it('helpers: remainingMs and formatSeconds', () => {
    expect(remainingMs(10_000, 1000, 5000)).toBe(4000);
    expect(formatSeconds(125)).toBe('2:05');
    expect(formatSeconds(-3)).toBe('0:00');
  });
});

describe('order form rules', () => {
  it('converts decimal input exactly to minor units of the asset it is expressed in', () => {
    expect(amountToMinor('25.5', 'ETHEREUM-USDT')).toEqual({ minor: '25500000' });
    expect(amountToMinor('0.000001', 'ETHEREUM-USDC')).toEqual({ minor: '1' });
    expect(amountToMinor('1234.56', 'USD')).toEqual({ minor: '123456' });
    expect(amountToMinor('123456789012345678.99', 'USD')).toEqual({ minor: '12345678901234567899' });
    expect(amountToMinor('1.005', 'USD')).toEqual({
      error: 'USD has 2 decimal places; the amount has more.',
    });
    expect(amountToMinor('0', 'USD')).toEqual({ error: 'The amount must be more than zero.' });
    expect(amountToMinor('1e3', 'USD')).toHaveProperty('error');
    expect(amountToMinor('-1', 'USD')).toHaveProperty('error');
    expect(amountToMinor('1,000', 'USD')).toEqual({ minor: '100000' });
    expect(amountToMinor('1,00', 'USD')).toHaveProperty('error');
    expect(amountToMinor('', 'USD')).toEqual({ error: 'Enter an amount.' });
  });

  it('offers accounts of the asset and the credential’s legal entity (or unknown ones)', () => {
    const ctx: CryptoContext = {
      environmentId: 'sandbox',
      role: 'admin',
      legalEntityId: 'le_a',
      canTrade: true,
      readOnlyReason: null,
      confirmMarginMs: 2000,
      accounts: [
        { accountId: 'a-usd', label: 'A USD', asset: 'USD', legalEntityId: 'le_a', source: 'sandbox' },
        { accountId: 'b-usd', label: 'B USD', asset: 'USD', legalEntityId: 'le_b', source: 'sandbox' },
        {
          accountId: 'a-usdt',
          label: 'A USDT',
          asset: 'ETHEREUM-USDT',
          legalEntityId: 'le_a',
          source: 'sandbox',
        },
        { accountId: 'mine', label: 'Typed in', asset: '', legalEntityId: null, source: 'analyst' },
      ],
    };
    expect(accountsFor(ctx, 'USD').map((a) => a.accountId)).toEqual(['a-usd', 'mine']);
    expect(accountsFor(ctx, 'ETHEREUM-USDT').map((a) => a.accountId)).toEqual(['a-usdt', 'mine']);
  });
});
