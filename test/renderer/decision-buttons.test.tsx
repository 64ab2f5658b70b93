import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { DecisionButtons, type Decision } from '../../src/renderer/src/features/approvals/DecisionButtons';

/** The checker's Approve / Reject… shared by answers, returns and mandates. */
afterEach(cleanup);

describe('DecisionButtons', () => {
  it('rejects only with a reason; a refused decision keeps the reason, an accepted one clears it', async () => {
    const sent: Decision[] = [];
    let accept = false;
    render(
      <DecisionButtons
        approveLabel="Approve mandate"
        onDecide={async (d) => {
          sent.push(d);
          return accept;
        }}
      />,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Reject…' }));
    const send = screen.getByRole('button', { name: 'Reject with this reason' });
    expect(send.hasAttribute('disabled') || send.getAttribute('aria-disabled') === 'true').toBe(true);
    fireEvent.change(screen.getByLabelText('Why is it rejected?'), {
      target: { value: '  Wrong invoice  ' },
    });

    // The server refuses: nothing typed is lost.
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Reject with this reason' }));
    });
    expect(sent).toEqual([{ decision: 'reject', reason: 'Wrong invoice' }]);
    expect((screen.getByLabelText('Why is it rejected?') as HTMLTextAreaElement).value).toBe(
      '  Wrong invoice  ',
    );

    // Accepted: the form closes and the reason is gone.
    accept = true;
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Reject with this reason' }));
    });
    expect(screen.queryByLabelText('Why is it rejected?')).toBeNull();
    expect(screen.getByRole('button', { name: 'Reject…' })).toBeTruthy();

    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Approve mandate' }));
    });
    expect(sent.at(-1)).toEqual({ decision: 'approve' });
  });
});
