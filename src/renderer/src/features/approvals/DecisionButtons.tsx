import { useState } from 'react';
import { Button, TextArea } from '../../components/ui';

/** A checker's decision: approve, or reject with the reason the maker is told. */
export type Decision = { decision: 'approve' } | { decision: 'reject'; reason: string };

/**
 * A checker's Approve and Reject… for every kind of approval (answers, returns, mandates): reject
 * opens a reason field and sends only with a reason. `onDecide` answers whether the decision went
 * through; only then is the reason cleared, so nothing typed is lost on a refusal.
 */
export function DecisionButtons({
  approveLabel = 'Approve',
  busy = false,
  onDecide,
}: {
  approveLabel?: string;
  busy?: boolean;
  onDecide(d: Decision): Promise<boolean>;
}) {
  const [reason, setReason] = useState('');
  const [rejecting, setRejecting] = useState(false);
  const decide = async (d: Decision): Promise<void> => {
    if (!(await onDecide(d))) return;
    setRejecting(false);
    setReason('');
  };
  return (
    <div className="answer__actions">
      <Button variant="primary" isPending={busy} onPress={() => void decide({ decision: 'approve' })}>
        {approveLabel}
      </Button>
      {!rejecting ? (
        <Button onPress={() => setRejecting(true)}>Reject…</Button>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void decide({ decision: 'reject', reason: reason.trim() });
          }}
        >
          <TextArea
            label="Why is it rejected?"
            rows={2}
            value={reason}
            onChange={setReason}
            maxLength={2000}
          />
          <Button type="submit" isDisabled={reason.trim() === ''} isPending={busy}>
            Reject with this reason
          </Button>
        </form>
      )}
    </div>
  );
}
