/** Legal entities, their credentials and accounts, and the fixtures listing them. */
import type { Account, Credential, LegalEntity, User } from '../model';
import type { BankState } from './state';

export class Parties {
  constructor(private readonly s: BankState) {}

  addLegalEntity(name: string): LegalEntity {
    const le: LegalEntity = {
      id: this.s.ids.id('le'),
      name,
      tokens: { admin: '' },
      accountIds: [],
      incomingTransferIds: [],
      seededRfiIds: [],
    };
    this.s.legalEntities.push(le);
    this.s.legalEntityById.set(le.id, le);
    this.s.rfisByLe.set(le.id, []);
    return le;
  }

  addCredential(
    le: LegalEntity,
    role: 'admin' | 'viewer',
    user: Omit<User, 'id'>,
    createdAt: number,
  ): Credential {
    const token = `tds_${role}_${this.s.ids.hex(40)}`;
    const cred: Credential = {
      token,
      name: `${le.name} ${role} credential`,
      legalEntityId: le.id,
      role,
      user: { id: this.s.ids.id('usr'), ...user },
      webhookUrl: '',
      createdAt,
      updatedAt: createdAt,
    };
    this.s.credentials.set(token, cred);
    if (role === 'admin' && !le.tokens.admin) le.tokens.admin = token;
    if (role === 'viewer' && !le.tokens.viewer) le.tokens.viewer = token;
    return cred;
  }

  addAccount(le: LegalEntity, name: string, asset: string, balance: bigint): Account {
    const isUsd = asset === 'USD';
    const acc: Account = {
      id: this.s.ids.id('acc'),
      legalEntityId: le.id,
      name,
      asset,
      iban: isUsd
        ? `GB${this.s.ids.int(10, 99)}TDSK${this.s.ids.hex(14).replace(/[a-f]/g, (c) => String(c.charCodeAt(0) % 10))}`
        : '',
      walletAddress: isUsd ? '' : `0x${this.s.ids.hex(40)}`,
      balance,
      held: 0n,
    };
    this.s.accounts.set(acc.id, acc);
    le.accountIds.push(acc.id);
    return acc;
  }

  serializeAccount(a: Account): Record<string, unknown> {
    return {
      id: a.id,
      name: a.name,
      asset: a.asset,
      iban: a.iban,
      wallet_address: a.walletAddress,
      balance: a.balance.toString(),
    };
  }

  fixtures(): Record<string, unknown> {
    return {
      legal_entities: this.s.legalEntities.map((le) => ({
        id: le.id,
        name: le.name,
        tokens: { ...le.tokens },
        accounts: le.accountIds.flatMap((id) => {
          const a = this.s.accounts.get(id);
          return a ? [this.serializeAccount(a)] : [];
        }),
        incoming_transfers: le.incomingTransferIds.flatMap((id) => {
          const t = this.s.txns.get(id);
          const inc = t?.incoming;
          return t && inc
            ? [
                {
                  transaction_id: t.id,
                  amount: inc.amount.toString(),
                  currency: inc.currency,
                  creditor_account_id: inc.creditorAccountId,
                  status: t.status,
                },
              ]
            : [];
        }),
        rfi_ids: [...le.seededRfiIds],
      })),
    };
  }
}
