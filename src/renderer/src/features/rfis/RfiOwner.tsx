import { useEffect, useState } from 'react';
import type { RfiSummaryView } from '../../../../shared/ipc/channels/rfis';
import { BackLink, Button, ErrorState, Skeleton } from '../../components/ui';
import { call, errorMessage } from '../../lib/desk';
import { entityLabel } from '../../lib/entity';
import { rfiPath, useRouter } from '../../lib/router';

/**
 * An RFI the route names by id alone (a typed id, a link from outside the app): RFI ids are one
 * bank's only, so the page asks which watched entity's RFI it is. The queue's rows (listed by main
 * with their owner) say it: one owner opens at once, several are offered by name, none is said.
 */
export function RfiOwner({ id, inSplit = false }: { id: string; inSplit?: boolean }) {
  const navigate = useRouter((s) => s.navigate);
  const [owners, setOwners] = useState<RfiSummaryView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    call('rfis.list', { text: id }).then(
      (r) => {
        if (!live) return;
        const found = r.items.filter((row) => row.id === id && row.profileId);
        if (found.length === 1) navigate(rfiPath(found[0]!), { replace: true });
        else setOwners(found);
      },
      (err: unknown) => live && setError(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, [id, navigate]);

  const back = inSplit ? null : <BackLink href="#/rfis">Back to the queue</BackLink>;
  const title = <h1 id="rfi-owner-title">RFI</h1>;
  if (error || (owners && owners.length === 0)) {
    return (
      <section className="screen" aria-labelledby="rfi-owner-title">
        {back}
        {title}
        <ErrorState
          title="This RFI could not be found"
          action={<Button onPress={() => navigate('/rfis')}>Open the queue</Button>}
        >
          {error ?? `No legal entity watched here has an RFI with the id ${id}.`}
        </ErrorState>
      </section>
    );
  }
  if (!owners) {
    return (
      <section className="screen" aria-busy="true" aria-labelledby="rfi-owner-title">
        {back}
        {title}
        <Skeleton label="Finding the RFI" lines={2} />
      </section>
    );
  }
  return (
    <section className="screen" aria-labelledby="rfi-owner-title" data-testid="rfi-owner-choice">
      {back}
      {title}
      <p>Several legal entities have an RFI with the id {id}. Which one do you mean?</p>
      <ul>
        {owners.map((o) => (
          <li key={o.profileId}>
            <a href={`#${rfiPath(o)}`}>
              {entityLabel({ name: o.entityName })}: {o.description || o.type}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}
