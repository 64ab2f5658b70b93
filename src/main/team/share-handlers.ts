import type { Handlers } from '../ipc/dispatcher';
import type { TeamShare } from './share';

type TeamShareChannel =
  | 'team.sharedEvidence'
  | 'team.shareEvidence'
  | 'team.attachEvidence'
  | 'team.notes'
  | 'team.addNote'
  | 'team.presence'
  | 'team.activity';

/** team.* of what the team shares (evidence, notes, presence, activity), translated to the service. */
export function teamShareHandlers(share: TeamShare): Pick<Handlers, TeamShareChannel> {
  return {
    'team.sharedEvidence': async (args) => ({ entities: await share.evidence(args?.profileId) }),
    'team.shareEvidence': async ({ lockerId, profileId }) => share.shareEvidence(lockerId, profileId),
    'team.attachEvidence': async ({ documentId, rfiId, questionId, profileId }) =>
      share.attachEvidence(documentId, rfiId, questionId, profileId),
    'team.notes': async ({ rfiId, profileId }) => share.notes(rfiId, profileId),
    'team.addNote': async ({ rfiId, profileId, text }) => share.addNote(rfiId, text, profileId),
    'team.presence': async ({ rfiId, profileId, activity }) => ({
      present: await share.presence(rfiId, activity, profileId),
    }),
    'team.activity': async (args) =>
      share.activity(
        !args
          ? {}
          : args.rfiId
            ? { rfiId: args.rfiId, profileId: args.profileId }
            : { profileId: args.profileId },
      ),
  };
}
