import type { Handlers } from '../ipc/dispatcher';
import type { ReturnApprovals } from './return-approvals';

type ReturnApprovalChannel =
  'team.returnApproval' | 'team.askReturnApproval' | 'team.decideReturnApproval' | 'team.returnApprovals';

/** team.* approvals of returns: asking, deciding, each return's approval in words. */
export function teamReturnHandlers(r: ReturnApprovals): Pick<Handlers, ReturnApprovalChannel> {
  return {
    'team.returnApproval': (ref) => r.forReturn(ref),
    'team.askReturnApproval': (ref) => r.ask(ref),
    'team.decideReturnApproval': (input) => r.decide(input),
    'team.returnApprovals': async () => r.list(),
  };
}

/**
 * returns.confirm with the team's four-eyes rule in front: a return the rules give a checker goes
 * to the bank only as the send job of an approval covering the intent the bank holds, confirmed by
 * a checker with their own credential. Solo use passes through unchanged.
 */
export function withReturnApprovalGate(
  returns: Pick<Handlers, 'returns.confirm'>,
  r: ReturnApprovals,
): Pick<Handlers, 'returns.confirm'> {
  return {
    'returns.confirm': (args) =>
      r.confirm({ profileId: args.profileId, transactionId: args.transactionId }, () =>
        returns['returns.confirm'](args),
      ),
  };
}
