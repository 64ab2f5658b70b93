/**
 * Four-eyes approval of returns, joined to the app: each transfer's legal entity from the profile
 * that owns it (what the bank said about its credential), the entity's rules as the answers'
 * approvals read them, and the transfer read and confirmed through the returns service (so the
 * confirm is audited and followed like any other), with the owning profile's own credential.
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type { CryptoService } from '../crypto/service';
import type { ReturnsService } from '../returns/service';
import { createExchangeMandates, type ExchangeMandates } from '../team/exchange-mandates';
import type { TeamApprovals } from '../team/approvals-service';
import { createReturnApprovals, type ReturnApprovals } from '../team/return-approvals';
import type { TeamService } from '../team/service';
import type { EntityWatch } from '../watch/entity-watch';
import type { Foundation } from './foundation';
import type { Owners } from './owners';

/** The same workstation name as the answers' send leases: a lease names the workstation holding it. */
const workstationName = (f: Foundation): string =>
  `${hostname().slice(0, 80)}/${createHash('sha256').update(f.dataDir).digest('hex').slice(0, 12)}`;

export function assembleReturnApprovals(
  f: Foundation,
  o: Owners,
  team: TeamService,
  approvals: TeamApprovals,
  returns: ReturnsService,
  entityWatch: EntityWatch,
): ReturnApprovals {
  const workstation = workstationName(f);
  const r = createReturnApprovals({
    http: team.http,
    log: f.log,
    analyst: () => (team.status().serverUrl ? team.status().analyst : null),
    nameOf: (id, subject) => team.book.nameOf(id, subject),
    rulesOf: (id) => approvals.book.rules(id),
    async entityOf(profileId) {
      const owner = o.existingOwner(profileId, 'The profile this transfer belongs to was removed.');
      if (!owner.credential) await owner.check().catch(() => undefined);
      return owner.credential?.legalEntityId ?? null;
    },
    profileFor(legalEntityId) {
      const first = entityWatch.defaultMember();
      const members = [
        ...(first ? [{ profileId: first.profileId, session: first.session }] : []),
        ...[...entityWatch.watched()].map(([profileId, m]) => ({ profileId, session: m.session })),
      ];
      const reaching = members.filter((m) => m.session.scope().legalEntityId === legalEntityId);
      const admin = reaching.find((m) => o.ownerSession(m.profileId).credential?.role === 'admin');
      return (admin ?? reaching[0])?.profileId ?? null;
    },
    entityName: (id) =>
      team.status().analyst?.memberships.find((m) => m.legalEntityId === id)?.legalEntityName ?? id,
    read: ({ profileId, transactionId }) => returns.lookup(transactionId, profileId),
    confirm: ({ profileId, transactionId }) => returns.confirm(transactionId, profileId),
    workstation,
    onChange: () => f.events.emit('team.approvalsChanged', { notice: null }),
  });
  team.attach(r);
  return r;
}

/** Exchange mandates, joined to the crypto service: each order read and confirmed through its owning profile. */
export function assembleExchangeMandates(
  f: Foundation,
  o: Owners,
  team: TeamService,
  approvals: TeamApprovals,
  crypto: CryptoService,
): ExchangeMandates {
  const m = createExchangeMandates({
    http: team.http,
    log: f.log,
    analyst: () => (team.status().serverUrl ? team.status().analyst : null),
    nameOf: (id, subject) => team.book.nameOf(id, subject),
    rulesOf: (id) => approvals.book.rules(id),
    async entityOf(profileId) {
      const owner = o.existingOwner(profileId, 'The profile this order belongs to was removed.');
      if (!owner.credential) await owner.check().catch(() => undefined);
      return owner.credential?.legalEntityId ?? null;
    },
    order: (ref) => crypto.order(ref, true),
    confirm: (ref) => crypto.confirm(ref),
    workstation: workstationName(f),
    onChange: () => f.events.emit('team.approvalsChanged', { notice: null }),
  });
  team.attach(m);
  return m;
}
