/** Digital-asset exchange quotes and their confirmation and settlement (spec 2.3, 2.4, 3.2). */
import { digitalAssetBySymbol } from '../../shared/catalogue';
import {
  baseToQuote,
  decimalsOf,
  minorToDecimal,
  quoteToBase,
  parseMinor,
  type Rate,
} from '../../shared/money';
import type { CryptoOrderRequest } from '../../shared/api';
import { iso } from '../clock';
import { badRequest, forbidden, notFound, precondition } from '../errors';
import { CRYPTO_TYPE, type Account, type Credential, type Txn } from '../model';
import type { BankState } from './state';

export class CryptoExchange {
  constructor(private readonly s: BankState) {}

  private accountOf(cred: Credential, field: string, id: string): Account {
    const acc = this.s.accounts.get(id);
    if (!acc || acc.legalEntityId !== cred.legalEntityId) {
      throw forbidden(`${field}: account ${id} is not owned by your legal entity`);
    }
    return acc;
  }

  /** Quoted rate (USD per one unit of base) with the spread in the bank's favour. */
  quoteRate(symbol: string, side: 'buy' | 'sell'): Rate {
    const mid = 10_000 + (symbol === 'USDC-USD' ? 0 : this.s.ids.int(-4, 4));
    const spread = 10;
    return { units: BigInt(side === 'buy' ? mid + spread : mid - spread), scale: 4 };
  }

  createCryptoOrder(
    cred: Credential,
    body: CryptoOrderRequest,
    idempotencyKey: string | null,
  ): { transaction_id: string } {
    const asset = digitalAssetBySymbol(body.symbol);
    if (!asset) throw badRequest(`symbol: unsupported ${body.symbol}`);
    if (body.base_asset !== asset.base_asset) {
      throw badRequest(`base_asset: must be ${asset.base_asset} for symbol ${body.symbol}`);
    }
    if (body.requested_asset !== asset.base_asset && body.requested_asset !== asset.quote_asset) {
      throw badRequest(`requested_asset: must be ${asset.base_asset} or ${asset.quote_asset}`);
    }
    const pays = this.accountOf(cred, 'customer_pays_account_id', body.customer_pays_account_id);
    const receives = this.accountOf(cred, 'customer_receives_account_id', body.customer_receives_account_id);
    const paysAsset = body.side === 'buy' ? asset.quote_asset : asset.base_asset;
    const receivesAsset = body.side === 'buy' ? asset.base_asset : asset.quote_asset;
    if (pays.asset !== paysAsset) {
      throw badRequest(
        `customer_pays_account_id: account holds ${pays.asset}; this order pays in ${paysAsset}`,
      );
    }
    if (receives.asset !== receivesAsset) {
      throw badRequest(
        `customer_receives_account_id: account holds ${receives.asset}; this order receives ${receivesAsset}`,
      );
    }
    const requested = parseMinor(body.requested_amount);
    const rate = this.quoteRate(body.symbol, body.side);
    const bd = decimalsOf(asset.base_asset);
    const qd = decimalsOf(asset.quote_asset);
    const requestedIsBase = body.requested_asset === asset.base_asset;
    let paysAmount: bigint;
    let receivesAmount: bigint;
    if (body.side === 'buy') {
      if (requestedIsBase) {
        receivesAmount = requested;
        paysAmount = baseToQuote(requested, rate, bd, qd, 'up');
      } else {
        paysAmount = requested;
        receivesAmount = quoteToBase(requested, rate, bd, qd, 'down');
      }
    } else if (requestedIsBase) {
      paysAmount = requested;
      receivesAmount = baseToQuote(requested, rate, bd, qd, 'down');
    } else {
      receivesAmount = requested;
      paysAmount = quoteToBase(requested, rate, bd, qd, 'up');
    }
    if (paysAmount === 0n || receivesAmount === 0n) {
      throw badRequest('requested_amount: too small to quote (rounds to zero)');
    }
    if (this.s.available(pays) < paysAmount) {
      throw precondition(
        'INSUFFICIENT_BALANCE',
        `account ${pays.id} has ${this.s.available(pays).toString()} available, the quote needs ${paysAmount.toString()}`,
      );
    }
    const now = this.s.now();
    const t: Txn = {
      id: this.s.ids.id('txn'),
      legalEntityId: cred.legalEntityId,
      type: CRYPTO_TYPE,
      status: 'in_progress',
      createdAt: now,
      updatedAt: now,
      visibleAt: now + this.s.visibilityDelay(),
      idempotencyKey,
      crypto: {
        initiatedBy: { ...cred.user },
        priority: body.priority,
        side: body.side,
        rail: body.rail,
        symbol: body.symbol,
        baseAsset: body.base_asset,
        quoteAsset: body.quote_asset,
        paysAccountId: pays.id,
        receivesAccountId: receives.id,
        requestedAsset: body.requested_asset,
        requestedAmount: requested,
        paysAsset,
        paysAmount,
        receivesAsset,
        receivesAmount,
        rate: minorToDecimal(rate.units, rate.scale),
        validUntil: now + this.s.options.quoteTtlSeconds * 1000,
        confirmedAt: null,
        description: body.description ?? '',
        additionalDetails: body.additional_details ?? '',
        transactionHash: '',
        failureReason: null,
      },
    };
    this.s.putTxn(t);
    this.s.scheduler.at(t.crypto?.validUntil ?? now, () => this.expireIfDue(t));
    return { transaction_id: t.id };
  }

  private expireIfDue(t: Txn): void {
    const c = t.crypto;
    if (c && t.status === 'in_progress' && this.s.now() >= c.validUntil) {
      t.status = 'expired';
      t.updatedAt = c.validUntil;
    }
  }

  confirmCryptoOrder(cred: Credential, id: string): { transaction_id: string } {
    const t = this.s.ownTxn(cred, id);
    const c = t.crypto;
    if (!c) throw notFound(`crypto order ${id} not found`);
    this.expireIfDue(t);
    if (t.status === 'expired') {
      throw precondition('QUOTE_EXPIRED', `the quote expired at ${iso(c.validUntil)}`);
    }
    if (t.status !== 'in_progress') {
      throw precondition(
        'QUOTE_NOT_CONFIRMABLE',
        `the order is ${t.status}; only a quote in_progress can be confirmed`,
      );
    }
    const pays = this.s.mustAccount(c.paysAccountId);
    const receives = this.s.mustAccount(c.receivesAccountId);
    if (this.s.available(pays) < c.paysAmount) {
      throw precondition(
        'INSUFFICIENT_BALANCE',
        `account ${pays.id} has ${this.s.available(pays).toString()} available, the order needs ${c.paysAmount.toString()}`,
      );
    }
    const now = this.s.now();
    pays.held += c.paysAmount;
    t.status = 'pending_execution';
    c.confirmedAt = now;
    t.updatedAt = now;
    this.s.scheduler.at(now + this.s.options.settlementDelayMs, () => {
      if (t.status !== 'pending_execution') return;
      const at = this.s.now();
      pays.held -= c.paysAmount;
      t.updatedAt = at;
      if (c.baseAsset === 'ETHEREUM-USDC' && c.side === 'buy' && c.receivesAmount > this.s.usdcInventory) {
        t.status = 'failed';
        c.failureReason = 'INSUFFICIENT_LIQUIDITY';
        return;
      }
      pays.balance -= c.paysAmount;
      receives.balance += c.receivesAmount;
      if (c.baseAsset === 'ETHEREUM-USDC') {
        this.s.usdcInventory += c.side === 'buy' ? -c.receivesAmount : c.paysAmount;
      }
      c.transactionHash = `0x${this.s.ids.hex(64)}`;
      t.status = 'completed';
    });
    return { transaction_id: t.id };
  }
}
