import { describe, expect, it } from 'vitest';
import { knownTransfers, matchesTransfer } from '../../src/renderer/src/features/returns/known-transfers';

describe('the incoming transfers the Returns screen starts from', () => {
  const recent = [
    {
      transactionId: 'txn_a',
      amount: '9800000',
      currency: 'USD',
      debtorName: 'Northgate Metals Inc',
      status: 'completed',
      viewedAt: '2026-11-20T10:00:00Z',
    },
  ];
  const rfis = [
    {
      type: 'transaction',
      relatedId: 'txn_b',
      description: 'Incoming transfer from Harbour',
      updatedAt: '2026-11-25T10:00:00Z',
    },
    {
      type: 'transaction',
      relatedId: 'txn_a',
      description: 'Purpose of the metals payment',
      updatedAt: '2026-11-21T10:00:00Z',
    },
    {
      type: 'transaction',
      relatedId: 'txn_x',
      description: 'About our USDT purchase',
      updatedAt: '2026-11-26T10:00:00Z',
    },
    {
      type: 'account',
      relatedId: 'acc_1',
      description: 'Periodic review',
      updatedAt: '2026-11-26T10:00:00Z',
    },
  ];

  it('merges look-ups and RFIs, one row per transfer, newest first, without exchange orders', () => {
    const rows = knownTransfers(recent, rfis, new Set(['txn_x']));
    expect(rows.map((r) => r.transactionId)).toEqual(['txn_b', 'txn_a']);
    expect(rows[1]).toMatchObject({
      name: 'Northgate Metals Inc',
      rfi: 'Purpose of the metals payment',
      amount: '9800000',
      source: 'Opened here · in an RFI',
      at: '2026-11-21T10:00:00Z',
    });
    expect(rows[0]).toMatchObject({ name: null, rfi: 'Incoming transfer from Harbour', source: 'In an RFI' });
  });

  it('an RFI’s transfer takes its sender and amount as main named them for the RFI’s owning profile', () => {
    const owned = rfis.map((r) => ({ ...r, profileId: r.relatedId === 'txn_b' ? 'birch' : 'alder' }));
    const asked: [string | undefined, string][] = [];
    const rows = knownTransfers(recent, owned, new Set(['txn_x']), (profileId, tx) => {
      asked.push([profileId, tx]);
      return profileId === 'birch' && tx === 'txn_b'
        ? { counterparty: 'Harbour Freight Ltd', amount: '1250000', currency: 'USD' }
        : undefined;
    });
    expect(asked).toContainEqual(['birch', 'txn_b']);
    expect(rows[0]).toMatchObject({
      transactionId: 'txn_b',
      name: 'Harbour Freight Ltd',
      amount: '1250000',
      currency: 'USD',
      rfi: 'Incoming transfer from Harbour',
      source: 'In an RFI',
    });
  });

  it('is searchable by sender, RFI words and id', () => {
    const rows = knownTransfers(recent, rfis);
    expect(rows.filter((r) => matchesTransfer(r, 'northgate')).map((r) => r.transactionId)).toEqual([
      'txn_a',
    ]);
    expect(rows.filter((r) => matchesTransfer(r, 'harbour')).map((r) => r.transactionId)).toEqual(['txn_b']);
    expect(rows.filter((r) => matchesTransfer(r, 'TXN_X')).map((r) => r.transactionId)).toEqual(['txn_x']);
  });
});
