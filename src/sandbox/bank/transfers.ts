/** Incoming SWIFT FI-to-FI transfers and their returns (spec 3.1). */
import { parseMinor } from '../../shared/money';
import type { ReturnIntentRequest } from '../../shared/api';
import { iso } from '../clock';
import { badRequest, notFound, precondition } from '../errors';
import { INCOMING_TYPE, type Account, type Credential, type LegalEntity, type Txn } from '../model';
import type { BankState } from './state';

export class Transfers {
  constructor(private readonly s: BankState) {}

  addIncomingTransfer(input: {
    legalEntityId?: string;
    creditorAccountId?: string;
    amount?: bigint;
    currency?: string;
    debtorName?: string;
    status?: 'completed' | 'in_progress';
    createdAt?: number;
    remittance?: string;
  }): Txn {
    const now = this.s.now();
    let le: LegalEntity | undefined;
    let acc: Account | undefined;
    if (input.creditorAccountId !== undefined) {
      acc = this.s.accounts.get(input.creditorAccountId);
      if (!acc) throw notFound(`creditor_account_id: no account ${input.creditorAccountId}`);
      if (acc.asset !== 'USD') throw badRequest('creditor_account_id: must be a USD account');
      le = this.s.legalEntityById.get(acc.legalEntityId);
      if (input.legalEntityId !== undefined && input.legalEntityId !== acc.legalEntityId) {
        throw badRequest('creditor_account_id: not owned by legal_entity_id');
      }
    } else {
      le =
        input.legalEntityId !== undefined
          ? this.s.legalEntityById.get(input.legalEntityId)
          : this.s.legalEntities[0];
      if (!le) throw notFound(`legal_entity_id: no legal entity ${input.legalEntityId ?? ''}`);
      acc = le.accountIds.map((id) => this.s.accounts.get(id)).find((a) => a?.asset === 'USD');
      if (!acc) throw badRequest('legal_entity_id: the legal entity has no USD account');
    }
    if (!le) throw notFound('legal_entity_id: unknown');
    const createdAt = input.createdAt ?? now;
    const amount = input.amount ?? BigInt(this.s.ids.int(1000, 5_000_000)) * 100n;
    const status = input.status ?? 'completed';
    const t: Txn = {
      id: this.s.ids.id('txn'),
      legalEntityId: le.id,
      type: INCOMING_TYPE,
      status,
      createdAt,
      updatedAt: createdAt,
      visibleAt: createdAt,
      idempotencyKey: null,
      incoming: {
        amount,
        currency: input.currency ?? 'USD',
        creditorAccountId: acc.id,
        debtorName: input.debtorName ?? 'Harbour Freight Ltd',
        debtorBic: 'DEUTDEFFXXX',
        uetr: uuidFromHex(this.s.ids.hex(32)),
        remittanceInformation: input.remittance ?? `INV-${this.s.ids.int(10000, 99999)}`,
        valueDate: iso(createdAt).slice(0, 10),
        ret: null,
      },
    };
    if (status === 'completed') acc.balance += amount;
    this.s.putTxn(t);
    le.incomingTransferIds.push(t.id);
    return t;
  }

  createReturnIntent(
    cred: Credential,
    body: ReturnIntentRequest,
    idempotencyKey: string | null = null,
  ): { transaction_id: string } {
    const t = this.s.ownTxn(cred, body.transaction_id);
    const inc = t.incoming;
    if (!inc) throw badRequest('transaction_id: not an incoming SWIFT FI-to-FI transfer');
    if (inc.ret) {
      throw precondition('RETURN_ALREADY_ACTIVE', `transaction ${t.id} already has a return (${t.status})`);
    }
    if (t.status !== 'completed') {
      throw precondition('TRANSACTION_NOT_SETTLED', `transaction ${t.id} is ${t.status}, not completed`);
    }
    const amount = parseMinor(body.return_amount);
    if (amount > inc.amount) {
      throw badRequest(`return_amount: must not exceed the transfer amount ${inc.amount.toString()}`);
    }
    const acc = this.s.mustAccount(inc.creditorAccountId);
    if (this.s.available(acc) < amount) {
      throw precondition(
        'INSUFFICIENT_BALANCE',
        `creditor account ${acc.id} has ${this.s.available(acc).toString()} available, less than ${amount.toString()}`,
      );
    }
    const now = this.s.now();
    inc.ret = {
      amount,
      description: body.description ?? '',
      reasonCode: body.status_reason_code,
      initiatedBy: { ...cred.user },
      confirmedBy: null,
      createdAt: now,
      updatedAt: now,
      idempotencyKey,
    };
    t.status = 'intent_created';
    t.updatedAt = now;
    // Spec 7.1: a read shortly after a creating call may answer 404. The intent is a creating call
    // (spec 4.1), so the record is hidden for the same visibility window as a new crypto order.
    t.visibleAt = now + this.s.visibilityDelay();
    return { transaction_id: t.id };
  }

  private intentOf(cred: Credential, id: string): Txn & { incoming: NonNullable<Txn['incoming']> } {
    const t = this.s.ownTxn(cred, id);
    if (!t.incoming) throw precondition('NO_RETURN_INTENT', `transaction ${id} is not an incoming transfer`);
    if (t.incoming.ret && (t.status === 'in_progress' || t.status === 'return_completed')) {
      throw precondition(
        'RETURN_ALREADY_CONFIRMED',
        `the return of ${id} is already confirmed (${t.status})`,
      );
    }
    if (t.status !== 'intent_created' || !t.incoming.ret) {
      throw precondition('NO_RETURN_INTENT', `transaction ${id} has no return intent`);
    }
    return t as Txn & { incoming: NonNullable<Txn['incoming']> };
  }

  confirmReturn(cred: Credential, id: string): { transaction_id: string } {
    const t = this.intentOf(cred, id);
    const ret = t.incoming.ret;
    if (!ret) throw precondition('NO_RETURN_INTENT', `transaction ${id} has no return intent`);
    const acc = this.s.mustAccount(t.incoming.creditorAccountId);
    if (this.s.available(acc) < ret.amount) {
      throw precondition(
        'INSUFFICIENT_BALANCE',
        `creditor account ${acc.id} has ${this.s.available(acc).toString()} available, less than ${ret.amount.toString()}`,
      );
    }
    const now = this.s.now();
    acc.held += ret.amount;
    ret.confirmedBy = { ...cred.user };
    t.status = 'in_progress';
    t.updatedAt = now;
    ret.updatedAt = now;
    this.s.scheduler.at(now + this.s.options.returnCompletionDelayMs, () => {
      if (t.status !== 'in_progress') return;
      const at = this.s.now();
      acc.held -= ret.amount;
      acc.balance -= ret.amount;
      t.status = 'return_completed';
      t.updatedAt = at;
      ret.updatedAt = at;
    });
    return { transaction_id: t.id };
  }

  cancelReturn(cred: Credential, id: string): { transaction_id: string } {
    const t = this.intentOf(cred, id);
    t.incoming.ret = null;
    t.status = 'completed';
    t.updatedAt = this.s.now();
    return { transaction_id: t.id };
  }
}

function uuidFromHex(h: string): string {
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
