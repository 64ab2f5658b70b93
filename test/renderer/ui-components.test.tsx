import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AmountField,
  Button,
  ConfirmDialog,
  CopyableId,
  RelativeTime,
  Select,
  TextField,
} from '../../src/renderer/src/components/ui';
import { readAmountInput } from '../../src/shared/money';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('RelativeTime', () => {
  it('shows the relative form and the absolute time as the title', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    render(<RelativeTime value="2026-11-23T17:00:00Z" now={now} prefix="Due" />);
    const el = screen.getByText(/^Due /);
    expect(el.tagName).toBe('TIME');
    expect(el.getAttribute('datetime')).toBe('2026-11-23T17:00:00.000Z');
    expect(el.textContent).toMatch(/^Due in 5/);
    expect(el.getAttribute('title')).toMatch(/^Due .*2026/);
  });

  it('shows the fallback when there is no date', () => {
    render(<RelativeTime value={null} fallback="no deadline" />);
    expect(screen.getByText('no deadline')).toBeTruthy();
  });

  it('follows the shared clock without a given now, and subscribes to nothing with one (table rows)', () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-23T12:00:00Z') });
    try {
      const fixed = render(
        <RelativeTime value="2026-11-23T11:59:00Z" now={Date.parse('2026-11-23T12:00:00Z')} />,
      );
      expect(vi.getTimerCount()).toBe(0);
      fixed.unmount();
      render(<RelativeTime value="2026-11-23T11:59:00Z" />);
      expect(vi.getTimerCount()).toBe(1);
      const before = screen.getByRole('time').textContent;
      act(() => vi.advanceTimersByTime(2 * 60 * 60 * 1000));
      expect(screen.getByRole('time').textContent).not.toBe(before);
      expect(screen.getByRole('time').textContent).toMatch(/2h/);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('CopyableId', () => {
  it('shows the id in full as title and copies it', async () => {
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText } });
    render(<CopyableId id="rfi_0123456789" kind="RFI id" />);
    expect(screen.getByText('rfi_0123456789').getAttribute('title')).toBe('rfi_0123456789');
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Copy RFI id' }));
      await Promise.resolve();
    });
    expect(writeText).toHaveBeenCalledWith('rfi_0123456789');
    expect(screen.getByRole('button', { name: 'Copied RFI id' })).toBeTruthy();
  });
});

describe('AmountField', () => {
  it('keeps the typed decimal text, read exactly into minor units (no float)', () => {
    const seen: string[] = [];
    function Form() {
      const [v, setV] = useState('');
      return (
        <AmountField
          label="Amount"
          unit="USD"
          value={v}
          onChange={(x) => {
            seen.push(x);
            setV(x);
          }}
        />
      );
    }
    render(<Form />);
    const input = screen.getByRole('textbox', { name: 'Amount' });
    expect(input.getAttribute('inputmode')).toBe('decimal');
    fireEvent.change(input, { target: { value: '12500.10' } });
    expect(seen.at(-1)).toBe('12500.10');
    expect(readAmountInput(seen.at(-1)!, 2)).toEqual({ minor: 1250010n });
  });

  it('marks the field invalid with the message', () => {
    render(<AmountField label="Amount" value="1,0" onChange={() => {}} errorMessage="No separators" />);
    expect(screen.getByRole('textbox', { name: 'Amount' }).getAttribute('aria-invalid')).toBe('true');
  });
});

describe('TextField', () => {
  it('marks a read-only field read-only', () => {
    render(<TextField label="Legal entity" value="Alder Trade GmbH" isReadOnly />);
    expect(screen.getByRole('textbox', { name: 'Legal entity' }).hasAttribute('readonly')).toBe(true);
  });
});

describe('Select', () => {
  it('names its button by label and value, and "" is a real choice', () => {
    render(
      <Select
        label="Status"
        value=""
        onChange={() => {}}
        options={[
          { value: '', label: 'All statuses' },
          { value: 'open', label: 'Open' },
        ]}
      />,
    );
    const button = screen.getByRole('button', { name: /Status/ });
    expect(button.textContent).toContain('All statuses');
  });
});

describe('Button and ConfirmDialog', () => {
  it('a pending button says it is busy', () => {
    render(<Button isPending>Send</Button>);
    expect(screen.getByRole('button').getAttribute('aria-disabled')).toBe('true');
  });

  it('confirms only through the explicit confirm button', () => {
    // jsdom has no CSS.escape, which React Aria's focus scope uses; Chromium has it.
    globalThis.CSS ??= { escape: (s: string) => s.replace(/[^a-zA-Z0-9_-]/g, (c) => `\\${c}`) } as typeof CSS;
    const onConfirm = vi.fn();
    render(
      <ConfirmDialog
        isOpen
        onOpenChange={() => {}}
        title="Return 12,500.00 USD?"
        confirmLabel="Return"
        onConfirm={onConfirm}
      >
        12,500.00 USD to Harbour Freight Ltd
      </ConfirmDialog>,
    );
    expect(screen.getByRole('alertdialog', { name: 'Return 12,500.00 USD?' })).toBeTruthy();
    expect(onConfirm).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Return' }));
    expect(onConfirm).toHaveBeenCalledTimes(1);
  });
});
