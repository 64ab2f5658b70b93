/**
 * Four-eyes approval of returns, joined to the app: each transfer's legal entity from the profile
 * that owns it (what the bank said about its credential), the entity's rules as the answers'
 * approvals read them, and the transfer read and confirmed through the returns service (so the
 * confirm is audited and followed like any other), with the owning profile's own credential.
 */
import type { CryptoService } from '../crypto/service';
import type { ReturnsService } from '../returns/service';
import { createExchangeMandates, type ExchangeMandates } from '../team/exchange-mandates';
import type { TeamApprovals } from '../team/approvals-service';
import { createReturnApprovals, type ReturnApprovals } from '../team/return-approvals';
import type { TeamService } from '../team/service';
import type { EntityWatch } from '../watch/entity-watch';
import type { Foundation } from './foundation';
import type { Owners } from './owners';
import { watchedMembers, workstationName } from './features';

/**
 * What every team approval flow of this workstation is built on alike: the team's transport and
 * names, the rules the answers' approvals read, the legal entity of an owning profile (what the
 * bank said about its credential), the workstation's lease name, its send leases' keeper and the
 * change notice.
 */
function approvalBase(
  f: Foundation,
  o: Owners,
  team: TeamService,
  approvals: TeamApprovals,
  removed: string,
) {
  return {
    http: team.http,
    approvals: approvals.book,
    log: f.log,
    analyst: () => (team.status().serverUrl ? team.status().analyst : null),
    nameOf: (id: string, subject: string) => team.book.nameOf(id, subject),
    rulesOf: (id: string) => approvals.book.rules(id),
    async entityOf(profileId: string): Promise<string | null> {
      const owner = o.existingOwner(profileId, removed);
      if (!owner.credential) await owner.check().catch(() => undefined);
      return owner.credential?.legalEntityId ?? null;
    },
    workstation: workstationName(f.dataDir),
    // Money sends keep their lease while the bank writes, with the answers' keeper.
    leases: approvals.leases,
    onChange: () => f.events.emit('team.approvalsChanged', { notice: null }),
  };
}

export function assembleReturnApprovals(
  f: Foundation,
  o: Owners,
  team: TeamService,
  approvals: TeamApprovals,
  returns: ReturnsService,
  entityWatch: EntityWatch,
): ReturnApprovals {
  return createReturnApprovals({
    ...approvalBase(f, o, team, approvals, 'The profile this transfer belongs to was removed.'),
    profileFor(legalEntityId) {
      const reaching = watchedMembers(entityWatch).filter(
        (m) => m.session.scope().legalEntityId === legalEntityId,
      );
      const admin = reaching.find((m) => o.ownerSession(m.profileId).credential?.role === 'admin');
      return (admin ?? reaching[0])?.profileId ?? null;
    },
    entityName: (id) =>
      team.status().analyst?.memberships.find((m) => m.legalEntityId === id)?.legalEntityName ?? id,
    read: ({ profileId, transactionId }) => returns.lookup(transactionId, profileId),
    confirm: ({ profileId, transactionId }) => returns.confirm(transactionId, profileId),
  });
}

/** Exchange mandates, joined to the crypto service: each order read and confirmed through its owning profile. */
export function assembleExchangeMandates(
  f: Foundation,
  o: Owners,
  team: TeamService,
  approvals: TeamApprovals,
  crypto: CryptoService,
): ExchangeMandates {
  return createExchangeMandates({
    ...approvalBase(f, o, team, approvals, 'The profile this order belongs to was removed.'),
    order: (ref) => crypto.order(ref, true),
    confirm: (ref) => crypto.confirm(ref),
    async confirmedAtBank(profileId, transactionId) {
      const tx = await o.ownerSession(profileId).bank.getTransaction(transactionId);
      return !!tx.crypto_trade_v2?.quote_confirmed_at;
    },
  });
}
