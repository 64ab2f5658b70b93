import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DataTable, DensityToggle, ROW_HEIGHTS } from '../../src/renderer/src/components/ui';
import type { DataColumn } from '../../src/renderer/src/components/ui';
import { setDensity } from '../../src/renderer/src/components/ui/density';
import { fakeLayout } from './jsdom-layout';

interface Item {
  id: string;
  name: string;
  amount: number;
  note: string;
}

const columns: DataColumn<Item>[] = [
  { id: 'name', accessorKey: 'name', header: 'Name', meta: { width: 'minmax(0, 2fr)' } },
  { id: 'amount', accessorKey: 'amount', header: 'Amount', meta: { width: '120px', align: 'end' } },
  {
    id: 'note',
    accessorKey: 'note',
    header: 'Note',
    enableSorting: false,
    cell: (c) => <strong>{c.row.original.note.toUpperCase()}</strong>,
    meta: { title: (r) => `Full note: ${r.note}` },
  },
];

function items(n: number): Item[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `it_${i}`,
    name: `Item ${String(i).padStart(5, '0')}`,
    amount: (i * 7919) % 1000,
    note: `note ${i}`,
  }));
}

function bodyRows(): HTMLElement[] {
  return screen.getAllByTestId('row');
}

// jsdom lays nothing out: give the scroll container a size so the virtualizer renders a window.
beforeAll(() => fakeLayout(800));

beforeEach(() => {
  localStorage.clear();
  act(() => setDensity('comfortable'));
});
afterEach(() => cleanup());

describe('DataTable', () => {
  it('is an accessible grid: named, counted, headers and cells by role, one column template', () => {
    render(
      <DataTable data={items(3)} columns={columns} getRowId={(r) => r.id} label="Things" rowTestId="row" />,
    );
    const grid = screen.getByRole('grid', { name: 'Things' });
    expect(grid.getAttribute('aria-rowcount')).toBe('4');
    expect(grid.getAttribute('aria-colcount')).toBe('3');
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Name', 'Amount', 'Note']);
    // Every row reads the same grid template from the table, so columns line up.
    expect(grid.style.getPropertyValue('--dt-columns')).toBe('minmax(0, 2fr) 120px minmax(0, 1fr)');
    const rows = bodyRows();
    expect(rows).toHaveLength(3);
    expect(
      within(rows[0]!)
        .getAllByRole('gridcell')
        .map((c) => c.textContent),
    ).toEqual(['Item 00000', '0', 'NOTE 0']);
  });

  it('gives every cell its full value as the title (or the column’s own title)', () => {
    render(
      <DataTable data={items(2)} columns={columns} getRowId={(r) => r.id} label="Things" rowTestId="row" />,
    );
    const cells = within(bodyRows()[1]!).getAllByRole('gridcell');
    expect(cells[0]!.title).toBe('Item 00001');
    expect(cells[1]!.title).toBe('919');
    expect(cells[2]!.title).toBe('Full note: note 1');
  });

  it('sorts by clicking a header and says so with aria-sort', () => {
    render(
      <DataTable data={items(5)} columns={columns} getRowId={(r) => r.id} label="Things" rowTestId="row" />,
    );
    const amount = screen.getByRole('columnheader', { name: /Amount/ });
    expect(amount.getAttribute('aria-sort')).toBe('none');
    expect(screen.getByRole('columnheader', { name: 'Note' }).hasAttribute('aria-sort')).toBe(false);
    fireEvent.click(within(amount).getByRole('button'));
    expect(amount.getAttribute('aria-sort')).toBe('ascending');
    const asc = bodyRows().map((r) => Number(within(r).getAllByRole('gridcell')[1]!.textContent));
    expect(asc).toEqual([...asc].sort((a, b) => a - b));
    fireEvent.click(within(amount).getByRole('button'));
    expect(amount.getAttribute('aria-sort')).toBe('descending');
    const desc = bodyRows().map((r) => Number(within(r).getAllByRole('gridcell')[1]!.textContent));
    expect(desc).toEqual([...asc].reverse());
  });

  it('moves the highlighted row with j/k and the arrows, and Enter opens it', () => {
    const opened: string[] = [];
    render(
      <DataTable
        data={items(5)}
        columns={columns}
        getRowId={(r) => r.id}
        label="Things"
        rowTestId="row"
        onOpen={(id) => opened.push(id)}
      />,
    );
    const grid = screen.getByRole('grid');
    act(() => grid.focus());
    const active = () => document.getElementById(grid.getAttribute('aria-activedescendant') ?? '');
    expect(active()?.getAttribute('data-row-id')).toBe('it_0');
    expect(active()?.getAttribute('aria-selected')).toBe('true');
    fireEvent.keyDown(grid, { key: 'j' });
    fireEvent.keyDown(grid, { key: 'ArrowDown' });
    expect(active()?.getAttribute('data-row-id')).toBe('it_2');
    fireEvent.keyDown(grid, { key: 'k' });
    expect(active()?.getAttribute('data-row-id')).toBe('it_1');
    fireEvent.keyDown(grid, { key: 'End' });
    expect(active()?.getAttribute('data-row-id')).toBe('it_4');
    fireEvent.keyDown(grid, { key: 'ArrowDown' });
    expect(active()?.getAttribute('data-row-id')).toBe('it_4');
    fireEvent.keyDown(grid, { key: 'Enter' });
    expect(opened).toEqual(['it_4']);
    expect(bodyRows().filter((r) => r.getAttribute('aria-selected') === 'true')).toHaveLength(1);
  });

  it('follows a controlled selection and reports moves to its owner', () => {
    const moves: (string | null)[] = [];
    const { rerender } = render(
      <DataTable
        data={items(5)}
        columns={columns}
        getRowId={(r) => r.id}
        label="Things"
        rowTestId="row"
        activeId="it_3"
        onActiveChange={(id) => moves.push(id)}
      />,
    );
    const grid = screen.getByRole('grid');
    expect(document.getElementById(grid.getAttribute('aria-activedescendant')!)?.dataset['rowId']).toBe(
      'it_3',
    );
    fireEvent.keyDown(grid, { key: 'j' });
    expect(moves).toEqual(['it_4']);
    rerender(
      <DataTable
        data={items(5)}
        columns={columns}
        getRowId={(r) => r.id}
        label="Things"
        rowTestId="row"
        activeId="it_1"
      />,
    );
    expect(document.getElementById(grid.getAttribute('aria-activedescendant')!)?.dataset['rowId']).toBe(
      'it_1',
    );
  });

  it('keeps only the rows in view in the DOM, for 10,000 rows', () => {
    render(
      <DataTable
        data={items(10_000)}
        columns={columns}
        getRowId={(r) => r.id}
        label="Things"
        rowTestId="row"
      />,
    );
    const n = bodyRows().length;
    expect(n).toBeGreaterThan(5);
    expect(n).toBeLessThan(60);
    expect(screen.getByRole('grid').getAttribute('aria-rowcount')).toBe('10001');
  });

  it('recycles its row elements: a scroll jump or a re-sort refills them in place, and aria-owns gives the visual order', () => {
    const data = items(10_000);
    const { rerender } = render(
      <DataTable data={data} columns={columns} getRowId={(r) => r.id} label="Things" rowTestId="row" />,
    );
    const grid = screen.getByRole('grid');
    const body = grid.querySelector('[role="rowgroup"].dt__body')!;
    const owned = (): string[] => (body.getAttribute('aria-owns') ?? '').split(' ');
    // The reading order: the rows as aria-owns lists them.
    const readingOrder = (): string[] => owned().map((id) => document.getElementById(id)!.dataset['rowId']!);
    const index = (rowId: string): number => Number(rowId.slice(3));
    expect(readingOrder()).toEqual(bodyRows().map((r) => r.dataset['rowId']));
    let top = 0;
    Object.defineProperty(grid, 'scrollTop', {
      configurable: true,
      get: () => top,
      set: (v: number) => (top = v),
    });
    const scrollTo = (px: number): void =>
      act(() => {
        top = px;
        fireEvent.scroll(grid);
      });

    // Into the middle of the list, where the window holds its full count of rows.
    scrollTo(100 * ROW_HEIGHTS.comfortable);
    const before = bodyRows();
    const firstBefore = index(readingOrder()[0]!);
    // Jump 37 rows down (about 1500 px at the comfortable row height).
    scrollTo(137 * ROW_HEIGHTS.comfortable);
    const after = bodyRows();
    // The same elements, in the same DOM places: nothing was created, removed or moved.
    expect(after).toHaveLength(before.length);
    after.forEach((el, i) => expect(el).toBe(before[i]));
    // They now show the rows 37 further down, and assistive technology reads them in the order
    // of the screen, however the elements sit in the DOM.
    const indices = readingOrder().map(index);
    expect(indices[0]).toBe(firstBefore + 37);
    expect(indices).toEqual(indices.map((_, i) => indices[0]! + i));
    expect(after.map((r) => r.dataset['rowId'])).not.toEqual(readingOrder());
    owned().forEach((id, i) =>
      expect(document.getElementById(id)!.getAttribute('aria-rowindex')).toBe(String(indices[0]! + i + 2)),
    );

    // A re-sort at the same place refills the same elements too.
    rerender(
      <DataTable
        data={[...data].reverse()}
        columns={columns}
        getRowId={(r) => r.id}
        label="Things"
        rowTestId="row"
      />,
    );
    const resorted = bodyRows();
    resorted.forEach((el, i) => expect(el).toBe(before[i]));
    expect(readingOrder().map(index)).toEqual(indices.map((i) => 9_999 - i));
  });

  it('keeps the elements of slots a filter empties, hidden and nameless, for the rows that come back', () => {
    const data = items(10_000);
    const table = (rows: Item[]) => (
      <DataTable data={rows} columns={columns} getRowId={(r) => r.id} label="Things" rowTestId="row" />
    );
    const { rerender } = render(table(data));
    const body = screen.getByRole('grid').querySelector('.dt__body')!;
    const elements = [...body.children];
    expect(bodyRows()).toHaveLength(elements.length);

    // A filter that leaves three rows: the other elements stay, out of sight, with no identity.
    rerender(table(data.filter((r) => r.id === 'it_7' || r.id === 'it_70' || r.id === 'it_700')));
    expect(bodyRows().map((r) => r.dataset['rowId'])).toEqual(['it_7', 'it_70', 'it_700']);
    expect(screen.getAllByRole('row')).toHaveLength(4); // the header and the three rows
    expect(body.getAttribute('aria-owns')!.split(' ')).toHaveLength(3);
    const parked = [...body.children].filter((el) => (el as HTMLElement).hidden);
    expect(parked).toHaveLength(elements.length - 3);
    for (const el of parked) {
      expect(el.hasAttribute('id')).toBe(false);
      expect(el.hasAttribute('role')).toBe(false);
      expect(el.hasAttribute('data-testid')).toBe(false);
      expect(el.hasAttribute('data-row-id')).toBe(false);
    }

    // The filter cleared: the same elements show the rows again, none is hidden.
    rerender(table(data));
    expect([...body.children]).toEqual(elements);
    expect(bodyRows().map((r) => r.dataset['rowId'])).toEqual(elements.map((_, i) => `it_${i}`));
    expect([...body.children].some((el) => (el as HTMLElement).hidden)).toBe(false);
  });

  it('shows a column with a minTableWidth only when the table is that wide (here 800 px)', () => {
    const table = (minTableWidth: number) => (
      <DataTable
        data={items(2)}
        columns={[
          ...columns,
          { id: 'extra', accessorKey: 'id', header: 'Id', meta: { width: '140px', minTableWidth } },
        ]}
        getRowId={(r) => r.id}
        label="Things"
        rowTestId="row"
      />
    );
    const { rerender } = render(table(900));
    const grid = screen.getByRole('grid');
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Name', 'Amount', 'Note']);
    expect(grid.getAttribute('aria-colcount')).toBe('3');
    expect(within(bodyRows()[0]!).getAllByRole('gridcell')).toHaveLength(3);
    expect(grid.style.getPropertyValue('--dt-columns')).toBe('minmax(0, 2fr) 120px minmax(0, 1fr)');
    rerender(table(700));
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
      'Name',
      'Amount',
      'Note',
      'Id',
    ]);
    expect(grid.getAttribute('aria-colcount')).toBe('4');
    expect(
      within(bodyRows()[1]!)
        .getAllByRole('gridcell')
        .map((c) => c.textContent),
    ).toEqual(['Item 00001', '919', 'NOTE 1', 'it_1']);
    expect(grid.style.getPropertyValue('--dt-columns')).toBe('minmax(0, 2fr) 120px minmax(0, 1fr) 140px');
  });

  it('switches density for every table and remembers it', () => {
    render(
      <>
        <DensityToggle />
        <DataTable data={items(2)} columns={columns} getRowId={(r) => r.id} label="Things" rowTestId="row" />
      </>,
    );
    expect(bodyRows()[0]!.style.height).toBe(`${ROW_HEIGHTS.comfortable}px`);
    fireEvent.click(screen.getByRole('radio', { name: 'Compact rows' }));
    expect(bodyRows()[0]!.style.height).toBe('30px');
    expect(localStorage.getItem('treasury-desk.density')).toBe('compact');
    expect(document.documentElement.dataset['density']).toBe('compact');
  });

  it('shows the empty state when there is no row', () => {
    render(
      <DataTable
        data={[]}
        columns={columns}
        getRowId={(r: Item) => r.id}
        label="Things"
        empty={<p>Nothing here yet</p>}
      />,
    );
    expect(screen.getByText('Nothing here yet')).toBeTruthy();
    expect(screen.queryAllByRole('row')).toHaveLength(1);
  });
});
