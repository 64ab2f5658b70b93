/** Internal state of the sandbox bank. Money is bigint, times are sandbox epoch milliseconds. */

export interface User {
  id: string;
  first_name: string;
  last_name: string;
}

export type Role = 'admin' | 'viewer';

export interface Credential {
  token: string;
  name: string;
  legalEntityId: string;
  role: Role;
  user: User;
  webhookUrl: string;
  createdAt: number;
  updatedAt: number;
}

export interface LegalEntity {
  id: string;
  name: string;
  /** colleague_admin: a second admin credential (another person), when the option seeds one. */
  tokens: { admin: string; viewer?: string; colleague_admin?: string };
  accountIds: string[];
  incomingTransferIds: string[];
  seededRfiIds: string[];
}

export interface Account {
  id: string;
  legalEntityId: string;
  name: string;
  asset: string;
  iban: string;
  walletAddress: string;
  balance: bigint;
  /** Reserved by confirmed returns and confirmed crypto orders not yet settled. */
  held: bigint;
}

export interface ReturnInfo {
  amount: bigint;
  description: string;
  reasonCode: string;
  initiatedBy: User;
  /** The user whose credential confirmed the return (null while it is an intent). Control view only. */
  confirmedBy: User | null;
  createdAt: number;
  updatedAt: number;
  idempotencyKey: string | null;
}

export interface IncomingData {
  amount: bigint;
  currency: string;
  creditorAccountId: string;
  debtorName: string;
  debtorBic: string;
  uetr: string;
  remittanceInformation: string;
  valueDate: string;
  ret: ReturnInfo | null;
}

export interface CryptoData {
  initiatedBy: User;
  priority: string;
  side: 'buy' | 'sell';
  rail: string;
  symbol: string;
  baseAsset: string;
  quoteAsset: string;
  paysAccountId: string;
  receivesAccountId: string;
  requestedAsset: string;
  requestedAmount: bigint;
  paysAsset: string;
  paysAmount: bigint;
  receivesAsset: string;
  receivesAmount: bigint;
  rate: string;
  validUntil: number;
  confirmedAt: number | null;
  description: string;
  additionalDetails: string;
  transactionHash: string;
  failureReason: string | null;
}

export const INCOMING_TYPE = 'SWIFT-FI-TO-FI-CUSTOMER-CREDIT-INCOMING';
export const CRYPTO_TYPE = 'CRYPTO-TRADE-V2';

export interface Txn {
  id: string;
  legalEntityId: string;
  type: typeof INCOMING_TYPE | typeof CRYPTO_TYPE;
  status: string;
  createdAt: number;
  updatedAt: number;
  visibleAt: number;
  idempotencyKey: string | null;
  incoming?: IncomingData;
  crypto?: CryptoData;
}

export interface RfiResp {
  id: string;
  questionId: string;
  responderType: 'customer' | 'staff' | 'system';
  questionType: string;
  text: string;
  documentIds: string[];
  createdAt: number;
  updatedAt: number;
}

export interface Question {
  id: string;
  status: string;
  questionType: string;
  questionText: string;
  comment: string;
  documentIds: string[];
  createdAt: number;
  updatedAt: number;
  responses: RfiResp[];
}

export interface RfiRec {
  id: string;
  seq: number;
  type: string;
  relatedId: string;
  legalEntityId: string;
  description: string;
  status: string;
  createdAt: number;
  updatedAt: number;
  questions: Question[];
  /** Cached JSON of the wire form; null when stale. */
  json: string | null;
}

export interface Doc {
  id: string;
  legalEntityId: string;
  relatedId: string;
  contentType: string;
  documentType: string;
  createdAt: number;
  expiresAt: number;
  uploaded: boolean;
  sha256: string | null;
  sizeBytes: number | null;
  path: string | null;
  /** Set once a response references it; a used document cannot be replaced. */
  usedBy: string | null;
  /** Upload attempts, to name temp files. */
  attempts: number;
}
