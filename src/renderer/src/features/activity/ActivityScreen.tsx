import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useSubscription } from '../../lib/events';
import { activitySubscription, useActivity } from './store';

const outcomeLabel: Record<string, string> = {
  succeeded: 'Succeeded',
  failed: 'Refused',
  pending: 'Unclear — check at the bank',
};

/** The local audit log of every write the analyst made, with CSV export. */
export function ActivityScreen() {
  const { entries, nextBefore, skipped, loading, error, exportNotice } = useActivity(
    useShallow((s) => ({
      entries: s.entries,
      nextBefore: s.nextBefore,
      skipped: s.skipped,
      loading: s.loading,
      error: s.error,
      exportNotice: s.exportNotice,
    })),
  );
  const { load, loadMore, exportCsv } = useActivity.getState();
  useSubscription(activitySubscription);

  useEffect(() => {
    void load();
  }, [load]);

  return (
    <section aria-labelledby="activity-title" className="screen activity">
      <div className="activity__head">
        <h1 id="activity-title">Activity</h1>
        <button type="button" onClick={() => void exportCsv()} data-testid="audit-export">
          Export CSV…
        </button>
      </div>
      <p className="muted">
        Every write you made from this computer, newest first. Entries are never changed.
      </p>
      <div aria-live="polite">
        {error && (
          <p className="notice notice--bad" role="alert">
            {error}
          </p>
        )}
        {exportNotice && (
          <p className="notice notice--ok" data-testid="audit-export-notice">
            {exportNotice}
          </p>
        )}
        {skipped > 0 && (
          <p className="notice notice--warn">
            {skipped} damaged line(s) of the audit file could not be read and are not shown.
          </p>
        )}
      </div>
      {entries.length === 0 && !loading ? (
        <p data-testid="audit-empty">No writes recorded yet.</p>
      ) : (
        <div className="table-wrap" role="region" aria-label="Audit log entries" tabIndex={0}>
          <table className="audit" data-testid="audit-table">
            <caption className="visually-hidden">Audit log</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Environment</th>
                <th scope="col">Operation</th>
                <th scope="col">Target</th>
                <th scope="col">Outcome</th>
                <th scope="col">Idempotency key</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id} data-testid="audit-row" data-outcome={e.outcome}>
                  <td>
                    <time dateTime={e.at}>{new Date(e.at).toLocaleString()}</time>
                  </td>
                  <td>{e.who}</td>
                  <td>{e.environmentName}</td>
                  <td>
                    <code>{e.operation}</code>
                  </td>
                  <td>
                    <code>{e.target ?? '—'}</code>
                  </td>
                  <td className={`outcome outcome--${e.outcome}`}>{outcomeLabel[e.outcome] ?? e.outcome}</td>
                  <td>
                    <code className="audit__key">{e.idempotencyKey ?? '—'}</code>
                  </td>
                  <td>{e.detail ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {nextBefore && (
        <button type="button" onClick={() => void loadMore()} disabled={loading}>
          Show older entries
        </button>
      )}
    </section>
  );
}
