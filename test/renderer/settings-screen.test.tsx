import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SettingsScreen } from '../../src/renderer/src/features/settings/SettingsScreen';
import { useSettings } from '../../src/renderer/src/features/settings/store';
import type { SettingsView } from '../../src/shared/ipc/channels/settings';

/** The settings screen with a stand-in window.desk: what it sends, what it keeps. */
function view(overrides: Partial<SettingsView> = {}): SettingsView {
  return {
    activeProfileId: 'sandbox',
    profiles: [
      {
        id: 'sandbox',
        name: 'Embedded sandbox',
        kind: 'embedded-sandbox',
        baseUrl: '',
        webhookPublicKeyPem: null,
        sandboxCredential: 'a-admin',
        hasToken: false,
        runningUrl: 'http://127.0.0.1:4000',
      },
    ],
    pollingIntervalSeconds: 30,
    notifications: { newRfi: true, rfiStatus: true, transactionStatus: true, quoteExpiry: true },
    reminders: { enabled: true, hours: [168, 48, 24] },
    vault: {
      backend: 'keychain',
      available: true,
      problem: null,
      keychainName: 'Secret Service',
      dataAtRest: 'encrypted',
    },
    problems: [],
    ...overrides,
  };
}

let calls: Array<{ channel: string; args: unknown }> = [];
let current: SettingsView;

beforeEach(() => {
  calls = [];
  current = view();
  useSettings.setState({ view: null, sandbox: null, busy: null, error: null, notice: null });
  (globalThis as { desk?: unknown }).desk = {
    async invoke(channel: string, args: unknown) {
      calls.push({ channel, args });
      if (channel === 'settings.get') return { ok: true, value: current };
      if (channel === 'session.sandboxCredentials')
        return { ok: true, value: { available: true, current: 'a-admin', options: [] } };
      if (channel === 'vault.setToken') {
        current = view({ profiles: [{ ...current.profiles[0]!, hasToken: true }] });
        return { ok: true, value: current };
      }
      return { ok: false, error: { kind: 'internal', message: `unexpected ${channel}` } };
    },
    subscribe: () => () => undefined,
  };
});

afterEach(() => {
  cleanup();
  delete (globalThis as { desk?: unknown }).desk;
});

describe('settings screen', () => {
  it('sends the token once, clears the field and keeps no copy in its state', async () => {
    render(<SettingsScreen />);
    const input = await screen.findByLabelText('Access token');
    expect(input.getAttribute('type')).toBe('password');
    expect(input.getAttribute('autocomplete')).toBe('off');
    await act(async () => {
      fireEvent.change(input, { target: { value: 'typed-secret-token-123' } });
    });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Save token' }));
    });
    const sent = calls.filter((c) => c.channel === 'vault.setToken');
    expect(sent).toEqual([
      { channel: 'vault.setToken', args: { profileId: 'sandbox', token: 'typed-secret-token-123' } },
    ]);
    await waitFor(() => expect(screen.getByTestId('token-state-sandbox').textContent).toBe('Token stored'));
    expect((screen.getByLabelText('Replace token') as HTMLInputElement).value).toBe('');
    expect(JSON.stringify(useSettings.getState())).not.toContain('typed-secret-token-123');
    expect(document.body.innerHTML).not.toContain('typed-secret-token-123');
  });

  it('warns clearly when no keychain is available', async () => {
    current = view({
      vault: {
        backend: 'memory',
        available: false,
        keychainName: 'Secret Service',
        problem: 'The Secret Service keychain is not available. Tokens are kept in memory for this run only.',
        dataAtRest: 'unencrypted',
      },
    });
    render(<SettingsScreen />);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('No keychain available');
    expect(alert.textContent).toContain('in memory for this run only');
    // Said plainly: customer data on disk is not encrypted in this mode.
    expect(alert.textContent).toContain('stored unencrypted on this computer');
    expect(screen.getByTestId('data-at-rest').getAttribute('data-mode')).toBe('unencrypted');
  });

  it('shows a signed-out profile as such', async () => {
    render(<SettingsScreen />);
    expect((await screen.findByTestId('token-state-sandbox')).textContent).toBe(
      'Signed out — no token stored',
    );
    expect(screen.queryByRole('button', { name: 'Sign out' })).toBeNull();
  });
});
