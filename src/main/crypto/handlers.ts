import type { Handlers } from '../ipc/dispatcher';
import type { ServiceCore } from '../core';

type CryptoChannels =
  | 'crypto.context'
  | 'crypto.saveAccount'
  | 'crypto.removeAccount'
  | 'crypto.quote'
  | 'crypto.requote'
  | 'crypto.confirm'
  | 'crypto.order'
  | 'crypto.list';

/** Digital-asset exchange: the account book, quotes, guarded confirmation, the order list. */
export function cryptoHandlers(core: ServiceCore): Pick<Handlers, CryptoChannels> {
  return {
    'crypto.context': (args) => core.crypto.context(args?.profileId),
    'crypto.saveAccount': ({ accountId, label, asset, profileId }) =>
      core.crypto.saveAccount({
        accountId,
        label,
        ...(asset !== undefined ? { asset } : {}),
        ...(profileId !== undefined ? { profileId } : {}),
      }),
    'crypto.removeAccount': ({ accountId, profileId }) => core.crypto.removeAccount(accountId, profileId),
    'crypto.quote': (args) => core.crypto.quote(args),
    'crypto.requote': ({ orderId }) => core.crypto.requote(orderId),
    'crypto.confirm': ({ orderId }) => core.crypto.confirm(orderId),
    'crypto.order': ({ orderId, refresh }) => core.crypto.order(orderId, refresh ?? false),
    'crypto.list': async () => ({ orders: await core.crypto.list() }),
  };
}
