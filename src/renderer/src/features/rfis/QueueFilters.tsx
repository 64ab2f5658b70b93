import { memo, useMemo } from 'react';
import type { RefObject } from 'react';
import { RefreshCw, X } from 'lucide-react';
import { RFI_STATUSES, RFI_TYPES } from '../../../../shared/catalogue';
import type { WatchedEntityView, RfiSummaryView } from '../../../../shared/ipc/channels/rfis';
import type { DeadlineBand, RfiSort } from '../../../../shared/rfi-view';
import { BAND_LABELS } from '../../../../shared/rfi-view';
import { plural, rfiTypeWords } from '../../../../shared/words';
import { statusLabel } from '../../components/StatusBadge';
import {
  Button,
  Checkbox,
  DensityToggle,
  IconButton,
  RelativeTime,
  SearchField,
  Segmented,
  Select,
  useNow,
} from '../../components/ui';
import type { SegmentedOption } from '../../components/ui';
import { entityLabel } from '../../lib/entity';
import { useRouter } from '../../lib/router';
import { useStatusLine } from '../session/status-line';
import { teamActive, useTeam } from '../team/store';
import { rowKey, useQueue, weekRange } from './queue-store';
import type { QueueFilter } from './queue-store';

/**
 * The queue's head and filter bar: each control subscribes to the store slice it shows. The
 * status filter is a row of chips (no popover to open and close: one press filters); the other
 * filters' lists are non-modal (the page stays live while one is open).
 */

function options(known: readonly string[], counted: Record<string, number> | undefined): string[] {
  return [...new Set([...known, ...Object.keys(counted ?? {})])];
}

const typeLabel = rfiTypeWords;

/** The queue's latest visible rows, for the search's Enter (read at the key press, not rendered). */
export interface VisibleRef {
  current: readonly RfiSummaryView[];
}

/** The title, the sync state and "Sync now". */
export const QueueHead = memo(function QueueHead() {
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
        {line.bankReachable ? 'Offline' : line.label}: showing the copy synced {synced}
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

/** How one watched entity's watch goes, after its name: count, state, role, profile, transport. */
function entityWatchWords(e: WatchedEntityView): string {
  return [
    `${plural(e.total, 'RFI')} · ${entityState(e)}`,
    e.active ? ' · acts for answers, returns and quotes' : '',
    ` · watched by profile ${e.profileName}`,
    e.sharedWith?.length
      ? ` (also held by ${e.sharedWith.map((p) => p.profileName).join(', ')}, not watched twice)`
      : '',
    e.events ? (e.events.mode === 'webhook' ? ' · webhook events' : ' · polling') : '',
  ].join('');
}

/** A watch that is not simply connected and syncing: offline, signed out, refused, failing. */
const entityNeedsAttention = (e: WatchedEntityView): boolean =>
  e.connection !== 'connected' || e.sync === 'error';

/**
 * The watched legal entities whose watch needs the analyst (offline, signed out, refused, a sync
 * problem), one line each, above the filters; an entity that is fine says so in the Entity
 * filter's list instead, so the bar stays compact.
 */
export const EntityList = memo(function EntityList() {
  const entities = useQueue((s) => s.entities);
  const attention = useMemo(() => entities.filter(entityNeedsAttention), [entities]);
  if (entities.length <= 1 || attention.length === 0) return null;
  return (
    <ul className="rfi-entities" aria-label="Legal entities needing attention" data-testid="rfi-entities">
      {attention.map((e) => {
        // Its name and state first; how it is watched after them (cut on a narrow pane, whole on hover).
        const name = entityLabel({ name: e.name });
        const rest = entityWatchWords(e);
        return (
          <li key={e.profileId} data-profile-id={e.profileId} title={`${name}: ${rest}`}>
            <strong>{name}</strong> {rest}
          </li>
        );
      })}
    </ul>
  );
});

export const QueueSearch = memo(function QueueSearch({
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
      placeholder="Search (/)"
      onChange={(t) => setFilter({ text: t })}
      onKeyDown={(e) => {
        if (e.key === 'Enter') {
          tableRef.current?.querySelector<HTMLElement>('[role="grid"]')?.focus();
          const first = visibleRef.current[0];
          if (!useQueue.getState().activeId && first) setActive(rowKey(first));
        }
      }}
      onClear={() => setFilter({ text: '' })}
      data-testid="rfi-search-field"
    />
  );
});

const HOLDER_OPTIONS = [
  { value: '', label: 'Everyone’s' },
  { value: 'mine', label: 'Mine' },
  { value: 'unassigned', label: 'Unassigned' },
];

/** With a team: the analyst's own RFIs, or those nobody holds. Nothing in solo use. */
export const HolderSelect = memo(function HolderSelect() {
  const active = useTeam((s) => teamActive(s.status));
  const holder = useQueue((s) => s.filter.holder);
  if (!active) return null;
  return (
    <Select
      label="Held by"
      hideLabel
      value={holder}
      onChange={(v) => useQueue.getState().setFilter({ holder: v as '' | 'mine' | 'unassigned' })}
      options={HOLDER_OPTIONS}
      data-testid="rfi-filter-holder"
    />
  );
});

export const EntitySelect = memo(function EntitySelect() {
  const entities = useQueue((s) => s.entities);
  const entity = useQueue((s) => s.filter.entity);
  // Each entity's watch in words under its name: the list is where the analyst sees every entity
  // watched and how (the bar above the queue names only those needing attention).
  const options = useMemo(
    () => [
      { value: '', label: 'All entities' },
      ...entities.map((e) => ({
        value: e.profileId,
        label: entityLabel({ name: e.name }),
        description: entityWatchWords(e),
      })),
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
      nonModal
      data-testid="rfi-filter-entity"
      data-count={entities.length}
    />
  );
});

/** The "All" chip's key (a toggle button's key cannot be empty). */
const ALL_STATUSES = 'all';

/**
 * The one status filter: a chip per status with its count, all visible (no popover), so one press
 * filters; what the change then costs is the list's (`npm run bench -- rfi-queue`). A status with
 * no RFI has no chip unless it is the one chosen; arrow
 * keys move between the chips (React Aria's toggle button group).
 */
export const StatusChips = memo(function StatusChips() {
  const status = useQueue((s) => s.filter.status);
  const byStatus = useQueue((s) => s.counts?.byStatus);
  const total = useQueue((s) => s.counts?.total);
  const opts = useMemo(
    (): SegmentedOption<string>[] => [
      { value: ALL_STATUSES, content: 'All', title: 'Every status', count: total },
      ...options(RFI_STATUSES, byStatus)
        .filter((s) => s === status || byStatus === undefined || (byStatus[s] ?? 0) > 0)
        .map((s) => ({ value: s, content: statusLabel(s), count: byStatus?.[s] })),
    ],
    [byStatus, total, status],
  );
  return (
    <div className="rfi-status-chips" data-testid="rfi-filter-status" data-value={status}>
      <Segmented
        label="Status"
        hideLabel
        value={status || ALL_STATUSES}
        onChange={(v) => useQueue.getState().setFilter({ status: v === ALL_STATUSES ? '' : v })}
        options={opts}
      />
    </div>
  );
});

export const TypeSelect = memo(function TypeSelect() {
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
      nonModal
      data-testid="rfi-filter-type"
    />
  );
});

const BAND_OPTIONS = [
  { value: '', label: 'All deadlines' },
  ...(Object.keys(BAND_LABELS) as DeadlineBand[]).map((b) => ({ value: b, label: BAND_LABELS[b] })),
];

export const BandSelect = memo(function BandSelect() {
  const band = useQueue((s) => s.filter.band);
  return (
    <Select
      label="Deadline"
      hideLabel
      value={band}
      onChange={(v) => useQueue.getState().setFilter({ band: v as QueueFilter['band'] })}
      options={BAND_OPTIONS}
      nonModal
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
export const SortOrder = memo(function SortOrder() {
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

export const UnreadOnly = memo(function UnreadOnly() {
  const unreadOnly = useQueue((s) => s.filter.unreadOnly);
  const unread = useQueue((s) => s.counts?.unread);
  return (
    <Checkbox isSelected={unreadOnly} onChange={(v) => useQueue.getState().setFilter({ unreadOnly: v })}>
      Unread only{unread === undefined ? '' : ` (${unread})`}
    </Checkbox>
  );
});

/** The chip of a week filter (from the overview's weekly chart), with its clear button. */
export const WeekChip = memo(function WeekChip({ routeWeek }: { routeWeek: string }) {
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

/** One entity's watch in words: its outage or revoked token shows here, on it alone. */
function entityState(e: WatchedEntityView): string {
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
