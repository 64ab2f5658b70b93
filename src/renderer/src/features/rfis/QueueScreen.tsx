import { memo, useEffect, useMemo, useRef } from 'react';
import { CircleDot, RefreshCw, X } from 'lucide-react';
import type { SortingState } from '@tanstack/react-table';
import { useShallow } from 'zustand/react/shallow';
import { RFI_STATUSES, RFI_TYPES } from '../../../../shared/catalogue';
import type { DeskEntityView, RfiCountsView, RfiSummaryView } from '../../../../shared/ipc/channels/rfis';
import type { DeadlineBand, RfiSort } from '../../../../shared/rfi-view';
import { BAND_LABELS, matchesFilter, queryRfis } from '../../../../shared/rfi-view';
import { StatusBadge, statusLabel } from '../../components/StatusBadge';
import {
  Button,
  Checkbox,
  CopyableId,
  DataTable,
  DensityToggle,
  EmptyState,
  ErrorState,
  IconButton,
  RelativeTime,
  SearchField,
  Select,
  Skeleton,
} from '../../components/ui';
import type { DataColumn } from '../../components/ui';
import { useSubscription } from '../../lib/events';
import { useRouteQuery, useRouter } from '../../lib/router';
import { DeadlineClock } from './DeadlineClock';
import { SnoozedMark } from './SnoozeControl';
import { queueSubscription, useQueue, weekRange } from './queue-store';
import type { QueueFilter } from './queue-store';
import { relatedLabel, useRelatedNames } from './related-names';
import { CaseFileExport } from '../case-files/CaseFileExport';

function options(known: readonly string[], counted: Record<string, number> | undefined): string[] {
  return [...new Set([...known, ...Object.keys(counted ?? {})])];
}

const typeLabel = (t: string): string => t.replace(/_/g, ' ');

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

/** Queue of every RFI (#/rfis): filters, search, deadline sort, unread markers, j/k/Enter and /. */
export function QueueScreen({ selectedId, onSelect, onOpen, compact = false }: QueueScreenProps) {
  const { rows, counts, sync, entities, loaded, total, error, filter, sort, now, activeId } = useQueue(
    useShallow((s) => ({
      rows: s.rows,
      entities: s.entities,
      counts: s.counts,
      sync: s.sync,
      loaded: s.loaded,
      total: s.total,
      error: s.error,
      filter: s.filter,
      sort: s.sort,
      now: s.now,
      activeId: s.activeId,
    })),
  );
  const { load, setFilter, setSort, setActive, syncNow } = useQueue.getState();
  const names = useRelatedNames((s) => s.names);
  const searchRef = useRef<HTMLInputElement>(null);
  const tableRef = useRef<HTMLDivElement>(null);

  useSubscription(queueSubscription);
  // A link may name a week (#/rfis?week=2026-11-02, the overview's weekly chart): that filter applies.
  const routeWeek = useRouteQuery().get('week') ?? '';
  useEffect(() => {
    if (weekRange(routeWeek)) setFilter({ week: routeWeek });
  }, [routeWeek, setFilter]);
  const week = weekRange(filter.week);
  const clearWeek = (): void => {
    setFilter({ week: '' });
    if (routeWeek) useRouter.getState().navigate('/rfis', { replace: true });
  };
  useEffect(() => {
    void load();
    void useRelatedNames.getState().load();
  }, [load]);
  // The selection from the URL is the highlighted row.
  useEffect(() => {
    if (selectedId) setActive(selectedId);
  }, [selectedId, setActive]);

  // Sorted once per data/sort change; a keystroke only filters the sorted rows (order is kept).
  const sorted = useMemo(() => queryRfis(rows, {}, sort), [rows, sort]);
  const visible = useMemo(() => {
    const opened = weekRange(filter.week);
    const f = {
      ...(filter.status ? { status: [filter.status] } : {}),
      ...(filter.type ? { type: [filter.type] } : {}),
      ...(filter.band ? { band: [filter.band] } : {}),
      text: filter.text,
      unreadOnly: filter.unreadOnly,
    };
    const any =
      filter.entity !== '' ||
      filter.status !== '' ||
      filter.type !== '' ||
      filter.band !== '' ||
      filter.week !== '' ||
      filter.text.trim() !== '' ||
      filter.unreadOnly;
    return any
      ? sorted.filter(
          (r) =>
            (!filter.entity || r.profileId === filter.entity) &&
            (!opened || (Date.parse(r.createdAt) >= opened.start && Date.parse(r.createdAt) < opened.end)) &&
            matchesFilter(r, f),
        )
      : sorted;
  }, [sorted, filter]);

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
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const several = entities.length > 1;
  const columns = useMemo<DataColumn<RfiSummaryView>[]>(() => {
    const all: (DataColumn<RfiSummaryView> | false)[] = [
      {
        id: 'unread',
        header: 'Unread',
        enableSorting: false,
        cell: (c) =>
          c.row.original.unread ? (
            <span className="rfi-unread" title="New: not opened since it changed">
              <CircleDot size={12} aria-hidden="true" />
              <span className="ui-visually-hidden">New</span>
            </span>
          ) : null,
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
        accessorFn: (r) => `${typeLabel(r.type)}: ${r.description}`,
        cell: (c) => (
          <span className="rfi-cell">
            <SnoozedMark rfiId={c.row.original.id} />
            <span className="rfi-cell__type">{typeLabel(c.row.original.type)}</span>
            <span className="rfi-cell__desc">{c.row.original.description || 'No description'}</span>
          </span>
        ),
        meta: { width: 'minmax(160px, 3fr)' },
      },
      several && {
        id: 'entity',
        header: 'Entity',
        enableSorting: false,
        accessorFn: (r) => r.entityName ?? '',
        cell: (c) => <span className="rfi-cell__entity">{c.row.original.entityName}</span>,
        meta: { width: 'minmax(110px, 1.2fr)', title: (r) => r.entityName },
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
        cell: (c) => <DeadlineClock deadline={c.row.original.deadline} now={now} />,
        meta: { width: compact ? '150px' : '170px', title: () => undefined },
      },
      !compact && {
        id: 'updated',
        header: 'Updated',
        cell: (c) => <RelativeTime value={c.row.original.updatedAt} now={now} />,
        meta: { width: '112px', align: 'end', title: () => undefined },
      },
    ];
    return all.filter((c): c is DataColumn<RfiSummaryView> => c !== false);
  }, [names, now, compact, several]);

  const syncText = sync ? (
    sync.state === 'offline' ? (
      <>
        Offline: showing the copy from <RelativeTime value={sync.lastSyncedAt} fallback="never" />
      </>
    ) : sync.state === 'syncing' ? (
      'Syncing…'
    ) : sync.state === 'error' ? (
      `Sync problem: ${sync.lastError ?? 'unknown'}`
    ) : (
      <>
        Up to date, synced <RelativeTime value={sync.lastSyncedAt} fallback="never" />
      </>
    )
  ) : null;

  return (
    <section className="screen rfi-queue" aria-labelledby="rfi-queue-title">
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
            onPress={() => void syncNow()}
          >
            Sync now
          </Button>
        </div>
      </div>

      {several && (
        <ul className="rfi-entities" aria-label="Legal entities watched" data-testid="rfi-entities">
          {entities.map((e) => (
            <li key={e.profileId} data-profile-id={e.profileId}>
              <strong>{e.name}</strong> {e.total} RFIs · {entityState(e)}
              {e.active ? ' · acts for answers, returns and quotes' : ''}
              {` · watched by profile ${e.profileName}`}
              {e.sharedWith?.length
                ? ` (also held by ${e.sharedWith.map((p) => p.profileName).join(', ')}, not watched twice)`
                : ''}
              {e.events ? (e.events.mode === 'webhook' ? ' · webhook events' : ' · polling') : ''}
            </li>
          ))}
        </ul>
      )}

      <StatusCounts counts={counts} total={counts?.total ?? rows.length} status={filter.status} />

      <div className="rfi-filters" role="search">
        <SearchField
          label="Search"
          className="rfi-filters__search"
          inputRef={searchRef}
          value={filter.text}
          placeholder="id, related object, text… (press /)"
          onChange={(text) => setFilter({ text })}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              tableRef.current?.querySelector<HTMLElement>('[role="grid"]')?.focus();
              if (!activeId && visible[0]) setActive(visible[0].id);
            }
          }}
          onClear={() => setFilter({ text: '' })}
          data-testid="rfi-search-field"
        />
        {several && (
          <Select
            label="Entity"
            value={filter.entity}
            onChange={(entity) => setFilter({ entity })}
            options={[
              { value: '', label: 'All entities' },
              ...entities.map((e) => ({ value: e.profileId, label: e.name })),
            ]}
            data-testid="rfi-filter-entity"
          />
        )}
        <FilterSelects
          status={filter.status}
          type={filter.type}
          band={filter.band}
          unreadOnly={filter.unreadOnly}
          sort={sort}
          counts={counts}
        />
        {week && (
          <span className="filter-chip" data-testid="rfi-filter-week" data-value={filter.week}>
            Opened in week of {week.label}
            <IconButton
              label={`Clear the filter: opened in week of ${week.label}`}
              icon={<X size={14} aria-hidden="true" />}
              tooltip={false}
              onPress={clearWeek}
            />
          </span>
        )}
      </div>

      <div className="rfi-queue__bar">
        <p className="muted" aria-live="polite" data-testid="rfi-visible-count">
          {loaded
            ? `${visible.length} of ${rows.length} RFIs`
            : total !== null
              ? `Loading all ${total} RFIs… (${rows.length} shown)`
              : 'Loading…'}
          <span className="rfi-queue__keys">{' · j/k to move, Enter to open, / to search'}</span>
        </p>
        <DensityToggle />
      </div>

      {loaded && visible.length > 0 && visible.length <= 500 && (
        <CaseFileExport
          rfiIds={visible.map((r) => r.id)}
          label={`Export case file of ${visible.length === rows.length ? 'all' : 'these'} ${visible.length} RFI${visible.length === 1 ? '' : 's'}…`}
        />
      )}
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
              getRowId={(r) => r.id}
              label="RFIs"
              manualSorting
              sorting={sortingOf(sort)}
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
              rowData={(r) => ({ 'data-rfi-id': r.id, 'data-unread': r.unread ? 'true' : undefined })}
              rowClassName={(r) => (r.unread ? 'rfi-row--unread' : undefined)}
              data-testid="rfi-list"
              empty={
                loaded ? (
                  <EmptyState
                    title={rows.length === 0 ? 'No RFIs' : 'No RFI matches'}
                    action={
                      rows.length === 0 ? (
                        <Button onPress={() => void syncNow()}>Sync now</Button>
                      ) : (
                        <Button
                          onPress={() =>
                            setFilter({
                              status: '',
                              type: '',
                              band: '',
                              week: '',
                              text: '',
                              unreadOnly: false,
                              entity: '',
                            })
                          }
                        >
                          Clear the filters
                        </Button>
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
    </section>
  );
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

/**
 * The per-status counts as toggle buttons. Memoised (with the selects below) so a keystroke in the
 * search re-renders only what it changes: the table and the count line.
 */
const StatusCounts = memo(function StatusCounts({
  counts,
  total,
  status,
}: {
  counts: RfiCountsView | null;
  total: number;
  status: string;
}) {
  const { setFilter } = useQueue.getState();
  const filter = { status };
  return (
    <div className="rfi-counts" role="group" aria-label="RFIs per status" data-testid="rfi-counts">
      <Button
        size="sm"
        variant={filter.status === '' ? 'primary' : 'secondary'}
        aria-pressed={filter.status === ''}
        onPress={() => setFilter({ status: '' })}
        data-testid="rfi-count-all"
      >
        All <span className="rfi-counts__n">{total}</span>
      </Button>
      {Object.entries(counts?.byStatus ?? {}).map(([s, n]) => (
        <Button
          key={s}
          size="sm"
          variant={filter.status === s ? 'primary' : 'secondary'}
          aria-pressed={filter.status === s}
          data-testid={`rfi-count-${s}`}
          onPress={() => setFilter({ status: filter.status === s ? '' : s })}
        >
          {statusLabel(s)} <span className="rfi-counts__n">{n}</span>
        </Button>
      ))}
      <span className="muted">{counts ? `${counts.unread} unread` : ''}</span>
    </div>
  );
});

/** The filter and sort selects and the unread checkbox (memoised, see StatusCounts). */
const FilterSelects = memo(function FilterSelects(props: {
  status: string;
  type: string;
  band: QueueFilter['band'];
  unreadOnly: boolean;
  sort: RfiSort;
  counts: RfiCountsView | null;
}) {
  const { setFilter, setSort } = useQueue.getState();
  const { sort, counts } = props;
  const filter = props;
  const statusOptions = useMemo(() => options(RFI_STATUSES, counts?.byStatus), [counts]);
  const typeOptions = useMemo(() => options(RFI_TYPES, counts?.byType), [counts]);
  return (
    <>
      <Select
        label="Status"
        value={filter.status}
        onChange={(status) => setFilter({ status })}
        options={[
          { value: '', label: 'All statuses' },
          ...statusOptions.map((s) => ({ value: s, label: statusLabel(s) })),
        ]}
        data-testid="rfi-filter-status"
      />
      <Select
        label="Type"
        value={filter.type}
        onChange={(type) => setFilter({ type })}
        options={[
          { value: '', label: 'All types' },
          ...typeOptions.map((t) => ({ value: t, label: typeLabel(t) })),
        ]}
        data-testid="rfi-filter-type"
      />
      <Select
        label="Deadline"
        value={filter.band}
        onChange={(band) => setFilter({ band: band as QueueFilter['band'] })}
        options={[
          { value: '', label: 'All deadlines' },
          ...(Object.keys(BAND_LABELS) as DeadlineBand[]).map((b) => ({ value: b, label: BAND_LABELS[b] })),
        ]}
        data-testid="rfi-filter-band"
      />
      <Select
        label="Sort"
        value={sort}
        onChange={(s) => setSort(s as RfiSort)}
        options={[
          { value: 'deadline', label: 'Deadline (most urgent first)' },
          { value: 'updated_desc', label: 'Last updated' },
          { value: 'created_desc', label: 'Newest' },
        ]}
        data-testid="rfi-sort"
      />
      <Checkbox isSelected={filter.unreadOnly} onChange={(unreadOnly) => setFilter({ unreadOnly })}>
        Unread only
      </Checkbox>
    </>
  );
});
