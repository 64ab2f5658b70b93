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
  if (text) {
    if (
      !s.id.toLowerCase().includes(text) &&
      !s.relatedId.toLowerCase().includes(text) &&
      !s.description.toLowerCase().includes(text) &&
      !s.type.toLowerCase().includes(text) &&
      !s.status.toLowerCase().includes(text)
    ) {
      return false;
    }
  }
  return true;
}

/** The filter without its text: status, type, band, unread. */
function matchesFields(s: RfiSummary, f: RfiFilter): boolean {
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

/** Separates the fields of a row's search text, so a match never spans two fields. */
const FIELD_SEPARATOR = '\n';

/** The text a search matches on, lower case: id, related id, description, type and status. */
export function rfiSearchText(s: RfiSummary): string {
  return [s.id, s.relatedId, s.description, s.type, s.status].join(FIELD_SEPARATOR).toLowerCase();
}

/**
 * One list of rows made ready for a queue that filters and sorts on every keystroke: each sort
 * order is computed once (on first use, or ahead with `warm`) and each row's search text once,
 * so a filter, search or sort change is a single pass over an order already sorted. Answers what
 * `queryRfis` answers for the same rows, filter and sort.
 */
export interface RfiQueueIndex {
  readonly rows: readonly RfiSummary[];
  /** Every row in this order (the same array on every call: treat it as read-only). */
  sorted(sort: RfiSort): readonly RfiSummary[];
  /**
   * The rows that pass `f` (and `also`, when given) in `sort` order. When the previous query had
   * the same sort, non-text filters and `also`, and this text contains that one's (the analyst
   * typed on), only the previous answer is scanned: a longer text only narrows it.
   */
  query(f: RfiFilter, sort: RfiSort, also?: (s: RfiSummary) => boolean): readonly RfiSummary[];
  /** Computes every sort order and search text now (e.g. while the app is idle). */
  warm(): void;
}

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

function sameFields(a: RfiFilter, b: RfiFilter): boolean {
  return (
    sameList(a.status, b.status) &&
    sameList(a.type, b.type) &&
    sameList(a.band, b.band) &&
    !!a.unreadOnly === !!b.unreadOnly
  );
}

const SORTS: readonly RfiSort[] = ['deadline', 'updated_desc', 'created_desc'];

/** How many answers without a text an index keeps (the oldest goes first). */
const FIELD_ANSWERS_KEPT = 24;

/** One key per sort and non-text filter (lists compared as given, in order). */
function fieldsKey(f: RfiFilter, sort: RfiSort): string {
  return JSON.stringify([sort, f.status ?? [], f.type ?? [], f.band ?? [], !!f.unreadOnly]);
}

export function indexRfis(rows: readonly RfiSummary[]): RfiQueueIndex {
  // Orders and answers are kept as positions in `rows` (and the rows they name), search texts by
  // position: a query is a loop over integers and array reads, no lookups by object.
  const orders = new Map<RfiSort, { at: Uint32Array; rows: readonly RfiSummary[] }>();
  let texts: string[] | null = null;
  // Answers without a text (a status, type, band or unread filter in one order), kept so that
  // going back to one (a status clicked again, the search cleared) is immediate, and so that a
  // search starts from the rows those filters leave rather than from every row.
  const byFields = new Map<string, { at: Uint32Array; result: readonly RfiSummary[] }>();
  let last: {
    f: RfiFilter;
    needle: string;
    sort: RfiSort;
    also: ((s: RfiSummary) => boolean) | undefined;
    at: Uint32Array;
    result: readonly RfiSummary[];
  } | null = null;

  const order = (sort: RfiSort): { at: Uint32Array; rows: readonly RfiSummary[] } => {
    let o = orders.get(sort);
    if (!o) {
      const cmp = compareSummaries(sort);
      const at = Uint32Array.from(rows.keys()).sort((x, y) =>
        cmp(rows[x] as RfiSummary, rows[y] as RfiSummary),
      );
      o = { at, rows: Array.from(at, (i) => rows[i] as RfiSummary) };
      orders.set(sort, o);
    }
    return o;
  };
  const searchTexts = (): string[] => {
    texts ??= rows.map(rfiSearchText);
    return texts;
  };

  return {
    rows,
    sorted: (sort) => order(sort).rows,
    query(f, sort, also) {
      const needle = searchNeedle(f.text);
      const fields =
        (f.status?.length ?? 0) > 0 ||
        (f.type?.length ?? 0) > 0 ||
        (f.band?.length ?? 0) > 0 ||
        !!f.unreadOnly;
      const all = order(sort);
      if (!needle && !fields && !also) {
        last = { f, needle, sort, also, at: all.at, result: all.rows };
        return all.rows;
      }
      const key = also ? null : fieldsKey(f, sort);
      const known = key === null ? undefined : byFields.get(key);
      if (!needle && known) {
        last = { f, needle, sort, also, at: known.at, result: known.result };
        return known.result;
      }
      const narrows =
        last !== null &&
        last.sort === sort &&
        last.also === also &&
        sameFields(last.f, f) &&
        needle.includes(last.needle);
      const from = narrows && last ? last.at : (known?.at ?? all.at);
      // A text with the separator in it could match across fields: test field by field then.
      const t = needle && !needle.includes(FIELD_SEPARATOR) ? searchTexts() : null;
      const at: number[] = [];
      const result: RfiSummary[] = [];
      for (let k = 0; k < from.length; k++) {
        const i = from[k] as number;
        const s = rows[i] as RfiSummary;
        if (fields && !matchesFields(s, f)) continue;
        if (needle && !(t ? (t[i] as string).includes(needle) : matchesFilter(s, { text: needle }))) continue;
        if (also && !also(s)) continue;
        at.push(i);
        result.push(s);
      }
      last = { f, needle, sort, also, at: Uint32Array.from(at), result };
      if (!needle && key !== null) {
        if (byFields.size >= FIELD_ANSWERS_KEPT) byFields.delete(byFields.keys().next().value as string);
        byFields.set(key, { at: last.at, result });
      }
      return result;
    },
    warm() {
      for (const s of SORTS) order(s);
      searchTexts();
    },
  };
}

/** Human label of a band (colour is never the only signal: the UI shows this text). */
export const BAND_LABELS: Record<DeadlineBand, string> = {
  on_track: 'On track',
  at_risk: 'At risk',
  breached: 'Breached',
  none: 'No deadline',
};
