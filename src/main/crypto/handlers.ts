import type { Handlers } from '../ipc/dispatcher';
import type { CryptoService } from './service';

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
export function cryptoHandlers(crypto: CryptoService): Pick<Handlers, CryptoChannels> {
  return {
    'crypto.context': (args) => crypto.context(args?.profileId),
    'crypto.saveAccount': ({ accountId, label, asset, profileId }) =>
      crypto.saveAccount({
        accountId,
        label,
        ...(asset !== undefined ? { asset } : {}),
        profileId,
      }),
    'crypto.removeAccount': ({ accountId, profileId }) => crypto.removeAccount(accountId, profileId),
    'crypto.quote': (args) => crypto.quote(args),
    'crypto.requote': ({ profileId, orderId }) => crypto.requote({ profileId, orderId }),
    'crypto.confirm': ({ profileId, orderId }) => crypto.confirm({ profileId, orderId }),
    'crypto.order': ({ profileId, orderId, refresh }) =>
      crypto.order({ profileId, orderId }, refresh ?? false),
    'crypto.list': async () => ({ orders: await crypto.list() }),
  };
}
