import type { Handlers } from '../ipc/dispatcher';
import type { BankScope } from '../bank/scope';
import type { RfiAnswers } from './index';
import { FOR_LOCKER } from './files';

export interface RfiAnswersHandlerDeps {
  answers: RfiAnswers;
  /**
   * The bank scope of the profile that owns an RFI: the named profile's, which must be a known,
   * watched profile holding the RFI, and, when a question is named, whose RFI has that question
   * as far as main can know (a typed refusal otherwise). No other profile is ever taken instead.
   */
  ownerScope(rfiId: string, profileId: string, questionId?: string): Promise<BankScope>;
  /**
   * The profile files are staged for: the named one as main knows it (a typed not_found on
   * `profileId` for a profile that is not known or not watched). A staged file is bound to it.
   */
  stagingOwner(profileId: string): string;
}

type RfiAnswerChannels =
  | 'drafts.get'
  | 'drafts.save'
  | 'drafts.discard'
  | 'answers.submit'
  | 'answers.retry'
  | 'answers.dismiss'
  | 'answers.list'
  | 'answers.status'
  | 'files.pick'
  | 'files.stageDropped';

/** Drafts, staged files and the answer outbox. */
export function rfiAnswersHandlers(deps: RfiAnswersHandlerDeps): Pick<Handlers, RfiAnswerChannels> {
  const a = () => deps.answers;
  /** The draft or answer with its owner's scope in place of the profile the page named. */
  const owned = async <T extends { rfiId: string; questionId: string; profileId: string }>({
    profileId,
    ...rest
  }: T) => ({ ...rest, owner: await deps.ownerScope(rest.rfiId, profileId, rest.questionId) });
  return {
    'drafts.get': async ({ rfiId, profileId }) => ({
      drafts: await a().getDrafts(rfiId, await deps.ownerScope(rfiId, profileId)),
    }),
    'drafts.save': async (args) => a().saveDraft(await owned(args)),
    'drafts.discard': async ({ rfiId, questionId, profileId }) => {
      await a().discardDraft(rfiId, questionId, await deps.ownerScope(rfiId, profileId));
      return null;
    },
    'answers.submit': async (args) => a().submit(await owned(args)),
    'answers.retry': ({ answerId }) => a().outbox.retry(answerId),
    'answers.dismiss': async ({ answerId }) => {
      await a().dismiss(answerId);
      return null;
    },
    // Narrowed to one profile's answers when the page names it (RFI ids are one bank's only).
    'answers.list': async (args) => ({
      answers: a()
        .outbox.list(args?.rfiId)
        .filter((x) => !args?.profileId || x.bank === null || x.bank.profileId === args.profileId),
    }),
    'answers.status': async () => ({ ...a().status(), limits: a().limits() }),
    'files.pick': ({ documentType, multiple, profileId }) =>
      a().pick(documentType, multiple ?? true, deps.stagingOwner(profileId)),
    'files.stageDropped': async (args) => {
      switch (args.op) {
        case 'begin': {
          const stagingId = await a().files.begin({ ...args, profileId: deps.stagingOwner(args.profileId) });
          return { stagingId, receivedBytes: 0, file: null };
        }
        case 'beginForLocker': {
          const stagingId = await a().files.begin({ ...args, profileId: FOR_LOCKER });
          return { stagingId, receivedBytes: 0, file: null };
        }
        case 'chunk': {
          const receivedBytes = await a().files.chunk(args.stagingId, args.offset, args.data);
          return { stagingId: args.stagingId, receivedBytes, file: null };
        }
        case 'commit': {
          const file = await a().files.commit(args.stagingId);
          return { stagingId: null, receivedBytes: file.sizeBytes, file };
        }
        case 'abort':
          await a().files.abort(args.stagingId);
          return { stagingId: null, receivedBytes: 0, file: null };
      }
    },
  };
}
