import { memo, useCallback, useEffect, useMemo, useRef } from 'react';
import type { KeyboardEvent } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useShallow } from 'zustand/react/shallow';
import { RFI_STATUSES, RFI_TYPES } from '../../../../shared/catalogue';
import type { RfiSummaryView } from '../../../../shared/ipc/channels/rfis';
import type { DeadlineBand, RfiSort } from '../../../../shared/rfi-view';
import { BAND_LABELS, matchesFilter, queryRfis } from '../../../../shared/rfi-view';
import { StatusBadge, statusLabel } from '../../components/StatusBadge';
import { useSubscription } from '../../lib/events';
import { useRouter } from '../../lib/router';
import { DeadlineClock } from './DeadlineClock';
import { formatTime } from './format';
import { queueSubscription, useQueue } from './queue-store';
import type { QueueFilter } from './queue-store';
import { CaseFileExport } from '../case-files/CaseFileExport';

const ROW_HEIGHT = 56;

function options(known: readonly string[], counted: Record<string, number> | undefined): string[] {
  return [...new Set([...known, ...Object.keys(counted ?? {})])];
}

/** Queue of every RFI (#/rfis): filters, search, deadline sort, unread markers, j/k/Enter and /. */
export function QueueScreen() {
  const { rows, counts, sync, loaded, total, error, filter, sort, now, activeId } = useQueue(
    useShallow((s) => ({
      rows: s.rows,
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
  const navigate = useRouter((s) => s.navigate);
  const searchRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLDivElement>(null);

  useSubscription(queueSubscription);
  useEffect(() => {
    void load();
  }, [load]);

  // Sorted once per data/sort change; a keystroke only filters the sorted rows (order is kept).
  const sorted = useMemo(() => queryRfis(rows, {}, sort), [rows, sort]);
  const visible = useMemo(() => {
    const f = {
      ...(filter.status ? { status: [filter.status] } : {}),
      ...(filter.type ? { type: [filter.type] } : {}),
      ...(filter.band ? { band: [filter.band] } : {}),
      text: filter.text,
      unreadOnly: filter.unreadOnly,
    };
    const any =
      filter.status !== '' ||
      filter.type !== '' ||
      filter.band !== '' ||
      filter.text.trim() !== '' ||
      filter.unreadOnly;
    return any ? sorted.filter((r) => matchesFilter(r, f)) : sorted;
  }, [sorted, filter]);

  // TanStack Virtual hands back a mutable virtualizer that re-renders the list on scroll; this app
  // is not built with the React Compiler, so nothing relies on memoizing around it.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: visible.length,
    getScrollElement: () => listRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });

  const activeIndex = activeId ? visible.findIndex((r) => r.id === activeId) : -1;
  const openRow = useCallback(
    (id: string) => {
      setActive(id);
      navigate(`/rfis/${encodeURIComponent(id)}`);
    },
    [setActive, navigate],
  );

  const move = (delta: number): void => {
    if (visible.length === 0) return;
    const next = Math.max(0, Math.min(visible.length - 1, (activeIndex < 0 ? -1 : activeIndex) + delta));
    const row = visible[next];
    if (!row) return;
    setActive(row.id);
    virtualizer.scrollToIndex(next, { align: 'auto' });
  };

  // "/" focuses the search from anywhere on the screen (not while typing in a field).
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent): void => {
      const t = e.target as HTMLElement | null;
      const typing = t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT');
      if (e.key === '/' && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        searchRef.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const onListKey = (e: KeyboardEvent<HTMLDivElement>): void => {
    if (e.key === 'j' || e.key === 'ArrowDown') {
      e.preventDefault();
      move(1);
    } else if (e.key === 'k' || e.key === 'ArrowUp') {
      e.preventDefault();
      move(-1);
    } else if (e.key === 'Home') {
      e.preventDefault();
      move(-visible.length);
    } else if (e.key === 'End') {
      e.preventDefault();
      move(visible.length);
    } else if (e.key === 'Enter' && activeIndex >= 0) {
      e.preventDefault();
      navigate(`/rfis/${encodeURIComponent(visible[activeIndex]!.id)}`);
    }
  };

  const statusOptions = options(RFI_STATUSES, counts?.byStatus);
  const typeOptions = options(RFI_TYPES, counts?.byType);

  return (
    <section className="screen rfi-queue" aria-labelledby="rfi-queue-title">
      <div className="rfi-queue__head">
        <h1 id="rfi-queue-title">Requests for information</h1>
        <div className="rfi-queue__sync" role="status" data-testid="rfi-sync-state">
          {sync
            ? sync.state === 'offline'
              ? `Offline: showing the copy from ${formatTime(sync.lastSyncedAt)}`
              : sync.state === 'syncing'
                ? 'Syncing…'
                : sync.state === 'error'
                  ? `Sync problem: ${sync.lastError ?? 'unknown'}`
                  : `Up to date (${formatTime(sync.lastSyncedAt)})`
            : ''}{' '}
          <button type="button" onClick={() => void syncNow()}>
            Sync now
          </button>
        </div>
      </div>

      <ul className="rfi-counts" aria-label="RFIs per status" data-testid="rfi-counts">
        <li>
          <button type="button" aria-pressed={filter.status === ''} onClick={() => setFilter({ status: '' })}>
            All <span className="rfi-counts__n">{counts?.total ?? rows.length}</span>
          </button>
        </li>
        {Object.entries(counts?.byStatus ?? {}).map(([s, n]) => (
          <li key={s}>
            <button
              type="button"
              aria-pressed={filter.status === s}
              data-testid={`rfi-count-${s}`}
              onClick={() => setFilter({ status: filter.status === s ? '' : s })}
            >
              {statusLabel(s)} <span className="rfi-counts__n">{n}</span>
            </button>
          </li>
        ))}
        <li className="muted">{counts ? `${counts.unread} unread` : ''}</li>
      </ul>

      <div className="rfi-filters" role="search">
        <label>
          Search
          <input
            ref={searchRef}
            type="search"
            value={filter.text}
            placeholder="id, related object, text… (press /)"
            onChange={(e) => setFilter({ text: e.target.value })}
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                (e.target as HTMLInputElement).blur();
                listRef.current?.focus();
              }
              if (e.key === 'Enter') {
                e.preventDefault();
                listRef.current?.focus();
                if (activeIndex < 0 && visible[0]) setActive(visible[0].id);
              }
            }}
            data-testid="rfi-search"
          />
        </label>
        <label>
          Status
          <select
            value={filter.status}
            onChange={(e) => setFilter({ status: e.target.value })}
            data-testid="rfi-filter-status"
          >
            <option value="">All statuses</option>
            {statusOptions.map((s) => (
              <option key={s} value={s}>
                {statusLabel(s)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Type
          <select
            value={filter.type}
            onChange={(e) => setFilter({ type: e.target.value })}
            data-testid="rfi-filter-type"
          >
            <option value="">All types</option>
            {typeOptions.map((t) => (
              <option key={t} value={t}>
                {t.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </label>
        <label>
          Deadline
          <select
            value={filter.band}
            onChange={(e) => setFilter({ band: e.target.value as QueueFilter['band'] })}
            data-testid="rfi-filter-band"
          >
            <option value="">All deadlines</option>
            {(Object.keys(BAND_LABELS) as DeadlineBand[]).map((b) => (
              <option key={b} value={b}>
                {BAND_LABELS[b]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Sort
          <select value={sort} onChange={(e) => setSort(e.target.value as RfiSort)} data-testid="rfi-sort">
            <option value="deadline">Deadline (most urgent first)</option>
            <option value="updated_desc">Last updated</option>
            <option value="created_desc">Newest</option>
          </select>
        </label>
        <label className="rfi-filters__check">
          <input
            type="checkbox"
            checked={filter.unreadOnly}
            onChange={(e) => setFilter({ unreadOnly: e.target.checked })}
          />
          Unread only
        </label>
      </div>

      {error && (
        <p role="alert" className="field-error">
          {error}
        </p>
      )}
      <p className="muted" aria-live="polite" data-testid="rfi-visible-count">
        {loaded
          ? `${visible.length} of ${rows.length} RFIs`
          : total !== null
            ? `Loading all ${total} RFIs… (${rows.length} shown)`
            : 'Loading…'}
        {' · j/k to move, Enter to open, / to search'}
      </p>

      {loaded && visible.length > 0 && visible.length <= 500 && (
        <CaseFileExport
          rfiIds={visible.map((r) => r.id)}
          label={`Export case file of ${visible.length === rows.length ? 'all' : 'these'} ${visible.length} RFI${visible.length === 1 ? '' : 's'}…`}
        />
      )}
      <div className="rfi-row rfi-row--head" aria-hidden="true">
        <span />
        <span>Type</span>
        <span>Status</span>
        <span>Related object</span>
        <span>Created</span>
        <span>Updated</span>
        <span>Deadline</span>
      </div>
      <div
        ref={listRef}
        className="rfi-list"
        role="listbox"
        tabIndex={0}
        aria-label="RFIs"
        aria-activedescendant={activeIndex >= 0 ? `rfi-row-${activeIndex}` : undefined}
        onKeyDown={onListKey}
        onFocus={() => {
          if (activeIndex < 0 && visible[0]) setActive(visible[0].id);
        }}
        data-testid="rfi-list"
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((v) => {
            const r = visible[v.index]!;
            return (
              <QueueRow
                key={r.id}
                row={r}
                index={v.index}
                start={v.start}
                size={v.size}
                active={v.index === activeIndex}
                now={now}
                onOpen={openRow}
              />
            );
          })}
        </div>
        {loaded && visible.length === 0 && <p className="muted rfi-list__empty">No RFI matches.</p>}
      </div>
    </section>
  );
}

interface QueueRowProps {
  row: RfiSummaryView;
  index: number;
  start: number;
  size: number;
  active: boolean;
  now: number;
  onOpen(id: string): void;
}

/** One row; memoised so scrolling re-renders only the rows that enter the window. */
const QueueRow = memo(function QueueRow({ row: r, index, start, size, active, now, onOpen }: QueueRowProps) {
  return (
    <div
      id={`rfi-row-${index}`}
      role="option"
      aria-selected={active}
      className={`rfi-row${active ? ' rfi-row--active' : ''}${r.unread ? ' rfi-row--unread' : ''}`}
      data-testid="rfi-row"
      data-rfi-id={r.id}
      style={{
        position: 'absolute',
        top: 0,
        left: 0,
        right: 0,
        height: size,
        transform: `translateY(${start}px)`,
      }}
      onClick={() => onOpen(r.id)}
    >
      <span className="rfi-row__unread">
        {r.unread ? (
          <>
            <span aria-hidden="true">●</span> <span className="rfi-row__new">New</span>
          </>
        ) : null}
      </span>
      <span className="rfi-row__type">
        {r.type.replace(/_/g, ' ')}
        <span className="rfi-row__desc">{r.description}</span>
      </span>
      <span>
        <StatusBadge status={r.status} />
      </span>
      <span className="rfi-row__related">{r.relatedId}</span>
      <span>{formatTime(r.createdAt)}</span>
      <span>{formatTime(r.updatedAt)}</span>
      <span>
        <DeadlineClock deadline={r.deadline} now={now} />
      </span>
    </div>
  );
});
