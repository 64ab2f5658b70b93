/**
 * Names of the objects RFIs are about, for every place that names one (the queue, an RFI's
 * screen, due-soon reminders, notifications, case files): an account by its own name and holder
 * from the owning profile's account book, a transfer by its counterparty and amount as the owning
 * profile's bank tells it. Always the RFI's owner, never the default profile: another entity's
 * transfer is not even visible to the default profile's token. What cannot be named is left out
 * (callers show the kind with the id as a secondary detail).
 */

import type { Transaction } from '../../shared/api/transactions';
import { isAppFailure } from '../../shared/ipc/errors';
import { formatMinor, parseMinor } from '../../shared/money';
import type { RelatedName } from '../../shared/words';
import type { BankClient } from '../bank/client';
import type { Logger } from '../infra/log';

export interface RelatedObject {
  type: string;
  relatedId: string;
}

export interface RelatedNamesDeps {
  /** The bank client of the named profile (throws for a profile that does not exist). */
  bank(profileId: string): Pick<BankClient, 'getTransaction'>;
  /** The named profile's account book: each account's own name and its holder's name when known. */
  accounts(
    profileId: string,
  ): Promise<ReadonlyArray<{ accountId: string; name: string; holder: string | null }>>;
  log: Logger;
  /** How many transactions are read from one bank at once (default 4). */
  concurrency?: number;
}

export interface RelatedNames {
  /** The names the profile's account book and bank give these objects, by related id. */
  names(profileId: string, items: readonly RelatedObject[]): Promise<Map<string, RelatedName>>;
}

/** Transactions named per resolver, at most (the oldest answers are forgotten first). */
const CACHE_CAP = 5000;

/** A transaction in words: an incoming transfer by its debtor and amount, an exchange by its trade. */
export function transactionName(t: Transaction): RelatedName | null {
  const incoming = t.fi_to_fi_swift_incoming;
  if (incoming) {
    const transfer = {
      counterparty: incoming.debtor_name,
      amount: incoming.amount,
      currency: incoming.currency,
    };
    try {
      const name = `${incoming.debtor_name}, ${formatMinor(parseMinor(incoming.amount), incoming.currency)}`;
      return { name, holder: null, transfer };
    } catch {
      return { name: incoming.debtor_name, holder: null, transfer };
    }
  }
  const trade = t.crypto_trade_v2;
  if (trade) {
    const verb = trade.side === 'sell' ? 'Sell' : trade.side === 'buy' ? 'Buy' : trade.side;
    try {
      const amount = formatMinor(parseMinor(trade.customer_requested_amount), trade.customer_requested_asset);
      return { name: `${verb} ${amount}`, holder: null };
    } catch {
      return { name: `${verb} ${trade.symbol}`, holder: null };
    }
  }
  return null;
}

export function createRelatedNames(deps: RelatedNamesDeps): RelatedNames {
  // profileId → transaction id → its name (null: the bank answered and there is nothing to name).
  const known = new Map<string, Map<string, RelatedName | null>>();
  const inFlight = new Map<string, Promise<RelatedName | null | undefined>>();
  const limit = Math.max(1, deps.concurrency ?? 4);

  const remember = (profileId: string, id: string, value: RelatedName | null): void => {
    let m = known.get(profileId);
    if (!m) known.set(profileId, (m = new Map()));
    m.set(id, value);
    if (m.size > CACHE_CAP) {
      const first = m.keys().next();
      if (!first.done) m.delete(first.value);
    }
  };

  /** One transaction's name (undefined: not known now, asked again next time). */
  const readTransaction = (
    bank: Pick<BankClient, 'getTransaction'>,
    profileId: string,
    id: string,
  ): Promise<RelatedName | null | undefined> => {
    const key = `${profileId}\u0000${id}`;
    const running = inFlight.get(key);
    if (running) return running;
    const p = (async () => {
      try {
        const value = transactionName(await bank.getTransaction(id));
        remember(profileId, id, value);
        return value;
      } catch (err) {
        // The bank said the object is not there (or not this profile's): no use asking again.
        if (isAppFailure(err) && (err.kind === 'not_found' || err.kind === 'forbidden')) {
          remember(profileId, id, null);
          return null;
        }
        deps.log.info('rfis: related transaction not named', { error: err });
        return undefined;
      } finally {
        inFlight.delete(key);
      }
    })();
    inFlight.set(key, p);
    return p;
  };

  return {
    async names(profileId, items) {
      // The owner's client first: a profile that does not exist is refused (not_found), not guessed.
      const bank = deps.bank(profileId);
      const out = new Map<string, RelatedName>();
      const book = await deps.accounts(profileId).catch((err: unknown) => {
        deps.log.info('rfis: account book not read for related names', { error: err });
        return [];
      });
      const accounts = new Map(book.map((a) => [a.accountId, a] as const));
      const ask: string[] = [];
      const cached = known.get(profileId);
      for (const { type, relatedId: id } of items) {
        if (!id || out.has(id) || ask.includes(id)) continue;
        const account = accounts.get(id);
        if (account) {
          out.set(id, { name: account.name, holder: account.holder });
          continue;
        }
        if (type !== 'transaction') continue;
        const c = cached?.get(id);
        if (c) out.set(id, c);
        else if (c === undefined) ask.push(id);
      }
      // A few reads at a time through the owner's client (its retries and identity apply).
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < ask.length) {
          const id = ask[next++]!;
          const name = await readTransaction(bank, profileId, id);
          if (name) out.set(id, name);
        }
      };
      await Promise.all(Array.from({ length: Math.min(limit, ask.length) }, worker));
      // In the order asked.
      const ordered = new Map<string, RelatedName>();
      for (const { relatedId } of items) {
        const name = out.get(relatedId);
        if (name) ordered.set(relatedId, name);
      }
      return ordered;
    },
  };
}
