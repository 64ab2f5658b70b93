import { sortableMinor } from '../../../../shared/money';
import { reasonCodeName } from '../../../../shared/catalogue';
import { useEffect, useId, useMemo, useState } from 'react';
import { RefreshCw, Send } from 'lucide-react';
import type { ReturnEntry } from '../../../../shared/ipc/channels/returns';
import type { RfiSummaryView } from '../../../../shared/ipc/channels/rfis';
import type { FormEvent } from 'react';
import { Money } from '../../components/Money';
import { StatusBadge, statusLabel } from '../../components/StatusBadge';
import {
  Button,
  CopyableId,
  DataTable,
  DensityToggle,
  EmptyState,
  ErrorState,
  TextField,
  SearchField,
  RelativeTime,
  Skeleton,
} from '../../components/ui';
import type { DataColumn } from '../../components/ui';
import { useShallow } from 'zustand/react/shallow';
import { useSubscription } from '../../lib/events';
import { useRouter } from '../../lib/router';
import { call } from '../../lib/desk';
import { knownTransfers, matchesTransfer } from './known-transfers';
import { relatedKey, useRelatedNames } from '../rfis/related-names';
import type { KnownTransfer } from './known-transfers';
import { returnsSubscription, useReturns } from './store';
import { TransferScreen } from './TransferScreen';
import { ReturnsWaitingForApproval } from '../approvals/ReturnApproval';

const phaseLabel: Record<string, string> = {
  sending: 'Sent, answer unknown',
  created: 'Intent created',
  refused: 'Refused by the bank',
  confirmed: 'Confirmed',
  cancelled: 'Cancelled',
  completed: 'Completed',
};

/** #/returns: find a transfer (id or recent list) and the returns made from this workstation. */
export function ReturnsScreen({ params }: { params: string[] }) {
  const [first] = params;
  if (first) return <TransferScreen transactionId={first} />;
  return <ReturnsHome />;
}

function ReturnsHome() {
  const { entries, listLoading, listError, recent } = useReturns(
    useShallow((s) => ({
      entries: s.entries,
      listLoading: s.listLoading,
      listError: s.listError,
      recent: s.recent,
    })),
  );
  const { loadList, loadRecent, resend } = useReturns.getState();
  const [resendProblem, setResendProblem] = useState<string | null>(null);
  const navigate = useRouter((r) => r.navigate);
  const [txId, setTxId] = useState('');
  const [search, setSearch] = useState('');
  // Transfers the app knows from RFIs (not this workstation's exchange orders) beside the ones opened here.
  const [rfiRows, setRfiRows] = useState<RfiSummaryView[]>([]);
  const [orderTx, setOrderTx] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => {
    let live = true;
    void Promise.allSettled([
      call('rfis.list', { type: ['transaction'], sort: 'updated_desc' }),
      call('crypto.list', undefined),
    ]).then(([list, orders]) => {
      if (!live) return;
      if (list.status === 'fulfilled') setRfiRows(list.value.items);
      if (orders.status === 'fulfilled')
        setOrderTx(new Set(orders.value.orders.flatMap((o) => (o.transactionId ? [o.transactionId] : []))));
    });
    return () => {
      live = false;
    };
  }, []);
  // The senders and amounts of the transfers RFIs are about, read through each RFI's owning profile.
  const related = useRelatedNames((st) => st.names);
  const unnamed = useRelatedNames((st) => st.unnamed);
  useEffect(() => {
    void useRelatedNames.getState().want(rfiRows);
  }, [rfiRows]);
  const known = useMemo(
    () =>
      knownTransfers(
        recent,
        rfiRows,
        orderTx,
        (profileId, tx) => related[relatedKey(profileId, tx)]?.transfer,
        // Neither named nor answered without a name: main is reading it.
        (profileId, tx) => !related[relatedKey(profileId, tx)] && !unnamed[relatedKey(profileId, tx)],
      ),
    [recent, rfiRows, orderTx, related, unnamed],
  );
  const shown = useMemo(() => known.filter((t) => matchesTransfer(t, search)), [known, search]);
  const [error, setError] = useState<string | null>(null);
  const id = useId();

  useSubscription(returnsSubscription);
  useEffect(() => {
    void loadList();
    void loadRecent();
  }, [loadList, loadRecent]);

  const openTx = (tx: string) => navigate(`/returns/${encodeURIComponent(tx)}`);
  // Names first: the debtor of a transfer is known once it was looked up here.
  const counterparty = useMemo(
    () => Object.fromEntries(recent.filter((r) => r.debtorName).map((r) => [r.transactionId, r.debtorName!])),
    [recent],
  );
  const onFind = (e: FormEvent) => {
    e.preventDefault();
    const v = txId.trim();
    if (!v) return setError('Paste the transaction id of the incoming transfer.');
    if (v.length > 128 || !/^[\x21-\x7e]+$/.test(v))
      return setError('A transaction id has at most 128 characters, without spaces.');
    setError(null);
    openTx(v);
  };

  return (
    <section className="screen returns" aria-labelledby={`${id}-h`}>
      <h1 id={`${id}-h`}>Returns</h1>
      <ReturnsWaitingForApproval />

      <section aria-labelledby={`${id}-recent`} className="panel">
        <div className="panel__head">
          <h2 id={`${id}-recent`}>Incoming transfers this app knows</h2>
          <SearchField
            label="Search the transfers"
            hideLabel
            value={search}
            onChange={setSearch}
            placeholder="Sender, RFI or id"
          />
        </div>
        {shown.length > 0 ? (
          <div className="list-table list-table--short" data-testid="returns-recent">
            <KnownTable rows={shown} onOpen={openTx} />
          </div>
        ) : (
          <EmptyState title={known.length === 0 ? 'No transfers yet' : 'No transfer matches'}>
            {known.length === 0
              ? 'Transfers an RFI is about and transfers opened here are listed; or open one by its id.'
              : 'Nothing matches the search.'}
          </EmptyState>
        )}
      </section>

      <p className="muted">Or open any incoming transfer by its transaction id:</p>
      <form className="find" onSubmit={onFind} noValidate>
        <div className="field__row">
          <TextField
            label="Transaction id of the incoming transfer"
            name="transactionId"
            value={txId}
            autoComplete="off"
            spellCheck="false"
            mono
            onChange={setTxId}
            errorMessage={error}
          />
          <Button type="submit" variant="primary">
            Open
          </Button>
        </div>
      </form>

      <section aria-labelledby={`${id}-list`} className="panel">
        <div className="panel__head">
          <h2 id={`${id}-list`}>Made from this workstation</h2>
          <div className="panel__tools">
            <DensityToggle />
            <Button
              size="sm"
              icon={<RefreshCw size={14} aria-hidden="true" />}
              onPress={() => void loadList()}
              isPending={listLoading}
            >
              Refresh
            </Button>
          </div>
        </div>
        {resendProblem && (
          <p className="notice notice--bad" role="alert">
            {resendProblem}
          </p>
        )}
        {listError && entries.length === 0 ? (
          <ErrorState
            title="The returns could not be read"
            action={
              <Button variant="primary" onPress={() => void loadList()}>
                Try again
              </Button>
            }
          >
            {listError}
          </ErrorState>
        ) : (
          <>
            {listError && (
              <p className="notice notice--bad" role="alert">
                {listError}
              </p>
            )}
            <div className="list-table" data-testid="returns-list">
              <ReturnsTable
                entries={entries}
                counterparty={counterparty}
                loading={listLoading}
                onOpen={openTx}
                onResend={(e) =>
                  void resend(e).then((problem) => {
                    setResendProblem(problem);
                    if (!problem) openTx(e.transactionId);
                  })
                }
              />
            </div>
          </>
        )}
      </section>
    </section>
  );
}

const phaseTone = (p: string): string => phaseLabel[p] ?? p;

/** The returns made from this workstation: counterparty first, the transaction id secondary. */
function ReturnsTable(props: {
  entries: ReturnEntry[];
  counterparty: Record<string, string>;
  loading: boolean;
  onOpen(tx: string): void;
  onResend(e: ReturnEntry): void;
}) {
  const { entries, counterparty, loading, onOpen, onResend } = props;
  const columns = useMemo<DataColumn<ReturnEntry>[]>(
    () => [
      {
        id: 'counterparty',
        header: 'Counterparty',
        accessorFn: (e) => counterparty[e.transactionId] ?? '',
        cell: (c) =>
          counterparty[c.row.original.transactionId] ?? <span className="muted">Not looked up here</span>,
        meta: {
          // Wide enough for a counterparty's name whole at 1024 px ("Kestrel Components SA").
          width: 'minmax(190px, 2fr)',
          title: (e) => counterparty[e.transactionId] ?? 'Not looked up here',
        },
      },
      {
        id: 'transaction',
        header: 'Transaction',
        accessorKey: 'transactionId',
        cell: (c) => <CopyableId id={c.row.original.transactionId} kind="transaction id" />,
        // Named by its counterparty first; on a narrow window the id gives way to the amount.
        meta: { width: 'minmax(120px, 1.5fr)', title: () => undefined, minTableWidth: 900 },
      },
      {
        id: 'amount',
        header: 'Amount',
        accessorFn: (e) => sortableMinor(e.amount),
        cell: (c) => <Money amount={c.row.original.amount} currency={c.row.original.currency || null} />,
        meta: {
          width: 'minmax(140px, 1fr)',
          align: 'end',
          title: (e) => `${e.amount} minor units ${e.currency}`,
        },
      },
      {
        id: 'reason',
        header: 'Reason',
        // The reason by its name, the ISO code in the title; on a narrow window it gives way to the names.
        accessorFn: (e) => (e.reasonCode ? reasonCodeName(e.reasonCode) : ''),
        meta: {
          width: 'minmax(120px, 1.2fr)',
          minTableWidth: 900,
          title: (e) => (e.reasonCode ? `${reasonCodeName(e.reasonCode)} (${e.reasonCode})` : undefined),
        },
      },
      {
        id: 'phase',
        header: 'Step',
        accessorFn: (e) => phaseTone(e.phase),
        cell: (c) => {
          const e = c.row.original;
          return (
            <span className="returns-step">
              <span data-testid="returns-row-phase">
                {phaseTone(e.phase)}
                {e.problem && <span className="row-problem"> — {e.problem}</span>}
              </span>
              {e.phase === 'sending' && (
                <Button
                  size="sm"
                  variant="ghost"
                  icon={<Send size={14} aria-hidden="true" />}
                  aria-label={`Send the return of ${e.transactionId} again (same key)`}
                  onPress={() => onResend(e)}
                >
                  Send again
                </Button>
              )}
            </span>
          );
        },
        meta: {
          width: 'minmax(110px, 1fr)',
          title: (e) => `${phaseTone(e.phase)}${e.problem ? ` — ${e.problem}` : ''}`,
        },
      },
      {
        id: 'status',
        header: 'Bank status',
        accessorFn: (e) => e.status ?? '',
        cell: (c) =>
          c.row.original.status ? (
            <span data-testid="returns-row-status">
              <StatusBadge status={c.row.original.status} />
            </span>
          ) : (
            <span className="muted" data-testid="returns-row-status">
              not read
            </span>
          ),
        meta: { width: '180px', title: (e) => (e.status ? statusLabel(e.status) : 'not read') },
      },
      {
        id: 'updated',
        header: 'Updated',
        accessorKey: 'updatedAt',
        cell: (c) => <RelativeTime value={c.row.original.updatedAt} />,
        meta: { width: '112px', align: 'end', title: () => undefined },
      },
    ],
    [counterparty, onResend],
  );
  if (loading && entries.length === 0) return <Skeleton label="Loading the returns" lines={3} />;
  return (
    <DataTable
      data={entries}
      columns={columns}
      getRowId={(e) => e.operationId}
      label="Returns made from this workstation"
      onOpen={(_, e) => onOpen(e.transactionId)}
      rowTestId="returns-row"
      rowData={(e) => ({ 'data-transaction': e.transactionId })}
      empty={
        <EmptyState title="No returns yet">
          Choose an incoming transfer above, or open one by its transaction id, to return it.
        </EmptyState>
      }
    />
  );
}

/** The From cell's full words, for its title. */
function fromTitle(r: KnownTransfer): string {
  if (r.name) return r.name;
  if (r.reading) return 'Reading the sender';
  return r.rfi ? `RFI: ${r.rfi}` : 'Sender not known';
}

/** Transfers looked up on this workstation, newest first: debtor first, id secondary. */
function KnownTable({ rows, onOpen }: { rows: KnownTransfer[]; onOpen(tx: string): void }) {
  const columns = useMemo<DataColumn<KnownTransfer>[]>(
    () => [
      {
        id: 'debtor',
        header: 'From',
        accessorFn: (r) => r.name ?? '',
        cell: (c) => {
          const r = c.row.original;
          if (r.name) return r.name;
          // Being read: said so, never a stand-in label the name replaces a moment later.
          if (r.reading) return <span className="muted">Reading the sender…</span>;
          // The bank names no sender (not this entity's, or not readable now): the RFI about it.
          return r.rfi ? (
            <span className="muted">RFI: {r.rfi}</span>
          ) : (
            <span className="muted">Sender not known</span>
          );
        },
        meta: { width: 'minmax(170px, 2fr)', title: fromTitle },
      },
      {
        id: 'source',
        header: 'Known from',
        accessorKey: 'source',
        meta: { width: 'minmax(90px, 1fr)', title: (r) => r.source, minTableWidth: 760 },
      },
      {
        id: 'transaction',
        header: 'Transaction',
        accessorKey: 'transactionId',
        cell: (c) => <CopyableId id={c.row.original.transactionId} kind="transaction id" />,
        // Named by its sender first; on a narrow window the id gives way to the amount.
        meta: { width: 'minmax(140px, 1.5fr)', title: () => undefined, minTableWidth: 800 },
      },
      {
        id: 'amount',
        header: 'Amount',
        accessorFn: (r) => sortableMinor(r.amount),
        cell: (c) =>
          c.row.original.amount ? (
            <Money amount={c.row.original.amount} currency={c.row.original.currency} />
          ) : (
            <span className="muted">{c.row.original.reading ? 'Reading…' : 'Open to read'}</span>
          ),
        meta: {
          width: 'minmax(150px, 1fr)',
          align: 'end',
          title: (r) => (r.amount ? `${r.amount} minor units` : undefined),
        },
      },
      {
        id: 'status',
        header: 'Status',
        accessorFn: (r) => r.status ?? '',
        cell: (c) =>
          c.row.original.status ? (
            <StatusBadge status={c.row.original.status} />
          ) : (
            <span className="muted">Not read yet</span>
          ),
        meta: {
          width: '196px',
          title: (r) =>
            r.status
              ? statusLabel(r.status)
              : 'Known from an RFI; open the transfer to read its status at the bank',
        },
      },
      {
        id: 'viewed',
        header: 'Seen',
        accessorKey: 'at',
        cell: (c) => <RelativeTime value={c.row.original.at} />,
        meta: { width: '100px', align: 'end', title: () => undefined },
      },
    ],
    [],
  );
  return (
    <DataTable
      data={rows}
      columns={columns}
      getRowId={(r) => r.transactionId}
      label="Incoming transfers this app knows"
      onOpen={(id) => onOpen(id)}
      rowTestId="returns-recent-row"
      rowData={(r) => ({ 'data-reading': r.reading ? 'true' : undefined })}
    />
  );
}
