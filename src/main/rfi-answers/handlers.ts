import type { Handlers } from '../ipc/dispatcher';
import type { ServiceCore } from '../core';

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
export function rfiAnswersHandlers(core: ServiceCore): Pick<Handlers, RfiAnswerChannels> {
  const a = () => core.rfiAnswers;
  return {
    'drafts.get': async ({ rfiId }) => ({ drafts: await a().getDrafts(rfiId) }),
    'drafts.save': (args) => a().saveDraft(args),
    'drafts.discard': async ({ rfiId, questionId }) => {
      await a().discardDraft(rfiId, questionId);
      return null;
    },
    'answers.submit': (args) => a().submit(args),
    'answers.retry': ({ answerId }) => a().outbox.retry(answerId),
    'answers.dismiss': async ({ answerId }) => {
      await a().dismiss(answerId);
      return null;
    },
    'answers.list': async (args) => ({ answers: a().outbox.list(args?.rfiId) }),
    'answers.status': async () => ({ ...a().status(), limits: a().limits() }),
    'files.pick': ({ documentType, multiple }) => a().pick(documentType, multiple ?? true),
    'files.stageDropped': async (args) => {
      switch (args.op) {
        case 'begin': {
          const stagingId = await a().files.begin(args);
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
