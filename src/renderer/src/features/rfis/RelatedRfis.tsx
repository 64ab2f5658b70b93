import { useEffect, useId, useState } from 'react';
import type { RfiSummaryView } from '../../../../shared/ipc/channels/rfis';
import { StatusBadge } from '../../components/StatusBadge';
import { RelativeTime } from '../../components/ui';
import { call, errorMessage } from '../../lib/desk';
import { useDeskEvent } from '../../lib/events';
import { rfiPath, useRouter } from '../../lib/router';
import { rfiTypeWords } from '../../../../shared/words';
import { entityLabel } from '../../lib/entity';

/**
 * "Related RFIs" of a transfer, a return or a quote: the queue rows (the local cache, offline
 * too) whose related object is one of `objectIds`. `rfis.list` narrows by text in main; the exact
 * related id is matched here, so an id that merely appears in a description does not count.
 */
export function RelatedRfis({ objectIds, what }: { objectIds: readonly string[]; what: string }) {
  const navigate = useRouter((s) => s.navigate);
  const id = useId();
  const [rows, setRows] = useState<RfiSummaryView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const key = objectIds.filter(Boolean).join('\n');
  // Re-read when the queue's cache changes (an RFI created or updated at the bank).
  const [version, setVersion] = useState(0);
  useDeskEvent('rfis.changed', () => setVersion((v) => v + 1));

  useEffect(() => {
    let live = true;
    const ids = key ? key.split('\n') : [];
    void Promise.all(ids.map((text) => call('rfis.list', { text, sort: 'deadline' })))
      .then((answers) => {
        if (!live) return;
        const seen = new Set<string>();
        const found: RfiSummaryView[] = [];
        for (const a of answers)
          for (const r of a.items)
            if (ids.includes(r.relatedId) && !seen.has(r.id)) {
              seen.add(r.id);
              found.push(r);
            }
        setRows(found);
        setError(null);
      })
      .catch((err: unknown) => {
        if (live) setError(errorMessage(err));
      });
    return () => {
      live = false;
    };
  }, [key, version]);

  return (
    <section className="related-rfis" aria-labelledby={`${id}-h`} data-testid="related-rfis">
      <h2 id={`${id}-h`}>Related RFIs</h2>
      {error ? (
        <p role="alert">Related RFIs could not be read: {error}</p>
      ) : rows === null ? (
        <p role="status">Looking for RFIs about this {what}…</p>
      ) : rows.length === 0 ? (
        <p data-testid="related-rfis-none">No RFI from the bank is about this {what}.</p>
      ) : (
        <table className="related-rfis__table">
          <thead>
            <tr>
              <th scope="col">RFI</th>
              <th scope="col">Type</th>
              <th scope="col">Status</th>
              <th scope="col">Deadline</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={`${r.profileId ?? ''}/${r.id}`}>
                <td>
                  <a
                    href={`#${rfiPath(r)}`}
                    onClick={(e) => {
                      e.preventDefault();
                      navigate(rfiPath(r));
                    }}
                  >
                    {r.description || r.id}
                  </a>
                  {r.entityName && (
                    <span className="related-rfis__entity"> · {entityLabel({ name: r.entityName })}</span>
                  )}
                </td>
                <td>{rfiTypeWords(r.type)}</td>
                <td>
                  <StatusBadge status={r.status} />
                </td>
                <td>
                  <RelativeTime value={r.deadline} fallback="none running" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
