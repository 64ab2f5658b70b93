/**
 * The sandbox bank's shared state: legal entities, credentials, accounts, transactions, RFIs and
 * documents, with the look-ups every resource needs. The resource modules beside this file
 * (parties, transfers, crypto, rfis, documents, webhook-config) change it; each of their methods
 * either applies a whole change or throws an ApiError without changing anything.
 */
import type { Clock, Scheduler } from '../clock';
import { ApiError, notFound } from '../errors';
import type { IdGen } from '../ids';
import type { Account, Credential, Doc, LegalEntity, RfiRec, Txn } from '../model';
import type { SandboxOptions } from '../options';

export interface EventSink {
  (legalEntityId: string, type: string, data: { rfi_id: string; question_id?: string; status: string }): void;
}

export interface UrlSigner {
  uploadUrl(doc: Doc): string;
  downloadUrl(doc: Doc, expiresAtMs: number): string;
}

export class BankState {
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
  rfiSeq = 0;
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

  putTxn(t: Txn): void {
    this.txns.set(t.id, t);
    this.txnOrder.push(t);
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
  ownTxn(cred: Credential, id: string): Txn {
    const t = this.txns.get(id);
    if (!t || t.legalEntityId !== cred.legalEntityId) throw notFound(`transaction ${id} not found`);
    return t;
  }

  visibilityDelay(): number {
    const { min, max } = this.options.visibilityDelayMs;
    return max <= min ? min : min + Math.floor(this.ids.float() * (max - min + 1));
  }

  mustAccount(id: string): Account {
    const acc = this.accounts.get(id);
    if (!acc) throw new ApiError(500, `account ${id} missing`);
    return acc;
  }

  available(acc: Account): bigint {
    return acc.balance - acc.held;
  }
}
