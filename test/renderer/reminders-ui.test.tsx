import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DueSoon, dueSoonTitle } from '../../src/renderer/src/features/overview/DueSoon';
import { useOverview } from '../../src/renderer/src/features/overview/store';
import { SnoozeControl } from '../../src/renderer/src/features/rfis/SnoozeControl';
import { useSnoozes } from '../../src/renderer/src/features/rfis/snooze-store';
import { RemindersPanel, proposeThresholds } from '../../src/renderer/src/features/settings/RemindersPanel';
import { useSettings } from '../../src/renderer/src/features/settings/store';
import type { DueSoonView, SnoozeView } from '../../src/shared/ipc/channels/reminders';
import type { SettingsView } from '../../src/shared/ipc/channels/settings';

/** The reminder screens with a stand-in window.desk: what they send, what they show. */
let calls: Array<{ channel: string; args: unknown }> = [];
let answers: Record<string, (args: unknown) => unknown> = {};
const HOUR = 3_600_000;

beforeEach(() => {
  // jsdom has no CSS.escape, which React Aria's popover uses; Chromium has it.
  globalThis.CSS ??= { escape: (s: string) => s.replace(/[^a-zA-Z0-9_-]/g, (c) => `\\${c}`) } as typeof CSS;
  calls = [];
  answers = {};
  useOverview.setState({
    dueSoon: null,
    errors: { rfis: null, quotes: null, returns: null, dueSoon: null },
    loaded: { rfis: false, quotes: false, returns: false, dueSoon: false },
  });
  useSnoozes.setState({ byKey: {}, loaded: false });
  (globalThis as { desk?: unknown }).desk = {
    async invoke(channel: string, args: unknown) {
      calls.push({ channel, args });
      const a = answers[channel];
      if (a) {
        try {
          return { ok: true, value: a(args) };
        } catch (err) {
          return { ok: false, error: err };
        }
      }
      if (channel === 'reminders.snoozes') return { ok: true, value: { snoozes: [] } };
      return { ok: false, error: { kind: 'offline', message: `no ${channel} here` } };
    },
    subscribe: () => () => undefined,
  };
});

afterEach(() => {
  cleanup();
  delete (globalThis as { desk?: unknown }).desk;
});

function item(over: Partial<DueSoonView['items'][number]>): DueSoonView['items'][number] {
  return {
    rfiId: 'rfi_1',
    type: 'account',
    description: '',
    relatedId: 'acc_1',
    profileId: 'sandbox',
    entityName: 'Alder Trade GmbH',
    deadline: new Date(Date.now() + 20 * HOUR).toISOString(),
    offsetMs: 0,
    snoozedUntil: null,
    ...over,
  };
}

describe('due soon (overview)', () => {
  it('says nothing is due soon when the list is empty, with the horizon', async () => {
    answers['reminders.dueSoon'] = () => ({ items: [], horizonHours: 72, enabled: true });
    render(<DueSoon />);
    expect(await screen.findByText('Nothing is due soon')).toBeTruthy();
    expect(screen.getByText('No RFI awaiting action times out in the next 3 days.')).toBeTruthy();
    expect(screen.queryByRole('list', { name: 'RFIs due soon' })).toBeNull();
  });

  it('names each RFI first, links it, shows the entity, the time left on the bank clock and a snooze', async () => {
    const bankAhead = 2 * 24 * HOUR;
    answers['reminders.dueSoon'] = () => ({
      items: [
        item({
          rfiId: 'rfi_a',
          description: 'Source of funds',
          deadline: new Date(Date.now() + bankAhead + 5 * HOUR).toISOString(),
          offsetMs: bankAhead,
        }),
        item({
          rfiId: 'rfi_b',
          type: 'nominal_sub_account',
          profileId: 'birch',
          entityName: 'Birch Holdings',
          deadline: new Date(Date.now() + 30 * HOUR).toISOString(),
          snoozedUntil: new Date(Date.now() + 10 * HOUR).toISOString(),
        }),
      ],
      horizonHours: 168,
      enabled: true,
    });
    render(<DueSoon />);
    const list = await screen.findByRole('list', { name: 'RFIs due soon' });
    const rows = within(list).getAllByRole('listitem');
    expect(rows.map((r) => r.getAttribute('data-rfi-id'))).toEqual(['rfi_a', 'rfi_b']);
    const a = within(rows[0]!).getByRole('link', { name: 'Source of funds' });
    expect(a.getAttribute('href')).toBe('#/rfis/rfi_a?profile=sandbox');
    // 5 hours left in bank time, though this computer's clock is two days behind the bank's.
    expect(rows[0]!.textContent).toContain('in 5h');
    expect(rows[0]!.textContent).toContain('Alder Trade GmbH');
    // No description: the type names it.
    expect(within(rows[1]!).getByRole('link').textContent).toBe('Nominal sub-account RFI');
    expect(within(rows[1]!).getByTestId('due-soon-snoozed').textContent).toContain(
      'Reminders snoozed: they resume in 10h',
    );
    expect(within(rows[1]!).getByTestId('due-soon-snoozed').querySelector('time')?.title).toContain(
      '(bank time)',
    );
  });

  it('names one entity once, above the list, and its accounts without it', async () => {
    // Main names the account through each RFI's owning profile, with its holder.
    answers['rfis.related'] = (args) => ({
      items: (args as { items: { profileId: string; relatedId: string }[] }).items.map((i) => ({
        profileId: i.profileId,
        relatedId: i.relatedId,
        name: 'Alder USD operating',
        holder: 'Alder Trade GmbH',
      })),
    });
    answers['reminders.dueSoon'] = () => ({
      items: [
        item({ rfiId: 'rfi_a', description: 'Source of funds' }),
        item({ rfiId: 'rfi_b', description: 'Expected volume' }),
      ],
      horizonHours: 168,
      enabled: true,
    });
    render(<DueSoon />);
    const list = await screen.findByRole('list', { name: 'RFIs due soon' });
    expect(screen.getByTestId('due-soon-one-entity').textContent).toBe('Alder Trade GmbH');
    const rows = within(list).getAllByRole('listitem');
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(within(row).queryByTestId('due-soon-entity')).toBeNull();
      await within(row).findByText('Alder USD operating');
      expect(row.textContent).not.toContain('Alder Trade GmbH');
    }
  });

  it('titles fall back to the type', () => {
    expect(dueSoonTitle({ description: '  ', type: 'segment_upgrade' })).toBe('Segment upgrade RFI');
    expect(dueSoonTitle({ description: 'KYC refresh', type: 'account' })).toBe('KYC refresh');
  });
});

describe('snooze control (RFI detail)', () => {
  it('sends only a choice (never an instant) for the owning profile and shows until when main says', async () => {
    const until = new Date(Date.now() + 72 * HOUR).toISOString();
    answers['reminders.snooze'] = (): SnoozeView => ({
      rfiId: 'rfi_1',
      profileId: 'birch',
      until,
      capped: false,
      setAt: new Date().toISOString(),
      offsetMs: 0,
    });
    // Another bank's RFI of the same id is snoozed: not this one.
    answers['reminders.snoozes'] = () => ({
      snoozes: [{ rfiId: 'rfi_1', profileId: 'alder', until, capped: false, setAt: until, offsetMs: 0 }],
    });
    render(<SnoozeControl rfiId="rfi_1" profileId="birch" />);
    await waitFor(() => expect(useSnoozes.getState().loaded).toBe(true));
    expect(screen.getByTestId('rfi-snooze-state').textContent).toContain('Reminders not snoozed');
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Snooze reminders' }));
    });
    const menu = await screen.findByRole('menu');
    await act(async () => {
      fireEvent.click(within(menu).getByRole('menuitem', { name: /^3 days/ }));
    });
    await waitFor(() =>
      expect(screen.getByTestId('rfi-snooze-state').textContent).toContain(
        'Reminders snoozed: they resume in 3d',
      ),
    );
    expect(calls.filter((c) => c.channel === 'reminders.snooze')).toEqual([
      { channel: 'reminders.snooze', args: { profileId: 'birch', rfiId: 'rfi_1', choice: '3d' } },
    ]);
    expect(screen.getByRole('button', { name: 'Cancel snooze' })).toBeTruthy();
  });

  it('says why a snooze was refused', async () => {
    answers['reminders.snooze'] = () => {
      throw {
        kind: 'precondition',
        reason: 'LAST_REMINDER_DUE',
        message: 'The last reminder is already due.',
      };
    };
    render(<SnoozeControl rfiId="rfi_1" profileId="birch" />);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Snooze reminders' }));
    });
    await act(async () => {
      fireEvent.click(within(await screen.findByRole('menu')).getByRole('menuitem', { name: /^1 day/ }));
    });
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Not snoozed: The last reminder is already due.',
    );
    expect(screen.queryByTestId('rfi-snooze-state')?.textContent).toContain('Reminders not snoozed');
  });
});

function settingsView(reminders: SettingsView['reminders']): SettingsView {
  return {
    activeProfileId: 'sandbox',
    profiles: [],
    pollingIntervalSeconds: 30,
    notifications: { newRfi: true, rfiStatus: true, transactionStatus: true, quoteExpiry: true },
    reminders,
    vault: {
      backend: 'keychain',
      available: true,
      problem: null,
      keychainName: 'x',
      dataAtRest: 'encrypted',
    },
    problems: [],
  };
}

describe('reminder thresholds (Settings)', () => {
  it('checks a new threshold with the schema main uses', () => {
    expect(proposeThresholds([168, 48, 24], '3', 'days')).toEqual({ hours: [168, 72, 48, 24] });
    expect(proposeThresholds([168, 48, 24], '2', 'days')).toEqual({
      error: 'There is already a reminder 48 hours before.',
    });
    expect(proposeThresholds([24], '30', 'days')).toEqual({
      error: 'Thresholds must be at most 696 hours (29 days).',
    });
    expect(proposeThresholds([24], '0', 'hours')).toMatchObject({
      error: expect.stringContaining('at least 1'),
    });
    expect(proposeThresholds([24], '1.5', 'hours')).toEqual({ error: 'Enter a whole number.' });
    expect(proposeThresholds([1, 2, 3, 4, 5], '6', 'hours')).toMatchObject({
      error: expect.stringContaining('at most 5'),
    });
  });

  it('adds and removes thresholds through settings.update; a bad one is not sent', async () => {
    let current = settingsView({ enabled: true, hours: [168, 48, 24] });
    answers['settings.update'] = (args) => {
      const r = (args as { reminders: Partial<SettingsView['reminders']> }).reminders;
      current = settingsView({
        ...current.reminders,
        ...r,
        hours: [...(r.hours ?? current.reminders.hours)].sort((a, b) => b - a),
      });
      return current;
    };
    useSettings.setState({ view: current, busy: null, error: null, notice: null });
    render(<RemindersPanel />);
    const field = screen.getByLabelText('Remind me');
    await act(async () => {
      fireEvent.change(field, { target: { value: '800' } });
    });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Add reminder' }));
    });
    expect(screen.getByText('Thresholds must be at most 696 hours (29 days).')).toBeTruthy();
    expect(calls.filter((c) => c.channel === 'settings.update')).toEqual([]);

    await act(async () => {
      fireEvent.change(field, { target: { value: '12' } });
    });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Add reminder' }));
    });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Remove the reminder 7 days before the timeout' }));
    });
    expect(calls.filter((c) => c.channel === 'settings.update').map((c) => c.args)).toEqual([
      { reminders: { hours: [168, 48, 24, 12] } },
      { reminders: { hours: [48, 24, 12] } },
    ]);
    await waitFor(() =>
      expect(
        within(screen.getByRole('list', { name: 'Reminder thresholds' }))
          .getAllByRole('listitem')
          .map((li) => li.textContent),
      ).toEqual([
        '48 hours before the timeout',
        '24 hours before the timeout',
        '12 hours before the timeout',
      ]),
    );
    await act(async () => {
      fireEvent.click(screen.getByRole('switch', { name: /Remind me before/ }));
    });
    expect(calls.filter((c) => c.channel === 'settings.update').at(-1)?.args).toEqual({
      reminders: { enabled: false },
    });
  });
});
