import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SessionStatus } from '../../src/shared/ipc/channels/session';
import type { TransferView } from '../../src/shared/ipc/channels/returns';
import { Select } from '../../src/renderer/src/components/ui';
import { ConnectionStatus } from '../../src/renderer/src/features/session/ConnectionStatus';
import { useSession } from '../../src/renderer/src/features/session/store';
import { ReturnReview } from '../../src/renderer/src/features/returns/ReturnReview';
import { TransferDetails } from '../../src/renderer/src/features/returns/TransferDetails';
import { RfiAlerts } from '../../src/renderer/src/features/rfis/notifications';
import { useReturns } from '../../src/renderer/src/features/returns/store';
import { dayWords } from '../../src/shared/words';

/**
 * What an analyst sees on the screens the screenshot review corrected: the queue's filters choose
 * without a modal popover, the header speaks in words, a return's reason and dates read as words.
 */

// jsdom has no CSS.escape; React Aria's popover and list use it to find elements by id.
if (!globalThis.CSS?.escape) {
  Object.defineProperty(globalThis, 'CSS', {
    configurable: true,
    value: { ...globalThis.CSS, escape: (s: string) => s.replace(/[^\w-]/g, (c) => `\\${c}`) },
  });
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  useSession.setState({ status: null, error: null, loading: false });
});

const STATUSES = [
  { value: '', label: 'All statuses (8)' },
  { value: 'action_required', label: 'Action required (3)' },
  { value: 'approved', label: 'Approved (1)' },
];

function Filter({ nonModal, onChange }: { nonModal: boolean; onChange(v: string): void }) {
  const [value, setValue] = useState('');
  return (
    <>
      <Select
        label="Status"
        hideLabel
        nonModal={nonModal}
        value={value}
        options={STATUSES}
        onChange={(v) => {
          setValue(v);
          onChange(v);
        }}
        data-testid="filter"
      />
      <button type="button">Elsewhere</button>
    </>
  );
}

/** Whether anything outside the open list was made inert or hidden from assistive technology. */
function pageMadeInert(): boolean {
  const outside = screen.getByRole('button', { name: 'Elsewhere', hidden: true });
  return !!outside.closest('[inert], [aria-hidden="true"]');
}

/** Renders the filter and opens its list from the keyboard (ArrowDown on the focused button). */
async function openFilter(nonModal: boolean, chosen: string[]): Promise<HTMLElement> {
  render(<Filter nonModal={nonModal} onChange={(v) => chosen.push(v)} />);
  const trigger = screen.getByRole('button', { name: /Status/ });
  act(() => trigger.focus());
  await act(async () => {
    fireEvent.keyDown(trigger, { key: 'ArrowDown' });
  });
  return trigger;
}

describe('a non-modal Select (the queue’s filters)', () => {
  it('opens from the keyboard, chooses, and leaves the page as it is while open', async () => {
    const chosen: string[] = [];
    await openFilter(true, chosen);
    const list = screen.getByRole('listbox');
    // The rest of the page stays live: nothing inert, nothing aria-hidden, no scroll lock.
    expect(pageMadeInert()).toBe(false);
    expect(document.documentElement.style.overflow).not.toBe('hidden');
    await act(async () => {
      fireEvent.click(within(list).getByRole('option', { name: 'Action required (3)' }));
    });
    expect(chosen).toEqual(['action_required']);
    expect(screen.queryByRole('listbox')).toBeNull();
    expect(screen.getByTestId('filter').getAttribute('data-value')).toBe('action_required');
  });

  it('closes on Escape and on a press outside, choosing nothing', async () => {
    const chosen: string[] = [];
    const trigger = await openFilter(true, chosen);
    expect(screen.getByRole('listbox')).toBeTruthy();
    await act(async () => {
      fireEvent.keyDown(document.activeElement ?? trigger, { key: 'Escape' });
    });
    expect(screen.queryByRole('listbox')).toBeNull();

    await act(async () => {
      fireEvent.keyDown(trigger, { key: 'ArrowDown' });
    });
    expect(screen.getByRole('listbox')).toBeTruthy();
    await act(async () => {
      fireEvent.pointerDown(screen.getByRole('button', { name: 'Elsewhere' }));
    });
    expect(screen.queryByRole('listbox')).toBeNull();
    expect(chosen).toEqual([]);
  });

  it('unlike a modal Select, which makes the page inert while its list is open', async () => {
    await openFilter(false, []);
    expect(screen.getByRole('listbox')).toBeTruthy();
    expect(pageMadeInert()).toBe(true);
  });
});

function status(over: Partial<SessionStatus> = {}): SessionStatus {
  return {
    environment: { id: 'sandbox', name: 'Embedded sandbox', kind: 'embedded-sandbox', baseUrl: '' },
    connection: 'connected',
    credential: {
      webhookName: 'Alder admin',
      legalEntityId: 'le_9a88c2ef0123456789ab',
      legalEntityName: 'Alder Trade GmbH',
      role: 'admin',
    },
    problem: null,
    checkedAt: '2026-11-27T11:00:00.000Z',
    since: null,
    retryAt: null,
    keychainProblem: null,
    ...over,
  };
}

function renderHeader(s: SessionStatus): void {
  vi.stubGlobal('desk', {
    invoke: async (channel: string) =>
      channel === 'session.status'
        ? { ok: true, value: s }
        : { ok: false, error: { kind: 'internal', message: `unexpected ${channel}` } },
    subscribe: () => () => undefined,
  });
  useSession.setState({ status: s });
  render(<ConnectionStatus />);
}

describe('the header’s status line', () => {
  it('names the role in words and re-checks with the design system’s icon button', async () => {
    renderHeader(status());
    await act(async () => undefined);
    const role = screen.getByTestId('connection-role');
    expect(role.textContent).toBe('Admin');
    expect(role.getAttribute('title')).toBe('Role: Administrator');
    expect(screen.queryByText(/^ADMIN$|^admin$/)).toBeNull();
    const recheck = screen.getByRole('button', { name: 'Check the connection now' });
    expect(recheck.className).toContain('ui-icon-button');
    expect(screen.queryByText('Re-check')).toBeNull();
    // The entity by name; its id secondary, its whole value in the title.
    expect(screen.getByTestId('connection-legal-entity').textContent).toContain('Alder Trade GmbH');
    expect(screen.getByTitle('Legal entity id le_9a88c2ef0123456789ab')).toBeTruthy();
  });

  it('an outage: since when and the retry countdown in parts of their own (the header may drop the first)', async () => {
    const now = Date.now();
    renderHeader(
      status({
        connection: 'offline',
        since: new Date(now - 60_000).toISOString(),
        retryAt: new Date(now + 8_000).toISOString(),
      }),
    );
    await act(async () => undefined);
    const detail = screen.getByTestId('connection-detail');
    expect(detail.querySelector('.status-line__since')?.textContent).toMatch(/^since \d/);
    expect(detail.querySelector('.status-line__retry')?.textContent).toMatch(/^retrying in \d+ s$/);
    // The whole sentence stays on hover.
    expect(detail.getAttribute('title')).toMatch(/^since .* · retrying in \d+ s$/);
  });
});

const incoming = {
  amount: '12345',
  currency: 'USD',
  creditorAccountId: 'acc_1',
  debtorName: 'Harbour Freight Ltd',
  debtorBic: 'DEUTDEFFXXX',
  uetr: 'u',
  remittanceInformation: 'INV-1',
  valueDate: '2026-11-24',
};

function transferView(over: Partial<TransferView> = {}): TransferView {
  return {
    transactionId: 'txn_1',
    status: 'completed',
    type: 'SWIFT-FI-TO-FI-CUSTOMER-CREDIT-INCOMING',
    timestamp: '2026-11-24T11:56:21.405Z',
    incoming,
    returnDetails: null,
    returnable: { ok: true, code: 'ok', reason: null },
    role: 'admin',
    ...over,
  };
}

describe('the header’s RFI pill', () => {
  it('names its numbers in words at every width: the short word stays drawn, the whole sentence is its name', async () => {
    vi.stubGlobal('desk', {
      invoke: async (channel: string) =>
        channel === 'rfis.counts'
          ? { ok: true, value: { counts: { awaitingAction: 4, unread: 10, total: 10 } } }
          : { ok: false, error: { kind: 'internal', message: `unexpected ${channel}` } },
      subscribe: () => () => undefined,
    });
    render(<RfiAlerts />);
    const link = await screen.findByRole('link', { name: 'RFIs 4 awaiting action 10 unread' });
    expect(link.getAttribute('title')).toBe('RFIs: 4 awaiting action, 10 unread');
    // "awaiting" is outside the word a narrow window does not draw ("action", still read).
    const text = link.querySelector('.rfi-alerts__text');
    expect(text?.firstChild?.textContent).toBe('awaiting ');
    expect(link.querySelector('.rfi-alerts__wide')?.textContent).toBe('action');
  });
});

describe('a return in words', () => {
  it('the completed return says its reason by name, never the raw code in brackets', () => {
    const review = transferView({
      status: 'return_completed',
      returnDetails: {
        amount: '12345',
        fee: '0',
        description: null,
        reasonCode: 'AC03',
        reasonMeaning: 'Invalid creditor account number: wrong or unknown creditor account',
        initiatedBy: null,
        createdAt: '2026-11-27T10:00:00.000Z',
        updatedAt: '2026-11-27T10:05:00.000Z',
      },
    });
    useReturns.setState({ phase: 'completed', actionError: null });
    // The review asks main whether the team's rules want a checker: no team here (solo use).
    vi.stubGlobal('desk', {
      invoke: async (channel: string) =>
        channel === 'team.returnApproval'
          ? { ok: true, value: { required: null, approval: null, covers: false } }
          : { ok: false, error: { kind: 'internal', message: `unexpected ${channel}` } },
      subscribe: () => () => undefined,
    });
    render(<ReturnReview transfer={transferView()} review={review} idBase="r" />);
    const done = screen.getByTestId('return-completed').textContent ?? '';
    expect(done).toMatch(/^The return is completed: returned 123\.45 USD to Harbour Freight Ltd at .+\./);
    expect(done).toContain('Reason: Invalid creditor account number.');
    expect(done).not.toContain('AC03');
    // The Return panel: the reason's words first, the code after them in an id's monospace.
    const reason = screen.getByTestId('return-reason');
    expect(reason.textContent).toMatch(/^Invalid creditor account number: .* AC03$/);
    expect(reason.querySelector('code')?.textContent).toBe('AC03');
  });

  it('the transfer names its creditor account through the profile it was read with, its holder beside it, the id once and secondary', async () => {
    const asked: unknown[] = [];
    vi.stubGlobal('desk', {
      invoke: async (channel: string, args: { items: { profileId: string; relatedId: string }[] }) => {
        if (channel !== 'rfis.related')
          return { ok: false, error: { kind: 'internal', message: `unexpected ${channel}` } };
        asked.push(args);
        return {
          ok: true,
          value: {
            items: args.items.map((i) => ({
              ...i,
              name: 'Birch USD main',
              holder: 'Birch Capital Ltd',
            })),
          },
        };
      },
      subscribe: () => () => undefined,
    });
    render(<TransferDetails view={transferView({ profileId: 'birch' })} title="Original transfer" />);
    const account = screen.getByTestId('transfer-creditor-account');
    // No entity is named on the transfer's screen: the account's holder is said beside its name.
    await waitFor(() =>
      expect(screen.getByTestId('transfer-creditor-account-name').textContent).toBe(
        'Birch USD main (Birch Capital Ltd)',
      ),
    );
    expect(asked).toEqual([{ items: [{ profileId: 'birch', type: 'account', relatedId: 'acc_1' }] }]);
    expect(account.querySelector('code')?.textContent).toBe('acc_1');
    // The transaction id is the screen title's, not repeated in the transfer's facts.
    expect(screen.getByTestId('transfer-details').textContent).not.toContain('txn_1');
    expect(screen.queryByText('Transaction id')).toBeNull();
  });

  it('the transfer’s dates read in the one style: the value date as a day, the booking as a time', () => {
    render(<TransferDetails view={transferView()} title="Original transfer" />);
    const text = document.body.textContent ?? '';
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}/);
    expect(text).toContain(dayWords('2026-11-24'));
    expect(dayWords('2026-11-24', { locale: 'en-GB' })).toBe('24 Nov 2026');
  });
});
