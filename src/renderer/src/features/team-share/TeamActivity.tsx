import { useEffect, useState } from 'react';
import type { ChannelResult } from '../../../../shared/ipc/contract';
import { dateWords } from '../../../../shared/words';
import { Badge } from '../../components/ui';
import { call, errorMessage } from '../../lib/desk';
import { onEvents, useSubscription } from '../../lib/events';
import './team-share.css';
import { teamActive, teamSubscription, useTeam } from '../team/store';
import { sharedEvidenceSubscription, useShared } from './store';

type TeamLog = NonNullable<ChannelResult<'team.activity'>>;

/**
 * The team activity log beside the local one: a legal entity's entries (or one RFI's) from the
 * team server, named by who did them, marked as the team's, with the hash chain's check in words.
 * Nothing in solo use.
 */
export function TeamActivity({
  rfiId,
  profileId,
}: { rfiId: string; profileId: string } | { rfiId?: undefined; profileId?: string }) {
  useSubscription(teamSubscription);
  const active = useTeam((s) => teamActive(s.status));
  const [log, setLog] = useState<TeamLog | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const key = `${rfiId ?? ''}/${profileId ?? ''}`;

  useEffect(() => {
    if (!active) return;
    let live = true;
    const load = (): void => {
      call('team.activity', profileId ? { profileId, ...(rfiId ? { rfiId } : {}) } : undefined)
        .then((r) => {
          if (!live) return;
          setLog(r);
          setProblem(null);
        })
        .catch((err: unknown) => live && setProblem(errorMessage(err)));
    };
    load();
    const off = onEvents({ 'team.shared': (e) => e.topic === 'activity' && load() });
    return () => {
      live = false;
      off();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the key names the target
  }, [active, key]);

  if (!active || (!log && !problem)) return null;
  const title = rfiId
    ? 'From the team log: this RFI'
    : `From the team log${log ? `: ${log.legalEntityName}` : ''}`;
  return (
    <section aria-labelledby={`team-log-${key}`} className="team-activity" data-testid="team-activity">
      <h2 id={`team-log-${key}`}>{title}</h2>
      {problem && (
        <p role="alert" className="field-error">
          {problem}
        </p>
      )}
      {log && (
        <>
          <p
            className={log.chain.intact ? 'muted' : 'notice notice--bad'}
            role={log.chain.intact ? undefined : 'alert'}
            data-testid="team-chain"
          >
            {log.chain.words}
          </p>
          {log.offline && (
            <p className="muted">The team server cannot be reached: these are the entries last read.</p>
          )}
          {log.entries.length === 0 ? (
            <p className="muted">Nothing in the team log yet.</p>
          ) : (
            <table className="team-activity__table">
              <caption className="visually-hidden">Team activity entries, oldest first</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">What</th>
                  <th scope="col">Source</th>
                </tr>
              </thead>
              <tbody>
                {log.entries.map((e) => (
                  <tr key={e.seq} data-testid="team-activity-entry">
                    <td>{dateWords(e.at)}</td>
                    <td>{e.actor.isYou ? 'You' : e.actor.name}</td>
                    <td>{e.words}</td>
                    <td>
                      <Badge
                        tone={log.chain.brokenAt !== null && e.seq >= log.chain.brokenAt ? 'bad' : 'info'}
                      >
                        Team log #{e.seq}
                      </Badge>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}

/**
 * The team log of every legal entity the analyst's profiles reach in the team, one section each
 * (read through a profile of that entity), so Birch's log is there beside Alder's whichever
 * profile is the default. Until main has named the entities: the default profile's.
 */
export function TeamLogs() {
  useSubscription(sharedEvidenceSubscription);
  const entities = useShared((s) => s.entities);
  if (entities.length === 0) return <TeamActivity />;
  return (
    <>
      {entities.map((e) => (
        <TeamActivity key={e.legalEntityId} profileId={e.profileId} />
      ))}
    </>
  );
}
