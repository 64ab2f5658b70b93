import { describe, expect, it } from 'vitest';
import { statusLine, secondsUntil } from '../../src/renderer/src/lib/status-line';
import { routeQuery, segments, withQuery } from '../../src/renderer/src/lib/router';
import { ToastMemory, orderToast, returnToast, syncToast } from '../../src/renderer/src/lib/toast-sources';
import { filterActivity, noFilter } from '../../src/renderer/src/features/activity/filter';
import type { SessionStatus } from '../../src/shared/ipc/channels/session';
import type { AuditEntryView } from '../../src/shared/ipc/channels/audit';
import type { EventPayload } from '../../src/shared/ipc/contract';

const base: SessionStatus = {
  environment: {
    id: 'sandbox',
    name: 'Embedded sandbox',
    kind: 'embedded-sandbox',
    baseUrl: 'http://127.0.0.1:1',
  },
  connection: 'connected',
  credential: { webhookName: 'w', legalEntityId: 'le_a', legalEntityName: 'Alder Trade GmbH', role: 'admin' },
  problem: null,
  checkedAt: '2026-01-05T10:00:00.000Z',
  since: null,
  retryAt: null,
  keychainProblem: null,
};

describe('status line', () => {
  it('connected, unreachable since a time with a retry countdown in seconds, signed out', () => {
    expect(statusLine(base, 0, true)).toMatchObject({ tone: 'ok', label: 'Connected', detail: null });
    const now = Date.parse('2026-01-05T10:02:00.000Z');
    const down = statusLine(
      {
        ...base,
        connection: 'offline',
        since: '2026-01-05T10:01:00.000Z',
        retryAt: '2026-01-05T10:02:07.200Z',
      },
      now,
      true,
    );
    expect(down).toMatchObject({ tone: 'bad', label: 'Bank unreachable', retryInSeconds: 8 });
    expect(down.detail).toMatch(/^since \S*01:00\S*( [AP]M)? · retrying in 8 s$/);
    expect(
      statusLine({ ...base, connection: 'offline', retryAt: '2026-01-05T10:01:00.000Z' }, now, true).detail,
    ).toBe('retrying now');
    expect(statusLine({ ...base, connection: 'no_token', credential: null }, now, true)).toMatchObject({
      tone: 'warn',
      label: 'Signed out',
    });
    expect(statusLine({ ...base, keychainProblem: 'No keychain' }, now, false)).toMatchObject({
      keychainProblem: 'No keychain',
      machineOffline: true,
    });
    expect(secondsUntil('2026-01-05T10:02:00.001Z', now)).toBe(1);
    // One truth: with no network on this computer the line never says "Connected".
    expect(statusLine(base, now, false)).toMatchObject({
      tone: 'bad',
      label: 'Offline',
      bankReachable: false,
      machineOffline: true,
    });
    expect(statusLine(base, now, true).bankReachable).toBe(true);
  });
});

describe('routes with a query', () => {
  it('keeps the query out of the segments and reads it', () => {
    expect(segments('/rfis?band=at_risk')).toEqual(['rfis']);
    expect(segments('/rfis/rfi_1')).toEqual(['rfis', 'rfi_1']);
    expect(routeQuery('/rfis?band=at_risk&status=action_required').get('band')).toBe('at_risk');
    expect(withQuery('/rfis', { band: 'overdue', status: undefined })).toBe('/rfis?band=overdue');
  });
});

describe('toasts from background outcomes', () => {
  it('speaks once per change of state, with a link to the object', () => {
    const memory = new ToastMemory();
    const entry = {
      operationId: 'op1',
      transactionId: 'txn_1',
      amount: '1250000',
      currency: 'USD',
      reasonCode: 'AC03',
      description: '',
      phase: 'completed',
      status: 'return_completed',
      idempotencyKey: 'k',
      environmentId: 'sandbox',
      createdAt: '',
      updatedAt: '',
      problem: null,
    } satisfies EventPayload<'returns.changed'>;
    expect(returnToast(entry, memory)).toMatchObject({
      title: 'Return completed',
      body: '12,500.00 USD returned: Invalid creditor account number: wrong or unknown creditor account',
      link: { to: '/returns/txn_1' },
    });
    expect(returnToast(entry, memory)).toBeNull();
    expect(
      syncToast({ state: 'error', lastError: 'Bad answer' } as EventPayload<'rfis.syncState'>, memory),
    ).toMatchObject({
      title: 'RFI sync failed',
    });
    expect(
      syncToast({ state: 'error', lastError: 'Bad answer' } as EventPayload<'rfis.syncState'>, memory),
    ).toBeNull();
    expect(
      syncToast({ state: 'idle', lastError: null } as EventPayload<'rfis.syncState'>, memory),
    ).toBeNull();
    const order = {
      id: 'o1',
      status: 'completed',
      phase: 'visible',
      request: { side: 'buy' },
      crypto: {
        base_asset: 'ETHEREUM-USDT',
        quote_asset: 'USD',
        customer_receives_amount: '25000000',
        customer_pays_amount: '2503',
      },
      error: null,
    } as unknown as EventPayload<'crypto.orderChanged'>;
    expect(orderToast(order, memory)).toMatchObject({
      title: 'Exchange settled',
      body: 'buy 25.00 USDT for 25.03 USD',
      link: { to: '/exchange/o1' },
    });
  });
});

describe('activity filters', () => {
  const e = (operation: string, outcome: AuditEntryView['outcome'], at: string): AuditEntryView => ({
    id: `${operation}${at}`,
    at,
    who: 'w',
    environmentId: 'sandbox',
    environmentName: 'Embedded sandbox',
    operation,
    idempotencyKey: null,
    target: null,
    outcome,
    detail: null,
    facts: null,
    summary: operation,
  });
  const entries = [
    e('return.confirm', 'succeeded', new Date(2026, 0, 5, 9).toISOString()),
    e('crypto.confirm', 'failed', new Date(2026, 0, 6, 23, 59).toISOString()),
    e('webhook.set_url', 'succeeded', new Date(2026, 0, 7, 0, 1).toISOString()),
  ];
  it('by kind, outcome and local calendar days', () => {
    expect(filterActivity(entries, { ...noFilter, kind: 'exchange' }).map((x) => x.operation)).toEqual([
      'crypto.confirm',
    ]);
    expect(filterActivity(entries, { ...noFilter, outcome: 'succeeded' })).toHaveLength(2);
    expect(
      filterActivity(entries, { ...noFilter, from: '2026-01-06', to: '2026-01-06' }).map((x) => x.operation),
    ).toEqual(['crypto.confirm']);
  });
});
