import { describe, expect, it } from 'vitest';
import {
  DOCUMENT_TYPES,
  QUESTION_TYPE_LIST,
  RFI_STATUSES,
  RFI_TYPES,
  TRANSACTION_STATUSES,
  TRANSACTION_TYPES,
  WEBHOOK_EVENT_TYPES,
} from '../../src/shared/catalogue';
import {
  dateWords,
  documentTypeWords,
  formatBytes,
  humanize,
  orderWords,
  plural,
  questionTypeWords,
  rfiTypeWords,
  statusWords,
  tooLargeWords,
  transactionTypeWords,
  webhookEventWords,
} from '../../src/shared/words';

/** Text an analyst should never read: snake_case, a dotted catalogue key or a SCREAMING enum. */
const CODE = /[a-z]+_[a-z]+|[a-z]+\.[a-z_]+\.[a-z]|[A-Z]{2,}-[A-Z]{2,}/;

describe('words, not codes', () => {
  it('gives every documented value words, never the code', () => {
    const all = [
      ...[...RFI_STATUSES, ...TRANSACTION_STATUSES].map(statusWords),
      ...RFI_TYPES.map(rfiTypeWords),
      ...QUESTION_TYPE_LIST.map(questionTypeWords),
      ...DOCUMENT_TYPES.map(documentTypeWords),
      ...TRANSACTION_TYPES.map(transactionTypeWords),
      ...WEBHOOK_EVENT_TYPES.map(webhookEventWords),
      ...['buy', 'sell', 'instant', 'rfq'].map(orderWords),
    ];
    for (const w of all) expect(w, w).not.toMatch(CODE);
    expect(statusWords('pending_review')).toBe('Pending review');
    expect(rfiTypeWords('nominal_sub_account_kyc')).toBe('Nominal sub-account KYC');
    expect(questionTypeWords('identification.individual.passport')).toBe('Passport');
    expect(documentTypeWords('ubo_documentation')).toBe('UBO documentation');
    expect(transactionTypeWords('SWIFT-FI-TO-FI-CUSTOMER-CREDIT-INCOMING')).toBe('Incoming SWIFT transfer');
    expect(webhookEventWords('rfi.question.pending_review')).toBe('Question pending review');
  });

  it('words an unknown value instead of showing its code', () => {
    expect(statusWords('held_for_review')).toBe('Held for review');
    expect(questionTypeWords('identification.individual.tax_number')).toBe('Tax number');
    expect(humanize('SOME-NEW_KIND')).toBe('Some new kind');
    expect(statusWords(null)).toBe('—');
  });

  it('counts with Intl plural rules and sizes in words', () => {
    expect(plural(1, 'RFI')).toBe('1 RFI');
    expect(plural(3, 'RFI')).toBe('3 RFIs');
    expect(plural(2, 'copy', 'copies')).toBe('2 copies');
    expect(plural(1200, 'document')).toBe('1,200 documents');
    expect(formatBytes(26214401)).toBe('25.0 MB');
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(512)).toBe('512 bytes');
  });

  it('says why a file is too large in sizes people read, exact bytes only when both round alike', () => {
    expect(tooLargeWords(32_700_000, 26_214_400)).toBe(
      'The file is 31.2 MB; the bank accepts at most 25.0 MB.',
    );
    expect(tooLargeWords(26_214_401, 26_214_400)).toBe(
      'The file is 26,214,401 bytes; the bank accepts at most 26,214,400 bytes (25.0 MB).',
    );
  });

  it('writes dates in the one absolute style, in the zone given, never raw ISO', () => {
    const text = dateWords('2026-11-27T14:02:11Z', { locale: 'en-GB', timeZone: 'UTC' });
    expect(text).toBe('27 Nov 2026, 14:02:11 UTC');
    expect(dateWords(null)).toBe('—');
  });
});
