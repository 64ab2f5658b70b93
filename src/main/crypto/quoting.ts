/**
 * Quotes: a request checked against the catalogue, created through the idempotency ledger under
 * its owner's credential, then read through the bank's visibility window in the background.
 */

import { randomUUID } from 'node:crypto';
import type { CryptoOrderRequest } from '../../shared/api';
import { digitalAssetBySymbol } from '../../shared/catalogue';
import type { OrderView, QuoteArgs } from '../../shared/ipc/channels/crypto';
import { AppFailure } from '../../shared/ipc/errors';
import { isPositiveMinorUnits } from '../../shared/money';
import type { IdempotencyLedger } from '../bank/ledger';
import type { Operations } from '../bank/operations';
import { appErrorOf, orderFacts, requireTrade } from './order-book';
import type { CryptoOwner, OrderBook, OrderRecord } from './order-book';
import type { OrderTracking } from './tracking';

export interface QuotingDeps {
  book: OrderBook;
  tracking: OrderTracking;
  operations: Operations;
  ledger: IdempotencyLedger;
}

/** The bank's order request for the form's arguments (invalid_argument for what it cannot be). */
export function bodyOf(args: Omit<QuoteArgs, 'profileId'>): CryptoOrderRequest {
  const asset = digitalAssetBySymbol(args.symbol);
  if (!asset) {
    throw new AppFailure({
      kind: 'invalid_argument',
      field: 'symbol',
      message: `symbol: ${args.symbol} is not supported.`,
    });
  }
  if (args.requestedAsset !== asset.base_asset && args.requestedAsset !== asset.quote_asset) {
    throw new AppFailure({
      kind: 'invalid_argument',
      field: 'requestedAsset',
      message: `requestedAsset: must be ${asset.base_asset} or ${asset.quote_asset}.`,
    });
  }
  if (!isPositiveMinorUnits(args.requestedAmount)) {
    throw new AppFailure({
      kind: 'invalid_argument',
      field: 'requestedAmount',
      message: 'requestedAmount: must be a positive amount.',
    });
  }
  return {
    side: args.side,
    priority: 'instant',
    rail: 'rfq',
    symbol: asset.symbol,
    base_asset: asset.base_asset,
    quote_asset: asset.quote_asset,
    requested_asset: args.requestedAsset,
    requested_amount: args.requestedAmount,
    customer_pays_account_id: args.paysAccountId,
    customer_receives_account_id: args.receivesAccountId,
    ...(args.description ? { description: args.description } : {}),
    ...(args.additionalDetails ? { additional_details: args.additionalDetails } : {}),
  };
}

/** The request of an earlier order, asked again (a requote). */
export function bodyOfRecord(r: OrderRecord): CryptoOrderRequest {
  const b = r.body;
  return bodyOf({
    side: b.side === 'sell' ? 'sell' : 'buy',
    symbol: b.symbol as QuoteArgs['symbol'],
    requestedAsset: b.requested_asset,
    requestedAmount: b.requested_amount,
    paysAccountId: b.customer_pays_account_id,
    receivesAccountId: b.customer_receives_account_id,
    ...(b.description ? { description: b.description } : {}),
    ...(b.additional_details ? { additionalDetails: b.additional_details } : {}),
  });
}

/** A new quote for the owner (a requote names the order it replaces). */
export function createQuoting(
  deps: QuotingDeps,
): (body: CryptoOrderRequest, requoteOf: string | null, owner: CryptoOwner) => Promise<OrderView> {
  const { book } = deps;
  return async (body, requoteOf, owner) => {
    await requireTrade(owner);
    const id = `cx-${randomUUID()}`;
    book.put({
      id,
      environmentId: owner.profileId,
      legalEntityId: owner.credential?.legalEntityId ?? null,
      createdAt: new Date(owner.clock.now()).toISOString(),
      requoteOf,
      body: {
        side: body.side,
        symbol: body.symbol,
        base_asset: body.base_asset,
        quote_asset: body.quote_asset,
        requested_asset: body.requested_asset,
        requested_amount: body.requested_amount,
        customer_pays_account_id: body.customer_pays_account_id,
        customer_receives_account_id: body.customer_receives_account_id,
        description: body.description ?? '',
        additional_details: body.additional_details ?? '',
      },
      idempotencyKey: null,
      transactionId: null,
      phase: 'creating',
      status: null,
      crypto: null,
      error: null,
      lastReadAt: null,
      confirmedHere: false,
      notified: false,
    });
    book.pushView(book.get(id));
    try {
      const res = await deps.operations.createCryptoOrder(
        id,
        body,
        orderFacts({ body, crypto: null }),
        owner.profileId,
      );
      const r = book.update(id, {
        transactionId: res.transactionId,
        idempotencyKey: res.idempotencyKey,
        phase: 'not_visible',
      });
      deps.tracking.awaitVisible(id, res.transactionId);
      return book.view(r);
    } catch (err) {
      const error = appErrorOf(err);
      if (deps.ledger.get(id)?.state === 'pending') {
        // Ambiguous (offline, 5xx): the bank may have made the quote. It moves no funds unless
        // confirmed, and it expires by itself, so a new quote is safe.
        error.message = `${error.message} The bank may or may not have made this quote; it cannot be confirmed from here and expires by itself. Request a new quote when the bank answers.`;
      }
      book.update(id, {
        phase: 'create_failed',
        error,
        // The ledger keeps the key of the attempt even when it failed.
        idempotencyKey: deps.ledger.get(id)?.key ?? null,
      });
      throw err;
    }
  };
}
