import { useEffect } from 'react';
import type { TransferView } from '../../../../shared/ipc/channels/returns';
import { dayWords, transactionTypeWords } from '../../../../shared/words';
import { Money } from '../../components/Money';
import { StatusBadge } from '../../components/StatusBadge';
import { CopyableId, RelativeTime } from '../../components/ui';
import { relatedLabel, useRelatedNames } from '../rfis/related-names';

function Row({ label, children, testId }: { label: string; children: React.ReactNode; testId?: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd data-testid={testId}>{children}</dd>
    </>
  );
}

/**
 * The account the money arrived on, by its name in the account book, its id secondary (copyable);
 * an account the book does not know is "Account" and its id.
 */
function CreditorAccount({ accountId, profileId }: { accountId: string; profileId: string | undefined }) {
  const names = useRelatedNames((s) => s.names);
  useEffect(() => {
    void useRelatedNames.getState().want([{ profileId, type: 'account', relatedId: accountId }]);
  }, [accountId, profileId]);
  // Named through the profile the transfer was read with; no entity is named on this screen, so
  // the account's holder is said beside its name.
  const related = relatedLabel(names, profileId, 'account', accountId);
  return (
    <>
      <span data-testid="transfer-creditor-account-name">{related.name ?? related.kind}</span>{' '}
      <CopyableId id={accountId} kind="account id" />
    </>
  );
}

/**
 * The incoming transfer as the bank reports it (unknown types and statuses shown as they are). Its
 * transaction id is not repeated here: the screen's title line carries it, once.
 */
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
            <Row label="Creditor account" testId="transfer-creditor-account">
              <CreditorAccount accountId={inc.creditorAccountId} profileId={view.profileId} />
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
