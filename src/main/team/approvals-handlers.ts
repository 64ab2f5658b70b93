import type { Handlers } from '../ipc/dispatcher';
import type { TeamApprovals } from './approvals-service';

type ApprovalChannel =
  | 'team.approvalRules'
  | 'team.setApprovalRules'
  | 'team.answerApproval'
  | 'team.askApproval'
  | 'team.decideApproval'
  | 'team.approvals';

/** team.* approvals: rules, asking, deciding, each answer's approval in words. */
export function teamApprovalHandlers(a: TeamApprovals): Pick<Handlers, ApprovalChannel> {
  return {
    'team.approvalRules': async () => a.rules(),
    'team.setApprovalRules': ({ legalEntityId, rules }) => a.setRules(legalEntityId, rules),
    'team.answerApproval': (ref) => a.forAnswer(ref),
    'team.askApproval': (input) => a.ask(input),
    'team.decideApproval': (input) => a.decide(input),
    'team.approvals': async (args) => a.list(args?.rfiId),
  };
}

/**
 * The answer workspace's channels with the team's four-eyes rule in front: an answer the rules
 * give a checker goes to the bank only as the send job of an approval covering it exactly, and a
 * saved draft that differs from what was asked for is asked for again (the old approval no longer
 * covers it). Solo use passes through unchanged.
 */
export function withApprovalGate(
  answers: Pick<Handlers, 'drafts.save' | 'answers.submit'>,
  a: TeamApprovals,
): Pick<Handlers, 'drafts.save' | 'answers.submit'> {
  return {
    'drafts.save': async (args) => {
      const saved = await answers['drafts.save'](args);
      await a.draftSaved(args);
      return saved;
    },
    'answers.submit': async (args) => {
      // The saved draft is what an approval covers: the page's content is saved first.
      await answers['drafts.save'](args);
      return (await a.submit(args)) ?? answers['answers.submit'](args);
    },
  };
}
