import { describe, expect, it } from 'vitest';
import {
  activityKindOf,
  assetLabel,
  assetLongLabel,
  assetNetwork,
  assetTitle,
  describeActivity,
} from '../../src/shared/activity';

describe('asset names', () => {
  it('names a digital asset as analysts do, the network second, currencies as they are', () => {
    expect(assetLabel('ETHEREUM-USDT')).toBe('USDT');
    expect(assetNetwork('ETHEREUM-USDC')).toBe('Ethereum');
    expect(assetLongLabel('ETHEREUM-USDT')).toBe('USDT · Ethereum');
    expect(assetNetwork('USD')).toBeNull();
    expect(assetLongLabel('USD')).toBe('USD');
    expect(assetTitle('ETHEREUM-USDT')).toBe('USDT · Ethereum (ETHEREUM-USDT)');
  });
});

describe('activity in words', () => {
  it('a return intent: amount and currency from minor units, the counterparty and the reason by its name (no code)', () => {
    expect(
      describeActivity({
        operation: 'return.create_intent',
        outcome: 'succeeded',
        target: 'txn_1',
        facts: {
          amount: '1250000',
          currency: 'USD',
          counterparty: 'Harbour Freight Ltd',
          reasonCode: 'AC03',
        },
      }),
    ).toBe(
      'Return intent created — 12,500.00 USD to Harbour Freight Ltd, reason: invalid creditor account number',
    );
  });

  it('a confirmed quote: buy the asset for the currency, exactly (6 and 2 decimals, no floats)', () => {
    expect(
      describeActivity({
        operation: 'crypto.confirm',
        outcome: 'succeeded',
        target: 'txn_2',
        facts: {
          side: 'buy',
          baseAsset: 'ETHEREUM-USDT',
          baseAmount: '25000000',
          quoteAsset: 'USD',
          quoteAmount: '2503',
        },
      }),
    ).toBe('Quote confirmed — buy 25.00 USDT for 25.03 USD');
    // amounts beyond a double's exact range stay exact
    expect(
      describeActivity({
        operation: 'crypto.confirm',
        outcome: 'succeeded',
        target: 'txn_2',
        facts: {
          side: 'sell',
          baseAsset: 'ETHEREUM-USDC',
          baseAmount: '9007199254740993123',
          quoteAsset: 'USD',
          quoteAmount: '900719925474099312',
        },
      }),
    ).toBe('Quote confirmed — sell 9,007,199,254,740.993123 USDC for 9,007,199,254,740,993.12 USD');
  });

  it('outcomes say what happened; a quote request names what was asked for', () => {
    expect(
      describeActivity({
        operation: 'crypto.create_order',
        outcome: 'failed',
        target: 'USDT-USD',
        facts: { side: 'buy', baseAsset: 'ETHEREUM-USDT', baseAmount: '25000000' },
      }),
    ).toBe('Quote refused — buy 25.00 USDT');
    expect(describeActivity({ operation: 'return.confirm', outcome: 'pending', target: 'txn_1' })).toBe(
      'Return confirmation sent',
    );
    expect(
      describeActivity({
        operation: 'webhook.set_url',
        outcome: 'succeeded',
        target: 'http://127.0.0.1:5/webhooks/rfi',
      }),
    ).toBe('Webhook address changed — http://127.0.0.1:5/webhooks/rfi');
  });

  it('entries written before facts were recorded, and unknown operations, still read as words', () => {
    expect(
      describeActivity({ operation: 'return.cancel', outcome: 'succeeded', target: 'txn_1', facts: null }),
    ).toBe('Return cancelled');
    expect(describeActivity({ operation: 'documents.upload', outcome: 'failed', target: null })).toBe(
      'Documents upload (failed)',
    );
    // a malformed amount is left out, never shown as NaN
    expect(
      describeActivity({
        operation: 'return.create_intent',
        outcome: 'succeeded',
        target: 'txn_1',
        facts: { amount: '12.5', currency: 'USD', counterparty: 'Harbour Freight Ltd' },
      }),
    ).toBe('Return intent created — to Harbour Freight Ltd');
  });

  it('kinds for the filter', () => {
    expect(activityKindOf('return.confirm')).toBe('return');
    expect(activityKindOf('crypto.create_order')).toBe('exchange');
    expect(activityKindOf('webhook.set_url')).toBe('webhook');
    expect(activityKindOf('x')).toBe('other');
  });

  it('RFI answers, uploads and the access changes read as sentences, with what they acted on', () => {
    expect(describeActivity({ operation: 'rfi.respond', outcome: 'succeeded', target: 'rfi_1' })).toBe(
      'RFI answered — rfi_1',
    );
    expect(describeActivity({ operation: 'rfi.upload', outcome: 'pending', target: 'doc_1' })).toBe(
      'Document upload sent, outcome not known yet — doc_1',
    );
    expect(
      describeActivity({
        operation: 'bank_origin.approve',
        outcome: 'failed',
        target: 'https://bank.example',
      }),
    ).toBe('Bank address declined — https://bank.example');
    expect(describeActivity({ operation: 'token.delete', outcome: 'succeeded', target: 'default' })).toBe(
      'Token removed (signed out) — default',
    );
    expect(activityKindOf('rfi.upload')).toBe('rfi');
    expect(activityKindOf('profile.add')).toBe('access');
    expect(activityKindOf('bank_origin.approve')).toBe('access');
  });
});
