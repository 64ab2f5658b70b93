import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ReturnsScreen } from '../../src/renderer/src/features/returns/ReturnsScreen';
import { useRelatedNames } from '../../src/renderer/src/features/rfis/related-names';
import { fakeLayout } from './jsdom-layout';

/**
 * The Returns screen's list of known incoming transfers names a transfer an RFI is about by its
 * sender and amount as main reads them through the RFI's owning profile: while that is read the
 * row says so (never the RFI's words standing in for a sender), and only a transfer the bank does
 * not name is labelled by its RFI, said as such.
 */

// jsdom lays nothing out: give the tables a size so the virtualizer renders their rows.
beforeAll(() => fakeLayout(1100));

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  useRelatedNames.setState({ names: {}, unnamed: {} });
  void useRelatedNames.getState().load();
});

const rfi = (id: string, relatedId: string, profileId: string, description: string) => ({
  id,
  profileId,
  type: 'transaction',
  relatedId,
  description,
  status: 'action_required',
  updatedAt: '2026-11-25T10:00:00.000Z',
});

/** The bridge to main: answers each channel; rfis.related waits for `release`. */
function stubMain(related: Promise<void>) {
  const asked: unknown[] = [];
  vi.stubGlobal('desk', {
    invoke: async (channel: string, args: { items: { profileId: string; relatedId: string }[] }) => {
      switch (channel) {
        case 'rfis.list':
          return {
            ok: true,
            value: {
              items: [
                rfi('rfi_1', 'txn_harbour', 'birch', 'Incoming transfer from Harbour Freight'),
                rfi('rfi_2', 'txn_gone', 'alder', 'Transfer the bank no longer shows'),
              ],
            },
          };
        case 'crypto.list':
          return { ok: true, value: { orders: [] } };
        case 'returns.list':
          return { ok: true, value: { entries: [] } };
        case 'returns.recent':
          return { ok: true, value: { items: [] } };
        case 'rfis.related':
          asked.push(args);
          await related;
          return {
            ok: true,
            value: {
              // The bank names one transfer; the other is not this entity's (nothing to name).
              items: args.items
                .filter((i) => i.relatedId === 'txn_harbour')
                .map((i) => ({
                  ...i,
                  name: 'Harbour Freight Ltd, 12,500.00 USD',
                  holder: null,
                  transfer: { counterparty: 'Harbour Freight Ltd', amount: '1250000', currency: 'USD' },
                })),
            },
          };
        default:
          return { ok: false, error: { kind: 'internal', message: `not in this test: ${channel}` } };
      }
    },
    subscribe: () => () => undefined,
  });
  return asked;
}

function row(transactionId: string): HTMLElement {
  const r = screen
    .getAllByTestId('returns-recent-row')
    .find((el) => el.getAttribute('data-row-id') === transactionId);
  if (!r) throw new Error(`no row for ${transactionId}`);
  return r;
}

describe('the Returns screen’s known transfers, by name', () => {
  it('says "reading" while main names the transfers, then shows sender and amount; the RFI labels only what the bank does not name', async () => {
    let release!: () => void;
    const asked = stubMain(new Promise<void>((r) => (release = r)));
    render(<ReturnsScreen params={[]} />);

    // Being read: the row says so, not the RFI's description in the sender's place.
    await waitFor(() => expect(screen.getAllByTestId('returns-recent-row')).toHaveLength(2));
    for (const id of ['txn_harbour', 'txn_gone']) {
      expect(row(id).getAttribute('data-reading')).toBe('true');
      expect(within(row(id)).getByText('Reading the sender…')).toBeTruthy();
      expect(within(row(id)).getByText('Reading…')).toBeTruthy();
      expect(row(id).textContent).not.toMatch(/Incoming transfer from|no longer shows|Open to read/);
    }
    // Each transfer asked through its RFI's owning profile.
    expect(asked).toEqual([
      {
        items: [
          { profileId: 'birch', type: 'transaction', relatedId: 'txn_harbour' },
          { profileId: 'alder', type: 'transaction', relatedId: 'txn_gone' },
        ],
      },
    ]);

    await act(async () => release());
    await waitFor(() => expect(row('txn_harbour').getAttribute('data-reading')).toBeNull());
    const named = row('txn_harbour');
    expect(within(named).getByText('Harbour Freight Ltd')).toBeTruthy();
    expect(named.textContent).toContain('12,500.00');
    expect(named.textContent).not.toMatch(/Incoming transfer from|Open to read|Reading/);
    // Known from an RFI only: its status at the bank is not read yet, and the cell says so.
    expect(within(named).getByText('Not read yet')).toBeTruthy();

    // The bank names nothing for the other: labelled as its RFI, openable to read it.
    const unnamed = row('txn_gone');
    expect(unnamed.getAttribute('data-reading')).toBeNull();
    expect(within(unnamed).getByText('RFI: Transfer the bank no longer shows')).toBeTruthy();
    expect(within(unnamed).getByText('Open to read')).toBeTruthy();
  });
});
