import { sortableMinor } from '../../../../shared/money';
import { Mandates } from '../approvals/Mandates';
import { useEffect, useId, useMemo } from 'react';
import { BookUser, Plus } from 'lucide-react';
import type { OrderView } from '../../../../shared/ipc/channels/crypto';
import { Money } from '../../components/Money';
import { StatusBadge, statusLabel } from '../../components/StatusBadge';
import {
  CopyableId,
  DataTable,
  DensityToggle,
  EmptyState,
  RelativeTime,
  Skeleton,
} from '../../components/ui';
import type { DataColumn } from '../../components/ui';
import { useRouter } from '../../lib/router';
import { useCrypto } from './store';
import { orderWords } from '../../../../shared/words';
import { assetLabel } from '../../../../shared/activity';

const sideLabel = (o: OrderView): string =>
  `${orderWords(o.request.side)} ${assetLabel(o.request.base_asset)} for ${assetLabel(o.request.quote_asset)}`;

/** This workstation's quotes and orders in the active environment, newest first. */
export function ExchangeList() {
  const ids = useCrypto((s) => s.listIds);
  const orders = useCrypto((s) => s.orders);
  const loaded = useCrypto((s) => s.listLoaded);
  const listError = useCrypto((s) => s.listError);
  const loadList = useCrypto((s) => s.loadList);
  const navigate = useRouter((s) => s.navigate);
  const id = useId();

  useEffect(() => {
    void loadList();
    // Keep statuses (expiry, settlement) current while the list is shown.
    const t = setInterval(() => void loadList(), 3000);
    return () => clearInterval(t);
  }, [loadList]);

  const rows = useMemo(() => ids.map((oid) => orders[oid]).filter((o): o is OrderView => !!o), [ids, orders]);
  const columns = useMemo<DataColumn<OrderView>[]>(
    () => [
      {
        id: 'order',
        header: 'Order',
        accessorFn: sideLabel,
        cell: (c) => (
          <a
            href={`#/exchange/${c.row.original.id}`}
            onClick={(e) => e.stopPropagation()}
            className="dt__link"
          >
            {sideLabel(c.row.original)}
          </a>
        ),
        // The order's name ("Buy USDT for USD") whole: it takes the room the amounts leave first.
        meta: { width: 'minmax(150px, 2fr)' },
      },
      {
        id: 'requested',
        header: 'Requested',
        accessorFn: (o) => sortableMinor(o.request.requested_amount),
        cell: (c) => (
          <Money
            amount={c.row.original.request.requested_amount}
            currency={c.row.original.request.requested_asset}
          />
        ),
        meta: {
          width: 'minmax(140px, 1.2fr)',
          align: 'end',
          title: (o) => `${o.request.requested_amount} minor units ${o.request.requested_asset}`,
        },
      },
      {
        id: 'pays',
        header: 'Pays',
        enableSorting: false,
        cell: (c) => {
          const t = c.row.original.crypto;
          return t ? <Money amount={t.customer_pays_amount} currency={t.customer_pays_asset} /> : '—';
        },
        meta: {
          width: 'minmax(110px, 1fr)',
          align: 'end',
          title: (o) =>
            o.crypto
              ? `${o.crypto.customer_pays_amount} minor units ${o.crypto.customer_pays_asset}`
              : undefined,
        },
      },
      {
        id: 'receives',
        header: 'Receives',
        enableSorting: false,
        cell: (c) => {
          const t = c.row.original.crypto;
          return t ? <Money amount={t.customer_receives_amount} currency={t.customer_receives_asset} /> : '—';
        },
        meta: {
          width: 'minmax(140px, 1.2fr)',
          align: 'end',
          title: (o) =>
            o.crypto
              ? `${o.crypto.customer_receives_amount} minor units ${o.crypto.customer_receives_asset}`
              : undefined,
        },
      },
      {
        id: 'status',
        header: 'Status',
        accessorKey: 'displayStatus',
        cell: (c) => <StatusBadge status={c.row.original.displayStatus} data-testid="crypto-list-status" />,
        meta: { width: '120px', title: (o) => statusLabel(o.displayStatus) },
      },
      {
        id: 'created',
        header: 'Created',
        accessorKey: 'createdAt',
        cell: (c) => <RelativeTime value={c.row.original.createdAt} />,
        meta: { width: '104px', align: 'end', title: () => undefined },
      },
      {
        id: 'transaction',
        header: 'Transaction',
        accessorFn: (o) => o.transactionId ?? '',
        cell: (c) =>
          c.row.original.transactionId ? (
            <CopyableId id={c.row.original.transactionId} kind="transaction id" />
          ) : (
            <span className="muted">none yet</span>
          ),
        // Secondary (the order page shows it): on a narrow window it gives way to the amounts.
        meta: {
          width: 'minmax(120px, 1.4fr)',
          title: (o) => (o.transactionId ? undefined : 'none yet'),
          minTableWidth: 900,
        },
      },
    ],
    [],
  );

  return (
    <section className="screen crypto-list" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`}>Exchange</h1>
      <div className="actions">
        <a className="button-link primary" href="#/exchange/new" data-testid="crypto-new">
          <Plus size={16} aria-hidden="true" /> New quote
        </a>
        <a className="button-link" href="#/exchange/accounts">
          <BookUser size={16} aria-hidden="true" /> Account book
        </a>
        <span className="actions__spacer" />
        <DensityToggle />
      </div>
      <Mandates />
      {listError && (
        <p role="alert" className="notice notice--bad">
          {listError}
        </p>
      )}
      {!loaded ? (
        <Skeleton label="Loading quotes and orders" lines={4} />
      ) : rows.length === 0 ? (
        <div data-testid="crypto-list-empty">
          <EmptyState
            title="No quotes or orders from this workstation yet"
            action={
              <a className="button-link primary" href="#/exchange/new">
                New quote
              </a>
            }
          />
        </div>
      ) : (
        <div className="list-table list-table--tall" data-testid="crypto-list">
          <DataTable
            data={rows}
            columns={columns}
            getRowId={(o) => o.id}
            label="Quotes and orders"
            onOpen={(oid) => navigate(`/exchange/${oid}`)}
            rowTestId="crypto-list-row"
            rowData={(o) => ({ 'data-order-id': o.id })}
          />
        </div>
      )}
    </section>
  );
}
