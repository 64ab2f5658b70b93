/**
 * The case file's sentences, in the words the app shows (src/shared/words.ts): statuses, RFI,
 * question and document types in words, one date style in UTC (stated in every time, since an
 * auditor reads the PDF far from this computer), who sent a document in words, a document answer
 * by its file names. Ids stay beside the words as secondary lines the PDF prints in monospace.
 */
import type { Rfi } from '../../shared/api/rfis';
import { DOCUMENT_TYPES, QUESTION_TYPE_LIST } from '../../shared/catalogue';
import { describeActivity } from '../../shared/activity';
import {
  credentialInWords,
  dateWords,
  documentTypeWords,
  formatBytes,
  objectKindWords,
  plural,
  questionTypeWords,
  rfiTypeWords,
  roleWords,
  STATUS_WORDS,
  statusWords,
  webhookEventWords,
} from '../../shared/words';
import type { AuditEntry } from '../bank/audit';

/** Times in the PDF: one absolute style, in UTC, with the zone named. */
export const pdfTime = (iso: string | null | undefined): string =>
  dateWords(iso, { locale: 'en-GB', timeZone: 'UTC' });

/** What the RFI is about, by its words: its description, else its type. */
export function rfiName(rfi: Pick<Rfi, 'description' | 'type'>): string {
  return rfi.description?.trim() || `${rfiTypeWords(rfi.type)} RFI`;
}

/**
 * `entity`: the owning entity's name with its id ("Birch Capital Ltd (le_…)"); `related`: what the
 * RFI is about in words ("Quarry Stone AG, 20,000.00 USD"), its id beside it; unnamed, the kind and id.
 */
export function rfiFacts(
  rfi: Rfi,
  entity: string,
  fromCache: boolean,
  related: string | null = null,
): string {
  const about = !rfi.related_id
    ? ''
    : related
      ? `; about ${related} (${objectKindWords(rfi.type).toLowerCase()} ${rfi.related_id})`
      : `; about ${objectKindWords(rfi.type).toLowerCase()} ${rfi.related_id}`;
  return (
    `${rfiTypeWords(rfi.type)} RFI, ${statusWords(rfi.status).toLowerCase()}. ` +
    `Legal entity ${entity}` +
    `${about}. ` +
    `Opened ${pdfTime(rfi.created_at)}, last changed ${pdfTime(rfi.updated_at)}.` +
    (fromCache ? ' (Read from this computer’s cache: the bank could not be reached.)' : '')
  );
}

type Question = Rfi['questions'][number];

export function questionFacts(q: Question): string {
  return `${questionTypeWords(q.question_type)}; ${statusWords(q.status).toLowerCase()}; asked ${pdfTime(q.created_at)}.`;
}

/** "Customer, 27 Nov 2026, 14:02:11 UTC: the text" or "…: sent 2 documents: a.pdf, b.jpg". */
export function responseLine(
  responderType: string,
  at: string,
  text: string,
  documentNames: readonly string[],
): string {
  const parts: string[] = [];
  if (text) parts.push(text);
  if (documentNames.length > 0)
    parts.push(`sent ${plural(documentNames.length, 'document')}: ${documentNames.join(', ')}`);
  if (parts.length === 0) parts.push('an empty response');
  return `${roleWords(responderType)}, ${pdfTime(at)}: ${parts.join('; ')}`;
}

/** Who a document came from, in words. */
export function documentSource(from: string): string {
  return from === 'question'
    ? 'attached by the bank to the question'
    : `sent by ${roleWords(from).toLowerCase()}`;
}

export function documentLine(d: {
  name: string;
  documentType: string | null;
  contentType: string;
  sizeBytes: number | null;
  from: string;
  uploadedAt: string | null;
  at: string;
  problem: string | null;
}): string {
  const type = d.documentType ? documentTypeWords(d.documentType) : 'type not known here';
  const size = d.sizeBytes === null ? 'size unknown' : formatBytes(d.sizeBytes);
  return (
    `${d.name} · ${type} · ${d.contentType} · ${size} · ${documentSource(d.from)} · ` +
    `uploaded ${pdfTime(d.uploadedAt ?? d.at)}${d.problem ? ` · ${d.problem}` : ''}`
  );
}

const STATUS_KEY = new RegExp(
  `\\b(${Object.keys(STATUS_WORDS)
    .filter((k) => k.includes('_'))
    .join('|')})\\b`,
  'g',
);

const CATALOGUE_KEY = new RegExp(
  `\\b(${[...QUESTION_TYPE_LIST, ...DOCUMENT_TYPES]
    .sort((a, b) => b.length - a.length)
    .map((k) => k.replace(/\./g, '\\.'))
    .join('|')})\\b`,
  'g',
);

/**
 * An audit entry's recorded detail with the catalogue keys and byte counts it holds in words
 * ("(transaction.purpose)" → "(Purpose of the transaction)", "150016 bytes" → "146.5 KB"); ids
 * and hashes stay as recorded.
 */
export function detailInWords(detail: string): string {
  return detail
    .replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z\b/g, (iso) => pdfTime(iso))
    .replace(/\brfi\.(question\.)?[a-z_]+\b/g, (t) => webhookEventWords(t))
    .replace(STATUS_KEY, (k) => statusWords(k).toLowerCase())
    .replace(CATALOGUE_KEY, (k) => (k.includes('.') ? questionTypeWords(k) : documentTypeWords(k)))
    .replace(/\b(\d+) bytes\b/g, (_m, n: string) => formatBytes(Number(n)));
}

export function auditLine(e: AuditEntry): string {
  return `${pdfTime(e.at)} · ${credentialInWords(e.who)} · ${describeActivity(e)}${e.detail ? ` · ${detailInWords(e.detail)}` : ''}`;
}

export function seenLine(s: { at: string; kind: string; detail: string }): string {
  return `${pdfTime(s.at)} · ${s.kind === 'webhook' ? 'Webhook event' : 'Notification'}: ${detailInWords(s.detail)}`;
}
