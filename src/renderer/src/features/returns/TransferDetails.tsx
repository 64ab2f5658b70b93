import type { TransferView } from '../../../../shared/ipc/channels/returns';
import { dayWords, transactionTypeWords } from '../../../../shared/words';
import { Money } from '../../components/Money';
import { StatusBadge } from '../../components/StatusBadge';
import { RelativeTime } from '../../components/ui';

function Row({ label, children, testId }: { label: string; children: React.ReactNode; testId?: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd data-testid={testId}>{children}</dd>
    </>
  );
}

/** The incoming transfer as the bank reports it (unknown types and statuses shown as they are). */
export function TransferDetails({
  view,
  title = 'Incoming transfer',
}: {
  view: TransferView;
  title?: string;
}) {
  const inc = view.incoming;
  return (
    <section className="panel" aria-label={title} data-testid="transfer-details">
      <h2>{title}</h2>
      <dl className="fields">
        <Row label="Transaction id" testId="transfer-id">
          <code>{view.transactionId}</code>
        </Row>
        <Row label="Status" testId="transfer-status">
          <StatusBadge status={view.status} />
        </Row>
        <Row label="Type">
          <span title={view.type}>{transactionTypeWords(view.type)}</span>
        </Row>
        {inc ? (
          <>
            <Row label="Amount" testId="transfer-amount">
              <Money amount={inc.amount} currency={inc.currency} />
            </Row>
            <Row label="Debtor" testId="transfer-debtor">
              {inc.debtorName} <span className="muted">({inc.debtorBic})</span>
            </Row>
            <Row label="Creditor account">
              <code>{inc.creditorAccountId}</code>
            </Row>
            <Row label="Value date">{dayWords(inc.valueDate)}</Row>
            <Row label="Remittance information">{inc.remittanceInformation || '—'}</Row>
            <Row label="UETR">
              <code>{inc.uetr}</code>
            </Row>
          </>
        ) : (
          <Row label="Details">This transaction has no incoming SWIFT transfer details.</Row>
        )}
        <Row label="Booked">
          <RelativeTime value={view.timestamp} />
        </Row>
      </dl>
    </section>
  );
}
