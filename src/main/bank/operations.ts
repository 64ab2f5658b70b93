import type { CryptoOrderRequest, ReturnIntentRequest } from '../../shared/api';

/** Creating operations that go through the idempotency ledger and the audit log. */
export interface Operations {
  /**
   * POST /v1/transfer/return under the ledger: the key is written before sending, reused on every
   * retry and after a restart; a succeeded operation answers its transaction id without sending.
   */
  createReturnIntent(operationId: string, body: ReturnIntentRequest): Promise<CreateResult>;
  /** POST /v1/crypto/order, the same way. */
  createCryptoOrder(operationId: string, body: CryptoOrderRequest): Promise<CreateResult>;
  /** Runs any other write and records it in the audit log (succeeded/failed). */
  audited<T>(
    input: { operation: string; target?: string; idempotencyKey?: string },
    run: () => Promise<T>,
  ): Promise<T>;
}

export interface CreateResult {
  transactionId: string;
  idempotencyKey: string;
  /** true when the operation had already succeeded and nothing was sent. */
  alreadyDone: boolean;
}

/** What every handler can reach. */
