import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToastRegion } from '../../src/renderer/src/components/ToastRegion';
import { useRouter } from '../../src/renderer/src/lib/router';
import { pushToast, useToasts } from '../../src/renderer/src/lib/toasts';

/** A toast belongs to the screen it appeared on: it never follows the analyst onto another object's screen. */
beforeEach(() => {
  useToasts.setState({ toasts: [] });
  useRouter.setState({ path: '/returns/tx_1' });
});
afterEach(cleanup);

const returned = (transactionId: string) => ({
  key: `return:${transactionId}`,
  tone: 'ok' as const,
  title: 'Return completed',
  body: '1,234.56 USD returned: Following cancellation request',
  link: { to: `/returns/${transactionId}`, label: 'Open the transfer' },
});

describe('ToastRegion', () => {
  it('good news leaves when the analyst opens another screen; a failure stays until dismissed', () => {
    render(<ToastRegion />);
    act(() => {
      pushToast(returned('tx_1'));
      pushToast({
        key: 'rfi-sync',
        tone: 'bad',
        title: 'RFI sync failed',
        link: { to: '/rfis', label: 'Open the RFIs' },
      });
    });
    expect(screen.getAllByTestId('toast')).toHaveLength(2);
    expect(screen.getByRole('link', { name: 'Open the transfer' }).getAttribute('href')).toBe(
      '#/returns/tx_1',
    );

    // Another transfer's screen: "Return completed 1,234.56" must not sit over it.
    act(() => useRouter.setState({ path: '/returns/tx_2' }));
    const left = screen.getAllByTestId('toast');
    expect(left).toHaveLength(1);
    expect(left[0]!.textContent).toContain('RFI sync failed');
  });

  it('a toast arriving after the move is shown on the new screen', () => {
    render(<ToastRegion />);
    act(() => useRouter.setState({ path: '/rfis' }));
    act(() => {
      pushToast(returned('tx_3'));
    });
    expect(screen.getByTestId('toast').textContent).toContain('Return completed');
  });
});
