/**
 * The sandbox's handler for every operation of the shared route table (src/shared/api/routes.ts),
 * keyed by operation id: bank calls go to the bank model, control calls to the clock, fixtures,
 * webhooks and staff RFI actions.
 */

import { iso } from './clock';
import type { Bank } from './bank';
import { serializeResponse } from './bank';
import type { Clock } from './clock';
import { notFound } from './errors';
import { RawJson, type HandlerMap } from './server';
import type { WebhookSender } from './webhooks';

export function makeHandlers(deps: {
  bank: Bank;
  clock: Clock;
  webhooks: WebhookSender;
  publicKeyPem: string;
}): HandlerMap {
  const { bank, clock, webhooks } = deps;
  return {
    createReturnIntent: ({ cred, input, idempotencyKey }) =>
      bank.transfers.createReturnIntent(cred, input.body, idempotencyKey),
    confirmReturn: ({ cred, input }) => bank.transfers.confirmReturn(cred, input.body.transaction_id),
    cancelReturn: ({ cred, input }) => bank.transfers.cancelReturn(cred, input.params.transactionID),
    getTransaction: ({ cred, input }) =>
      bank.serializeTxn(bank.state.visibleTxn(cred, input.params.transactionID)),
    createCryptoOrder: ({ cred, input, idempotencyKey }) =>
      bank.crypto.createCryptoOrder(cred, input.body, idempotencyKey),
    confirmCryptoOrder: ({ cred, input }) => bank.crypto.confirmCryptoOrder(cred, input.body.transaction_id),
    listRfis: ({ cred, input }) => new RawJson(bank.rfis.listRfis(cred, input.query)),
    getRfi: ({ cred, input }) => new RawJson(bank.rfis.rfiJson(bank.rfis.ownRfi(cred, input.params.rfiID))),
    submitRfiResponse: ({ cred, input }) =>
      serializeResponse(
        bank.rfis.submitResponse(cred, input.params.rfiID, input.params.questionID, input.body),
      ),
    createUploadUrl: ({ cred, input }) => bank.documents.createUploadUrl(cred, input.body),
    getDocument: ({ cred, input }) => bank.documents.getDocument(cred, input.params.documentID),
    getWebhookUrl: ({ cred }) => bank.webhookConfig.webhookConfig(cred),
    setWebhookUrl: ({ cred, input }) => bank.webhookConfig.setWebhookUrl(cred, input.body.webhook_url),

    getFixtures: () => bank.parties.fixtures(),
    getClock: () => ({ now: iso(clock.now()), offset_seconds: clock.offsetSeconds }),
    advanceClock: ({ input }) => {
      clock.advance(input.body.advance_seconds);
      return { now: iso(clock.now()), offset_seconds: clock.offsetSeconds };
    },
    createIncomingTransfer: ({ input }) =>
      bank.serializeTxn(
        bank.transfers.addIncomingTransfer({
          legalEntityId: input.body.legal_entity_id,
          creditorAccountId: input.body.creditor_account_id,
          amount: input.body.amount !== undefined ? BigInt(input.body.amount) : undefined,
          currency: input.body.currency,
          debtorName: input.body.debtor_name,
          status: input.body.status,
        }),
      ),
    listSandboxTransactions: () => ({
      data: bank.state.txnOrder.map((t) => ({
        transaction: bank.serializeTxn(t),
        legal_entity_id: t.legalEntityId,
        idempotency_key: t.idempotencyKey ?? t.incoming?.ret?.idempotencyKey ?? null,
        // Whose credential confirmed the return (the bank's record names only who initiated it).
        return_confirmed_by: t.incoming?.ret?.confirmedBy ? { ...t.incoming.ret.confirmedBy } : null,
        visible_at: iso(t.visibleAt),
      })),
    }),
    listSandboxAccounts: () => ({
      data: [...bank.state.accounts.values()].map((a) => ({
        ...bank.parties.serializeAccount(a),
        legal_entity_id: a.legalEntityId,
        held: a.held.toString(),
      })),
    }),
    getWebhookPublicKey: () => ({
      public_key_pem: deps.publicKeyPem,
      algorithm: 'ECDSA P-256 SHA-256, DER signature, base64; signed bytes = raw body || decimal t',
      signature_header: 'Service-Signature',
    }),
    listWebhookDeliveries: () => ({ data: webhooks.deliveries.map((d) => webhooks.serialize(d)) }),
    getSandboxDocument: ({ input }) => {
      const d = bank.state.docs.get(input.params.documentID);
      if (!d) throw notFound(`document ${input.params.documentID} not found`);
      return {
        id: d.id,
        sha256: d.sha256,
        size_bytes: d.sizeBytes,
        content_type: d.contentType,
        related_id: d.relatedId,
        uploaded: d.uploaded,
        document_type: d.documentType,
      };
    },
    staffCreateRfi: ({ input }) => new RawJson(bank.rfis.rfiJson(bank.rfis.createRfi(input.body))),
    staffBulkRfis: ({ input }) => bank.rfis.bulkRfis(input.body.count, input.body.legal_entity_id),
    staffQuestionAction: ({ input }) =>
      new RawJson(
        bank.rfis.rfiJson(
          bank.rfis.staffQuestionAction(
            input.params.rfiID,
            input.params.questionID,
            input.body.action,
            input.body.response_text,
          ),
        ),
      ),
    staffAdminResponse: ({ input }) =>
      new RawJson(
        bank.rfis.rfiJson(
          bank.rfis.staffAdminResponse(
            input.params.rfiID,
            input.params.questionID,
            input.body.response_text,
            input.body.document_ids ?? [],
          ),
        ),
      ),
    staffRfiAction: ({ input }) =>
      new RawJson(bank.rfis.rfiJson(bank.rfis.staffRfiAction(input.params.rfiID, input.body.action))),
  };
}
