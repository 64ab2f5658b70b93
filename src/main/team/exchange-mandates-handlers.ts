import type { Handlers } from '../ipc/dispatcher';
import type { ExchangeMandates } from './exchange-mandates';

/** team.* exchange mandates: the list, asking, deciding. */
export function teamMandateHandlers(
  m: ExchangeMandates,
): Pick<Handlers, 'team.mandates' | 'team.askMandate' | 'team.decideMandate'> {
  return {
    'team.mandates': async () => m.list(),
    'team.askMandate': (input) => m.ask(input),
    'team.decideMandate': (input) => m.decide(input),
  };
}

/**
 * crypto.confirm with the team's mandate rule in front: a quote the rules give a checker is
 * confirmed only inside an approved mandate (refused before the bank is called otherwise). Solo
 * use passes through unchanged.
 */
export function withMandateGate(
  crypto: Pick<Handlers, 'crypto.confirm'>,
  m: ExchangeMandates,
): Pick<Handlers, 'crypto.confirm'> {
  return {
    'crypto.confirm': (args) => m.confirm(args, () => crypto['crypto.confirm'](args)),
  };
}
