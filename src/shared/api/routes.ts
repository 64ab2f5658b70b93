/**
 * The route table: every endpoint of the bank interface (and the sandbox-only control endpoints)
 * with its auth, idempotency rule and zod schemas. The sandbox registers its routes from it, the
 * OpenAPI document is exported from it and the app's bank client types its calls with it.
 */
import { z } from 'zod';
import { Empty, TransactionIdBody, TransactionIdResponse } from './common';
import {
  CryptoConfirmRequest,
  CryptoOrderRequest,
  ReturnConfirmRequest,
  ReturnIntentRequest,
  Transaction,
  TransactionParams,
} from './transactions';
import {
  AdminResponseRequest,
  BulkRfisRequest,
  BulkRfisResponse,
  CreateRfiRequest,
  ListRfisQuery,
  QuestionActionRequest,
  QuestionParams,
  Rfi,
  RfiActionRequest,
  RfiList,
  RfiParams,
  RfiResponse,
  RfiResponseRequest,
} from './rfis';
import {
  DocumentInfo,
  DocumentParams,
  SignedUrlQuery,
  UploadParams,
  UploadResult,
  UploadUrlRequest,
  UploadUrlResponse,
} from './documents';
import { SetWebhookUrlRequest, WebhookConfig } from './webhooks';
import {
  ClockAdvanceRequest,
  ClockState,
  Fixtures,
  IncomingTransferRequest,
  PublicKeyResponse,
  SandboxAccounts,
  SandboxDocument,
  SandboxTransactionList,
  WebhookDeliveries,
} from './sandbox';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
/**
 * none: no token; viewer: any valid token; admin: admin token; signed: signed URL (uploads);
 * control: the sandbox's per-run control secret in the `Sandbox-Control-Secret` header (no token).
 */
export type RouteAuth = 'none' | 'viewer' | 'admin' | 'signed' | 'control';

export interface RouteDef {
  readonly method: HttpMethod;
  /** Fastify-style path (`:param`). */
  readonly path: string;
  readonly auth: RouteAuth;
  /** `required`: Idempotency-Key header mandatory; `accepted`: honoured when sent. */
  readonly idempotency: 'required' | 'accepted' | 'none';
  readonly params?: z.ZodType;
  readonly query?: z.ZodType;
  /** JSON request body; `binary` for the signed-URL upload. */
  readonly body?: z.ZodType | 'binary';
  readonly response: z.ZodType;
  readonly successStatus: number;
  readonly summary: string;
  readonly tag: 'returns' | 'crypto' | 'transactions' | 'rfis' | 'documents' | 'webhooks' | 'sandbox';
  /** Refusals this route can answer (documentation / OpenAPI). */
  readonly errors: readonly number[];
  readonly sandboxOnly?: boolean;
}

function route<const D extends RouteDef>(d: D): D {
  return d;
}

const AUTH_ERRORS = [400, 401, 429] as const;

export const routes = {
  createReturnIntent: route({
    method: 'POST',
    path: '/v1/transfer/return',
    auth: 'admin',
    idempotency: 'required',
    body: ReturnIntentRequest,
    response: TransactionIdResponse,
    successStatus: 200,
    summary: 'Create a return intent for a settled incoming SWIFT FI-to-FI transfer',
    tag: 'returns',
    errors: [...AUTH_ERRORS, 403, 404, 409, 422],
  }),
  confirmReturn: route({
    method: 'PUT',
    path: '/v1/transfer/return',
    auth: 'admin',
    idempotency: 'none',
    body: ReturnConfirmRequest,
    response: TransactionIdResponse,
    successStatus: 200,
    summary: 'Confirm a return intent: triggers the SWIFT return message (intent_created → in_progress)',
    tag: 'returns',
    errors: [...AUTH_ERRORS, 403, 404, 422],
  }),
  cancelReturn: route({
    method: 'DELETE',
    path: '/v1/transfer/return/:transactionID',
    auth: 'admin',
    idempotency: 'none',
    params: TransactionParams,
    response: TransactionIdResponse,
    successStatus: 200,
    summary: 'Cancel an unconfirmed return intent (back to completed)',
    tag: 'returns',
    errors: [...AUTH_ERRORS, 403, 404, 422],
  }),
  getTransaction: route({
    method: 'GET',
    path: '/v1/transactions/:transactionID',
    auth: 'viewer',
    idempotency: 'none',
    params: TransactionParams,
    response: Transaction,
    successStatus: 200,
    summary: 'Read a transaction (404 for a few seconds after its creation)',
    tag: 'transactions',
    errors: [...AUTH_ERRORS, 404],
  }),
  createCryptoOrder: route({
    method: 'POST',
    path: '/v1/crypto/order',
    auth: 'admin',
    idempotency: 'required',
    body: CryptoOrderRequest,
    response: TransactionIdResponse,
    successStatus: 200,
    summary: 'Create a digital asset exchange quote (no funds move)',
    tag: 'crypto',
    errors: [...AUTH_ERRORS, 403, 409, 422],
  }),
  confirmCryptoOrder: route({
    method: 'PUT',
    path: '/v1/crypto/order',
    auth: 'admin',
    idempotency: 'none',
    body: CryptoConfirmRequest,
    response: TransactionIdResponse,
    successStatus: 200,
    summary: 'Confirm a quote before quote_valid_until: execution and settlement follow',
    tag: 'crypto',
    errors: [...AUTH_ERRORS, 403, 404, 422],
  }),
  listRfis: route({
    method: 'GET',
    path: '/v1/rfis',
    auth: 'viewer',
    idempotency: 'none',
    query: ListRfisQuery,
    response: RfiList,
    successStatus: 200,
    summary: 'List RFIs of the caller’s legal entity, oldest first, paginated',
    tag: 'rfis',
    errors: [...AUTH_ERRORS],
  }),
  getRfi: route({
    method: 'GET',
    path: '/v1/rfis/:rfiID',
    auth: 'viewer',
    idempotency: 'none',
    params: RfiParams,
    response: Rfi,
    successStatus: 200,
    summary: 'Read an RFI with its questions and responses',
    tag: 'rfis',
    errors: [...AUTH_ERRORS, 404],
  }),
  submitRfiResponse: route({
    method: 'POST',
    path: '/v1/rfis/:rfiID/questions/:questionID/responses',
    auth: 'admin',
    idempotency: 'accepted',
    params: QuestionParams,
    body: RfiResponseRequest,
    response: RfiResponse,
    successStatus: 200,
    summary: 'Respond to one question (action_required → pending_review)',
    tag: 'rfis',
    errors: [...AUTH_ERRORS, 403, 404, 409, 422],
  }),
  createUploadUrl: route({
    method: 'POST',
    path: '/v1/documents/upload-url',
    auth: 'admin',
    idempotency: 'accepted',
    body: UploadUrlRequest,
    response: UploadUrlResponse,
    successStatus: 200,
    summary: 'Get a signed, expiring URL to upload one document for an RFI',
    tag: 'documents',
    errors: [...AUTH_ERRORS, 403, 404, 409],
  }),
  getDocument: route({
    method: 'GET',
    path: '/v1/documents/:documentID',
    auth: 'viewer',
    idempotency: 'none',
    params: DocumentParams,
    response: DocumentInfo,
    successStatus: 200,
    summary: 'Read a document’s metadata and a signed download URL',
    tag: 'documents',
    errors: [...AUTH_ERRORS, 404],
  }),
  uploadDocument: route({
    method: 'PUT',
    path: '/uploads/:documentID',
    auth: 'signed',
    idempotency: 'none',
    params: UploadParams,
    query: SignedUrlQuery,
    body: 'binary',
    response: UploadResult,
    successStatus: 200,
    summary: 'PUT {signed_url}: upload the document bytes (Content-Type must match)',
    tag: 'documents',
    errors: [400, 403, 404, 413, 422],
  }),
  downloadDocument: route({
    method: 'GET',
    path: '/uploads/:documentID',
    auth: 'signed',
    idempotency: 'none',
    params: UploadParams,
    query: SignedUrlQuery,
    response: z.unknown().meta({ description: 'The document bytes' }),
    successStatus: 200,
    summary: 'GET {signed download url}: the stored document bytes',
    tag: 'documents',
    errors: [400, 403, 404],
  }),
  getWebhookUrl: route({
    method: 'GET',
    path: '/v1/webhook/url',
    auth: 'viewer',
    idempotency: 'none',
    response: WebhookConfig,
    successStatus: 200,
    summary: 'Read the webhook URL configuration of the calling credential',
    tag: 'webhooks',
    errors: [...AUTH_ERRORS],
  }),
  setWebhookUrl: route({
    method: 'PUT',
    path: '/v1/webhook/url',
    auth: 'admin',
    idempotency: 'none',
    body: SetWebhookUrlRequest,
    response: WebhookConfig,
    successStatus: 200,
    summary: 'Set or clear ("") the webhook URL of the calling credential',
    tag: 'webhooks',
    errors: [...AUTH_ERRORS, 403],
  }),

  // ---- sandbox only ----
  getFixtures: route({
    method: 'GET',
    path: '/v1/sandbox/fixtures',
    auth: 'control',
    idempotency: 'none',
    response: Fixtures,
    successStatus: 200,
    summary: 'Seeded legal entities, tokens, accounts (current balances), transfers and RFI ids',
    tag: 'sandbox',
    errors: [403],
    sandboxOnly: true,
  }),
  getClock: route({
    method: 'GET',
    path: '/v1/sandbox/clock',
    auth: 'control',
    idempotency: 'none',
    response: ClockState,
    successStatus: 200,
    summary: 'Sandbox time',
    tag: 'sandbox',
    errors: [403],
    sandboxOnly: true,
  }),
  advanceClock: route({
    method: 'POST',
    path: '/v1/sandbox/clock',
    auth: 'control',
    idempotency: 'none',
    body: ClockAdvanceRequest,
    response: ClockState,
    successStatus: 200,
    summary: 'Move sandbox time forward; due expiries and timeouts happen at once',
    tag: 'sandbox',
    errors: [400, 403],
    sandboxOnly: true,
  }),
  createIncomingTransfer: route({
    method: 'POST',
    path: '/v1/sandbox/incoming-transfers',
    auth: 'control',
    idempotency: 'none',
    body: IncomingTransferRequest,
    response: Transaction,
    successStatus: 200,
    summary: 'Book a new settled incoming SWIFT transfer (credits the creditor account)',
    tag: 'sandbox',
    errors: [400, 403, 404],
    sandboxOnly: true,
  }),
  listSandboxTransactions: route({
    method: 'GET',
    path: '/v1/sandbox/transactions',
    auth: 'control',
    idempotency: 'none',
    response: SandboxTransactionList,
    successStatus: 200,
    summary: 'Every transaction with the idempotency key that created it (inspection)',
    tag: 'sandbox',
    errors: [403],
    sandboxOnly: true,
  }),
  listSandboxAccounts: route({
    method: 'GET',
    path: '/v1/sandbox/accounts',
    auth: 'control',
    idempotency: 'none',
    response: SandboxAccounts,
    successStatus: 200,
    summary: 'Every account with balance and held amount (inspection)',
    tag: 'sandbox',
    errors: [403],
    sandboxOnly: true,
  }),
  getWebhookPublicKey: route({
    method: 'GET',
    path: '/v1/sandbox/webhook-public-key',
    auth: 'none',
    idempotency: 'none',
    response: PublicKeyResponse,
    successStatus: 200,
    summary: 'The webhook signing public key (SPKI PEM, ECDSA P-256)',
    tag: 'sandbox',
    errors: [],
    sandboxOnly: true,
  }),
  listWebhookDeliveries: route({
    method: 'GET',
    path: '/v1/sandbox/webhook-deliveries',
    auth: 'control',
    idempotency: 'none',
    response: WebhookDeliveries,
    successStatus: 200,
    summary: 'Webhook deliveries and their status (inspection)',
    tag: 'sandbox',
    errors: [403],
    sandboxOnly: true,
  }),
  getSandboxDocument: route({
    method: 'GET',
    path: '/v1/sandbox/documents/:documentID',
    auth: 'control',
    idempotency: 'none',
    params: DocumentParams,
    response: SandboxDocument,
    successStatus: 200,
    summary: 'Stored document: sha256, size and whether it was uploaded (inspection)',
    tag: 'sandbox',
    errors: [403, 404],
    sandboxOnly: true,
  }),
  staffCreateRfi: route({
    method: 'POST',
    path: '/v1/sandbox/rfis',
    auth: 'control',
    idempotency: 'none',
    body: CreateRfiRequest,
    response: Rfi,
    successStatus: 200,
    summary: 'Staff: raise an RFI (events rfi.action_required and per question)',
    tag: 'sandbox',
    errors: [400, 403, 404],
    sandboxOnly: true,
  }),
  staffBulkRfis: route({
    method: 'POST',
    path: '/v1/sandbox/rfis/bulk',
    auth: 'control',
    idempotency: 'none',
    body: BulkRfisRequest,
    response: BulkRfisResponse,
    successStatus: 200,
    summary: 'Staff: create many RFIs at once (benches); no webhook events',
    tag: 'sandbox',
    errors: [400, 403, 404],
    sandboxOnly: true,
  }),
  staffQuestionAction: route({
    method: 'POST',
    path: '/v1/sandbox/rfis/:rfiID/questions/:questionID/action',
    auth: 'control',
    idempotency: 'none',
    params: QuestionParams,
    body: QuestionActionRequest,
    response: Rfi,
    successStatus: 200,
    summary: 'Staff: approve, reject or close a question in pending_review',
    tag: 'sandbox',
    errors: [400, 403, 404, 422],
    sandboxOnly: true,
  }),
  staffAdminResponse: route({
    method: 'POST',
    path: '/v1/sandbox/rfis/:rfiID/questions/:questionID/admin-responses',
    auth: 'control',
    idempotency: 'none',
    params: QuestionParams,
    body: AdminResponseRequest,
    response: Rfi,
    successStatus: 200,
    summary: 'Staff: follow-up response (pending_review → action_required)',
    tag: 'sandbox',
    errors: [400, 403, 404, 422],
    sandboxOnly: true,
  }),
  staffRfiAction: route({
    method: 'POST',
    path: '/v1/sandbox/rfis/:rfiID/action',
    auth: 'control',
    idempotency: 'none',
    params: RfiParams,
    body: RfiActionRequest,
    response: Rfi,
    successStatus: 200,
    summary: 'Staff: approve, reject or close the RFI (every question approved, rejected or closed)',
    tag: 'sandbox',
    errors: [400, 403, 404, 422],
    sandboxOnly: true,
  }),
} as const;

export type Routes = typeof routes;
export type RouteId = keyof Routes;

type Infer<S> = S extends z.ZodType ? z.infer<S> : undefined;
type InferIn<S> = S extends z.ZodType ? z.input<S> : undefined;

/** Parsed params/query/body of a route (after validation). */
export interface RouteInput<R extends RouteDef> {
  params: R extends { params: infer P } ? Infer<P> : Record<string, never>;
  query: R extends { query: infer Q } ? Infer<Q> : Record<string, never>;
  body: R extends { body: infer B } ? (B extends z.ZodType ? z.infer<B> : unknown) : undefined;
}
/** What a client sends. */
export type RouteRequestBody<K extends RouteId> = Routes[K] extends { body: infer B }
  ? InferIn<B>
  : undefined;
export type RouteQuery<K extends RouteId> = Routes[K] extends { query: infer Q } ? InferIn<Q> : undefined;
export type RouteResponse<K extends RouteId> = z.infer<Routes[K]['response']>;

/** Header names. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** The sandbox control secret (routes with auth `control`). */
export const SANDBOX_CONTROL_HEADER = 'Sandbox-Control-Secret';
export const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;

export { Empty, TransactionIdBody };

/** A route's path with its `:name` parameters filled in, each value URI-encoded as one segment. */
export function fillRoutePath(path: string, params: Readonly<Record<string, string>>): string {
  return path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`The path ${path} needs the parameter ${name}.`);
    return encodeURIComponent(value);
  });
}
