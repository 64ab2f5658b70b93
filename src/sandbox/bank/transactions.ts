/** The wire view of a transaction record (spec 2.2, 2.4 and the incoming transfer's fields). */
import { iso } from '../clock';
import type { Txn } from '../model';
import type { BankState } from './state';

export function serializeTxn(s: BankState, t: Txn): Record<string, unknown> {
  const out: Record<string, unknown> = {
    transaction_id: t.id,
    status: t.status,
    timestamp: iso(t.createdAt),
    type: t.type,
    customer_type: 'business',
  };
  const inc = t.incoming;
  if (inc) {
    const f: Record<string, unknown> = {
      amount: inc.amount.toString(),
      currency: inc.currency,
      creditor_account_id: inc.creditorAccountId,
      debtor_name: inc.debtorName,
      debtor_bic: inc.debtorBic,
      uetr: inc.uetr,
      remittance_information: inc.remittanceInformation,
      value_date: inc.valueDate,
    };
    if (inc.ret) {
      f.return_transfer_amount = inc.ret.amount.toString();
      f.return_fee_amount = '0';
      f.return_description = inc.ret.description;
      f.return_status_reason_code = inc.ret.reasonCode;
      f.return_initiated_by = { ...inc.ret.initiatedBy };
      f.return_created_at = iso(inc.ret.createdAt);
      f.return_updated_at = iso(inc.ret.updatedAt);
    }
    out.fi_to_fi_swift_incoming = f;
  }
  const c = t.crypto;
  if (c) {
    const pays = s.accounts.get(c.paysAccountId);
    const rec = s.accounts.get(c.receivesAccountId);
    out.crypto_trade_v2 = {
      transaction_id: t.id,
      customer_legal_entity_id: t.legalEntityId,
      initiated_by: { ...c.initiatedBy },
      checked_by: null,
      checked_at: null,
      priority: c.priority,
      side: c.side,
      rail: c.rail,
      symbol: c.symbol,
      base_asset: c.baseAsset,
      quote_asset: c.quoteAsset,
      customer_pays_account_id: c.paysAccountId,
      customer_pays_account_name: pays?.name ?? '',
      customer_pays_account_iban: pays?.iban ?? '',
      customer_pays_account_wallet_address: pays?.walletAddress ?? '',
      customer_receives_account_id: c.receivesAccountId,
      customer_receives_account_name: rec?.name ?? '',
      customer_receives_account_iban: rec?.iban ?? '',
      customer_receives_account_wallet_address: rec?.walletAddress ?? '',
      customer_requested_asset: c.requestedAsset,
      customer_requested_amount: c.requestedAmount.toString(),
      customer_pays_asset: c.paysAsset,
      customer_pays_amount: c.paysAmount.toString(),
      customer_receives_asset: c.receivesAsset,
      customer_receives_amount: c.receivesAmount.toString(),
      customer_rate: c.rate,
      quote_valid_until: iso(c.validUntil),
      quote_confirmed_at: c.confirmedAt === null ? null : iso(c.confirmedAt),
      description: c.description,
      additional_details: c.additionalDetails,
      document_ids: [],
      transaction_hash: c.transactionHash,
      customer_pays_network_fee_asset: '',
      customer_pays_network_fee_amount: null,
      customer_pays_network_fee_account_id: c.paysAccountId,
      created_at: iso(t.createdAt),
      updated_at: iso(t.updatedAt),
      failure_reason: c.failureReason,
    };
  }
  return out;
}
