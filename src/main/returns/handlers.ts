import type { Handlers } from '../ipc/dispatcher';
import type { ServiceCore } from '../core';

/** Returns of settled incoming SWIFT transfers. */
export function returnsHandlers(
  core: ServiceCore,
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
  const { returns } = core;
  return {
    'returns.lookup': ({ transactionId }) => returns.lookup(transactionId),
    'returns.recent': async () => ({ items: await returns.recent() }),
    'returns.createIntent': (args) => returns.createIntent(args),
    'returns.review': ({ transactionId }) => returns.review(transactionId),
    'returns.confirm': ({ transactionId }) => returns.confirm(transactionId),
    'returns.cancel': ({ transactionId }) => returns.cancel(transactionId),
    'returns.list': async () => ({ entries: await returns.list() }),
  };
}
