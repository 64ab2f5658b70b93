import type { Handlers } from '../ipc/dispatcher';
import type { ServiceCore } from '../core';

type LockerChannels =
  | 'locker.list'
  | 'locker.add'
  | 'locker.replace'
  | 'locker.update'
  | 'locker.remove'
  | 'locker.forQuestion'
  | 'locker.attach';

/** The evidence locker. Files come from main's picker or a staged ref main issued, never a path. */
export function lockerHandlers(core: ServiceCore): Pick<Handlers, LockerChannels> {
  return {
    'locker.list': async (filter) => ({ documents: await core.locker.list(filter ?? {}) }),
    'locker.add': ({ source, documentType, holder, note, issuedOn, expiresOn }) =>
      core.locker.add(source, { documentType, holder, note, issuedOn, expiresOn }),
    'locker.replace': ({ id, source, issuedOn, expiresOn }) =>
      core.locker.replace(id, source, { issuedOn, expiresOn }),
    'locker.update': ({ id, documentType, holder, note }) =>
      core.locker.update(id, { documentType, holder, note }),
    'locker.remove': async ({ id }) => ({ removed: await core.locker.remove(id) }),
    'locker.forQuestion': ({ questionType }) => core.locker.forQuestion(questionType),
    'locker.attach': ({ id, rfiId, questionId }) => core.locker.attach(id, rfiId, questionId),
  };
}
