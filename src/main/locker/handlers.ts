import type { Handlers } from '../ipc/dispatcher';
import type { Locker } from './service';

type LockerChannels =
  | 'locker.list'
  | 'locker.add'
  | 'locker.replace'
  | 'locker.update'
  | 'locker.remove'
  | 'locker.forQuestion'
  | 'locker.attach';

/** The evidence locker. Files come from main's picker or a staged ref main issued, never a path. */
export function lockerHandlers(locker: Locker): Pick<Handlers, LockerChannels> {
  return {
    'locker.list': async (filter) => ({ documents: await locker.list(filter ?? {}) }),
    'locker.add': ({ source, documentType, holder, note, issuedOn, expiresOn }) =>
      locker.add(source, { documentType, holder, note, issuedOn, expiresOn }),
    'locker.replace': ({ id, source, issuedOn, expiresOn }) =>
      locker.replace(id, source, { issuedOn, expiresOn }),
    'locker.update': ({ id, documentType, holder, note }) =>
      locker.update(id, { documentType, holder, note }),
    'locker.remove': async ({ id }) => ({ removed: await locker.remove(id) }),
    'locker.forQuestion': ({ questionType }) => locker.forQuestion(questionType),
    'locker.attach': ({ id, rfiId, questionId, profileId }) =>
      locker.attach(id, rfiId, questionId, profileId),
  };
}
