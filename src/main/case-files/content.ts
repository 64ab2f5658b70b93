/**
 * What a case file's PDF says: a title, the export line naming each entity with the credential
 * and bank it was read with, then per RFI its facts, every question with the whole history of
 * responses, the documents sent with their sha256, the audit entries that touched it and the
 * notifications and webhook events seen for it.
 */

import type { Rfi } from '../../shared/api/rfis';
import { plural, questionTypeWords } from '../../shared/words';
import type { AuditEntry, AuditLog } from '../bank/audit';
import type { CaseFileJournal } from './journal';
import type { Block } from './pdf';
import { textOf } from './documents';
import type { DocInfo } from './documents';
import {
  auditLine,
  documentLine,
  pdfTime,
  questionFacts,
  responseLine,
  rfiFacts,
  rfiName,
  seenLine,
} from './words';

/** Who an RFI was read through, as the PDF names it. */
export interface CaseFileSource {
  profileId: string;
  environment: { name: string; kind: string; baseUrl: string };
  entityName: string;
  legalEntityId: string | null;
  who: string;
}

export interface ReadRfi {
  rfi: Rfi;
  fromCache: boolean;
  owner: CaseFileSource;
  /** What the RFI is about, in words (an account's name, a transfer's counterparty and amount); null: not known. */
  related?: string | null;
}

/**
 * One RFI of one profile, as a map key: RFI ids are one bank's only, so two entities' RFIs of the
 * same id are two keys.
 */
export function ownedKey(profileId: string, rfiId: string): string {
  return `${profileId}\n${rfiId}`;
}

/**
 * The audit entries that touched each RFI (or a document of it), oldest first, keyed by
 * `ownedKey`: an entry counts for an RFI only when it was written through the RFI's profile.
 */
export async function auditLinesFor(
  audit: Pick<AuditLog, 'list'>,
  rfis: ReadonlyArray<{ profileId: string; rfiId: string }>,
  docIds: Set<string>,
): Promise<Map<string, AuditEntry[]>> {
  const out = new Map<string, AuditEntry[]>();
  let before: string | undefined;
  for (;;) {
    const page = await audit.list({ limit: 1000, ...(before ? { before } : {}) });
    for (const e of page.entries) {
      for (const { profileId, rfiId: id } of rfis) {
        if (e.environmentId !== profileId) continue;
        const touches =
          e.target === id ||
          (e.detail ?? '').includes(`RFI ${id}`) ||
          (e.target !== null && docIds.has(e.target) && (e.detail ?? '').includes(id));
        const key = ownedKey(profileId, id);
        if (touches) out.set(key, [...(out.get(key) ?? []), e]);
      }
    }
    if (!page.nextBefore) break;
    before = page.nextBefore;
  }
  for (const list of out.values()) list.reverse(); // oldest first
  return out;
}

/** Every question of an RFI with the whole history of its responses. */
function questionBlocks(rfi: Rfi, names: ReadonlyMap<string, string>): Block[] {
  const blocks: Block[] = [];
  rfi.questions.forEach((q, i) => {
    blocks.push({
      kind: 'subheading',
      text: `Question ${i + 1} of ${rfi.questions.length}: ${q.question_data?.question_text || questionTypeWords(q.question_type)}`,
    });
    blocks.push({ kind: 'text', text: questionFacts(q) });
    if (q.question_data?.comment) blocks.push({ kind: 'text', text: `Comment: ${q.question_data.comment}` });
    blocks.push({ kind: 'mono', text: `question id ${q.id}` });
    if (q.responses.length === 0) blocks.push({ kind: 'text', text: 'No responses.' });
    for (const r of q.responses) {
      const c = textOf(r);
      blocks.push({
        kind: 'text',
        text: responseLine(
          r.responder_type,
          r.created_at,
          c.text,
          c.documentIds.map((d) => names.get(d) ?? d),
        ),
      });
      blocks.push({ kind: 'mono', text: `response id ${r.id}` });
      for (const d of c.documentIds) blocks.push({ kind: 'mono', text: `document ${d}` });
    }
  });
  return blocks;
}

/** The team's log about one RFI (team use only): what happened in words, and whether its chain holds. */
export interface CaseFileTeamLog {
  entries: Array<{ seq: number; at: string; actor: { name: string }; words: string }>;
  chain: { intact: boolean; words: string };
}

/** The team's part of one RFI: each entry by name and time, then the chain's state. */
function teamBlocks(log: CaseFileTeamLog): Block[] {
  const blocks: Block[] = [{ kind: 'subheading', text: `From the team log (${log.entries.length})` }];
  if (log.entries.length === 0) blocks.push({ kind: 'text', text: 'Nothing recorded by the team.' });
  for (const e of log.entries)
    blocks.push({ kind: 'text', text: `${pdfTime(e.at)}: ${e.actor.name}: ${e.words}` });
  blocks.push({ kind: 'text', text: log.chain.words });
  return blocks;
}

/** One RFI's part of the PDF. */
function rfiBlocks(
  { rfi, fromCache, owner, related }: ReadRfi,
  docs: DocInfo[],
  lines: AuditEntry[],
  journal: Pick<CaseFileJournal, 'seenOf'>,
  team: CaseFileTeamLog | null,
): Block[] {
  const blocks: Block[] = [];
  const names = new Map(docs.map((d) => [d.documentId, d.name]));
  blocks.push({ kind: 'gap' }, { kind: 'heading', text: rfiName(rfi) });
  blocks.push({ kind: 'mono', text: `RFI ${rfi.id}` });
  const entityId = rfi.legal_entity_id || owner.legalEntityId;
  blocks.push({
    kind: 'text',
    text: rfiFacts(
      rfi,
      entityId ? `${owner.entityName} (${entityId})` : owner.entityName,
      fromCache,
      related ?? null,
    ),
  });
  // The description is the heading; it is not repeated under it.
  if (rfi.description && rfi.description.trim() !== rfiName(rfi))
    blocks.push({ kind: 'text', text: `Description: ${rfi.description}` });
  blocks.push(...questionBlocks(rfi, names));
  blocks.push({ kind: 'subheading', text: `Documents sent (${docs.length})` });
  if (docs.length === 0) blocks.push({ kind: 'text', text: 'None.' });
  for (const d of docs) {
    blocks.push({ kind: 'text', text: documentLine(d) });
    blocks.push({ kind: 'mono', text: `document id ${d.documentId}` });
    blocks.push({ kind: 'mono', text: `sha256 ${d.sha256 ?? 'unknown'}` });
    if (d.file) blocks.push({ kind: 'mono', text: `in the ZIP as ${d.file}` });
  }
  blocks.push({ kind: 'subheading', text: `Audit entries (${lines.length})` });
  if (lines.length === 0) blocks.push({ kind: 'text', text: 'None recorded on this computer.' });
  for (const e of lines) {
    blocks.push({ kind: 'text', text: auditLine(e) });
    blocks.push({ kind: 'mono', text: `audit entry ${e.id}` });
  }
  const seen = journal.seenOf(owner.profileId, rfi.id);
  blocks.push({ kind: 'subheading', text: `Notifications and webhook events seen (${seen.length})` });
  if (seen.length === 0) blocks.push({ kind: 'text', text: 'None seen on this computer.' });
  for (const s of seen) blocks.push({ kind: 'text', text: seenLine(s) });
  if (team) blocks.push(...teamBlocks(team));
  return blocks;
}

/** The whole PDF's blocks, the title first. */
export function caseFileBlocks(o: {
  rfis: ReadRfi[];
  sources: CaseFileSource[];
  /** Each RFI's documents, audit entries and team log, keyed by `ownedKey(profile, RFI id)`. */
  docsByRfi: ReadonlyMap<string, DocInfo[]>;
  audit: ReadonlyMap<string, AuditEntry[]>;
  /** The team's log of each RFI (absent or null: solo use). */
  team?: ReadonlyMap<string, CaseFileTeamLog | null>;
  journal: Pick<CaseFileJournal, 'seenOf'>;
  exportedAt: string;
}): Block[] {
  const { rfis } = o;
  const blocks: Block[] = [];
  blocks.push({
    kind: 'title',
    text:
      rfis.length === 1 ? `Case file: ${rfiName(rfis[0]!.rfi)}` : `Case file: ${plural(rfis.length, 'RFI')}`,
  });
  blocks.push({
    kind: 'text',
    text:
      `Exported ${pdfTime(o.exportedAt)}. ` +
      o.sources
        .map(
          (s) =>
            `${s.entityName}: read by ${s.who} from ${s.environment.name} (${s.environment.baseUrl}); legal entity ${s.legalEntityId ?? 'not known'}.`,
        )
        .join(' '),
  });
  for (const r of rfis) {
    const key = ownedKey(r.owner.profileId, r.rfi.id);
    blocks.push(
      ...rfiBlocks(
        r,
        o.docsByRfi.get(key) ?? [],
        o.audit.get(key) ?? [],
        o.journal,
        o.team?.get(key) ?? null,
      ),
    );
  }
  return blocks;
}
