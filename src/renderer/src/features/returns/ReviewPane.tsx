import type { TransferView } from '../../../../shared/ipc/channels/returns';
import { Money } from '../../components/Money';
import { StatusBadge } from '../../components/StatusBadge';
import { TransferDetails } from './TransferDetails';

/** The return_* fields of spec 2.2 next to the original transfer. */
export function ReviewPane({ original, review }: { original: TransferView; review: TransferView }) {
  const r = review.returnDetails;
  const currency = review.incoming?.currency ?? original.incoming?.currency ?? '';
  const by = r?.initiatedBy;
  return (
    <div className="return-review" data-testid="return-review">
      <TransferDetails view={original} title="Original transfer" />
      <section className="panel" aria-label="Return" data-testid="return-details">
        <h2>Return</h2>
        <dl className="fields">
          <dt>Status</dt>
          <dd data-testid="return-status">
            <StatusBadge status={review.status} />
          </dd>
          <dt>Return amount</dt>
          <dd data-testid="return-amount">
            <Money amount={r?.amount} currency={currency} />
          </dd>
          <dt>Fee</dt>
          <dd data-testid="return-fee">
            <Money amount={r?.fee} currency={currency} />
          </dd>
          <dt>Reason</dt>
          <dd data-testid="return-reason">
            {r?.reasonCode ? (
              <>
                <strong>{r.reasonCode}</strong> — {r.reasonMeaning}
              </>
            ) : (
              '—'
            )}
          </dd>
          <dt>Description</dt>
          <dd data-testid="return-description">{r?.description || '—'}</dd>
          <dt>Initiated by</dt>
          <dd data-testid="return-initiated-by">{by ? `${by.firstName} ${by.lastName} (${by.id})` : '—'}</dd>
          <dt>Created</dt>
          <dd data-testid="return-created-at">{r?.createdAt ?? '—'}</dd>
          <dt>Updated</dt>
          <dd data-testid="return-updated-at">{r?.updatedAt ?? '—'}</dd>
        </dl>
      </section>
    </div>
  );
}
