/**
 * The presentation layer in words: every enum, type, status and code the bank sends, as an analyst
 * reads it ("pending_review" → "Pending review", "SWIFT-FI-TO-FI-CUSTOMER-CREDIT-INCOMING" →
 * "Incoming SWIFT transfer", "identification.individual.passport" → "Passport"), counts with
 * their plurals (Intl.PluralRules), sizes and absolute dates. Pure and zod-free: the renderer
 * (every screen) and main (the case file's PDF) use the same words.
 */

import { DOCUMENT_TYPE_LABELS, isDocumentType, questionTypeInfo } from './catalogue';

/**
 * A raw value nobody mapped, in words: "nominal_sub_account_kyc" → "Nominal sub account kyc",
 * "rfi.question.closed" → "Rfi question closed". Better than the code, never better than a
 * word list: every value the bank documents has its words below.
 */
export function humanize(raw: string): string {
  const words = raw
    .replace(/[._\-/]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function lookup(table: Record<string, string>, raw: string | null | undefined): string {
  if (raw === null || raw === undefined || raw === '') return '—';
  return Object.prototype.hasOwnProperty.call(table, raw) ? table[raw]! : humanize(raw);
}

/** Statuses of transactions, returns, quotes, RFIs and questions (spec 2, 3.3). */
export const STATUS_WORDS: Record<string, string> = {
  action_required: 'Action required',
  pending_review: 'Pending review',
  approved: 'Approved',
  rejected: 'Rejected',
  closed: 'Closed',
  timeout: 'Timed out',
  pending_approval: 'Pending approval',
  pending_execution: 'Pending execution',
  completed: 'Completed',
  partially_completed: 'Partly completed',
  expired: 'Expired',
  failed: 'Failed',
  declined: 'Declined',
  cancelled: 'Cancelled',
  in_progress: 'In progress',
  refund_completed: 'Refund completed',
  return_completed: 'Return completed',
  intent_created: 'Return intent created',
  awaiting_confirmation: 'Awaiting confirmation',
  processing: 'Processing',
  settled: 'Settled',
};

export function statusWords(status: string | null | undefined): string {
  return lookup(STATUS_WORDS, status);
}

/** RFI types (spec 3.3). */
export const RFI_TYPE_WORDS: Record<string, string> = {
  transaction: 'Transaction',
  account: 'Account',
  nominal_sub_account: 'Nominal sub-account',
  nominal_sub_account_opening: 'Nominal sub-account opening',
  segment_upgrade: 'Segment upgrade',
  nominal_sub_account_kyc: 'Nominal sub-account KYC',
  nominal_sub_account_kyb: 'Nominal sub-account KYB',
};

export function rfiTypeWords(type: string | null | undefined): string {
  return lookup(RFI_TYPE_WORDS, type);
}

/** A question type in words: the catalogue's label, or the last words of an unknown dotted key. */
export function questionTypeWords(type: string | null | undefined): string {
  if (!type) return '—';
  const info = questionTypeInfo(type);
  if (info.label !== type) return info.label;
  const last = type.split('.').filter(Boolean).at(-1) ?? type;
  return humanize(last);
}

/** A document type in words ("ubo_documentation" → "UBO documentation"). */
export function documentTypeWords(type: string | null | undefined): string {
  if (!type) return '—';
  return isDocumentType(type) ? DOCUMENT_TYPE_LABELS[type] : humanize(type);
}

/** Transaction types (spec 2). */
export const TRANSACTION_TYPE_WORDS: Record<string, string> = {
  'SWIFT-FI-TO-FI-CUSTOMER-CREDIT-INCOMING': 'Incoming SWIFT transfer',
  'CRYPTO-TRADE-V2': 'Digital-asset exchange',
};

export function transactionTypeWords(type: string | null | undefined): string {
  return lookup(TRANSACTION_TYPE_WORDS, type);
}

/** An exchange order's side, type and flow ("buy / instant / rfq" → "Buy · Instant · Quote first"). */
export const ORDER_WORDS: Record<string, string> = {
  buy: 'Buy',
  sell: 'Sell',
  instant: 'Instant',
  market: 'Market',
  limit: 'Limit',
  rfq: 'Quote first',
};

export function orderWords(value: string | null | undefined): string {
  return lookup(ORDER_WORDS, value);
}

/** Who wrote a response or acted (spec 3.3 response authors, the app's roles). */
export const ROLE_WORDS: Record<string, string> = {
  customer: 'Customer',
  staff: 'Bank staff',
  system: 'The bank’s system',
  analyst: 'Analyst',
  admin: 'Administrator',
  viewer: 'Viewer',
  owner: 'Owner',
};

export function roleWords(role: string | null | undefined): string {
  return lookup(ROLE_WORDS, role);
}

/** A credential's role where room is short (the header): "Admin", "Viewer". */
export function roleShortWords(role: string | null | undefined): string {
  return role === 'admin' ? 'Admin' : roleWords(role);
}

/** A credential as main records who acted: "<label> (<role>, <legal entity id>)". */
export function parseWho(who: string): { label: string; role: string; legalEntityId: string } | null {
  const m = /^(.*) \(([^,()]+), ([^()]+)\)$/.exec(who);
  return m ? { label: m[1]!, role: m[2]!, legalEntityId: m[3]! } : null;
}

/** Whether main recorded the write before the bank confirmed the credential (no name to show). */
export const isUnconfirmedWho = (who: string): boolean => who === '' || /^unknown/i.test(who);

/** Who acted, in words for a reader far from this computer: the credential's name and its role. */
export function credentialInWords(who: string): string {
  const w = parseWho(who);
  if (w) return `${w.label} (${roleWords(w.role).toLowerCase()})`;
  return isUnconfirmedWho(who) ? 'a credential the bank had not confirmed yet' : who;
}

/** Related-object kinds of an RFI. */
export const OBJECT_KIND_WORDS: Record<string, string> = {
  transaction: 'Transfer',
  account: 'Account',
  legal_entity: 'Legal entity',
  crypto_order: 'Exchange order',
  nominal_sub_account: 'Nominal sub-account',
  // An RFI's type names the kind of object it is about.
  nominal_sub_account_opening: 'Nominal sub-account',
  nominal_sub_account_kyc: 'Nominal sub-account',
  nominal_sub_account_kyb: 'Nominal sub-account',
  segment_upgrade: 'Legal entity',
};

export function objectKindWords(kind: string | null | undefined): string {
  return lookup(OBJECT_KIND_WORDS, kind);
}

const pluralRules = new Map<string, Intl.PluralRules>();

/**
 * A count with its noun in the right form for the locale's plural rules: plural(1, 'RFI') →
 * "1 RFI", plural(3, 'RFI') → "3 RFIs", plural(2, 'copy', 'copies') → "2 copies".
 */
/** A count alone, grouped as every number the app shows ("1,204"). */
export function countWords(n: number | bigint, locale?: string): string {
  return (typeof n === 'bigint' ? Number(n) : n).toLocaleString(locale);
}

export function plural(n: number | bigint, one: string, other = `${one}s`, locale?: string): string {
  const key = locale ?? '';
  let rules = pluralRules.get(key);
  if (!rules) {
    rules = new Intl.PluralRules(locale);
    pluralRules.set(key, rules);
  }
  const count = typeof n === 'bigint' ? Number(n) : n;
  return `${countWords(count, locale)} ${rules.select(count) === 'one' ? one : other}`;
}

/** A file size as people read it: "512 bytes", "1.5 KB", "25.0 MB" (binary units, one decimal). */
export function formatBytes(n: number): string {
  if (n < 1024) return plural(n, 'byte');
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MB`;
  return `${(n / (1024 * 1024 * 1024)).toFixed(1)} GB`;
}

/**
 * Why a file is refused for its size, as people read sizes ("The file is 31.2 MB; the bank accepts
 * at most 25.0 MB."); when both round to the same size the exact byte counts say it.
 */
export function tooLargeWords(size: number, max: number): string {
  const [file, limit] = [formatBytes(size), formatBytes(max)];
  return file !== limit
    ? `The file is ${file}; the bank accepts at most ${limit}.`
    : `The file is ${plural(size, 'byte')}; the bank accepts at most ${plural(max, 'byte')} (${limit}).`;
}

export interface DateWordsOptions {
  /** BCP 47 locale; undefined = the runtime's. */
  locale?: string;
  /** IANA time zone; undefined = the runtime's. */
  timeZone?: string;
}

const dateFormatters = new Map<string, Intl.DateTimeFormat>();

/**
 * The one absolute date style: "27 Nov 2026, 14:02:11 UTC" in the locale's order, with the zone
 * named. Relative times (lib/dates.ts) are shown beside it, never another absolute style.
 */
export function absoluteDateFormatter(o: DateWordsOptions = {}): Intl.DateTimeFormat {
  return formatter(`${o.locale ?? ''}|${o.timeZone ?? ''}`, o.locale, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
    ...(o.timeZone ? { timeZone: o.timeZone } : {}),
  });
}

/** One Intl formatter per key, made once (a formatter is costly to build, cheap to reuse). */
function formatter(
  key: string,
  locale: string | undefined,
  options: Intl.DateTimeFormatOptions,
): Intl.DateTimeFormat {
  let f = dateFormatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, options);
    dateFormatters.set(key, f);
  }
  return f;
}

/** An ISO time or epoch as the one absolute date style; "—" when missing, the raw text when not a date. */
export function dateWords(value: string | number | null | undefined, o: DateWordsOptions = {}): string {
  if (value === null || value === undefined || value === '') return '—';
  const t = typeof value === 'number' ? value : Date.parse(value);
  return Number.isFinite(t) ? absoluteDateFormatter(o).format(t) : String(value);
}

/**
 * A calendar day ("2026-11-24": a value date, a document's expiry) in the same style as
 * dateWords' date part: "24 Nov 2026" in the locale's order. No time and no zone: a day is the
 * same day everywhere. Anything that is not a day comes back as it is.
 */
export function dayWords(value: string | null | undefined, o: { locale?: string } = {}): string {
  if (!value) return '—';
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return value;
  const f = formatter(`day|${o.locale ?? ''}`, o.locale, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    timeZone: 'UTC',
  });
  return f.format(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
}

/** Webhook event types (spec 6): "rfi.question.pending_review" → "Question pending review". */
export function webhookEventWords(type: string): string {
  const m = /^rfi\.(question\.)?(.+)$/.exec(type);
  if (!m) return humanize(type);
  const status = statusWords(m[2]).toLowerCase();
  return m[1] ? `Question ${status}` : `RFI ${status}`;
}

/**
 * An object an RFI is about, named: an account by its own name with its holder (the legal entity
 * that holds it, when known), a transfer by its counterparty and amount (no holder).
 */
export interface RelatedName {
  name: string;
  holder: string | null;
  /** A transfer's parts, for lists that show them in columns of their own (amount in minor units). */
  transfer?: { counterparty: string; amount: string; currency: string };
}

/**
 * The one rule for naming a related object: its own name, and its holder in brackets only where
 * that entity is not already named beside it. In a row or screen of Alder Trade GmbH an account
 * reads "Alder USD operating"; in a notification, or beside another entity, "Alder USD operating
 * (Alder Trade GmbH)".
 */
export function relatedWords(r: RelatedName, entityShown?: string | null): string {
  return r.holder && r.holder !== entityShown ? `${r.name} (${r.holder})` : r.name;
}
