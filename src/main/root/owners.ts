/**
 * The composition root's profiles and bank floors: one session per profile and how an object's
 * owner is found, then the ledger, the audit log and the writes, each through the owner's client.
 */
import type { SandboxOptions } from '../../sandbox';
import { AppFailure } from '../../shared/ipc/errors';
import { openAuditLog } from '../bank/audit';
import { createOperations } from '../bank/operations';
import type { OriginDecision } from '../session/destinations';
import { createBusyGuard, guardMethods } from '../desktop/busy';
import { openLedger } from '../bank/ledger';
import { createReadAfterCreate } from '../bank/read-after-create';
import type { ReadAfterCreate } from '../bank/read-after-create';
import type { BankClient } from '../bank/client';
import { createSession, sandboxToken } from '../session/session';
import { createProfileRegistry } from '../profiles/registry';
import type { ProfileRegistry } from '../profiles/registry';
import type { ProfileSession } from '../profiles/profile-session';
import { sandboxProfileId } from '../session/settings';
import type { SessionManager } from '../session/session';
import type { BusyGuard } from '../desktop/busy';
import type { IdempotencyLedger } from '../bank/ledger';
import type { AuditLog } from '../bank/audit';
import type { Operations } from '../bank/operations';
import type { Foundation } from './foundation';

const originDecisionDetail: Record<OriginDecision['decision'], string> = {
  declined: 'declined in the confirmation dialog; nothing was sent there',
  'approved-by-analyst': 'approved by the analyst in the confirmation dialog',
  'approved-by-main': 'approved by main (the environment the app was started with)',
  revoked: 'approval withdrawn: the profile using it was removed; it is asked about again',
};

/** Floor 3: one session per profile, and how an object's owner is found. */
export interface Owners {
  busy: BusyGuard;
  profiles: ProfileRegistry;
  /** The default profile's facade (the header's connection state; the default for new objects). */
  session: SessionManager;
  /** The default profile: the UI's default for a new object, never the identity of a write. */
  defaultProfileId(): string;
  /** The default profile's session (kept by the facade: no settings read per call). */
  defaultOwner(): ProfileSession;
  /** The session of the profile that owns an object (a removed profile's: the default's). */
  ownerSession(profileId?: string): ProfileSession;
  /** The session of a named profile (not_found when it was removed), else the default profile's. */
  existingOwner(profileId: string | undefined, gone: string): ProfileSession;
}

export async function assembleOwners(
  f: Foundation,
  sandboxOptions: Partial<SandboxOptions>,
): Promise<Owners> {
  const { options, settings, vault, destinations, log } = f;
  // Uploads, answer sends and money confirmations hold the busy guard (the updater waits for it).
  const busy = createBusyGuard();
  // One session per profile (its own bank client, token and clock), whatever is active.
  const profiles = createProfileRegistry({
    settings,
    vault,
    destinations,
    log,
    sandboxOptions,
    sandboxToken: (s) => sandboxToken(s, settings.profile(sandboxProfileId).sandboxCredential),
    tuning: {
      decorate: (client) =>
        guardMethods(client, busy, {
          uploadDocument: 'an answer document is uploading',
          submitRfiResponse: 'an answer is being sent',
          confirmCryptoOrder: 'an exchange order is being confirmed',
          confirmReturn: 'a return is being confirmed',
          cancelReturn: 'a return is being cancelled',
        }),
      ...(options.bankRetry ? { bankRetry: options.bankRetry } : {}),
      ...(options.bankTimeoutMs ? { bankTimeoutMs: options.bankTimeoutMs } : {}),
      ...(options.localNow ? { localNow: options.localNow } : {}),
    },
  });
  const session = await createSession({ settings, vault, events: f.events, destinations, profiles });
  f.disposables.add(session);
  const defaultOwner = (): ProfileSession => session.current;
  const defaultProfileId = (): string => defaultOwner().profileId;
  const exists = (profileId: string): boolean => settings.get().profiles.some((p) => p.id === profileId);
  const ownerSession = (profileId?: string): ProfileSession =>
    profileId !== undefined && exists(profileId) ? profiles.get(profileId) : defaultOwner();
  return {
    busy,
    profiles,
    session,
    defaultProfileId,
    defaultOwner,
    ownerSession,
    existingOwner(profileId, gone) {
      if (profileId !== undefined && !exists(profileId))
        throw new AppFailure({ kind: 'not_found', message: gone });
      return ownerSession(profileId);
    },
  };
}

/** Floor 2 over floor 3: the ledger, the audit log and the writes, each through the owner's client. */
export interface BankFloor {
  ledger: IdempotencyLedger;
  audit: AuditLog;
  operations: Operations;
  /** Each profile reads what it created through its own client (the bank's 404 window). */
  readAfterCreateOf(client: BankClient): ReadAfterCreate;
}

export async function assembleBankFloor(f: Foundation, o: Owners): Promise<BankFloor> {
  const { options, dataDir, log, atRest, stores, events } = f;
  const ledger = await openLedger({ dataDir, log, codec: atRest, onProblem: (p) => stores.report(p) });
  const audit = openAuditLog({
    dataDir,
    log,
    codec: atRest,
    report: (p) => stores.report(p),
    context: {
      // Each entry names the credential and bank of the profile that owns the write.
      who: (profileId) => o.ownerSession(profileId).who(),
      environment: (profileId) => {
        const env = o.ownerSession(profileId).environment;
        return { id: env.id, name: env.name };
      },
    },
  });
  // The keychain answered later in the run: entries written plain meanwhile are sealed again.
  f.disposables.add(atRest.onSealed(() => audit.reseal()));
  const readsAfterCreate = new Map<BankClient, ReadAfterCreate>();
  const readAfterCreateOf = (client: BankClient): ReadAfterCreate => {
    let r = readsAfterCreate.get(client);
    if (!r) {
      r = createReadAfterCreate({
        bank: client,
        ...(options.readAfterCreate ? { timing: options.readAfterCreate } : {}),
        publish: (u) => events.emit('transaction.progress', u),
      });
      readsAfterCreate.set(client, r);
    }
    return r;
  };
  const operations = createOperations({
    ledger,
    audit,
    bank: (profileId) => o.ownerSession(profileId).bank,
    events,
    log,
    // The audit line names who acted: learn the credential first if nothing checked it yet.
    beforeRecord: async (profileId) => {
      const s = o.ownerSession(profileId);
      if (!s.credential && !s.lastStatus) await s.check().catch(() => undefined);
    },
  });
  // Changes to the approved bank addresses are audited (main's own approvals at start included).
  const offDecisions = f.destinations.onDecision(
    (d) =>
      void operations.record({
        operation: d.decision === 'revoked' ? 'bank_origin.revoke' : 'bank_origin.approve',
        target: d.origin,
        outcome: d.decision === 'declined' ? 'failed' : 'succeeded',
        detail: originDecisionDetail[d.decision],
      }),
  );
  f.disposables.add(offDecisions);
  return { ledger, audit, operations, readAfterCreateOf };
}
