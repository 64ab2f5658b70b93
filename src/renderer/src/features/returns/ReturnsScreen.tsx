import { useEffect, useId, useState } from 'react';
import type { FormEvent } from 'react';
import { Money } from '../../components/Money';
import { StatusBadge } from '../../components/StatusBadge';
import { useShallow } from 'zustand/react/shallow';
import { useSubscription } from '../../lib/events';
import { useRouter } from '../../lib/router';
import { returnsSubscription, useReturns } from './store';
import { TransferScreen } from './TransferScreen';

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
  const [error, setError] = useState<string | null>(null);
  const id = useId();

  useSubscription(returnsSubscription);
  useEffect(() => {
    void loadList();
    void loadRecent();
  }, [loadList, loadRecent]);

  const openTx = (tx: string) => navigate(`/returns/${encodeURIComponent(tx)}`);
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
      <form className="find" onSubmit={onFind} noValidate>
        <label htmlFor={`${id}-tx`}>Transaction id of the incoming transfer</label>
        <div className="field__row">
          <input
            id={`${id}-tx`}
            name="transactionId"
            value={txId}
            autoComplete="off"
            spellCheck={false}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${id}-tx-error` : undefined}
            onChange={(e) => setTxId(e.target.value)}
          />
          <button type="submit" className="primary">
            Open
          </button>
        </div>
        {error && (
          <p id={`${id}-tx-error`} className="field__error">
            {error}
          </p>
        )}
      </form>

      {recent.length > 0 && (
        <section aria-labelledby={`${id}-recent`} className="panel">
          <h2 id={`${id}-recent`}>Recently opened</h2>
          <ul className="recent-list" data-testid="returns-recent">
            {recent.map((r) => (
              <li key={r.transactionId}>
                <button type="button" className="link" onClick={() => openTx(r.transactionId)}>
                  <code>{r.transactionId}</code>
                </button>{' '}
                <Money amount={r.amount} currency={r.currency} /> {r.debtorName ?? ''}{' '}
                <StatusBadge status={r.status} />
              </li>
            ))}
          </ul>
        </section>
      )}

      <section aria-labelledby={`${id}-list`} className="panel">
        <div className="panel__head">
          <h2 id={`${id}-list`}>Made from this workstation</h2>
          <button type="button" onClick={() => void loadList()} disabled={listLoading}>
            {listLoading ? 'Refreshing…' : 'Refresh'}
          </button>
        </div>
        {listError && (
          <p className="notice notice--bad" role="alert">
            {listError}
          </p>
        )}
        {resendProblem && (
          <p className="notice notice--bad" role="alert">
            {resendProblem}
          </p>
        )}
        {entries.length === 0 && !listLoading ? (
          <p className="muted">No returns yet.</p>
        ) : (
          <table className="table" data-testid="returns-list">
            <thead>
              <tr>
                <th scope="col">Transaction</th>
                <th scope="col">Amount</th>
                <th scope="col">Reason</th>
                <th scope="col">Step</th>
                <th scope="col">Bank status</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.operationId} data-testid="returns-row" data-transaction={e.transactionId}>
                  <td>
                    <a
                      href={`#/returns/${encodeURIComponent(e.transactionId)}`}
                      onClick={(ev) => {
                        ev.preventDefault();
                        openTx(e.transactionId);
                      }}
                    >
                      <code>{e.transactionId}</code>
                    </a>
                  </td>
                  <td>
                    <Money amount={e.amount} currency={e.currency || null} />
                  </td>
                  <td>{e.reasonCode}</td>
                  <td data-testid="returns-row-phase">
                    {phaseLabel[e.phase] ?? e.phase}
                    {e.problem && <span className="row-problem"> — {e.problem}</span>}
                    {e.phase === 'sending' && (
                      <>
                        {' '}
                        <button
                          type="button"
                          className="link"
                          aria-label={`Send the return of ${e.transactionId} again (same key)`}
                          onClick={() =>
                            void resend(e).then((problem) => {
                              setResendProblem(problem);
                              if (!problem) openTx(e.transactionId);
                            })
                          }
                        >
                          Send again
                        </button>
                      </>
                    )}
                  </td>
                  <td data-testid="returns-row-status">
                    {e.status ? <StatusBadge status={e.status} /> : <span className="muted">not read</span>}
                  </td>
                  <td>{e.updatedAt}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </section>
  );
}
