/**
 * Shared catalogues of the bank interface: reason codes, supported digital assets, RFI question
 * types, document types and upload limits. Pure data, no imports: used by the wire schemas, the
 * sandbox and the app alike.
 */

/**
 * ISO 20022 ExternalStatusReason1Code / ExternalReturnReason1Code values commonly used for returns
 * of SWIFT transfers, with a plain-English meaning an analyst can read.
 */
export const RETURN_REASON_CODES = {
  AC01: 'Incorrect account number: the account number is invalid or missing',
  AC03: 'Invalid creditor account number: wrong or unknown creditor account',
  AC04: 'Closed account number: the account has been closed',
  AC06: 'Blocked account: the account is blocked',
  AG01: 'Transaction forbidden on this type of account',
  AG02: 'Invalid bank operation code',
  AM01: 'Zero amount: the amount is zero',
  AM02: 'Not allowed amount: the amount exceeds what is allowed',
  AM05: 'Duplication: the payment is a duplicate',
  AM09: 'Wrong amount: the amount received is not the amount agreed or expected',
  BE04: 'Missing creditor address',
  CUST: 'Requested by customer: the debtor or creditor asked for the return',
  DUPL: 'Duplicate payment',
  FOCR: 'Following cancellation request: returned after a cancellation request',
  FRAD: 'Fraudulent origin: the payment was initiated fraudulently',
  MD01: 'No mandate: no mandate or authorisation for this payment',
  MD06: 'Refund request by end customer',
  MS02: 'Not specified reason by customer',
  MS03: 'Not specified reason by agent',
  NARR: 'Narrative: the reason is given in the description',
  RC01: 'Bank identifier incorrect: the BIC is invalid',
  RR01: 'Missing debtor account or identification (regulatory)',
  RR02: 'Missing debtor name or address (regulatory)',
  RR03: 'Missing creditor name or address (regulatory)',
  RR04: 'Regulatory reason',
  TECH: 'Technical problem',
  UPAY: 'Undue payment: the payment was not justified',
} as const satisfies Record<string, string>;

export type ReturnReasonCode = keyof typeof RETURN_REASON_CODES;

export const RETURN_REASON_CODE_LIST = Object.keys(RETURN_REASON_CODES) as [
  ReturnReasonCode,
  ...ReturnReasonCode[],
];

export function isReturnReasonCode(code: string): code is ReturnReasonCode {
  return Object.prototype.hasOwnProperty.call(RETURN_REASON_CODES, code);
}

/**
 * A reason code's name, for sentences and table cells where the code may at most follow:
 * "AC03" → "Invalid creditor account number"; an unknown code stays itself.
 */
export function reasonCodeName(code: string): string {
  return isReturnReasonCode(code) ? RETURN_REASON_CODES[code].split(':')[0]!.trim() : code;
}

/** Plain-English meaning of a reason code; unknown codes are shown as they are. */
export function describeReasonCode(code: string): string {
  return isReturnReasonCode(code) ? RETURN_REASON_CODES[code] : `Unknown reason code ${code}`;
}

/** Digital assets the sandbox trades against USD (spec 2.3). */
export const DIGITAL_ASSETS = [
  { name: 'USDC', base_asset: 'ETHEREUM-USDC', quote_asset: 'USD', symbol: 'USDC-USD', decimals: 6 },
  { name: 'USDT', base_asset: 'ETHEREUM-USDT', quote_asset: 'USD', symbol: 'USDT-USD', decimals: 6 },
] as const;

export type DigitalAsset = (typeof DIGITAL_ASSETS)[number];
export const SYMBOLS = ['USDC-USD', 'USDT-USD'] as const;
export const BASE_ASSETS = ['ETHEREUM-USDC', 'ETHEREUM-USDT'] as const;
export const QUOTE_ASSETS = ['USD'] as const;
/** Assets an account can hold in the sandbox. */
export const ACCOUNT_ASSETS = ['USD', 'ETHEREUM-USDT', 'ETHEREUM-USDC'] as const;

export function digitalAssetBySymbol(symbol: string): DigitalAsset | undefined {
  return DIGITAL_ASSETS.find((a) => a.symbol === symbol);
}

/** Transaction statuses seen publicly (docs/api-decisions.md); any other value is unknown-but-valid. */
export const TRANSACTION_STATUSES = [
  'pending_approval',
  'pending_execution',
  'approved',
  'completed',
  'partially_completed',
  'expired',
  'failed',
  'declined',
  'cancelled',
  'in_progress',
  'refund_completed',
  'return_completed',
  'intent_created',
] as const;

export const TRANSACTION_TYPES = ['SWIFT-FI-TO-FI-CUSTOMER-CREDIT-INCOMING', 'CRYPTO-TRADE-V2'] as const;

/** RFI types (spec 3.3). */
export const RFI_TYPES = [
  'transaction',
  'account',
  'nominal_sub_account',
  'nominal_sub_account_opening',
  'segment_upgrade',
  'nominal_sub_account_kyc',
  'nominal_sub_account_kyb',
] as const;
export type RfiType = (typeof RFI_TYPES)[number];

/** Statuses shared by RFIs and questions (spec 3.3). */
export const RFI_STATUSES = [
  'action_required',
  'pending_review',
  'approved',
  'rejected',
  'closed',
  'timeout',
] as const;
export type RfiStatus = (typeof RFI_STATUSES)[number];

/** Document types (public list). */
export const DOCUMENT_TYPES = [
  'passport',
  'national_id',
  'proof_of_address',
  'residence_permit',
  'business_registry_extract',
  'ubo_documentation',
  'ubo_passport',
  'authorised_person_passport',
  'source_of_funds_document',
  'source_of_wealth_document',
  'sof_supporting_document',
  'sow_supporting_document',
  'transaction_supporting_document',
  'registry_extract',
  'supporting_documents_of_relationship',
  'other',
] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

export function isDocumentType(value: string): value is DocumentType {
  return (DOCUMENT_TYPES as readonly string[]).includes(value);
}

export interface QuestionTypeInfo {
  /** What the customer answers with: a text, or one or more documents. */
  expects: 'text' | 'documents';
  /** The document_type to ask an upload URL with (document questions). */
  defaultDocumentType: DocumentType;
  label: string;
}

/** Question types seen publicly plus the two the sandbox adds. */
export const QUESTION_TYPES = {
  'transaction.purpose': {
    expects: 'text',
    defaultDocumentType: 'transaction_supporting_document',
    label: 'Purpose of the transaction',
  },
  'transaction.source_of_funds': {
    expects: 'text',
    defaultDocumentType: 'source_of_funds_document',
    label: 'Source of funds',
  },
  'transaction.supporting_documents': {
    expects: 'documents',
    defaultDocumentType: 'transaction_supporting_document',
    label: 'Supporting documents for the transaction',
  },
  'identification.individual.passport': {
    expects: 'documents',
    defaultDocumentType: 'passport',
    label: 'Passport',
  },
  'identification.individual.national_id': {
    expects: 'documents',
    defaultDocumentType: 'national_id',
    label: 'National identity card',
  },
  'identification.individual.proof_of_address': {
    expects: 'documents',
    defaultDocumentType: 'proof_of_address',
    label: 'Proof of address',
  },
  'identification.individual.residence_permit': {
    expects: 'documents',
    defaultDocumentType: 'residence_permit',
    label: 'Residence permit',
  },
  'identification.individual.corrected_address': {
    expects: 'text',
    defaultDocumentType: 'proof_of_address',
    label: 'Corrected address',
  },
  'identification.legal_entity.business_registry': {
    expects: 'documents',
    defaultDocumentType: 'business_registry_extract',
    label: 'Business registry extract',
  },
  'identification.legal_entity.ubo_documentation': {
    expects: 'documents',
    defaultDocumentType: 'ubo_documentation',
    label: 'Ultimate beneficial owner documentation',
  },
} as const satisfies Record<string, QuestionTypeInfo>;

export type KnownQuestionType = keyof typeof QUESTION_TYPES;
export const QUESTION_TYPE_LIST = Object.keys(QUESTION_TYPES) as [KnownQuestionType, ...KnownQuestionType[]];

/** Catalogue entry of a question type; an unknown type gets text and documents (`expects: 'either'`). */
export function questionTypeInfo(
  type: string,
): QuestionTypeInfo | { expects: 'either'; defaultDocumentType: DocumentType; label: string } {
  if (Object.prototype.hasOwnProperty.call(QUESTION_TYPES, type)) {
    return QUESTION_TYPES[type as KnownQuestionType];
  }
  return { expects: 'either', defaultDocumentType: 'other', label: type };
}

/** Content types an upload URL may be asked for. */
export const UPLOAD_CONTENT_TYPES = ['application/pdf', 'image/png', 'image/jpeg'] as const;
export type UploadContentType = (typeof UPLOAD_CONTENT_TYPES)[number];

/** Default upload size limit: 25 MB. */
export const DEFAULT_MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

/** Webhook event types (spec 6). */
export const WEBHOOK_EVENT_TYPES = [
  'rfi.action_required',
  'rfi.pending_review',
  'rfi.closed',
  'rfi.approved',
  'rfi.rejected',
  'rfi.timeout',
  'rfi.question.action_required',
  'rfi.question.pending_review',
  'rfi.question.closed',
  'rfi.question.approved',
  'rfi.question.rejected',
  'rfi.question.timeout',
] as const;

/** Machine-readable reasons of refusals (docs/api-decisions.md plus the sandbox's documented additions). */
export const ERROR_REASONS = [
  'TRANSACTION_NOT_SETTLED',
  'INSUFFICIENT_BALANCE',
  'RETURN_ALREADY_ACTIVE',
  'QUOTE_EXPIRED',
  'QUOTE_NOT_CONFIRMABLE',
  'INSUFFICIENT_LIQUIDITY',
  'QUESTION_NOT_AWAITING_RESPONSE',
  'QUESTIONS_NOT_FINAL',
  'DOCUMENT_NOT_UPLOADED',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_KEY_IN_FLIGHT',
  'CONTENT_TYPE_MISMATCH',
  'UPLOAD_URL_EXPIRED',
  'UPLOAD_URL_INVALID',
  'UPLOAD_TOO_LARGE',
  'DOCUMENT_IN_USE',
  'NO_RETURN_INTENT',
  'RETURN_ALREADY_CONFIRMED',
  'QUESTION_NOT_PENDING_REVIEW',
  'RFI_ALREADY_FINAL',
  'RATE_LIMITED',
  'SANDBOX_CONTROL_SECRET',
  'HOST_NOT_ALLOWED',
] as const;

/**
 * Which document types answer a question type: the evidence locker offers documents of these
 * types first (in this order of preference) when the analyst answers such a question.
 */
export const QUESTION_DOCUMENT_TYPES: Record<KnownQuestionType, readonly DocumentType[]> = {
  'transaction.purpose': ['transaction_supporting_document'],
  'transaction.source_of_funds': ['source_of_funds_document', 'sof_supporting_document'],
  'transaction.supporting_documents': [
    'transaction_supporting_document',
    'source_of_funds_document',
    'sof_supporting_document',
  ],
  'identification.individual.passport': ['passport', 'ubo_passport', 'authorised_person_passport'],
  'identification.individual.national_id': ['national_id'],
  'identification.individual.proof_of_address': ['proof_of_address'],
  'identification.individual.residence_permit': ['residence_permit'],
  'identification.individual.corrected_address': ['proof_of_address'],
  'identification.legal_entity.business_registry': ['business_registry_extract', 'registry_extract'],
  'identification.legal_entity.ubo_documentation': ['ubo_documentation', 'ubo_passport'],
};

/** The document types that fit a question type (none for a type the catalogue does not know). */
export function documentTypesFor(questionType: string): readonly DocumentType[] {
  return Object.prototype.hasOwnProperty.call(QUESTION_DOCUMENT_TYPES, questionType)
    ? QUESTION_DOCUMENT_TYPES[questionType as KnownQuestionType]
    : [];
}

/** Document types in words, for lists and pickers. */
export const DOCUMENT_TYPE_LABELS: Record<DocumentType, string> = {
  passport: 'Passport',
  national_id: 'National identity card',
  proof_of_address: 'Proof of address',
  residence_permit: 'Residence permit',
  business_registry_extract: 'Business registry extract',
  ubo_documentation: 'UBO documentation',
  ubo_passport: 'UBO passport',
  authorised_person_passport: 'Authorised person’s passport',
  source_of_funds_document: 'Source of funds document',
  source_of_wealth_document: 'Source of wealth document',
  sof_supporting_document: 'Source of funds supporting document',
  sow_supporting_document: 'Source of wealth supporting document',
  transaction_supporting_document: 'Transaction supporting document',
  registry_extract: 'Registry extract',
  supporting_documents_of_relationship: 'Supporting documents of the relationship',
  other: 'Other',
};

/** Days before a locker document's expiry at which the analyst is warned (once each). */
export const EXPIRY_WARNING_DAYS = [30, 7] as const;
