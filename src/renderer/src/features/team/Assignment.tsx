import { useState } from 'react';
import { Button } from '../../components/ui';
import { call, errorMessage } from '../../lib/desk';
import { useSubscription } from '../../lib/events';
import { holderOf, holderWords } from './holders';
import { teamActive, teamSubscription, useTeam } from './store';

/**
 * The RFI detail's team line: who holds it, and Claim / Release for the analyst. Nothing in solo
 * use. A claim made while the team server is away shows as pending; one the server refused (a
 * colleague holds it) says who does.
 */
export function Assignment({
  rfiId,
  profileId,
  legalEntityId,
}: {
  rfiId: string;
  /** The profile that owns the RFI: claims and releases name it. */
  profileId: string;
  /** The legal entity it acts for (null while its bank has not said): with the id, the team's key. */
  legalEntityId: string | null;
}) {
  useSubscription(teamSubscription);
  const active = useTeam((s) => teamActive(s.status));
  const view = useTeam((s) => holderOf(s.assignments, { id: rfiId, legalEntityId }));
  const notice = useTeam((s) => s.notice);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  if (!active) return null;

  const act = async (channel: 'team.claim' | 'team.release'): Promise<void> => {
    setBusy(true);
    setProblem(null);
    try {
      useTeam.getState().put(await call(channel, { rfiId, profileId }));
    } catch (err) {
      setProblem(errorMessage(err));
      void useTeam.getState().loadAssignments();
    } finally {
      setBusy(false);
    }
  };
  const mine = view?.pending === 'claim' || (view?.holder?.isYou === true && view.pending !== 'release');
  const free = !view?.holder && view?.pending !== 'claim';

  return (
    <div className="rfi-assignment" data-testid="rfi-assignment">
      <p role="status">
        Held by: <strong data-testid="rfi-holder">{holderWords(view)}</strong>
        {view?.pending && <span className="muted"> — waiting for the team server</span>}
      </p>
      {free && (
        <Button variant="primary" size="sm" isPending={busy} onPress={() => void act('team.claim')}>
          Claim
        </Button>
      )}
      {mine && (
        <Button size="sm" isPending={busy} onPress={() => void act('team.release')}>
          Release
        </Button>
      )}
      {(problem ?? notice) && (
        <p role="alert" className="field-error">
          {problem ?? notice}
          {!problem && notice && (
            <Button variant="ghost" size="sm" onPress={() => useTeam.getState().dismissNotice()}>
              Dismiss
            </Button>
          )}
        </p>
      )}
    </div>
  );
}
