import type { TransferView } from '../../../../shared/ipc/channels/returns';
import { Money } from '../../components/Money';
import { StatusBadge } from '../../components/StatusBadge';
import { CopyableId, RelativeTime } from '../../components/ui';
import { TransferDetails } from './TransferDetails';

/**
 * The return_* fields of spec 2.2 next to the original transfer. The amounts come first, and the
 * two statuses of one transaction are named for what they are: the original transfer's own status
 * (e.g. completed: the money arrived) and the return's (e.g. intent created).
 */
export function ReviewPane({ original, review }: { original: TransferView; review: TransferView }) {
  const r = review.returnDetails;
  const currency = review.incoming?.currency ?? original.incoming?.currency ?? '';
  const by = r?.initiatedBy;
  const debtor = review.incoming?.debtorName ?? original.incoming?.debtorName ?? 'the debtor';
  return (
    <div className="return-review" data-testid="return-review">
      <section className="money-summary" aria-label="What this return moves" data-testid="return-amounts">
        <div className="money-summary__side">
          <span className="money-summary__label">Return</span>
          <Money className="money-summary__amount" amount={r?.amount} currency={currency} />
          <span className="money-summary__from">to {debtor}</span>
        </div>
        <div className="money-summary__side">
          <span className="money-summary__label">Fee</span>
          <Money amount={r?.fee} currency={currency} />
        </div>
        <div className="money-summary__side">
          <span className="money-summary__label">Of the original</span>
          <Money amount={original.incoming?.amount} currency={currency} />
        </div>
      </section>
      <dl className="status-pair" aria-label="Statuses" data-testid="return-statuses">
        <dt>Original transfer’s status</dt>
        <dd data-testid="return-original-status">
          <StatusBadge status={original.status} />
        </dd>
        <dt>This return’s status</dt>
        <dd>
          <StatusBadge status={review.status} />
        </dd>
      </dl>
      <TransferDetails view={original} title="Original transfer" />
      <section className="panel" aria-label="Return" data-testid="return-details">
        <h2>Return</h2>
        <dl className="fields">
          <dt>Return status</dt>
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
                {r.reasonMeaning}{' '}
                <code className="muted" title="ISO reason code">
                  {r.reasonCode}
                </code>
              </>
            ) : (
              '—'
            )}
          </dd>
          <dt>Description</dt>
          <dd data-testid="return-description">{r?.description || '—'}</dd>
          <dt>Initiated by</dt>
          <dd data-testid="return-initiated-by">
            {by ? (
              <>
                {by.firstName} {by.lastName} <CopyableId id={by.id} kind="user id" />
              </>
            ) : (
              '—'
            )}
          </dd>
          <dt>Created</dt>
          <dd data-testid="return-created-at">
            <RelativeTime value={r?.createdAt} />
          </dd>
          <dt>Updated</dt>
          <dd data-testid="return-updated-at">
            <RelativeTime value={r?.updatedAt} />
          </dd>
        </dl>
      </section>
    </div>
  );
}
