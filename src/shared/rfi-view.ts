/**
 * Pure derivations of the RFI queue, shared by main (the repository answers `rfis.list` with
 * them) and the renderer (the queue can filter/sort locally with the very same rules): the
 * deadline of spec 3.3 (src/shared/rfi-rules.ts), its band, the compact summary row, filters,
 * sort and counts. No imports beyond shared code: runs in Node and in Chromium.
 */
import { isFinal, rfiDeadline } from './rfi-rules';

/** Under this much time left a deadline is "at risk". */
export const AT_RISK_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * on_track: 7 days or more left; at_risk: less than 7 days; breached: the deadline passed;
 * none: no running deadline (final RFI, or no non-final question).
 */
export type DeadlineBand = 'on_track' | 'at_risk' | 'breached' | 'none';

export function deadlineBand(deadline: string | number | Date | null, nowMs: number): DeadlineBand {
  if (deadline === null) return 'none';
  const t =
    typeof deadline === 'number'
      ? deadline
      : deadline instanceof Date
        ? deadline.getTime()
        : Date.parse(deadline);
  if (Number.isNaN(t)) return 'none';
  const left = t - nowMs;
  if (left <= 0) return 'breached';
  if (left < AT_RISK_MS) return 'at_risk';
  return 'on_track';
}

/** The shape the derivations need (a subset of the wire RFI; extra fields are ignored). */
export interface RfiLike {
  id: string;
  type: string;
  status: string;
  related_id: string;
  description: string;
  created_at: string;
  updated_at: string;
  questions: ReadonlyArray<{ id: string; status: string; question_type: string; updated_at: string }>;
}

/** One row of the queue: small enough that 10,000 of them cross IPC in a few MB. */
export interface RfiSummary {
  id: string;
  type: string;
  status: string;
  relatedId: string;
  /** The description, cut to 200 characters (the full text is in `rfis.get`). */
  description: string;
  createdAt: string;
  updatedAt: string;
  /** ISO time of the earliest non-final question's timeout; null when none runs. */
  deadline: string | null;
  band: DeadlineBand;
  /** Question count per question status (unknown statuses counted as they are). */
  questionCounts: Record<string, number>;
  questionTotal: number;
  /** Questions waiting for the customer (status action_required). */
  awaitingResponse: number;
  /** New or changed since the analyst last opened it. */
  unread: boolean;
  /** The RFI waits for the customer (status action_required): counted on the app badge. */
  awaitingAction: boolean;
  /** The watching profile and its legal entity's name (set by the consolidated desk). */
  profileId?: string;
  entityName?: string;
}

export const DESCRIPTION_PREVIEW = 200;

export function summarizeRfi(rfi: RfiLike, nowMs: number, lastSeenUpdatedAt: string | undefined): RfiSummary {
  const d = rfiDeadline(rfi);
  const questionCounts: Record<string, number> = {};
  let awaitingResponse = 0;
  for (const q of rfi.questions) {
    questionCounts[q.status] = (questionCounts[q.status] ?? 0) + 1;
    if (q.status === 'action_required') awaitingResponse++;
  }
  return {
    id: rfi.id,
    type: rfi.type,
    status: rfi.status,
    relatedId: rfi.related_id,
    description:
      rfi.description.length > DESCRIPTION_PREVIEW
        ? `${rfi.description.slice(0, DESCRIPTION_PREVIEW - 1)}…`
        : rfi.description,
    createdAt: rfi.created_at,
    updatedAt: rfi.updated_at,
    deadline: d ? d.toISOString() : null,
    band: deadlineBand(d, nowMs),
    questionCounts,
    questionTotal: rfi.questions.length,
    awaitingResponse,
    unread: isUnread(rfi.updated_at, lastSeenUpdatedAt),
    awaitingAction: isAwaitingAction(rfi.status),
  };
}

/** Unread: never opened, or changed since (its updated_at differs from the one last seen). */
export function isUnread(updatedAt: string, lastSeenUpdatedAt: string | undefined): boolean {
  return lastSeenUpdatedAt === undefined || lastSeenUpdatedAt !== updatedAt;
}

/** The RFI waits for the analyst's side (counted on the badge). */
export function isAwaitingAction(status: string): boolean {
  return status === 'action_required';
}

export { isFinal };

export type RfiSort = 'deadline' | 'updated_desc' | 'created_desc';

export interface RfiFilter {
  /** Keep RFIs with one of these statuses (any value, unknown ones too); empty/absent = all. */
  status?: readonly string[];
  type?: readonly string[];
  /** Case-insensitive substring of id, related id, description, type or status. */
  text?: string;
  unreadOnly?: boolean;
  band?: readonly DeadlineBand[];
}

export function matchesFilter(s: RfiSummary, f: RfiFilter): boolean {
  if (!matchesFields(s, f)) return false;
  const text = searchNeedle(f.text);
  return !text || searchFields(s).some((field) => field.toLowerCase().includes(text));
}

/** What a search text is matched against, field by field: id, related id, description, type, status. */
export function searchFields(s: RfiSummary): readonly string[] {
  return [s.id, s.relatedId, s.description, s.type, s.status];
}

/** The filter without its text: status, type, band, unread. */
export function matchesFields(s: RfiSummary, f: RfiFilter): boolean {
  if (f.status && f.status.length > 0 && !f.status.includes(s.status)) return false;
  if (f.type && f.type.length > 0 && !f.type.includes(s.type)) return false;
  if (f.band && f.band.length > 0 && !f.band.includes(s.band)) return false;
  if (f.unreadOnly && !s.unread) return false;
  return true;
}

/** What a search text matches on: trimmed, lower case ('' = no text filter). */
export function searchNeedle(text: string | undefined): string {
  return text?.trim().toLowerCase() ?? '';
}

/**
 * Deadline order: running deadlines first, earliest (most urgent, breached first) on top; RFIs
 * without a deadline after them, most recently updated first. Ties break on id so the order is
 * stable.
 */
export function compareSummaries(sort: RfiSort): (a: RfiSummary, b: RfiSummary) => number {
  const byId = (a: RfiSummary, b: RfiSummary) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const desc = (x: string, y: string) => (x < y ? 1 : x > y ? -1 : 0);
  if (sort === 'updated_desc') return (a, b) => desc(a.updatedAt, b.updatedAt) || byId(a, b);
  if (sort === 'created_desc') return (a, b) => desc(a.createdAt, b.createdAt) || byId(a, b);
  return (a, b) => {
    if (a.deadline !== null && b.deadline !== null) {
      // Deadlines are toISOString() values (same length, UTC): text order is time order.
      return a.deadline < b.deadline ? -1 : a.deadline > b.deadline ? 1 : byId(a, b);
    }
    if (a.deadline !== null) return -1;
    if (b.deadline !== null) return 1;
    return desc(a.updatedAt, b.updatedAt) || byId(a, b);
  };
}

export interface RfiCounts {
  total: number;
  unread: number;
  /** RFIs whose status is action_required (the badge). */
  awaitingAction: number;
  byStatus: Record<string, number>;
  byType: Record<string, number>;
  byBand: Record<DeadlineBand, number>;
}

export function countSummaries(rows: Iterable<RfiSummary>): RfiCounts {
  const c: RfiCounts = {
    total: 0,
    unread: 0,
    awaitingAction: 0,
    byStatus: {},
    byType: {},
    byBand: { on_track: 0, at_risk: 0, breached: 0, none: 0 },
  };
  for (const s of rows) {
    c.total++;
    if (s.unread) c.unread++;
    if (s.awaitingAction) c.awaitingAction++;
    c.byStatus[s.status] = (c.byStatus[s.status] ?? 0) + 1;
    c.byType[s.type] = (c.byType[s.type] ?? 0) + 1;
    c.byBand[s.band]++;
  }
  return c;
}

/** Filter + sort in one go (what `rfis.list` does in main; the renderer may do it too). */
export function queryRfis(
  rows: readonly RfiSummary[],
  f: RfiFilter,
  sort: RfiSort = 'deadline',
): RfiSummary[] {
  return rows.filter((s) => matchesFilter(s, f)).sort(compareSummaries(sort));
}

/** Human label of a band (colour is never the only signal: the UI shows this text). */
export const BAND_LABELS: Record<DeadlineBand, string> = {
  on_track: 'On track',
  at_risk: 'At risk',
  breached: 'Breached',
  none: 'No deadline',
};
