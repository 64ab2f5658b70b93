/**
 * The sandbox bank: one shared state and a module per resource over it. Handlers, the seed and
 * the upload route reach a resource as `bank.<resource>.<operation>`.
 */
import type { Clock, Scheduler } from '../clock';
import type { IdGen } from '../ids';
import type { Txn } from '../model';
import type { SandboxOptions } from '../options';
import { CryptoExchange } from './crypto';
import { Documents } from './documents';
import { Parties } from './parties';
import { Rfis } from './rfis';
import { BankState } from './state';
import { serializeTxn } from './transactions';
import { Transfers } from './transfers';
import { WebhookConfig } from './webhook-config';

export type { EventSink, UrlSigner } from './state';
export { serializeResponse } from './rfis';

export class Bank {
  readonly state: BankState;
  readonly parties: Parties;
  readonly transfers: Transfers;
  readonly crypto: CryptoExchange;
  readonly rfis: Rfis;
  readonly documents: Documents;
  readonly webhookConfig: WebhookConfig;

  constructor(options: SandboxOptions, clock: Clock, scheduler: Scheduler, ids: IdGen) {
    this.state = new BankState(options, clock, scheduler, ids);
    this.parties = new Parties(this.state);
    this.transfers = new Transfers(this.state);
    this.crypto = new CryptoExchange(this.state);
    this.rfis = new Rfis(this.state);
    this.documents = new Documents(this.state);
    this.webhookConfig = new WebhookConfig(this.state);
  }

  /** The wire view of any transaction of this bank. */
  serializeTxn(t: Txn): Record<string, unknown> {
    return serializeTxn(this.state, t);
  }
}
