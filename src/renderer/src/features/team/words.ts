import type { TeamStatusView } from '../../../../shared/ipc/channels/team';

type Analyst = NonNullable<TeamStatusView['analyst']>;

const time = (ms: number): string =>
  new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** "Signed in as Maria Keller (maker, admin at Alder Trade GmbH)". */
export function whoWords(analyst: Analyst): string {
  const roles = analyst.memberships
    .map((m) => `${[...m.roles].sort(byRole).join(', ')} at ${m.legalEntityName}`)
    .join('; ');
  return `Signed in as ${analyst.name}${roles ? ` (${roles})` : ''}.`;
}

const order = ['maker', 'checker', 'admin', 'viewer'];
function byRole(a: string, b: string): number {
  return order.indexOf(a) - order.indexOf(b);
}

/** The team connection in words, for the header and Settings (the team's own, never the bank's). */
export function teamStatusWords(status: TeamStatusView, now = Date.now()): string {
  const pending =
    status.pendingChanges > 0
      ? ` ${status.pendingChanges} change${status.pendingChanges === 1 ? '' : 's'} waiting.`
      : '';
  switch (status.connection) {
    case 'solo':
      return '';
    case 'signed-out':
      return 'Team: signed out.';
    case 'signing-in':
      return 'Team: finish signing in in your browser.';
    case 'connecting':
      return `Team: connecting…${pending}`;
    case 'connected':
      return `Team: connected.${pending}`;
    case 'unreachable': {
      const retry = status.retryAt ? Math.max(0, Math.ceil((status.retryAt - now) / 1000)) : null;
      return `Team server unreachable since ${status.since ? time(status.since) : 'now'}${retry !== null ? `, retrying in ${retry} s` : ''}.${pending}`;
    }
  }
}
