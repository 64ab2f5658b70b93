/**
 * The sandbox bank's domain: accounts, incoming transfers and their returns, crypto quotes, RFIs,
 * documents and webhook configuration. Every method either applies a whole change or throws an
 * ApiError without changing anything.
 */
import { digitalAssetBySymbol, questionTypeInfo } from '../shared/catalogue';
import { baseToQuote, decimalsOf, minorToDecimal, quoteToBase, parseMinor, type Rate } from '../shared/money';
import {
  actionStatus,
  canActOnRfi,
  deriveRfiStatus,
  isFinal,
  nextQuestionStatus,
  rfiDeadline,
  type QuestionAction,
} from '../shared/rfi-rules';
import type {
  CryptoOrderRequest,
  ReturnIntentRequest,
  RfiResponseRequest,
  UploadUrlRequest,
  ListRfisQuery,
} from '../shared/api';
import { iso, type Clock, type Scheduler } from './clock';
import { ApiError, badRequest, forbidden, notFound, precondition } from './errors';
import type { IdGen } from './ids';
import {
  CRYPTO_TYPE,
  INCOMING_TYPE,
  type Account,
  type Credential,
  type Doc,
  type LegalEntity,
  type Question,
  type RfiRec,
  type RfiResp,
  type Txn,
  type User,
} from './model';
import type { SandboxOptions } from './options';

export interface EventSink {
  (legalEntityId: string, type: string, data: { rfi_id: string; question_id?: string; status: string }): void;
}

export interface UrlSigner {
  uploadUrl(doc: Doc): string;
  downloadUrl(doc: Doc, expiresAtMs: number): string;
}

export class Bank {
  readonly legalEntities: LegalEntity[] = [];
  readonly legalEntityById = new Map<string, LegalEntity>();
  readonly credentials = new Map<string, Credential>();
  readonly accounts = new Map<string, Account>();
  readonly txns = new Map<string, Txn>();
  readonly txnOrder: Txn[] = [];
  readonly rfis = new Map<string, RfiRec>();
  /** RFIs of each legal entity in creation order (seq ascending). */
  readonly rfisByLe = new Map<string, RfiRec[]>();
  readonly docs = new Map<string, Doc>();
  private rfiSeq = 0;
  usdcInventory: bigint;
  events: EventSink = () => {};
  signer: UrlSigner | null = null;

  constructor(
    readonly options: SandboxOptions,
    readonly clock: Clock,
    readonly scheduler: Scheduler,
    readonly ids: IdGen,
  ) {
    this.usdcInventory = options.usdcInventory;
  }

  now(): number {
    return this.clock.now();
  }

  // ---------------------------------------------------------------- setup

  addLegalEntity(name: string): LegalEntity {
    const le: LegalEntity = {
      id: this.ids.id('le'),
      name,
      tokens: { admin: '' },
      accountIds: [],
      incomingTransferIds: [],
      seededRfiIds: [],
    };
    this.legalEntities.push(le);
    this.legalEntityById.set(le.id, le);
    this.rfisByLe.set(le.id, []);
    return le;
  }

  addCredential(
    le: LegalEntity,
    role: 'admin' | 'viewer',
    user: Omit<User, 'id'>,
    createdAt: number,
  ): Credential {
    const token = `tds_${role}_${this.ids.hex(40)}`;
    const cred: Credential = {
      token,
      name: `${le.name} ${role} credential`,
      legalEntityId: le.id,
      role,
      user: { id: this.ids.id('usr'), ...user },
      webhookUrl: '',
      createdAt,
      updatedAt: createdAt,
    };
    this.credentials.set(token, cred);
    if (role === 'admin' && !le.tokens.admin) le.tokens.admin = token;
    if (role === 'viewer' && !le.tokens.viewer) le.tokens.viewer = token;
    return cred;
  }

  addAccount(le: LegalEntity, name: string, asset: string, balance: bigint): Account {
    const isUsd = asset === 'USD';
    const acc: Account = {
      id: this.ids.id('acc'),
      legalEntityId: le.id,
      name,
      asset,
      iban: isUsd
        ? `GB${this.ids.int(10, 99)}TDSK${this.ids.hex(14).replace(/[a-f]/g, (c) => String(c.charCodeAt(0) % 10))}`
        : '',
      walletAddress: isUsd ? '' : `0x${this.ids.hex(40)}`,
      balance,
      held: 0n,
    };
    this.accounts.set(acc.id, acc);
    le.accountIds.push(acc.id);
    return acc;
  }

  available(acc: Account): bigint {
    return acc.balance - acc.held;
  }

  // ---------------------------------------------------------------- transactions

  private putTxn(t: Txn): void {
    this.txns.set(t.id, t);
    this.txnOrder.push(t);
  }

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
    const now = this.now();
    let le: LegalEntity | undefined;
    let acc: Account | undefined;
    if (input.creditorAccountId !== undefined) {
      acc = this.accounts.get(input.creditorAccountId);
      if (!acc) throw notFound(`creditor_account_id: no account ${input.creditorAccountId}`);
      if (acc.asset !== 'USD') throw badRequest('creditor_account_id: must be a USD account');
      le = this.legalEntityById.get(acc.legalEntityId);
      if (input.legalEntityId !== undefined && input.legalEntityId !== acc.legalEntityId) {
        throw badRequest('creditor_account_id: not owned by legal_entity_id');
      }
    } else {
      le =
        input.legalEntityId !== undefined
          ? this.legalEntityById.get(input.legalEntityId)
          : this.legalEntities[0];
      if (!le) throw notFound(`legal_entity_id: no legal entity ${input.legalEntityId ?? ''}`);
      acc = le.accountIds.map((id) => this.accounts.get(id)).find((a) => a?.asset === 'USD');
      if (!acc) throw badRequest('legal_entity_id: the legal entity has no USD account');
    }
    if (!le) throw notFound('legal_entity_id: unknown');
    const createdAt = input.createdAt ?? now;
    const amount = input.amount ?? BigInt(this.ids.int(1000, 5_000_000)) * 100n;
    const status = input.status ?? 'completed';
    const t: Txn = {
      id: this.ids.id('txn'),
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
        uetr: uuidFromHex(this.ids.hex(32)),
        remittanceInformation: input.remittance ?? `INV-${this.ids.int(10000, 99999)}`,
        valueDate: iso(createdAt).slice(0, 10),
        ret: null,
      },
    };
    if (status === 'completed') acc.balance += amount;
    this.putTxn(t);
    le.incomingTransferIds.push(t.id);
    return t;
  }

  /** A transaction of the caller's legal entity that is visible now; 404 otherwise. */
  visibleTxn(cred: Credential, id: string): Txn {
    const t = this.txns.get(id);
    if (!t || t.legalEntityId !== cred.legalEntityId || t.visibleAt > this.now()) {
      throw notFound(`transaction ${id} not found`);
    }
    return t;
  }

  /** A transaction of the caller's legal entity (visible or not: the caller created it). */
  private ownTxn(cred: Credential, id: string): Txn {
    const t = this.txns.get(id);
    if (!t || t.legalEntityId !== cred.legalEntityId) throw notFound(`transaction ${id} not found`);
    return t;
  }

  private visibilityDelay(): number {
    const { min, max } = this.options.visibilityDelayMs;
    return max <= min ? min : min + Math.floor(this.ids.float() * (max - min + 1));
  }

  // ---------------------------------------------------------------- returns (spec 3.1)

  createReturnIntent(
    cred: Credential,
    body: ReturnIntentRequest,
    idempotencyKey: string | null = null,
  ): { transaction_id: string } {
    const t = this.ownTxn(cred, body.transaction_id);
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
    const acc = this.mustAccount(inc.creditorAccountId);
    if (this.available(acc) < amount) {
      throw precondition(
        'INSUFFICIENT_BALANCE',
        `creditor account ${acc.id} has ${this.available(acc).toString()} available, less than ${amount.toString()}`,
      );
    }
    const now = this.now();
    inc.ret = {
      amount,
      description: body.description ?? '',
      reasonCode: body.status_reason_code,
      initiatedBy: { ...cred.user },
      createdAt: now,
      updatedAt: now,
      idempotencyKey,
    };
    t.status = 'intent_created';
    t.updatedAt = now;
    // Spec 7.1: a read shortly after a creating call may answer 404. The intent is a creating call
    // (spec 4.1), so the record is hidden for the same visibility window as a new crypto order.
    t.visibleAt = now + this.visibilityDelay();
    return { transaction_id: t.id };
  }

  private intentOf(cred: Credential, id: string): Txn & { incoming: NonNullable<Txn['incoming']> } {
    const t = this.ownTxn(cred, id);
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
    const acc = this.mustAccount(t.incoming.creditorAccountId);
    if (this.available(acc) < ret.amount) {
      throw precondition(
        'INSUFFICIENT_BALANCE',
        `creditor account ${acc.id} has ${this.available(acc).toString()} available, less than ${ret.amount.toString()}`,
      );
    }
    const now = this.now();
    acc.held += ret.amount;
    t.status = 'in_progress';
    t.updatedAt = now;
    ret.updatedAt = now;
    this.scheduler.at(now + this.options.returnCompletionDelayMs, () => {
      if (t.status !== 'in_progress') return;
      const at = this.now();
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
    t.updatedAt = this.now();
    return { transaction_id: t.id };
  }

  // ---------------------------------------------------------------- crypto (spec 2.3, 2.4, 3.2)

  private accountOf(cred: Credential, field: string, id: string): Account {
    const acc = this.accounts.get(id);
    if (!acc || acc.legalEntityId !== cred.legalEntityId) {
      throw forbidden(`${field}: account ${id} is not owned by your legal entity`);
    }
    return acc;
  }

  /** Quoted rate (USD per one unit of base) with the spread in the bank's favour. */
  quoteRate(symbol: string, side: 'buy' | 'sell'): Rate {
    const mid = 10_000 + (symbol === 'USDC-USD' ? 0 : this.ids.int(-4, 4));
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
    if (this.available(pays) < paysAmount) {
      throw precondition(
        'INSUFFICIENT_BALANCE',
        `account ${pays.id} has ${this.available(pays).toString()} available, the quote needs ${paysAmount.toString()}`,
      );
    }
    const now = this.now();
    const t: Txn = {
      id: this.ids.id('txn'),
      legalEntityId: cred.legalEntityId,
      type: CRYPTO_TYPE,
      status: 'in_progress',
      createdAt: now,
      updatedAt: now,
      visibleAt: now + this.visibilityDelay(),
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
        validUntil: now + this.options.quoteTtlSeconds * 1000,
        confirmedAt: null,
        description: body.description ?? '',
        additionalDetails: body.additional_details ?? '',
        transactionHash: '',
        failureReason: null,
      },
    };
    this.putTxn(t);
    this.scheduler.at(t.crypto?.validUntil ?? now, () => this.expireIfDue(t));
    return { transaction_id: t.id };
  }

  private expireIfDue(t: Txn): void {
    const c = t.crypto;
    if (c && t.status === 'in_progress' && this.now() >= c.validUntil) {
      t.status = 'expired';
      t.updatedAt = c.validUntil;
    }
  }

  confirmCryptoOrder(cred: Credential, id: string): { transaction_id: string } {
    const t = this.ownTxn(cred, id);
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
    const pays = this.mustAccount(c.paysAccountId);
    const receives = this.mustAccount(c.receivesAccountId);
    if (this.available(pays) < c.paysAmount) {
      throw precondition(
        'INSUFFICIENT_BALANCE',
        `account ${pays.id} has ${this.available(pays).toString()} available, the order needs ${c.paysAmount.toString()}`,
      );
    }
    const now = this.now();
    pays.held += c.paysAmount;
    t.status = 'pending_execution';
    c.confirmedAt = now;
    t.updatedAt = now;
    this.scheduler.at(now + this.options.settlementDelayMs, () => {
      if (t.status !== 'pending_execution') return;
      const at = this.now();
      pays.held -= c.paysAmount;
      t.updatedAt = at;
      if (c.baseAsset === 'ETHEREUM-USDC' && c.side === 'buy' && c.receivesAmount > this.usdcInventory) {
        t.status = 'failed';
        c.failureReason = 'INSUFFICIENT_LIQUIDITY';
        return;
      }
      pays.balance -= c.paysAmount;
      receives.balance += c.receivesAmount;
      if (c.baseAsset === 'ETHEREUM-USDC') {
        this.usdcInventory += c.side === 'buy' ? -c.receivesAmount : c.paysAmount;
      }
      c.transactionHash = `0x${this.ids.hex(64)}`;
      t.status = 'completed';
    });
    return { transaction_id: t.id };
  }

  private mustAccount(id: string): Account {
    const acc = this.accounts.get(id);
    if (!acc) throw new ApiError(500, `account ${id} missing`);
    return acc;
  }

  serializeTxn(t: Txn): Record<string, unknown> {
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
      const pays = this.accounts.get(c.paysAccountId);
      const rec = this.accounts.get(c.receivesAccountId);
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

  // ---------------------------------------------------------------- RFIs (spec 3.3)

  private ownerOf(relatedId: string): string | undefined {
    return this.accounts.get(relatedId)?.legalEntityId ?? this.txns.get(relatedId)?.legalEntityId;
  }

  createRfi(
    input: {
      legal_entity_id?: string;
      type: string;
      related_id: string;
      description?: string;
      questions: { question_type: string; question_text: string; comment?: string }[];
    },
    opts: { createdAt?: number; emit?: boolean } = {},
  ): RfiRec {
    let leId = input.legal_entity_id;
    if (leId !== undefined) {
      if (!this.legalEntityById.has(leId)) throw notFound(`legal_entity_id: no legal entity ${leId}`);
    } else {
      leId = this.ownerOf(input.related_id);
      if (!leId) {
        throw badRequest('legal_entity_id: required when related_id is not a known account or transaction');
      }
    }
    const at = opts.createdAt ?? this.now();
    const id = this.ids.id('rfi');
    const rfi: RfiRec = {
      id,
      seq: this.rfiSeq++,
      type: input.type,
      relatedId: input.related_id,
      legalEntityId: leId,
      description: input.description ?? '',
      status: 'action_required',
      createdAt: at,
      updatedAt: at,
      questions: input.questions.map((q) => ({
        id: this.ids.id('rfq'),
        status: 'action_required',
        questionType: q.question_type,
        questionText: q.question_text,
        comment: q.comment ?? '',
        documentIds: [],
        createdAt: at,
        updatedAt: at,
        responses: [],
      })),
      json: null,
    };
    this.insertRfi(rfi);
    if (opts.emit !== false) {
      this.events(leId, 'rfi.action_required', { rfi_id: id, status: rfi.status });
      for (const q of rfi.questions) {
        this.events(leId, 'rfi.question.action_required', {
          rfi_id: id,
          question_id: q.id,
          status: q.status,
        });
      }
    }
    this.scheduleTimeout(rfi);
    return rfi;
  }

  private insertRfi(rfi: RfiRec): void {
    this.rfis.set(rfi.id, rfi);
    const list = this.rfisByLe.get(rfi.legalEntityId);
    if (list) list.push(rfi);
  }

  bulkRfis(count: number, legalEntityId?: string): { created: number; first_id: string; last_id: string } {
    const le = legalEntityId !== undefined ? this.legalEntityById.get(legalEntityId) : this.legalEntities[0];
    if (!le) throw notFound(`legal_entity_id: no legal entity ${legalEntityId ?? ''}`);
    const related = le.accountIds[0] ?? le.id;
    const types = ['transaction', 'account', 'nominal_sub_account_kyc', 'segment_upgrade'];
    let first = '';
    let last = '';
    for (let i = 0; i < count; i++) {
      const type = types[i % types.length] ?? 'account';
      const rfi = this.createRfi(
        {
          legal_entity_id: le.id,
          type,
          related_id: related,
          description: `Bulk RFI ${i + 1}`,
          questions:
            i % 2 === 0
              ? [
                  {
                    question_type: 'transaction.purpose',
                    question_text: 'What is the purpose of this payment?',
                  },
                ]
              : [
                  {
                    question_type: 'transaction.source_of_funds',
                    question_text: 'Where do the funds come from?',
                  },
                  {
                    question_type: 'transaction.supporting_documents',
                    question_text: 'Please upload the invoice.',
                  },
                ],
        },
        { emit: false },
      );
      if (i === 0) first = rfi.id;
      last = rfi.id;
    }
    return { created: count, first_id: first, last_id: last };
  }

  scheduleTimeout(rfi: RfiRec): void {
    const d = rfiDeadline(this.rfiView(rfi));
    if (d) this.scheduler.at(d.getTime(), () => this.timeoutIfDue(rfi));
  }

  private rfiView(rfi: RfiRec): { status: string; questions: { status: string; updated_at: string }[] } {
    return {
      status: rfi.status,
      questions: rfi.questions.map((q) => ({ status: q.status, updated_at: iso(q.updatedAt) })),
    };
  }

  /** When an RFI's deadline has passed, every non-final question and the RFI time out. */
  timeoutIfDue(rfi: RfiRec): void {
    const d = rfiDeadline(this.rfiView(rfi));
    if (!d || d.getTime() > this.now()) return;
    const at = d.getTime();
    const changed: Question[] = [];
    for (const q of rfi.questions) {
      const next = nextQuestionStatus(q.status, { kind: 'timeout' });
      if (!next) continue;
      q.status = next;
      q.updatedAt = at;
      q.responses.push(
        this.newResponse(q, 'system', 'No response within 30 days of the last update.', [], at),
      );
      changed.push(q);
    }
    this.afterQuestionChange(rfi, changed, at);
  }

  newResponse(
    q: Question,
    responderType: RfiResp['responderType'],
    text: string,
    documentIds: string[],
    at: number,
  ): RfiResp {
    return {
      id: this.ids.id('rsp'),
      questionId: q.id,
      responderType,
      questionType: q.questionType,
      text,
      documentIds,
      createdAt: at,
      updatedAt: at,
    };
  }

  /** Recomputes the RFI status, emits question and RFI events, reschedules the timeout. */
  private afterQuestionChange(rfi: RfiRec, changed: Question[], at: number, explicit?: string): void {
    const before = rfi.status;
    rfi.status =
      explicit ??
      deriveRfiStatus(
        rfi.questions.map((q) => q.status),
        before,
      );
    rfi.updatedAt = at;
    rfi.json = null;
    for (const q of changed) {
      this.events(rfi.legalEntityId, `rfi.question.${q.status}`, {
        rfi_id: rfi.id,
        question_id: q.id,
        status: q.status,
      });
    }
    if (rfi.status !== before) {
      this.events(rfi.legalEntityId, `rfi.${rfi.status}`, { rfi_id: rfi.id, status: rfi.status });
    }
    this.scheduleTimeout(rfi);
  }

  ownRfi(cred: Credential, id: string): RfiRec {
    const rfi = this.rfis.get(id);
    if (!rfi || rfi.legalEntityId !== cred.legalEntityId) throw notFound(`RFI ${id} not found`);
    return rfi;
  }

  anyRfi(id: string): RfiRec {
    const rfi = this.rfis.get(id);
    if (!rfi) throw notFound(`RFI ${id} not found`);
    return rfi;
  }

  private question(rfi: RfiRec, qid: string): Question {
    const q = rfi.questions.find((x) => x.id === qid);
    if (!q) throw notFound(`question ${qid} not found in RFI ${rfi.id}`);
    return q;
  }

  submitResponse(cred: Credential, rfiId: string, qid: string, body: RfiResponseRequest): RfiResp {
    const rfi = this.ownRfi(cred, rfiId);
    const q = this.question(rfi, qid);
    const qt = body.question_type;
    if (qt !== q.questionType) {
      throw badRequest(`question_type: must be ${q.questionType} for question ${q.id}`);
    }
    const content = (body as Record<string, unknown>)[qt] as {
      response_text: string;
      document_ids: string[];
    };
    if (q.status !== 'action_required' || isFinal(rfi.status)) {
      throw precondition(
        'QUESTION_NOT_AWAITING_RESPONSE',
        `question ${q.id} is ${q.status}; a response is accepted only while it is action_required`,
      );
    }
    const info = questionTypeInfo(qt);
    const text = content.response_text;
    const docs = content.document_ids;
    if (new Set(docs).size !== docs.length) throw badRequest(`${qt}.document_ids: duplicate document id`);
    if (info.expects === 'text') {
      if (text.trim() === '') throw badRequest(`${qt}.response_text: required for a text question`);
      if (docs.length > 0) throw badRequest(`${qt}.document_ids: must be empty for a text question`);
    } else if (info.expects === 'documents') {
      if (docs.length === 0) throw badRequest(`${qt}.document_ids: at least one document is required`);
      if (text !== '') throw badRequest(`${qt}.response_text: must be empty for a document question`);
    } else if (text.trim() === '' && docs.length === 0) {
      throw badRequest(`${qt}: a response needs a response_text or document_ids`);
    }
    for (const d of docs) {
      const doc = this.docs.get(d);
      if (!doc || !doc.uploaded || doc.relatedId !== rfi.id || doc.legalEntityId !== cred.legalEntityId) {
        throw precondition(
          'DOCUMENT_NOT_UPLOADED',
          `${qt}.document_ids: document ${d} is not uploaded for RFI ${rfi.id}`,
        );
      }
    }
    const at = this.now();
    const resp = this.newResponse(q, 'customer', text, [...docs], at);
    for (const d of docs) {
      const doc = this.docs.get(d);
      if (doc) doc.usedBy = resp.id;
    }
    q.responses.push(resp);
    q.documentIds.push(...docs);
    q.status = nextQuestionStatus(q.status, { kind: 'customer_response' }) ?? q.status;
    q.updatedAt = at;
    this.afterQuestionChange(rfi, [q], at);
    return resp;
  }

  staffQuestionAction(rfiId: string, qid: string, action: QuestionAction, text?: string): RfiRec {
    const rfi = this.anyRfi(rfiId);
    const q = this.question(rfi, qid);
    if (isFinal(rfi.status)) throw precondition('RFI_ALREADY_FINAL', `RFI ${rfi.id} is ${rfi.status}`);
    const next = nextQuestionStatus(q.status, { kind: 'staff_action', action });
    if (!next) {
      throw precondition(
        'QUESTION_NOT_PENDING_REVIEW',
        `question ${q.id} is ${q.status}, not pending_review`,
      );
    }
    const at = this.now();
    if (text !== undefined && text !== '') q.responses.push(this.newResponse(q, 'staff', text, [], at));
    q.status = next;
    q.updatedAt = at;
    this.afterQuestionChange(rfi, [q], at);
    return rfi;
  }

  staffAdminResponse(rfiId: string, qid: string, text: string, documentIds: string[]): RfiRec {
    const rfi = this.anyRfi(rfiId);
    const q = this.question(rfi, qid);
    if (isFinal(rfi.status)) throw precondition('RFI_ALREADY_FINAL', `RFI ${rfi.id} is ${rfi.status}`);
    const next = nextQuestionStatus(q.status, { kind: 'staff_response' });
    if (!next) {
      throw precondition(
        'QUESTION_NOT_PENDING_REVIEW',
        `question ${q.id} is ${q.status}, not pending_review`,
      );
    }
    const at = this.now();
    q.responses.push(this.newResponse(q, 'staff', text, [...documentIds], at));
    q.status = next;
    q.updatedAt = at;
    this.afterQuestionChange(rfi, [q], at);
    return rfi;
  }

  staffRfiAction(rfiId: string, action: QuestionAction): RfiRec {
    const rfi = this.anyRfi(rfiId);
    if (isFinal(rfi.status))
      throw precondition('RFI_ALREADY_FINAL', `RFI ${rfi.id} is already ${rfi.status}`);
    const statuses = rfi.questions.map((q) => q.status);
    if (!canActOnRfi(rfi.status, statuses)) {
      throw precondition(
        'QUESTIONS_NOT_FINAL',
        `every question must be approved, rejected or closed first (now: ${statuses.join(', ')})`,
      );
    }
    this.afterQuestionChange(rfi, [], this.now(), actionStatus(action));
    return rfi;
  }

  rfiJson(rfi: RfiRec): string {
    if (rfi.json === null) rfi.json = JSON.stringify(this.serializeRfi(rfi));
    return rfi.json;
  }

  serializeRfi(rfi: RfiRec): Record<string, unknown> {
    return {
      id: rfi.id,
      type: rfi.type,
      related_id: rfi.relatedId,
      legal_entity_id: rfi.legalEntityId,
      description: rfi.description,
      status: rfi.status,
      created_at: iso(rfi.createdAt),
      updated_at: iso(rfi.updatedAt),
      questions: rfi.questions.map((q) => ({
        id: q.id,
        status: q.status,
        question_type: q.questionType,
        question_data: {
          question_text: q.questionText,
          comment: q.comment,
          document_ids: [...q.documentIds],
        },
        created_at: iso(q.createdAt),
        updated_at: iso(q.updatedAt),
        responses: q.responses.map((r) => serializeResponse(r)),
      })),
    };
  }

  /** GET /v1/rfis: the page as a JSON string (cached RFI JSON concatenated). */
  listRfis(cred: Credential, query: ListRfisQuery): string {
    const pageSize = query.page_size !== undefined ? Number.parseInt(query.page_size, 10) : 100;
    let after = -1;
    if (query.page_token !== undefined) {
      const m = /^p([0-9]{1,10})$/.exec(query.page_token);
      if (!m?.[1]) throw badRequest('page_token: invalid page token');
      after = Number.parseInt(m[1], 10);
    }
    const types = query.types !== undefined ? new Set(query.types.split(',')) : null;
    const statuses = query.status !== undefined ? new Set(query.status.split(',')) : null;
    const since = query.updated_since !== undefined ? Date.parse(query.updated_since) : null;
    const related = query.related_id;
    let source: RfiRec[];
    if (query.ids !== undefined) {
      source = [...new Set(query.ids.split(','))]
        .map((id) => this.rfis.get(id))
        .filter((r): r is RfiRec => r !== undefined && r.legalEntityId === cred.legalEntityId)
        .sort((a, b) => a.seq - b.seq);
    } else {
      source = this.rfisByLe.get(cred.legalEntityId) ?? [];
    }
    // first index with seq > after (source is ordered by seq)
    let lo = 0;
    let hi = source.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((source[mid]?.seq ?? Infinity) <= after) lo = mid + 1;
      else hi = mid;
    }
    const parts: string[] = [];
    let lastSeq = -1;
    let more = false;
    for (let i = lo; i < source.length; i++) {
      const r = source[i];
      if (!r) break;
      if (types && !types.has(r.type)) continue;
      if (statuses && !statuses.has(r.status)) continue;
      if (related !== undefined && r.relatedId !== related) continue;
      if (since !== null && !(r.updatedAt > since)) continue;
      if (parts.length === pageSize) {
        more = true;
        break;
      }
      parts.push(this.rfiJson(r));
      lastSeq = r.seq;
    }
    const next = more ? JSON.stringify(`p${lastSeq}`) : 'null';
    return `{"data":[${parts.join(',')}],"next_page_token":${next}}`;
  }

  // ---------------------------------------------------------------- documents

  createUploadUrl(cred: Credential, body: UploadUrlRequest): { id: string; url: string; expires_at: string } {
    const rfi = this.rfis.get(body.related_id);
    if (!rfi || rfi.legalEntityId !== cred.legalEntityId)
      throw notFound(`related_id: RFI ${body.related_id} not found`);
    const now = this.now();
    const doc: Doc = {
      id: this.ids.id('doc'),
      legalEntityId: cred.legalEntityId,
      relatedId: rfi.id,
      contentType: body.content_type,
      documentType: body.document_type,
      createdAt: now,
      expiresAt: Math.floor((now + this.options.uploadUrlTtlSeconds * 1000) / 1000) * 1000,
      uploaded: false,
      sha256: null,
      sizeBytes: null,
      path: null,
      usedBy: null,
      attempts: 0,
    };
    this.docs.set(doc.id, doc);
    if (!this.signer) throw new ApiError(500, 'no URL signer');
    return { id: doc.id, url: this.signer.uploadUrl(doc), expires_at: iso(doc.expiresAt) };
  }

  getDocument(cred: Credential, id: string): Record<string, unknown> {
    const doc = this.docs.get(id);
    if (!doc || doc.legalEntityId !== cred.legalEntityId) throw notFound(`document ${id} not found`);
    if (!this.signer) throw new ApiError(500, 'no URL signer');
    const expiresAt = Math.floor((this.now() + this.options.uploadUrlTtlSeconds * 1000) / 1000) * 1000;
    return {
      id: doc.id,
      url: doc.uploaded ? this.signer.downloadUrl(doc, expiresAt) : '',
      expires_at: iso(expiresAt),
      content_type: doc.contentType,
      size_bytes: doc.sizeBytes,
    };
  }

  // ---------------------------------------------------------------- webhook config

  webhookConfig(cred: Credential): Record<string, unknown> {
    return {
      webhook_name: cred.name,
      webhook_url: cred.webhookUrl,
      legal_entity_id: cred.legalEntityId,
      role: cred.role,
      created_at: iso(cred.createdAt),
      updated_at: iso(cred.updatedAt),
    };
  }

  setWebhookUrl(cred: Credential, url: string): Record<string, unknown> {
    cred.webhookUrl = url;
    cred.updatedAt = this.now();
    return this.webhookConfig(cred);
  }

  /** Distinct non-empty webhook URLs of the credentials of a legal entity. */
  webhookUrls(legalEntityId: string): string[] {
    const urls = new Set<string>();
    for (const c of this.credentials.values()) {
      if (c.legalEntityId === legalEntityId && c.webhookUrl !== '') urls.add(c.webhookUrl);
    }
    return [...urls];
  }

  // ---------------------------------------------------------------- fixtures / inspection

  serializeAccount(a: Account): Record<string, unknown> {
    return {
      id: a.id,
      name: a.name,
      asset: a.asset,
      iban: a.iban,
      wallet_address: a.walletAddress,
      balance: a.balance.toString(),
    };
  }

  fixtures(): Record<string, unknown> {
    return {
      legal_entities: this.legalEntities.map((le) => ({
        id: le.id,
        name: le.name,
        tokens: { ...le.tokens },
        accounts: le.accountIds.flatMap((id) => {
          const a = this.accounts.get(id);
          return a ? [this.serializeAccount(a)] : [];
        }),
        incoming_transfers: le.incomingTransferIds.flatMap((id) => {
          const t = this.txns.get(id);
          const inc = t?.incoming;
          return t && inc
            ? [
                {
                  transaction_id: t.id,
                  amount: inc.amount.toString(),
                  currency: inc.currency,
                  creditor_account_id: inc.creditorAccountId,
                  status: t.status,
                },
              ]
            : [];
        }),
        rfi_ids: [...le.seededRfiIds],
      })),
    };
  }
}

export function serializeResponse(r: RfiResp): Record<string, unknown> {
  return {
    id: r.id,
    question_id: r.questionId,
    responder_type: r.responderType,
    response: { [r.questionType]: { response_text: r.text, document_ids: [...r.documentIds] } },
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
  };
}

function uuidFromHex(h: string): string {
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
