/**
 * The composition of what the team shares (evidence locker, notes, presence, team activity):
 * the team connection's HTTP and feed, the analyst's own locker for what they share, the
 * answers' staging area for a shared document used in an answer, and the profiles the entity
 * watch follows (each with the legal entity its bank named).
 */
import path from 'node:path';
import { isDocumentType } from '../../shared/catalogue';
import { AppFailure } from '../../shared/ipc/errors';
import { documentTypeWords } from '../../shared/words';
import type { Locker } from '../locker/service';
import type { RfiAnswers } from '../rfi-answers';
import { createTeamShare, type TeamProfileEntity, type TeamShare } from '../team/share';
import type { TeamService } from '../team/service';
import type { EntityWatch } from '../watch/entity-watch';
import { watchedMembers } from './features';
import type { Foundation } from './foundation';

export async function assembleTeamShare(
  f: Foundation,
  team: TeamService,
  entityWatch: EntityWatch,
  locker: Locker,
  rfiAnswers: RfiAnswers,
): Promise<TeamShare> {
  /** Every watched profile with its entity's id and name, as the bank gives them. */
  const profiles = (): TeamProfileEntity[] =>
    watchedMembers(entityWatch).map(({ profileId, session }) => ({
      profileId,
      legalEntityId: session.scope().legalEntityId,
      legalEntityName: session.entityName(),
    }));
  const share = await createTeamShare({
    team,
    log: f.log,
    outboxFile: path.join(f.dataDir, 'team', 'share-outbox.json'),
    codec: f.atRest,
    onProblem: (message, file, movedTo) => f.stores.report({ file, movedTo, message }),
    profiles,
    ownerOf: async (rfiId, profileId) => {
      const owner = await entityWatch.owner(rfiId, profileId);
      return { profileId: owner.profileId, legalEntityId: owner.session.scope().legalEntityId };
    },
    async readLocal(lockerId) {
      const doc = (await locker.list()).find((d) => d.id === lockerId);
      if (!doc)
        throw new AppFailure({ kind: 'not_found', message: 'That document is no longer in your locker.' });
      if (doc.problem) throw new AppFailure({ kind: 'local', message: doc.problem });
      const { bytes } = await locker.read(lockerId);
      return {
        lockerId,
        fileName: doc.current.name,
        contentType: doc.current.contentType,
        documentType: doc.documentType,
        holder: doc.holder,
        issuedOn: doc.current.issuedOn,
        expiresOn: doc.current.expiresOn,
        bytes,
      };
    },
    stageForAnswer: async (a) => {
      if (!isDocumentType(a.documentType))
        throw new AppFailure({
          kind: 'invalid',
          message: `“${a.name}” has a document type the bank does not take.`,
        });
      return rfiAnswers.files.adopt({
        name: a.name,
        documentType: a.documentType,
        profileId: a.profileId,
        sizeBytes: a.sizeBytes,
        sha256: a.sha256,
        bytes: (async function* () {
          yield a.bytes;
        })(),
      });
    },
    documentTypeName: (t) => documentTypeWords(t),
    emit: (e) => f.events.emit('team.shared', e),
    ...(f.options.team?.outboxRetry ? { outboxRetry: f.options.team.outboxRetry } : {}),
  });
  f.disposables.add(() => share.dispose());
  return share;
}
