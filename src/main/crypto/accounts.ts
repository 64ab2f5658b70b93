/**
 * The exchange's account book, per profile: the accounts the analyst named, and for a profile on
 * the embedded sandbox its fixtures' accounts. The context a quote form needs comes from here.
 */

import { cleanName } from '../../shared/names';
import type { z } from 'zod';
import type { RunningSandbox } from '../../sandbox';
import type { AccountBookEntry, CryptoContext } from '../../shared/ipc/channels/crypto';
import type { TypedStore } from '../infra/stores';
import { canTrade } from './order-book';
import type { CryptoOwner } from './order-book';
import type { storedAccountSchema } from './stored';

export type StoredAccount = z.infer<typeof storedAccountSchema>;

export interface AccountBookDeps {
  accounts: TypedStore<{ accounts: StoredAccount[] }>;
  /** The named profile (not_found when it is gone), else the default profile. */
  owner(profileId?: string): CryptoOwner;
  /** The embedded sandbox, when it runs (its fixtures seed the sandbox profile's account book). */
  sandbox(): RunningSandbox | null;
  marginMs: number;
}

export interface AccountBook {
  context(profileId?: string): Promise<CryptoContext>;
  save(input: {
    accountId: string;
    label: string;
    asset?: string;
    profileId?: string;
  }): Promise<CryptoContext>;
  remove(accountId: string, profileId?: string): Promise<CryptoContext>;
}

export function createAccountBook(deps: AccountBookDeps): AccountBook {
  const { accounts } = deps;
  const seededFor = new Set<string>();

  const seedFromSandbox = (owner: CryptoOwner): void => {
    const sb = deps.sandbox();
    if (!sb || (owner.kind !== 'embedded-sandbox' && owner.origin !== new URL(sb.url).origin)) return;
    const key = `${owner.profileId}|${sb.url}`;
    if (seededFor.has(key)) return;
    seededFor.add(key);
    const env = owner.profileId;
    accounts.update((file) => {
      const have = new Set(file.accounts.filter((a) => a.environmentId === env).map((a) => a.accountId));
      const added: StoredAccount[] = [];
      // An account is labelled with its own name; its holder is said beside it where it is not
      // already named (shared/words.ts relatedWords). Labels seeded as "Holder: name" read as the name.
      const ownName = new Map<string, { old: string; name: string }>();
      for (const le of sb.fixtures.legal_entities) {
        for (const acc of le.accounts) {
          ownName.set(acc.id, { old: `${le.name}: ${acc.name}`, name: acc.name });
          if (have.has(acc.id)) continue;
          added.push({
            environmentId: env,
            accountId: acc.id,
            label: acc.name,
            asset: acc.asset,
            legalEntityId: le.id,
            source: 'sandbox',
          });
        }
      }
      const renamed = file.accounts.map((a) => {
        const seeded =
          a.environmentId === env && a.source === 'sandbox' ? ownName.get(a.accountId) : undefined;
        return seeded && a.label === seeded.old ? { ...a, label: seeded.name } : a;
      });
      return { accounts: [...renamed, ...added] };
    });
  };

  /** The legal entity holding an account, by name, as the embedded bank's fixtures give it. */
  const holderName = (legalEntityId: string | null): string | null =>
    (legalEntityId && deps.sandbox()?.fixtures.legal_entities.find((le) => le.id === legalEntityId)?.name) ||
    null;

  const context = async (profileId?: string): Promise<CryptoContext> => {
    const owner = deps.owner(profileId);
    if (!owner.credential) await owner.check().catch(() => undefined);
    seedFromSandbox(owner);
    const env = owner.profileId;
    const trade = canTrade(owner);
    return {
      environmentId: env,
      role: owner.credential?.role ?? null,
      legalEntityId: owner.credential?.legalEntityId ?? null,
      canTrade: trade.ok,
      readOnlyReason: trade.reason,
      accounts: accounts
        .get()
        .accounts.filter((a) => a.environmentId === env)
        .map(({ environmentId: _e, ...entry }): AccountBookEntry => ({
          ...entry,
          holderName: holderName(entry.legalEntityId),
        })),
      confirmMarginMs: deps.marginMs,
    };
  };

  return {
    context,
    async save({ accountId, label: typed, asset, profileId }) {
      const env = deps.owner(profileId).profileId;
      // A label is a name: kept without bidi, format or control characters (shared/names.ts).
      const label = cleanName(typed, 120) || accountId;
      accounts.update((file) => {
        const existing = file.accounts.find((a) => a.environmentId === env && a.accountId === accountId);
        const entry: StoredAccount = existing
          ? { ...existing, label, ...(asset !== undefined ? { asset } : {}) }
          : {
              environmentId: env,
              accountId,
              label,
              asset: asset ?? '',
              legalEntityId: null,
              source: 'analyst',
            };
        return {
          accounts: existing
            ? file.accounts.map((a) => (a === existing ? entry : a))
            : [...file.accounts, entry],
        };
      });
      return context(env);
    },
    async remove(accountId, profileId) {
      const env = deps.owner(profileId).profileId;
      accounts.update((file) => ({
        accounts: file.accounts.filter((a) => !(a.environmentId === env && a.accountId === accountId)),
      }));
      return context(env);
    },
  };
}
