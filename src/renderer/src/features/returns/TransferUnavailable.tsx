import { useEffect, useRef } from 'react';
import { CloudOff } from 'lucide-react';
import type { RecentTransfer } from '../../../../shared/ipc/channels/returns';
import { dateWords, statusWords } from '../../../../shared/words';
import { Money } from '../../components/Money';
import { Button, CopyableId, EmptyState, ErrorState } from '../../components/ui';
import { useStatusLine } from '../session/status-line';
import { useReturns } from './store';

/** What this computer last saw of the transfer (a look-up made earlier), said as such. */
function LastSeen({ known }: { known: RecentTransfer }) {
  return (
    <p data-testid="transfer-last-seen">
      Last read from this computer on {dateWords(known.viewedAt)}:{' '}
      {known.debtorName ? `from ${known.debtorName}, ` : ''}
      {known.amount && known.currency ? <Money amount={known.amount} currency={known.currency} /> : null}
      {known.amount && known.currency ? ', ' : ''}
      {statusWords(known.status).toLowerCase()}. It may have changed at the bank since.
    </p>
  );
}

/**
 * A transfer that could not be read. While the bank is unreachable this is not a failed write:
 * nothing was sent, what this computer last saw is shown as such, and the screen reads the
 * transfer again by itself as soon as the bank answers. Any other failure says so, with Try again.
 */
export function TransferUnavailable({
  transactionId,
  profileId,
}: {
  transactionId: string;
  profileId: string | null;
}) {
  const lookupError = useReturns((s) => s.lookupError);
  const kind = useReturns((s) => s.lookupKind);
  const recent = useReturns((s) => s.recent);
  const open = useReturns((s) => s.open);
  const loadRecent = useReturns((s) => s.loadRecent);
  const line = useStatusLine();
  const bankDown = kind === 'offline';
  const known = recent.find((r) => r.transactionId === transactionId) ?? null;

  useEffect(() => {
    void loadRecent();
  }, [loadRecent]);
  // The bank is back: read the transfer again, once per outage.
  const wasDown = useRef(!line.bankReachable);
  useEffect(() => {
    if (!line.bankReachable) {
      wasDown.current = true;
      return;
    }
    if (bankDown && wasDown.current) {
      wasDown.current = false;
      void open(transactionId, profileId);
    }
  }, [line.bankReachable, bankDown, open, transactionId, profileId]);

  const tryAgain = (
    <Button
      variant="primary"
      onPress={() => void open(transactionId, profileId)}
      data-testid="transfer-retry"
    >
      Try again now
    </Button>
  );
  const id = <CopyableId id={transactionId} kind="transaction id" />;
  if (!bankDown) {
    return (
      <div data-testid="return-lookup-error">
        <ErrorState title="This transfer could not be read" action={tryAgain}>
          {lookupError} {id}
        </ErrorState>
      </div>
    );
  }
  return (
    <div data-testid="return-lookup-error" data-state="bank-unreachable" role="status">
      <EmptyState
        icon={<CloudOff size={28} />}
        title="The bank cannot be reached, so this transfer cannot be read now"
        action={tryAgain}
      >
        <p>
          Nothing was sent and nothing changed: returning a transfer needs the bank. This screen reads it
          again by itself as soon as the bank answers
          {line.retryInSeconds === null
            ? ''
            : line.retryInSeconds > 0
              ? ` (the app checks again in ${line.retryInSeconds} s)`
              : ' (the app is checking again now)'}
          .
        </p>
        {known ? <LastSeen known={known} /> : <p>This computer has not seen this transfer before.</p>}
        <p>Transaction {id}</p>
      </EmptyState>
    </div>
  );
}
