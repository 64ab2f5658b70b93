import { memo, useEffect, useMemo, useRef } from 'react';
import type { RefObject } from 'react';
import { CircleDot, RefreshCw, X } from 'lucide-react';
import type { SortingState } from '@tanstack/react-table';
import { useShallow } from 'zustand/react/shallow';
import { RFI_STATUSES, RFI_TYPES } from '../../../../shared/catalogue';
import type { DeskEntityView, RfiSummaryView } from '../../../../shared/ipc/channels/rfis';
import type { DeadlineBand, RfiSort } from '../../../../shared/rfi-view';
import { BAND_LABELS } from '../../../../shared/rfi-view';
import { indexRfis } from '../../../../shared/rfi-queue-index';
import { StatusBadge, statusLabel } from '../../components/StatusBadge';
import {
  Button,
  Checkbox,
  CopyableId,
  DataTable,
  DensityToggle,
  Segmented,
  EmptyState,
  ErrorState,
  IconButton,
  useNow,
  RelativeTime,
  SearchField,
  Select,
  Skeleton,
} from '../../components/ui';
import type { DataColumn, SegmentedOption } from '../../components/ui';
import { useSubscription } from '../../lib/events';
import { useRouteQuery, useRouter } from '../../lib/router';
import { DeadlineClock } from './DeadlineClock';
import { SnoozedMark } from './SnoozeControl';
import { snoozeSubscription } from './snooze-store';
import { initialFilter, queueSubscription, useQueue, weekRange } from './queue-store';
import type { QueueFilter } from './queue-store';
import { relatedLabel, useRelatedNames } from './related-names';
import { CaseFileExport } from '../case-files/CaseFileExport';
import { plural, rfiTypeWords } from '../../../../shared/words';
import { useStatusLine } from '../session/status-line';
import { entityLabel } from '../../lib/entity';

function options(known: readonly string[], counted: Record<string, number> | undefined): string[] {
  return [...new Set([...known, ...Object.keys(counted ?? {})])];
}

const typeLabel = rfiTypeWords;

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
  selectedId?: string | null;
  /** Called when the highlighted row moves (j/k, arrows): the detail follows. */
  onSelect?(id: string): void;
  /** Enter or a click on a row. */
  onOpen(id: string): void;
  /** Narrower layout beside a detail pane (fewer columns). */
  compact?: boolean;
}

/** The queue's latest visible rows, for the search's Enter (read at the key press, not rendered). */
interface VisibleRef {
  current: readonly RfiSummaryView[];
}

/**
 * Queue of every RFI (#/rfis): filters, search, deadline sort, unread markers, j/k/Enter and /.
 * Each part subscribes to the store slice it shows, so a filter, search or sort change re-renders
 * the table, the count line and the control that changed, not the whole screen.
 */
export function QueueScreen({ selectedId, onSelect, onOpen, compact = false }: QueueScreenProps) {
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
        const active = useQueue.getState().activeId;
        if (active) onSelectRef.current?.(active);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <section className="screen rfi-queue" aria-labelledby="rfi-queue-title">
      <QueueHead />
      <EntityList />
      {/* One compact filter bar: the labels are the fields' accessible names, the values say the rest. */}
      <div className="rfi-filters" role="search">
        <QueueSearch searchRef={searchRef} tableRef={tableRef} visibleRef={visibleRef} />
        <EntitySelect />
        <StatusSelect />
        <TypeSelect />
        <BandSelect />
        <UnreadOnly />
        <WeekChip routeWeek={routeWeek} />
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

/** The title, the sync state and "Sync now". */
const QueueHead = memo(function QueueHead() {
  const sync = useQueue((s) => s.sync);
  // The header's one status source decides whether "up to date" may be said at all.
  const line = useStatusLine();
  // A sync time ahead of this computer's clock (the bank's clock) reads as now, never "in 23d".
  const now = useNow();
  const syncedAt = sync?.lastSyncedAt ? Math.min(Date.parse(sync.lastSyncedAt), now) : null;
  const synced = <RelativeTime value={syncedAt} fallback="never" />;
  const syncText = sync ? (
    sync.state === 'offline' || !line.bankReachable ? (
      <>
        {line.bankReachable ? 'Offline' : line.label}: showing the copy from {synced}
      </>
    ) : sync.state === 'syncing' ? (
      'Syncing…'
    ) : sync.state === 'error' ? (
      `Sync problem: ${sync.lastError ?? 'unknown'}`
    ) : (
      <>Up to date, synced {synced}</>
    )
  ) : null;
  return (
    <div className="rfi-queue__head">
      <h1 id="rfi-queue-title">Requests for information</h1>
      <div className="rfi-queue__sync">
        <span role="status" data-testid="rfi-sync-state" className="muted">
          {syncText}
        </span>
        <Button
          size="sm"
          variant="ghost"
          icon={<RefreshCw size={14} aria-hidden="true" />}
          isPending={sync?.state === 'syncing'}
          onPress={() => void useQueue.getState().syncNow()}
        >
          Sync now
        </Button>
        <QueueDensity />
      </div>
    </div>
  );
});

/** Every watched legal entity and how its watch goes (shown when the desk watches several). */
const EntityList = memo(function EntityList() {
  const entities = useQueue((s) => s.entities);
  if (entities.length <= 1) return null;
  return (
    <ul className="rfi-entities" aria-label="Legal entities watched" data-testid="rfi-entities">
      {entities.map((e) => (
        <li key={e.profileId} data-profile-id={e.profileId}>
          <strong>{entityLabel({ name: e.name })}</strong> {plural(e.total, 'RFI')} · {entityState(e)}
          {e.active ? ' · acts for answers, returns and quotes' : ''}
          {` · watched by profile ${e.profileName}`}
          {e.sharedWith?.length
            ? ` (also held by ${e.sharedWith.map((p) => p.profileName).join(', ')}, not watched twice)`
            : ''}
          {e.events ? (e.events.mode === 'webhook' ? ' · webhook events' : ' · polling') : ''}
        </li>
      ))}
    </ul>
  );
});

const QueueSearch = memo(function QueueSearch({
  searchRef,
  tableRef,
  visibleRef,
}: {
  searchRef: RefObject<HTMLInputElement | null>;
  tableRef: RefObject<HTMLDivElement | null>;
  visibleRef: VisibleRef;
}) {
  const text = useQueue((s) => s.filter.text);
  const { setFilter, setActive } = useQueue.getState();
  return (
    <SearchField
      label="Search"
      hideLabel
      className="rfi-filters__search"
      inputRef={searchRef}
      value={text}
      placeholder="Search subject, id, related… (/)"
      onChange={(t) => setFilter({ text: t })}
      onKeyDown={(e) => {
        if (e.key === 'Enter') {
          tableRef.current?.querySelector<HTMLElement>('[role="grid"]')?.focus();
          const first = visibleRef.current[0];
          if (!useQueue.getState().activeId && first) setActive(first.id);
        }
      }}
      onClear={() => setFilter({ text: '' })}
      data-testid="rfi-search-field"
    />
  );
});

const EntitySelect = memo(function EntitySelect() {
  const entities = useQueue((s) => s.entities);
  const entity = useQueue((s) => s.filter.entity);
  const options = useMemo(
    () => [
      { value: '', label: 'All entities' },
      ...entities.map((e) => ({ value: e.profileId, label: entityLabel({ name: e.name }) })),
    ],
    [entities],
  );
  if (entities.length <= 1) return null;
  return (
    <Select
      label="Entity"
      hideLabel
      value={entity}
      onChange={(v) => useQueue.getState().setFilter({ entity: v })}
      options={options}
      data-testid="rfi-filter-entity"
    />
  );
});

const StatusSelect = memo(function StatusSelect() {
  const status = useQueue((s) => s.filter.status);
  const byStatus = useQueue((s) => s.counts?.byStatus);
  const total = useQueue((s) => s.counts?.total);
  const opts = useMemo(
    () => [
      { value: '', label: total === undefined ? 'All statuses' : `All statuses (${total})` },
      ...options(RFI_STATUSES, byStatus).map((s) => ({
        value: s,
        label: byStatus?.[s] === undefined ? statusLabel(s) : `${statusLabel(s)} (${byStatus[s]})`,
      })),
    ],
    [byStatus, total],
  );
  return (
    <Select
      label="Status"
      hideLabel
      value={status}
      onChange={(v) => useQueue.getState().setFilter({ status: v })}
      options={opts}
      data-testid="rfi-filter-status"
    />
  );
});

const TypeSelect = memo(function TypeSelect() {
  const type = useQueue((s) => s.filter.type);
  const byType = useQueue((s) => s.counts?.byType);
  const opts = useMemo(
    () => [
      { value: '', label: 'All types' },
      ...options(RFI_TYPES, byType).map((t) => ({ value: t, label: typeLabel(t) })),
    ],
    [byType],
  );
  return (
    <Select
      label="Type"
      hideLabel
      value={type}
      onChange={(v) => useQueue.getState().setFilter({ type: v })}
      options={opts}
      data-testid="rfi-filter-type"
    />
  );
});

const BAND_OPTIONS = [
  { value: '', label: 'All deadlines' },
  ...(Object.keys(BAND_LABELS) as DeadlineBand[]).map((b) => ({ value: b, label: BAND_LABELS[b] })),
];

const BandSelect = memo(function BandSelect() {
  const band = useQueue((s) => s.filter.band);
  return (
    <Select
      label="Deadline"
      hideLabel
      value={band}
      onChange={(v) => useQueue.getState().setFilter({ band: v as QueueFilter['band'] })}
      options={BAND_OPTIONS}
      data-testid="rfi-filter-band"
    />
  );
});

const SORT_OPTIONS: readonly SegmentedOption<RfiSort>[] = [
  { value: 'deadline', content: 'Deadline', title: 'Deadline: most urgent first' },
  { value: 'updated_desc', content: 'Updated', title: 'Last updated first' },
  { value: 'created_desc', content: 'Newest', title: 'Newest first' },
];

/** The three orders side by side: one press re-sorts (no popover to open and close). */
const SortOrder = memo(function SortOrder() {
  const sort = useQueue((s) => s.sort);
  return (
    <Segmented
      label="Sort"
      hideLabel
      value={sort}
      onChange={(v) => useQueue.getState().setSort(v)}
      options={SORT_OPTIONS}
      data-testid="rfi-sort"
    />
  );
});

const UnreadOnly = memo(function UnreadOnly() {
  const unreadOnly = useQueue((s) => s.filter.unreadOnly);
  const unread = useQueue((s) => s.counts?.unread);
  return (
    <Checkbox isSelected={unreadOnly} onChange={(v) => useQueue.getState().setFilter({ unreadOnly: v })}>
      Unread only{unread === undefined ? '' : ` (${unread})`}
    </Checkbox>
  );
});

/** The chip of a week filter (from the overview's weekly chart), with its clear button. */
const WeekChip = memo(function WeekChip({ routeWeek }: { routeWeek: string }) {
  const weekValue = useQueue((s) => s.filter.week);
  const week = weekRange(weekValue);
  if (!week) return null;
  const clearWeek = (): void => {
    useQueue.getState().setFilter({ week: '' });
    if (routeWeek) useRouter.getState().navigate('/rfis', { replace: true });
  };
  return (
    <span className="filter-chip" data-testid="rfi-filter-week" data-value={weekValue}>
      Opened in week of {week.label}
      <IconButton
        label={`Clear the filter: opened in week of ${week.label}`}
        icon={<X size={14} aria-hidden="true" />}
        tooltip={false}
        onPress={clearWeek}
      />
    </span>
  );
});

/** The density switch does not depend on the queue: it never re-renders with it. */
const QueueDensity = memo(DensityToggle);

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
  onSelect: ((id: string) => void) | undefined;
  onOpen: (id: string) => void;
  tableRef: RefObject<HTMLDivElement | null>;
  visibleRef: VisibleRef;
}) {
  const { rows, loaded, total, error, filter, sort, now, activeId, several } = useQueue(
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
    })),
  );
  const { load, setFilter, setSort, setActive, syncNow } = useQueue.getState();
  const names = useRelatedNames((s) => s.names);

  // Each sort order and every row's search text are computed once per data change (the other
  // orders while the app is idle); a filter, keystroke or sort change is then one pass over rows
  // already in order.
  const index = useMemo(() => indexRfis(rows), [rows]);
  useEffect(() => whenIdle(() => index.warm()), [index]);
  // The entity and week filters belong to the desk, not to the shared rules: one extra condition,
  // the same function until they change (so typing on narrows the previous answer).
  const also = useMemo(() => {
    const opened = weekRange(filter.week);
    if (!filter.entity && !opened) return undefined;
    return (r: RfiSummaryView): boolean =>
      (!filter.entity || r.profileId === filter.entity) &&
      (!opened || (Date.parse(r.createdAt) >= opened.start && Date.parse(r.createdAt) < opened.end));
  }, [filter.entity, filter.week]);
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

  const columns = useMemo(() => queueColumns(names, now, compact, several), [names, now, compact, several]);
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
            rfiIds={visible.map((r) => r.id)}
            // Each RFI is read with its own entity's credential.
            owners={Object.fromEntries(visible.flatMap((r) => (r.profileId ? [[r.id, r.profileId]] : [])))}
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
                if (id && cause === 'keyboard') onSelect?.(id);
              }}
              onOpen={(id) => {
                setActive(id);
                onOpen(id);
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

const rowId = (r: RfiSummaryView): string => r.id;
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

/** The unread marker, made once (rows reuse the element as it is). */
const UNREAD_MARK = (
  <span className="rfi-unread" title="New: not opened since it changed">
    <CircleDot size={12} aria-hidden="true" />
    <span className="ui-visually-hidden">New</span>
  </span>
);

/** The queue's columns: fewer beside the detail pane, the entity when the desk watches several. */
function queueColumns(
  names: Readonly<Record<string, string>>,
  now: number,
  compact: boolean,
  several: boolean,
): DataColumn<RfiSummaryView>[] {
  const all: (DataColumn<RfiSummaryView> | false)[] = [
    {
      id: 'unread',
      header: 'Unread',
      enableSorting: false,
      cell: (c) => (c.row.original.unread ? UNREAD_MARK : null),
      meta: {
        width: '28px',
        hideHeader: true,
        className: 'dt__cell--icon',
        title: (r) => (r.unread ? 'New' : undefined),
      },
    },
    {
      id: 'rfi',
      header: 'RFI',
      enableSorting: false,
      // The subject first (what the RFI asks about), its type after it in muted words.
      accessorFn: (r) => `${r.description || `${typeLabel(r.type)} RFI`} · ${typeLabel(r.type)}`,
      cell: (c) => (
        <span className="rfi-cell">
          <SnoozedMark rfiId={c.row.original.id} />
          <span className="rfi-cell__subject">
            {c.row.original.description || `${typeLabel(c.row.original.type)} RFI`}
          </span>
          <span className="rfi-cell__type">{typeLabel(c.row.original.type)}</span>
        </span>
      ),
      meta: { width: 'minmax(180px, 3fr)' },
    },
    several && {
      id: 'entity',
      header: 'Entity',
      enableSorting: false,
      accessorFn: (r) => entityLabel({ name: r.entityName }),
      cell: (c) => (
        <span className="rfi-cell__entity">{entityLabel({ name: c.row.original.entityName })}</span>
      ),
      meta: { width: 'minmax(110px, 1.2fr)', title: (r) => entityLabel({ name: r.entityName }) },
    },
    {
      id: 'related',
      header: 'Related to',
      enableSorting: false,
      cell: (c) => {
        const r = c.row.original;
        const l = relatedLabel(names, r.type, r.relatedId);
        return l.name ? (
          <span>{l.name}</span>
        ) : (
          <span className="rfi-cell__related">
            <span className="muted">{l.kind}</span> <code>{r.relatedId}</code>
          </span>
        );
      },
      meta: {
        width: 'minmax(120px, 2fr)',
        // Gives way first on a narrow table: the detail pane names the related object.
        minTableWidth: several ? 860 : 700,
        title: (r) => {
          const l = relatedLabel(names, r.type, r.relatedId);
          return l.name ? `${l.name} (${r.relatedId})` : `${l.kind} ${r.relatedId}`;
        },
      },
    },
    {
      id: 'status',
      header: 'Status',
      enableSorting: false,
      cell: (c) => <StatusBadge status={c.row.original.status} />,
      meta: { width: '144px', title: (r) => statusLabel(r.status) },
    },
    {
      id: 'deadline',
      header: 'Deadline',
      // An accessor makes the header a sort button (TanStack sorts only columns with a value);
      // the queue sorts itself (manualSorting), by the shared rules.
      accessorFn: (r) => r.deadline ?? '',
      cell: (c) => <DeadlineClock deadline={c.row.original.deadline} now={now} />,
      meta: { width: compact ? '150px' : '170px', title: () => undefined },
    },
    !compact && {
      id: 'updated',
      header: 'Updated',
      accessorFn: (r) => r.updatedAt,
      cell: (c) => <RelativeTime value={c.row.original.updatedAt} now={now} />,
      meta: { width: '112px', align: 'end', title: () => undefined, minTableWidth: several ? 900 : 760 },
    },
  ];
  return all.filter((c): c is DataColumn<RfiSummaryView> => c !== false);
}

/** One entity's watch in words: its outage or revoked token shows here, on it alone. */
function entityState(e: DeskEntityView): string {
  switch (e.connection) {
    case 'connected':
      return e.sync === 'error' ? `sync problem: ${e.problem ?? 'unknown'}` : 'connected';
    case 'offline':
      return 'offline: its saved copy is shown';
    case 'no_token':
      return 'signed out (no token): its saved copy is shown';
    case 'unauthenticated':
      return 'the bank refused its token: sign in again';
    case 'error':
      return `problem: ${e.problem ?? 'unknown'}`;
    default:
      return 'checking…';
  }
}

/** The id of an RFI, secondary to its description (used by the detail pane's header). */
export function RfiId({ id }: { id: string }) {
  return <CopyableId id={id} kind="RFI id" />;
}
