import type { Handlers } from '../ipc/dispatcher';
import type { TeamService } from './service';

type TeamChannel =
  | 'team.status'
  | 'team.setServer'
  | 'team.signIn'
  | 'team.signOut'
  | 'team.assignments'
  | 'team.claim'
  | 'team.release'
  | 'team.reassign';

/** team.*: the team connection and RFI assignment, translated to the team service. */
export function teamHandlers(team: TeamService): Pick<Handlers, TeamChannel> {
  return {
    'team.status': async () => team.status(),
    'team.setServer': async ({ url }) => team.setServer(url),
    'team.signIn': async () => team.signIn(),
    'team.signOut': async () => team.signOut(),
    'team.assignments': async () => team.assignments(),
    'team.claim': async ({ rfiId, profileId }) => team.change('claim', rfiId, profileId),
    'team.release': async ({ rfiId, profileId }) => team.change('release', rfiId, profileId),
    'team.reassign': async ({ rfiId, profileId, from, to }) =>
      team.change('reassign', rfiId, profileId, { from, to }),
  };
}
