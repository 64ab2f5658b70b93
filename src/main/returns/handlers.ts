import type { Handlers } from '../ipc/dispatcher';
import type { ReturnsService } from './service';

/** Returns of settled incoming SWIFT transfers, each through the profile that owns the transfer. */
export function returnsHandlers(
  returns: ReturnsService,
): Pick<
  Handlers,
  | 'returns.lookup'
  | 'returns.recent'
  | 'returns.createIntent'
  | 'returns.review'
  | 'returns.confirm'
  | 'returns.cancel'
  | 'returns.list'
> {
  return {
    'returns.lookup': ({ transactionId, profileId }) => returns.lookup(transactionId, profileId),
    'returns.recent': async () => ({ items: await returns.recent() }),
    'returns.createIntent': (args) => returns.createIntent(args),
    'returns.review': ({ transactionId, profileId }) => returns.review(transactionId, profileId),
    'returns.confirm': ({ transactionId, profileId }) => returns.confirm(transactionId, profileId),
    'returns.cancel': ({ transactionId, profileId }) => returns.cancel(transactionId, profileId),
    'returns.list': async () => ({ entries: await returns.list() }),
  };
}
