import { Users } from 'lucide-react';
import { useSubscription } from '../../lib/events';
import { teamSubscription, useTeam } from './store';
import { teamStatusWords } from './words';

/**
 * The team connection in the header, beside the bank's status and never mixed with it: nothing in
 * solo use; otherwise where the team server stands and how many team changes wait.
 */
export function TeamStatus() {
  useSubscription(teamSubscription);
  const status = useTeam((s) => s.status);
  if (!status?.serverUrl) return null;
  const tone =
    status.connection === 'connected' ? 'ok' : status.connection === 'unreachable' ? 'warn' : 'info';
  return (
    <span className={`team-status tone--${tone}`} role="status" data-testid="team-status">
      <Users size={16} aria-hidden="true" />
      <span>{teamStatusWords(status)}</span>
    </span>
  );
}
