import { memo, useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { CSSProperties, KeyboardEvent, ReactNode, RefObject } from 'react';
import { flexRender, getCoreRowModel, getSortedRowModel, useReactTable } from '@tanstack/react-table';
import type {
  CellContext,
  Column,
  ColumnDef,
  Header,
  RowData,
  SortingState,
  Table,
  VisibilityState,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { VirtualItem } from '@tanstack/react-virtual';
import { ArrowDown, ArrowUp, ArrowUpDown } from 'lucide-react';
import { Button as AriaButton } from 'react-aria-components';
import { cx } from './cx';
import { ROW_HEIGHTS, useDensity } from './density';

declare module '@tanstack/react-table' {
  // Declaration merging must repeat TanStack's own type parameters, used or not.
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  interface ColumnMeta<TData extends RowData, TValue> {
    /** The column's CSS grid track, the same for every row: '120px', 'minmax(160px, 2fr)'. */
    width?: string;
    align?: 'start' | 'end';
    /** Full text for the hover title; defaults to the cell's value when it is text or a number. */
    title?: (row: TData) => string | undefined;
    /** Class on every cell of the column. */
    className?: string;
    /** The header's visible text is hidden (an icon column); the header still names the column. */
    hideHeader?: boolean;
    /**
     * The column is shown only when the table is at least this many px wide: a secondary column
     * (an id, a step) gives way on a narrow window so the others keep room for their names and
     * numbers.
     */
    minTableWidth?: number;
  }
}

// TanStack's ColumnDef is invariant in the value type; a table mixes value types across columns.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type DataColumn<T> = ColumnDef<T, any>;

export interface DataTableProps<T> {
  data: readonly T[];
  columns: DataColumn<T>[];
  getRowId(row: T): string;
  /** The table's accessible name. */
  label: string;
  /** Controlled sort state. With `manualSorting` the caller sorts `data` itself. */
  sorting?: SortingState;
  onSortingChange?(sorting: SortingState): void;
  manualSorting?: boolean;
  /** The highlighted row (keyboard / selection); uncontrolled when omitted. */
  activeId?: string | null;
  /** The highlighted row moved: by the keyboard, a click, or focus entering the table. */
  onActiveChange?(id: string | null, cause: 'keyboard' | 'pointer' | 'focus'): void;
  /** Enter or a click on a row. */
  onOpen?(id: string, row: T): void;
  /** Shown under the header when there is no row. */
  empty?: ReactNode;
  rowClassName?(row: T): string | undefined;
  /** data-* attributes per row (tests and styling). */
  rowData?(row: T): Record<`data-${string}`, string | undefined>;
  /** data-testid of every row. */
  rowTestId?: string;
  className?: string;
  'data-testid'?: string;
}

/** The slots' count and the row each slot last showed (kept, hidden, when the slot is empty). */
interface SlotState<T> {
  rowHeight: number;
  n: number;
  last: ({ item: T; index: number; start: number; size: number } | undefined)[];
}

/** The ids of the columns that need a wider table than `width` px, space-separated. */
function narrowHidden<T>(columns: readonly DataColumn<T>[], width: number): string {
  return columns
    .filter((c) => c.id && c.meta?.minTableWidth !== undefined && width < c.meta.minTableWidth)
    .map((c) => c.id!)
    .join(' ');
}

/**
 * The visibility of the columns that declare a minTableWidth, from the table's width (read before
 * the first paint, then on every resize). Only the set of hidden columns is state, so dragging a
 * window's edge re-renders the table only when a column shows or hides.
 */
function useNarrowColumns<T>(
  ref: RefObject<HTMLDivElement | null>,
  columns: readonly DataColumn<T>[],
): VisibilityState {
  const [hidden, setHidden] = useState('');
  const latest = useRef(columns);
  useLayoutEffect(() => {
    latest.current = columns;
    const el = ref.current;
    if (el) setHidden(narrowHidden(columns, el.getBoundingClientRect().width));
  }, [ref, columns]);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver !== 'function') return;
    const ro = new ResizeObserver((entries) => {
      const w = entries[0]?.contentRect.width;
      if (w !== undefined) setHidden(narrowHidden(latest.current, w));
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, [ref]);
  return useMemo(
    () => Object.fromEntries(hidden ? hidden.split(' ').map((id) => [id, false]) : []) as VisibilityState,
    [hidden],
  );
}

function ariaSort(h: Header<unknown, unknown>): 'ascending' | 'descending' | 'none' | undefined {
  if (!h.column.getCanSort()) return undefined;
  const s = h.column.getIsSorted();
  return s === 'asc' ? 'ascending' : s === 'desc' ? 'descending' : 'none';
}

/** The latest click handler for the memoised rows (callers pass new functions each render). */
interface RowHooks<T> {
  onRowClick(id: string, row: T): void;
}

type RowAttrs = Record<`data-${string}`, string | undefined>;

function sameAttrs(a: RowAttrs | undefined, b: RowAttrs | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  const ka = Object.keys(a) as (keyof RowAttrs)[];
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

interface DataRowProps<T> {
  original: T;
  id: string;
  index: number;
  start: number;
  size: number;
  active: boolean;
  idPrefix: string;
  rowTestId: string | undefined;
  /** Kept out of sight for a later row (its slot holds no row now): hidden, with no identity. */
  parked: boolean;
  columns: Column<T, unknown>[];
  table: Table<T>;
  extraClass: string | undefined;
  attrs: RowAttrs | undefined;
  hooks: { current: RowHooks<T> };
}

/**
 * One row: cells rendered from the column definitions with a light cell context (row.original,
 * getValue, renderValue, column, table). Memoised: scrolling renders only rows entering the
 * window, and a row re-renders only when its data, position or highlight changes.
 */
function DataRowImpl<T>({
  original,
  id,
  index,
  start,
  size,
  active,
  idPrefix,
  rowTestId,
  parked,
  columns,
  table,
  extraClass,
  attrs,
  hooks,
}: DataRowProps<T>) {
  return (
    <div
      {...(parked
        ? { hidden: true }
        : {
            id: `${idPrefix}-r${index}`,
            role: 'row',
            'aria-rowindex': index + 2,
            'aria-selected': active,
            'data-testid': rowTestId,
            'data-row-id': id,
            ...attrs,
          })}
      className={cx('dt__row', active && 'dt__row--active', extraClass)}
      style={{ transform: `translateY(${start}px)`, height: size }}
      onClick={() => hooks.current.onRowClick(id, original)}
    >
      {columns.map((column, ci) => {
        const meta = column.columnDef.meta;
        const value = column.accessorFn ? column.accessorFn(original, index) : undefined;
        const ctx = {
          table,
          column,
          row: { id, index, original, getValue: () => value },
          getValue: () => value,
          renderValue: () => value ?? null,
          cell: { id: `${id}_${column.id}` },
        } as unknown as CellContext<T, unknown>;
        const title = meta?.title
          ? meta.title(original)
          : typeof value === 'string' || typeof value === 'number'
            ? String(value)
            : undefined;
        return (
          <div
            key={column.id}
            role="gridcell"
            aria-colindex={ci + 1}
            className={cx('dt__cell', meta?.align === 'end' && 'dt__cell--end', meta?.className)}
            title={title}
          >
            {flexRender(column.columnDef.cell, ctx)}
          </div>
        );
      })}
    </div>
  );
}

const DataRow = memo(
  DataRowImpl,
  (a, b) =>
    a.original === b.original &&
    a.id === b.id &&
    a.index === b.index &&
    a.start === b.start &&
    a.size === b.size &&
    a.active === b.active &&
    a.columns === b.columns &&
    a.rowTestId === b.rowTestId &&
    a.parked === b.parked &&
    a.extraClass === b.extraClass &&
    sameAttrs(a.attrs, b.attrs),
) as typeof DataRowImpl;

/**
 * The sticky header row. Memoised on its headers and the sort state, so a data change (a filter,
 * a keystroke) does not re-render its sort buttons.
 */
function HeaderRowImpl<T>({ headers }: { headers: Header<T, unknown>[] | undefined; sortKey: string }) {
  return (
    <div role="rowgroup" className="dt__head">
      <div role="row" aria-rowindex={1} className="dt__row dt__row--head">
        {headers?.map((h, ci) => {
          const meta = h.column.columnDef.meta;
          const text = flexRender(h.column.columnDef.header, h.getContext());
          const headerText = h.column.columnDef.header;
          const sorted = h.column.getIsSorted();
          return (
            <div
              key={h.id}
              role="columnheader"
              aria-colindex={ci + 1}
              aria-sort={ariaSort(h as Header<unknown, unknown>)}
              title={typeof headerText === 'string' ? headerText : undefined}
              className={cx(
                'dt__cell',
                'dt__cell--head',
                meta?.align === 'end' && 'dt__cell--end',
                meta?.className,
              )}
            >
              {h.column.getCanSort() ? (
                <AriaButton className="dt__sort" onPress={() => h.column.toggleSorting(sorted === 'asc')}>
                  <span className={cx('dt__head-text', meta?.hideHeader && 'ui-visually-hidden')}>
                    {text}
                  </span>
                  {sorted === 'asc' ? (
                    <ArrowUp size={14} aria-hidden="true" />
                  ) : sorted === 'desc' ? (
                    <ArrowDown size={14} aria-hidden="true" />
                  ) : (
                    <ArrowUpDown size={14} aria-hidden="true" className="dt__sort-idle" />
                  )}
                </AriaButton>
              ) : (
                <span className={cx('dt__head-text', meta?.hideHeader && 'ui-visually-hidden')}>{text}</span>
              )}
            </div>
          );
        })}
      </div>
    </div>
  );
}

const HeaderRow = memo(
  HeaderRowImpl,
  (a, b) => a.headers === b.headers && a.sortKey === b.sortKey,
) as typeof HeaderRowImpl;

/**
 * The one data table: TanStack Table (columns, sorting) over TanStack Virtual (only the rows in
 * view are in the DOM). Every row is a CSS grid on the same column template, so columns line up
 * and their widths hold whatever the content; cells are one line, truncated with an ellipsis and
 * the full value as the title. The header is sticky and sorts on click (aria-sort). Keyboard:
 * the grid is one tab stop; ArrowUp/ArrowDown or k/j move the highlighted row, Home/End and
 * PageUp/PageDown jump, Enter opens. Row height follows the analyst's density.
 */
export function DataTable<T>(props: DataTableProps<T>) {
  const { data, columns, getRowId, label, manualSorting, onOpen, empty, rowClassName, rowData, rowTestId } =
    props;
  const [density] = useDensity();
  const rowHeight = ROW_HEIGHTS[density];
  const idPrefix = useId().replace(/[^a-zA-Z0-9_-]/g, '');
  const scrollRef = useRef<HTMLDivElement>(null);

  const [ownSorting, setOwnSorting] = useState<SortingState>([]);
  const sorting = props.sorting ?? ownSorting;
  const [ownActive, setOwnActive] = useState<string | null>(null);
  const activeId = props.activeId !== undefined ? props.activeId : ownActive;
  const { onActiveChange, onSortingChange } = props;
  const setActive = useCallback(
    (id: string | null, cause: 'keyboard' | 'pointer' | 'focus' = 'keyboard') => {
      setOwnActive(id);
      onActiveChange?.(id, cause);
    },
    [onActiveChange],
  );

  // The table's own width decides which columns with a minTableWidth show.
  const rootRef = useRef<HTMLDivElement>(null);
  const columnVisibility = useNarrowColumns(rootRef, columns);
  // The columns that gave way, for cells that then carry their words (`[data-narrow~="id"]` in CSS).
  const narrowIds = Object.keys(columnVisibility)
    .filter((k) => columnVisibility[k] === false)
    .join(' ');

  // TanStack hands back a mutable table object; this app is not built with the React Compiler.
  // eslint-disable-next-line react-hooks/incompatible-library
  const table = useReactTable<T>({
    data: data as T[],
    columns,
    getRowId: (r) => getRowId(r),
    state: { sorting, columnVisibility },
    onSortingChange: (updater) => {
      const next = typeof updater === 'function' ? updater(sorting) : updater;
      setOwnSorting(next);
      onSortingChange?.(next);
    },
    manualSorting: manualSorting ?? false,
    enableSortingRemoval: false,
    getCoreRowModel: getCoreRowModel(),
    ...(manualSorting ? {} : { getSortedRowModel: getSortedRowModel() }),
  });
  // The rows in display order. With manual sorting the data is already in order and is used as
  // it is: neither TanStack's row model nor any per-row object is built (10,000 or 30,000 row
  // objects per keystroke cost more than the whole frame); ids are read from a row when needed.
  // Otherwise TanStack sorts (small lists).
  const sortedModel = manualSorting ? null : table.getRowModel().rows;
  const rows = useMemo<readonly T[]>(
    () => (sortedModel ? sortedModel.map((r) => r.original) : data),
    [sortedModel, data],
  );
  // Stable between renders unless the column definitions change (memoised rows compare it).
  const visibleColumns = useMemo(
    () => table.getVisibleLeafColumns() as Column<T, unknown>[],
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [table, columns, columnVisibility],
  );
  const hooks = useRef<RowHooks<T>>({ onRowClick: () => undefined });

  const template = useMemo(
    () => visibleColumns.map((c) => c.columnDef.meta?.width ?? 'minmax(0, 1fr)').join(' '),
    [visibleColumns],
  );

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 6,
    // The sticky header (one row high) sits inside the scroll container above the rows: the rows
    // start one row down, and a row under the header does not count as in view.
    scrollMargin: rowHeight,
    scrollPaddingStart: rowHeight,
  });
  useEffect(() => {
    virtualizer.measure();
  }, [rowHeight, virtualizer]);

  const activeIndex = useMemo(
    () => (activeId ? rows.findIndex((r) => getRowId(r) === activeId) : -1),
    // getRowId is a pure projection of the row; a new function each render must not rebuild.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [rows, activeId],
  );

  // Keep the highlighted row in view when it changes (keyboard, or a selection from the URL).
  useEffect(() => {
    if (activeIndex >= 0) virtualizer.scrollToIndex(activeIndex, { align: 'auto' });
  }, [activeIndex, virtualizer]);

  const moveTo = (index: number): void => {
    if (rows.length === 0) return;
    const i = Math.max(0, Math.min(rows.length - 1, index));
    const r = rows[i];
    if (r !== undefined) setActive(getRowId(r));
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    if (e.target !== e.currentTarget || e.altKey || e.ctrlKey || e.metaKey) return;
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? rowHeight * 10) / rowHeight) - 1);
    const at = activeIndex;
    switch (e.key) {
      case 'ArrowDown':
      case 'j':
        moveTo(at < 0 ? 0 : at + 1);
        break;
      case 'ArrowUp':
      case 'k':
        moveTo(at < 0 ? 0 : at - 1);
        break;
      case 'Home':
        moveTo(0);
        break;
      case 'End':
        moveTo(rows.length - 1);
        break;
      case 'PageDown':
        moveTo(at + page);
        break;
      case 'PageUp':
        moveTo(at - page);
        break;
      case 'Enter': {
        const r = rows[at];
        if (r === undefined) return;
        onOpen?.(getRowId(r), r);
        break;
      }
      default:
        return;
    }
    e.preventDefault();
  };

  // Latest callbacks for the memoised rows (written after render, read on click and render).
  useEffect(() => {
    hooks.current = {
      onRowClick: (id, original) => {
        setActive(id, 'pointer');
        onOpen?.(id, original);
      },
    };
  });
  // Row elements are recycled. The row at index i always renders into slot i % slots, where
  // slots is the most rows the window has held (at this row height). The window is a run of
  // consecutive indices no longer than that, so its rows take distinct slots; a row that scrolls
  // out hands its slot, and its DOM element, to the row that scrolls in, and a filter or sort
  // refills the slots in place. The slots are rendered in slot order, so no element ever moves
  // in the DOM (a moved element is restyled and laid out from scratch). The order assistive
  // technology reads is the visual one, given by the rowgroup's aria-owns. A slot left without a
  // row (a filter that leaves three rows) keeps its element, hidden and without identity, for the
  // rows that come back when the filter is cleared.
  const items = virtualizer.getVirtualItems();
  const slotState = useRef<SlotState<T>>({ rowHeight, n: 0, last: [] });
  if (slotState.current.rowHeight !== rowHeight) slotState.current = { rowHeight, n: 0, last: [] };
  const slotted = slotState.current;
  slotted.n = Math.max(slotted.n, items.length);
  const slots = slotted.n;
  const bySlot: (VirtualItem | undefined)[] = Array.from({ length: slots }, () => undefined);
  for (const v of items) bySlot[v.index % slots] = v;
  const rowDomId = (index: number): string => `${idPrefix}-r${index}`;
  const headerGroup = table.getHeaderGroups()[0];
  const sortKey = sorting.map((x) => `${x.id}:${x.desc ? 'desc' : 'asc'}`).join(',');
  const gridStyle = { '--dt-columns': template, '--dt-row-height': `${rowHeight}px` } as CSSProperties;

  return (
    <div
      ref={rootRef}
      className={cx('dt', rows.length === 0 && 'dt--empty', props.className)}
      data-density={density}
      data-narrow={narrowIds || undefined}
    >
      <div
        ref={scrollRef}
        className="dt__scroll"
        role="grid"
        aria-label={label}
        aria-rowcount={rows.length + 1}
        aria-colcount={visibleColumns.length}
        aria-activedescendant={activeIndex >= 0 ? rowDomId(activeIndex) : undefined}
        tabIndex={0}
        style={gridStyle}
        onKeyDown={onKeyDown}
        onFocus={(e) => {
          const first = rows[0];
          if (e.target === e.currentTarget && activeIndex < 0 && first !== undefined)
            setActive(getRowId(first), 'focus');
        }}
        data-testid={props['data-testid']}
      >
        <HeaderRow<T> headers={headerGroup?.headers} sortKey={sortKey} />
        <div
          role="rowgroup"
          className="dt__body"
          style={{ height: virtualizer.getTotalSize() }}
          aria-owns={items.length > 0 ? items.map((v) => rowDomId(v.index)).join(' ') : undefined}
        >
          {bySlot.map((v, slot) => {
            const item = v ? rows[v.index] : undefined;
            const live = v !== undefined && item !== undefined;
            if (live) slotted.last[slot] = { item, index: v.index, start: v.start - rowHeight, size: v.size };
            // An empty slot renders the row it last showed, parked.
            const row = slotted.last[slot];
            if (row === undefined) return null;
            return (
              <DataRow<T>
                key={slot}
                original={row.item}
                id={getRowId(row.item)}
                index={row.index}
                start={row.start}
                size={row.size}
                active={live && row.index === activeIndex}
                idPrefix={idPrefix}
                rowTestId={rowTestId}
                parked={!live}
                columns={visibleColumns}
                table={table}
                extraClass={rowClassName?.(row.item)}
                attrs={rowData?.(row.item)}
                hooks={hooks}
              />
            );
          })}
        </div>
      </div>
      {rows.length === 0 && empty && <div className="dt__empty">{empty}</div>}
    </div>
  );
}
