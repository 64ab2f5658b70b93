/**
 * The RFI queue made ready for filtering and sorting on every keystroke (the renderer's queue; it
 * holds up to the consolidated desk's 30,000 rows): each sort order and each row's search text
 * computed once per data change. Pure, shared code (no imports beyond shared): answers exactly
 * what `queryRfis` of rfi-view.ts answers. Kept apart from rfi-view.ts, which the first screen
 * loads, so that this code loads with the queue.
 */
import { compareSummaries, matchesFields, matchesFilter, searchFields, searchNeedle } from './rfi-view';
import type { RfiFilter, RfiSort, RfiSummary } from './rfi-view';

/** Separates the fields of a row's search text, so a match never spans two fields. */
const FIELD_SEPARATOR = '\n';

/** The text a search matches on, lower case: the fields `matchesFilter` searches, one per line. */
export function rfiSearchText(s: RfiSummary): string {
  return searchFields(s).join(FIELD_SEPARATOR).toLowerCase();
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
  /**
   * Computes one more sort order or the search texts ahead of use (e.g. while the app is idle, one
   * step per idle period, so no step is a long task); answers false once nothing is left.
   */
  warm(): boolean;
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
      const next = SORTS.find((s) => !orders.has(s));
      if (next) order(next);
      else if (!texts) searchTexts();
      else return false;
      return true;
    },
  };
}
