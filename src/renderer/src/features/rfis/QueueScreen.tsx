import { useEffect, useMemo, useRef } from 'react';
import type { RefObject } from 'react';
import type { SortingState } from '@tanstack/react-table';
import { useShallow } from 'zustand/react/shallow';
import type { RfiSummaryView } from '../../../../shared/ipc/channels/rfis';
import type { RfiSort } from '../../../../shared/rfi-view';
import { indexRfis } from '../../../../shared/rfi-queue-index';
import { plural } from '../../../../shared/words';
import { Button, CopyableId, DataTable, EmptyState, ErrorState, Skeleton } from '../../components/ui';
import { useSubscription } from '../../lib/events';
import { useRouteQuery } from '../../lib/router';
import { entityLabel } from '../../lib/entity';
import { widestText } from '../../lib/text-width';
import { CaseFileExport } from '../case-files/CaseFileExport';
import { queueColumns } from './queue-columns';
import {
  BandSelect,
  EntityList,
  EntitySelect,
  HolderSelect,
  QueueHead,
  QueueSearch,
  SortOrder,
  StatusChips,
  TypeSelect,
  UnreadOnly,
  WeekChip,
} from './QueueFilters';
import type { VisibleRef } from './QueueFilters';
import { initialFilter, queueSubscription, rowKey, useQueue, weekRange } from './queue-store';
import type { QueueFilter, RfiRef } from './queue-store';
import { useRelatedNames } from './related-names';

/** How many of the filtered rows, from the top, have their related objects named at once. */
const RELATED_NAMED_AT_ONCE = 300;
import { snoozeSubscription } from './snooze-store';
import { teamActive, teamSubscription, useTeam } from '../team/store';
import { holderMatches, holderOf } from '../team/holders';
import { WaitingForApproval } from '../approvals/WaitingForApproval';

/** Which header sorts which way: the queue sorts in its store (shared rules), the table shows it. */
const SORT_OF_COLUMN: Record<string, RfiSort> = { deadline: 'deadline', updated: 'updated_desc' };
function sortingOf(sort: RfiSort): SortingState {
  return sort === 'deadline'
    ? [{ id: 'deadline', desc: false }]
    : sort === 'updated_desc'
      ? [{ id: 'updated', desc: true }]
      : [];
}

export interface QueueScreenProps {
  /** Master–detail: the RFI shown beside the queue (its row is the highlighted one). */
  selected?: RfiRef | null;
  /** Called when the highlighted row moves (j/k, arrows): the detail follows. */
  onSelect?(rfi: RfiRef): void;
  /** Enter or a click on a row. */
  onOpen(rfi: RfiRef): void;
  /** Narrower layout beside a detail pane (fewer columns). */
  compact?: boolean;
}

/**
 * Queue of every RFI (#/rfis): filters, search, deadline sort, unread markers, j/k/Enter and /.
 * Each part subscribes to the store slice it shows, so a filter, search or sort change re-renders
 * the table, the count line and the control that changed, not the whole screen.
 */
export function QueueScreen({ selected, onSelect, onOpen, compact = false }: QueueScreenProps) {
  const selectedId = selected === undefined ? undefined : selected === null ? null : rowKey(selected);
  const { load, setFilter, setActive } = useQueue.getState();
  const searchRef = useRef<HTMLInputElement>(null);
  const tableRef = useRef<HTMLDivElement>(null);
  const visibleRef = useRef<readonly RfiSummaryView[]>([]);
  const onSelectRef = useRef(onSelect);
  useEffect(() => {
    onSelectRef.current = onSelect;
  }, [onSelect]);

  useSubscription(queueSubscription);
  // The rows' snoozed marks read the snooze store: one subscription for the queue, not one per row.
  useSubscription(snoozeSubscription);
  // A link may name a week (#/rfis?week=2026-11-02, the overview's weekly chart): that filter applies.
  const routeWeek = useRouteQuery().get('week') ?? '';
  useEffect(() => {
    if (weekRange(routeWeek)) setFilter({ week: routeWeek });
  }, [routeWeek, setFilter]);
  useEffect(() => {
    void load();
    void useRelatedNames.getState().load();
  }, [load]);
  // The selection from the URL is the highlighted row; beside an empty detail pane no row is.
  useEffect(() => {
    if (selectedId) setActive(selectedId);
    else if (selectedId === null) setActive(null);
  }, [selectedId, setActive]);

  // Arriving at the queue, the keyboard lands in the list (j/k, Enter at once), unless focus is
  // already somewhere on purpose (the detail pane, a dialog, a field) or no RFI is shown beside it.
  const ready = useQueue((s) => s.rows.length > 0);
  const arrived = useRef(false);
  useEffect(() => {
    if (arrived.current || !ready) return;
    arrived.current = true;
    const focused = document.activeElement;
    const elsewhere =
      focused &&
      focused !== document.body &&
      !focused.closest('nav') &&
      (focused.closest('.rfi-split__detail, [role="dialog"]') ||
        focused.tagName === 'INPUT' ||
        focused.tagName === 'TEXTAREA');
    // Beside an empty detail pane the list is not focused: focus would highlight (and so open,
    // and mark read) the first RFI unasked; j/k there focus the list (below).
    const besideEmptyPane = onSelect !== undefined && !selectedId;
    if (!elsewhere && !besideEmptyPane)
      tableRef.current?.querySelector<HTMLElement>('[role="grid"]')?.focus({ preventScroll: true });
    // Only on arrival: a later selection change does not move focus.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ready]);

  // "/" focuses the search from anywhere on the screen (not while typing in a field).
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent): void => {
      const t = e.target as HTMLElement | null;
      const typing =
        t &&
        (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable);
      if (e.key === '/' && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        searchRef.current?.focus();
      }
      // j/k from anywhere on the screen (not a field or a control) go to the list; beside the
      // detail pane the row the list highlights is shown at once.
      if ((e.key === 'j' || e.key === 'k') && t === document.body && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        tableRef.current?.querySelector<HTMLElement>('[role="grid"]')?.focus();
        const active = refOfKey(visibleRef.current, useQueue.getState().activeId);
        if (active) onSelectRef.current?.(active);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <section className="screen rfi-queue" aria-labelledby="rfi-queue-title">
      <QueueHead />
      <WaitingForApproval />
      <EntityList />
      {/* One compact filter bar: the labels are the fields' accessible names, the values say the rest. */}
      <div className="rfi-filters" role="search">
        <StatusChips />
        <WeekChip routeWeek={routeWeek} />
        <QueueSearch searchRef={searchRef} tableRef={tableRef} visibleRef={visibleRef} />
        <EntitySelect />
        <HolderSelect />
        <TypeSelect />
        <BandSelect />
        <UnreadOnly />
      </div>
      <QueueBody
        compact={compact}
        onSelect={onSelect}
        onOpen={onOpen}
        tableRef={tableRef}
        visibleRef={visibleRef}
      />
    </section>
  );
}

const NO_FILTER: QueueFilter = initialFilter;

/** The count line, the case-file export and the table: what a filter, search or sort changes. */
function QueueBody({
  compact,
  onSelect,
  onOpen,
  tableRef,
  visibleRef,
}: {
  compact: boolean;
  onSelect: ((rfi: RfiRef) => void) | undefined;
  onOpen: (rfi: RfiRef) => void;
  tableRef: RefObject<HTMLDivElement | null>;
  visibleRef: VisibleRef;
}) {
  const { rows, loaded, total, error, filter, sort, now, activeId, several, entityNames } = useQueue(
    useShallow((s) => ({
      rows: s.rows,
      loaded: s.loaded,
      total: s.total,
      error: s.error,
      filter: s.filter,
      sort: s.sort,
      now: s.now,
      activeId: s.activeId,
      several: s.entities.length > 1,
      entityNames: s.entities.map((e) => entityLabel({ name: e.name })).join('\n'),
    })),
  );
  const { load, setFilter, setSort, setActive, syncNow } = useQueue.getState();
  // The Entity column is as wide as its longest name (measured once per set of names).
  const entityTextWidth = useMemo(
    () => (several ? widestText(entityNames.split('\n')) : null),
    [several, entityNames],
  );
  const names = useRelatedNames((s) => s.names);
  useSubscription(teamSubscription);
  const holders = useTeam((s) => (teamActive(s.status) ? s.assignments : null));

  // Each sort order and every row's search text are computed once per data change (the other
  // orders while the app is idle); a filter, keystroke or sort change is then one pass over rows
  // already in order.
  const index = useMemo(() => indexRfis(rows), [rows]);
  useEffect(() => whenIdle(() => index.warm()), [index]);
  // The entity and week filters belong to the desk, not to the shared rules: one extra condition,
  // the same function until they change (so typing on narrows the previous answer).
  const also = useMemo(() => {
    const opened = weekRange(filter.week);
    const holder = holders ? filter.holder : '';
    if (!filter.entity && !opened && !holder) return undefined;
    return (r: RfiSummaryView): boolean =>
      (!filter.entity || r.profileId === filter.entity) &&
      (!opened || (Date.parse(r.createdAt) >= opened.start && Date.parse(r.createdAt) < opened.end)) &&
      (!holder || holderMatches(holderOf(holders, r), holder));
  }, [filter.entity, filter.week, filter.holder, holders]);
  const visible = useMemo(
    () =>
      index.query(
        {
          ...(filter.status ? { status: [filter.status] } : {}),
          ...(filter.type ? { type: [filter.type] } : {}),
          ...(filter.band ? { band: [filter.band] } : {}),
          text: filter.text,
          unreadOnly: filter.unreadOnly,
        },
        sort,
        also,
      ) as readonly RfiSummaryView[],
    [index, sort, also, filter.status, filter.type, filter.band, filter.text, filter.unreadOnly],
  );
  useEffect(() => {
    visibleRef.current = visible;
  }, [visible, visibleRef]);
  // The related objects of the rows in view first, each named through its RFI's owning profile
  // (main remembers them; a queue of thousands does not read thousands of transfers at once).
  useEffect(() => {
    void useRelatedNames.getState().want(visible.slice(0, RELATED_NAMED_AT_ONCE));
  }, [visible]);

  const columns = useMemo(
    () => queueColumns(names, now, compact, several, holders, entityTextWidth),
    [names, now, compact, several, holders, entityTextWidth],
  );
  const sorting = useMemo(() => sortingOf(sort), [sort]);

  return (
    <>
      <div className="rfi-queue__bar">
        <p className="muted" aria-live="polite" data-testid="rfi-visible-count">
          {loaded
            ? `${visible.length} of ${plural(rows.length, 'RFI')}`
            : total !== null
              ? `Loading all ${total} RFIs… (${rows.length} shown)`
              : 'Loading…'}
        </p>
        <SortOrder />
        {loaded && visible.length > 0 && visible.length <= 500 && (
          <CaseFileExport
            compact
            // Each RFI with the profile that owns it: read with its own entity's credential.
            rfis={visible.flatMap((r) => (r.profileId ? [{ profileId: r.profileId, rfiId: r.id }] : []))}
            label={
              visible.length === 1
                ? 'Case file of this RFI…'
                : `Case file of ${plural(visible.length, 'RFI')}…`
            }
          />
        )}
      </div>
      {error && rows.length === 0 ? (
        <ErrorState
          title="The RFIs could not be read"
          action={
            <Button variant="primary" onPress={() => void load()}>
              Try again
            </Button>
          }
        >
          {error}
        </ErrorState>
      ) : !loaded && rows.length === 0 ? (
        <Skeleton label="Loading RFIs" lines={6} />
      ) : (
        <>
          {error && (
            <p role="alert" className="field-error">
              {error}
            </p>
          )}
          <div className="rfi-queue__table" ref={tableRef}>
            <DataTable
              data={visible}
              columns={columns}
              getRowId={rowId}
              label="RFIs"
              manualSorting
              sorting={sorting}
              onSortingChange={(s) => {
                const col = s[0]?.id;
                const next = col ? SORT_OF_COLUMN[col] : undefined;
                if (next) setSort(next);
              }}
              activeId={activeId}
              onActiveChange={(id, cause) => {
                setActive(id);
                // Only a keyboard move opens the row beside the queue; a click opens it below.
                const rfi = id && cause === 'keyboard' ? refOfKey(visible, id) : null;
                if (rfi) onSelect?.(rfi);
              }}
              onOpen={(id, row) => {
                setActive(id);
                onOpen({ id: row.id, profileId: row.profileId });
              }}
              rowTestId="rfi-row"
              rowData={rowData}
              rowClassName={rowClassName}
              data-testid="rfi-list"
              empty={
                loaded ? (
                  <EmptyState
                    title={rows.length === 0 ? 'No RFIs' : 'No RFI matches'}
                    action={
                      rows.length === 0 ? (
                        <Button onPress={() => void syncNow()}>Sync now</Button>
                      ) : (
                        <Button onPress={() => setFilter({ ...NO_FILTER })}>Clear the filters</Button>
                      )
                    }
                  >
                    {rows.length === 0
                      ? 'The bank has sent no request for information for this legal entity.'
                      : 'Nothing matches the search and filters.'}
                  </EmptyState>
                ) : null
              }
            />
          </div>
        </>
      )}
    </>
  );
}

const rowId = (r: RfiSummaryView): string => rowKey(r);
/** The RFI (and its owner) of a row key among the rows shown. */
function refOfKey(rows: readonly RfiSummaryView[], key: string | null): RfiRef | null {
  const row = key ? rows.find((r) => rowKey(r) === key) : undefined;
  return row ? { id: row.id, profileId: row.profileId } : null;
}
const rowData = (r: RfiSummaryView): Record<`data-${string}`, string | undefined> => ({
  'data-rfi-id': r.id,
  'data-unread': r.unread ? 'true' : undefined,
});
const rowClassName = (r: RfiSummaryView): string | undefined => (r.unread ? 'rfi-row--unread' : undefined);

/**
 * Runs `step` whenever the renderer is idle (or soon, where there is no idle callback), one step
 * per idle period, until it answers false; answers a cancel.
 */
function whenIdle(step: () => boolean): () => void {
  let cancel = (): void => undefined;
  const schedule = (): void => {
    const run = (): void => {
      if (step()) schedule();
    };
    if (typeof requestIdleCallback === 'function') {
      const h = requestIdleCallback(run, { timeout: 2000 });
      cancel = () => cancelIdleCallback(h);
    } else {
      const t = setTimeout(run, 50);
      cancel = () => clearTimeout(t);
    }
  };
  schedule();
  return () => cancel();
}

/** The id of an RFI, secondary to its description (used by the detail pane's header). */
export function RfiId({ id }: { id: string }) {
  return <CopyableId id={id} kind="RFI id" />;
}
