/**
 * Names of the objects RFIs are about, for the analyst's notifications: an account by the name in
 * the account book, a transaction by its counterparty and amount (read from the bank). Best effort:
 * what cannot be named stays its id.
 */

import type { Rfi } from '../../shared/api/rfis';
import { formatMinor, parseMinor } from '../../shared/money';
import type { BankClient } from '../bank/client';
import type { Logger } from '../infra/log';

export interface RelatedNamesDeps {
  bank: Pick<BankClient, 'getTransaction'>;
  /** The account book of the active environment: account id → name. */
  accountNames(): Promise<ReadonlyMap<string, string>>;
  log: Logger;
}

/** Resolves the related objects of a few RFIs (callers keep it to a handful: one read each). */
export function relatedNamesResolver(deps: RelatedNamesDeps) {
  return async (rfis: readonly Rfi[]): Promise<Map<string, string>> => {
    const names = new Map<string, string>();
    const accounts = await deps.accountNames().catch(() => new Map<string, string>());
    for (const rfi of rfis) {
      const id = rfi.related_id;
      if (!id || names.has(id)) continue;
      const account = accounts.get(id);
      if (account) {
        names.set(id, account);
        continue;
      }
      if (rfi.type !== 'transaction') continue;
      try {
        const t = await deps.bank.getTransaction(id);
        const incoming = t.fi_to_fi_swift_incoming;
        if (incoming) {
          names.set(
            id,
            `${incoming.debtor_name}, ${formatMinor(parseMinor(incoming.amount), incoming.currency)}`,
          );
        }
      } catch (err) {
        deps.log.info('rfis: related transaction not named', { error: err });
      }
    }
    return names;
  };
}
