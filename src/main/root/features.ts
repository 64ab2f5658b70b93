/**
 * The composition root's features, one assembly function each: every feature gets the narrow
 * dependencies it declares, and every object acts through the profile that owns it.
 */
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import type { Rfi } from '../../shared/api/rfis';
import { AppFailure } from '../../shared/ipc/errors';
import { credentialInWords, relatedWords } from '../../shared/words';
import { openTempArea } from '../infra/temp-area';
import { createRfiAnswers } from '../rfi-answers';
import { createLocker } from '../locker/service';
import { createCaseFiles } from '../case-files/service';
import { openCaseFileJournal } from '../case-files/journal';
import { createCryptoService } from '../crypto/service';
import { createRelatedNames, type RelatedNames } from '../rfis/related-names';
import { createReturnsService } from '../returns/service';
import { createRfiService, createWebhookService, removeProfileCache } from '../rfis';
import { startEntityWatch } from '../watch/entity-watch';
import type { RfiMember } from '../watch/entity-watch';
import type { RfiService } from '../rfis';
import { bankOrigin } from '../infra/origins';
import type { BankClient } from '../bank/client';
import { createProfilesService } from '../profiles/service';
import type { ProfilesService } from '../profiles/service';
import type { CryptoService } from '../crypto/service';
import type { ReturnsService } from '../returns/service';
import type { CaseFiles } from '../case-files/service';
import type { CaseFileJournal } from '../case-files/journal';
import type { RfiAnswers, RfiAnswersDeps } from '../rfi-answers';
import type { RfiAnswersHandlerDeps } from '../rfi-answers/handlers';
import type { ProfileSession } from '../profiles/profile-session';
import type { EntityWatch, WatchedEntity } from '../watch/entity-watch';
import { createTeamService, type TeamService } from '../team/service';
import { keychainTeamCredential } from '../team/credential';
import { teamStateDefaults, teamStateFormat } from '../team/stored';
import type { TeamShare } from '../team/share';

/** Every watched profile once, the default one first (its session is the one each reads through). */
export function watchedMembers(
  entityWatch: Pick<EntityWatch, 'defaultMember' | 'watched'>,
): Array<{ profileId: string; session: ProfileSession }> {
  const first = entityWatch.defaultMember();
  const out = first ? [{ profileId: first.profileId, session: first.session }] : [];
  for (const [profileId, m] of entityWatch.watched())
    if (profileId !== first?.profileId) out.push({ profileId, session: m.session });
  return out;
}

/** One name per data folder on this computer: a send lease names the workstation that holds it. */
export function workstationName(dataDir: string): string {
  return `${hostname().slice(0, 80)}/${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`;
}

/**
 * The watched profile of one legal entity that holds an RFI, for team work that names the entity
 * (a send job, an approval) rather than a profile: only profiles whose bank answers for that legal
 * entity are asked, so an RFI id of another entity or bank never picks the wrong one.
 */
export async function entityOwner(
  entityWatch: Pick<EntityWatch, 'owner' | 'defaultMember' | 'watched'>,
  legalEntityId: string,
  rfiId: string,
): Promise<WatchedEntity | null> {
  const ids = watchedMembers(entityWatch)
    .filter((m) => m.session.scope().legalEntityId === legalEntityId)
    .map((m) => m.profileId);
  for (const profileId of ids) {
    const owner = await entityWatch.owner(rfiId, profileId).catch(() => null);
    if (owner) return owner;
  }
  return null;
}

/**
 * An RFI of one named profile, for a write or a lookup the page ties to that profile: the profile
 * must be known and watched (a typed not_found on `profileId` otherwise), and the RFI one of its
 * own, never another profile's of the same id (the bank's 404 is a typed not_found on `rfiId`).
 * Answered: the profile's member and the RFI as far as main can know it (its cache; else, or when
 * a named question is not in the cached copy, its bank; null when that bank cannot answer now and
 * the cache has no copy).
 */
export function ownedRfis(entityWatch: Pick<EntityWatch, 'watchedMember'>) {
  const notOurs = (m: WatchedEntity, rfiId: string, cause?: unknown): AppFailure =>
    new AppFailure(
      {
        kind: 'not_found',
        field: 'rfiId',
        message: `The RFI ${rfiId} is not one of ${m.entityName()}’s RFIs.`,
      },
      cause === undefined ? undefined : { cause },
    );
  return async (
    rfiId: string,
    profileId: string,
    questionId?: string,
  ): Promise<{ member: WatchedEntity; rfi: Rfi | null }> => {
    const member = entityWatch.watchedMember(profileId);
    const cached = await member.rfis.get(rfiId, false).then(
      (d) => d.rfi,
      (err: unknown) => {
        if (err instanceof AppFailure && err.kind === 'not_found') return null;
        throw err;
      },
    );
    if (cached && (questionId === undefined || cached.questions.some((q) => q.id === questionId)))
      return { member, rfi: cached };
    // Not cached yet, or a question asked since the last sync: the profile's own bank says.
    try {
      const fresh =
        (await member.rfis.refresh(rfiId, 'refresh')) ?? (await member.session.bank.getRfi(rfiId));
      return { member, rfi: fresh };
    } catch (err) {
      if (!(err instanceof AppFailure)) throw err;
      if (err.kind === 'not_found') throw notOurs(member, rfiId, err);
      // The bank cannot say now (away, no token yet, a locked keychain): main cannot know, and a
      // draft is kept offline; the bank decides when the answer is sent.
      return { member, rfi: cached };
    }
  };
}

/**
 * Where the answer channels find an RFI's owner: only through the profile the page names (see
 * `ownedRfis`); a question it names must be the RFI's as far as main can know (a bank that
 * cannot be reached now leaves that to the bank).
 */
export function answerOwners(
  entityWatch: Pick<EntityWatch, 'watchedMember'>,
): Pick<RfiAnswersHandlerDeps, 'ownerScope' | 'stagingOwner'> {
  const owned = ownedRfis(entityWatch);
  return {
    async ownerScope(rfiId, profileId, questionId) {
      const { member, rfi } = await owned(rfiId, profileId, questionId);
      if (questionId !== undefined && rfi && !rfi.questions.some((q) => q.id === questionId))
        throw new AppFailure({
          kind: 'not_found',
          field: 'questionId',
          message: `The RFI ${rfiId} of ${member.entityName()} has no question ${questionId}.`,
        });
      return member.session.scope();
    },
    stagingOwner: (profileId) => entityWatch.watchedMember(profileId).profileId,
  };
}
import type { WebhookService } from '../rfis';
import type { Locker } from '../locker/service';
import type { Foundation } from './foundation';
import type { BankFloor, Owners } from './owners';

/** The exchange: every order through the profile it belongs to; a profile that is gone is refused. */
export async function assembleCrypto(f: Foundation, o: Owners, b: BankFloor): Promise<CryptoService> {
  const crypto = await createCryptoService(
    {
      owner: (profileId) => {
        const ps = o.existingOwner(profileId, 'The profile this order belongs to was removed.');
        return {
          profileId: ps.profileId,
          bank: ps.bank,
          clock: ps.clock,
          get credential() {
            return ps.credential;
          },
          check: () => ps.check(),
          kind: ps.profile.kind,
          origin: bankOrigin(ps.environment.baseUrl),
          readAfterCreate: b.readAfterCreateOf(ps.bank),
        };
      },
      sandbox: () => o.session.sandbox,
      stores: f.stores,
      operations: b.operations,
      ledger: b.ledger,
      settings: f.settings,
      events: f.events,
      platform: f.platform,
      log: f.log,
    },
    f.options.crypto,
  );
  f.disposables.add(crypto);
  return crypto;
}

/** Returns: every transfer through the profile it belongs to; a profile that is gone is refused. */
export function assembleReturns(f: Foundation, o: Owners, b: BankFloor): ReturnsService {
  const returns = createReturnsService({
    owner: (profileId) => {
      const ps = o.existingOwner(profileId, 'The profile this transfer belongs to was removed.');
      return {
        profileId: ps.profileId,
        bank: ps.bank,
        get credential() {
          return ps.credential;
        },
        check: () => ps.check(),
        readAfterCreate: (id) => b.readAfterCreateOf(ps.bank)(id),
      };
    },
    settings: f.settings,
    platform: f.platform,
    log: f.log,
    operations: b.operations,
    ledger: b.ledger,
    events: f.events,
    stores: f.stores,
  });
  f.disposables.add(returns);
  return returns;
}

/** What case files need that the bank does not keep: uploaded documents' names, events seen. */
export interface Journal {
  tempArea: Awaited<ReturnType<typeof openTempArea>>;
  caseFileJournal: CaseFileJournal;
  journalFailed(err: unknown): void;
}

export async function openJournal(f: Foundation): Promise<Journal> {
  const { dataDir, log, atRest, stores } = f;
  await mkdir(path.join(dataDir, 'case-files'), { recursive: true, mode: 0o700 });
  // Parts of interrupted uploads and exports (a kill) are removed before anything else starts.
  const tempArea = await openTempArea({ dataDir, codec: atRest, log, report: (p) => stores.report(p) });
  const caseFileJournal = await openCaseFileJournal({
    dataDir,
    log,
    codec: atRest,
    report: (p) => stores.report(p),
  });
  // Events seen (notifications, reminders) are written before the data folder is let go.
  f.disposables.add(() => caseFileJournal.flush());
  const journalFailed = (err: unknown): void => log.warn('case files: journal not written', { error: err });
  return { tempArea, caseFileJournal, journalFailed };
}

/**
 * An answer queued before answers carried their owner has only the default profile to go
 * through, as it always had: its client is looked up at each call.
 */
function defaultProfileBank(o: Owners): RfiAnswersDeps['bank'] {
  const bank = (): BankClient => o.defaultOwner().bank;
  return {
    getRfi: (id) => bank().getRfi(id),
    createUploadUrl: (body) => bank().createUploadUrl(body),
    uploadDocument: (url, file, contentType, opts) => bank().uploadDocument(url, file, contentType, opts),
    submitRfiResponse: (rfiId, questionId, body, o) => bank().submitRfiResponse(rfiId, questionId, body, o),
  };
}

/** RFI answers: drafts, staged files and the outbox, each answer sent through its RFI's owner. */
export async function assembleAnswers(
  f: Foundation,
  o: Owners,
  b: BankFloor,
  j: Journal,
): Promise<RfiAnswers> {
  const { options, settings, profiles } = { ...f, ...o };
  const rfiAnswers = await createRfiAnswers({
    scope: () => o.session.scope(),
    // Each answer goes out through the profile that owns its RFI, whatever is active.
    owners: {
      scope: (profileId) =>
        settings.get().profiles.some((p) => p.id === profileId) ? profiles.get(profileId).scope() : null,
      bank: (profileId) => profiles.get(profileId).bank,
    },
    codec: f.atRest,
    report: (p) => f.stores.report(p),
    dataDir: f.dataDir,
    bank: defaultProfileBank(o),
    log: f.log,
    events: f.events,
    platform: f.platform,
    // Upload URLs' expiry, read by the default profile's bank time (the bank that issued them).
    serverNow: () => o.defaultOwner().clock.now(),
    busy: o.busy,
    sandboxMaxUploadBytes: () => o.session.sandbox?.options.maxUploadBytes ?? null,
    ...(options.rfiAnswers ? { options: options.rfiAnswers } : {}),
    // Every upload and response is a write to the bank: audited like the others.
    audit: (line) => b.operations.record(line),
    onUploaded: (doc) => void j.caseFileJournal.upload(doc).catch(j.journalFailed),
  });
  f.disposables.add(rfiAnswers);
  return rfiAnswers;
}

/** The RFI side: the webhook receiver and the entity watch (the default profile is one member). */
interface RfiFloor {
  webhooks: WebhookService;
  entityWatch: EntityWatch;
  relatedNames: RelatedNames;
}

export async function assembleEntityWatch(
  f: Foundation,
  o: Owners,
  j: Journal,
  crypto: CryptoService,
  rfiAnswers: RfiAnswers,
): Promise<RfiFloor> {
  const { options, settings, log, events } = f;
  const { session } = o;
  // What RFIs are about, named through the profile that owns each RFI (its account book, its bank).
  const relatedNames = createRelatedNames({
    bank: (profileId) => o.profiles.get(profileId).bank,
    accounts: async (profileId) =>
      (await crypto.context(profileId)).accounts.map((a) => ({
        accountId: a.accountId,
        name: a.label,
        holder: a.holderName ?? null,
      })),
    log,
  });
  // Every event seen is kept under the profile it came for (bank-side ids are unique per bank only).
  const seen =
    (profileId: string) =>
    ({ rfiId, kind, detail }: { rfiId: string; kind: 'notification' | 'webhook'; detail: string }) =>
      void j.caseFileJournal.seen(profileId, rfiId, { kind, detail }).catch(j.journalFailed);
  // One way to build a profile's RFI service, for every member alike (the default profile's too):
  // its bank client, clock and session are the registry's for that profile id.
  const rfiService = (member: RfiMember): Promise<RfiService> =>
    createRfiService({
      codec: f.atRest,
      report: (p) => f.stores.report(p),
      dataDir: f.dataDir,
      bank: member.bank,
      clock: member.clock,
      session: member.session,
      settings,
      events: member.events,
      badge: member.badge,
      entityName: member.entityName,
      platform: f.platform,
      log,
      ...(options.rfis ? { options: options.rfis } : {}),
      // Notifications name the related object whole: an account with its holder (no entity beside it).
      relatedNames: async (rfis) =>
        new Map(
          [
            ...(await relatedNames.names(
              member.profileId,
              rfis.map((r) => ({ type: r.type, relatedId: r.related_id })),
            )),
          ].map(([id, r]) => [id, relatedWords(r)] as const),
        ),
      onSeen: seen(member.profileId),
    });
  // One receiver, a route per watched profile: the entity watch tells it which profiles it watches.
  const webhooks = await createWebhookService({
    session,
    owner: (profileId) => o.profiles.get(profileId),
    settings,
    events,
    log,
    dataDir: f.dataDir,
    codec: f.atRest,
    ...(options.rfis?.webhook ? { options: options.rfis.webhook } : {}),
    onSeen: ({ profileId, ...s }) => seen(profileId)(s),
  });
  f.disposables.add(webhooks);
  const entityWatch = await startEntityWatch({
    settings,
    vault: f.vault,
    destinations: f.destinations,
    session,
    profiles: o.profiles,
    rfiService,
    stores: f.stores,
    reminders: options.reminders ?? {},
    onReminderSeen: (profileId, rfiId, detail) => seen(profileId)({ rfiId, kind: 'notification', detail }),
    webhooks,
    events,
    platform: f.platform,
    log,
  });
  f.disposables.add(entityWatch);
  // The owner's RFI cache re-reads an RFI once one of our answers landed (its status moved).
  const offSent = rfiAnswers.onSent((rfiId, owner) => {
    const m = owner ? entityWatch.member(owner.profileId) : entityWatch.defaultMember();
    void m?.rfis
      .refresh(rfiId, 'refresh')
      .catch((err: unknown) => log.warn('rfis: refresh after an answer failed', { error: err }));
  });
  f.disposables.add(offSent);
  // An owner's bank came back (or its credential became known): its waiting answers may go now.
  const offOwners = o.profiles.onStatus((_profileId, status) => {
    if (status.connection === 'connected') rfiAnswers.outbox.wake();
  });
  f.disposables.add(offOwners);
  return { webhooks, entityWatch, relatedNames };
}

/** Case files: each RFI and its documents read through the profile that owns it. */
export function assembleCaseFiles(
  f: Foundation,
  b: BankFloor,
  j: Journal,
  entityWatch: EntityWatch,
  teamShare: Pick<TeamShare, 'activityOfRfi'>,
  relatedNames: RelatedNames,
): CaseFiles {
  return createCaseFiles({
    dataDir: f.dataDir,
    temps: j.tempArea,
    blobs: () => f.atRest.blobs,
    // The named profile only (an unknown or unwatched one is refused, typed): its bank answers
    // for the RFI, and another profile's RFI of the same id is never read instead.
    owner: async (_rfiId, profileId) => {
      const m = entityWatch.watchedMember(profileId);
      const ps = m.session;
      return {
        profileId: m.profileId,
        bank: ps.bank,
        cachedRfi: async (id) => (await m.rfis.get(id, false).catch(() => null))?.rfi ?? null,
        environment: {
          name: ps.environment.name,
          kind: ps.environment.kind,
          baseUrl: ps.environment.baseUrl,
        },
        entityName: ps.entityName(),
        legalEntityId: ps.scope().legalEntityId,
        who: credentialInWords(ps.who()),
        // The entity is named in the same sentence: an account of that entity needs no holder.
        relatedName: async (rfi) => {
          const r = (
            await relatedNames.names(m.profileId, [{ type: rfi.type, relatedId: rfi.related_id }])
          ).get(rfi.related_id);
          return r ? relatedWords(r, ps.entityName()) : null;
        },
      };
    },
    audit: b.audit,
    journal: j.caseFileJournal,
    // In team use the team's log of each RFI goes in too (its words, names, and the chain's state).
    teamLog: (rfiId, profileId) => teamShare.activityOfRfi(rfiId, profileId),
    platform: f.platform,
    log: f.log,
  });
}

/** The evidence locker: documents kept encrypted and staged into answers. */
export async function assembleLocker(
  f: Foundation,
  o: Owners,
  rfiAnswers: RfiAnswers,
  entityWatch: EntityWatch,
): Promise<Locker> {
  const locker = await createLocker({
    dataDir: f.dataDir,
    log: f.log,
    events: f.events,
    platform: f.platform,
    codec: f.atRest,
    report: (p) => f.stores.report(p),
    // Documents' expiry dates, by the default profile's bank time.
    now: () => o.defaultOwner().clock.now(),
    maxBytes: () => rfiAnswers.limits().maxBytes,
    staged: (ref) => {
      const file = rfiAnswers.files.resolve(ref);
      return { name: file.name, sizeBytes: file.sizeBytes, open: () => rfiAnswers.files.open(ref) };
    },
    releaseStaged: (ref) => rfiAnswers.releaseUnused([ref]),
    stageForAnswer: (a) => rfiAnswers.files.adopt(a),
    // An RFI id is one bank's only: its status is read from the profile the use was recorded for
    // (a use recorded before uses named their profile: the default profile's).
    rfiStatus: async (rfiId, profileId) => {
      const owner = (profileId === null ? entityWatch.defaultMember() : entityWatch.member(profileId))?.rfis;
      return owner ? (await owner.get(rfiId, false)).rfi.status : null;
    },
    // The named profile, which must hold the RFI: never another profile's RFI of the same id.
    owner: async (rfiId, profileId) => (await ownedRfis(entityWatch)(rfiId, profileId)).member.profileId,
    ...(f.options.locker ? f.options.locker : {}),
  });
  f.disposables.add(locker);
  return locker;
}

/** Profiles as a service: add, rename, remove (with what it takes along), tokens and addresses. */
export function assembleProfilesService(
  f: Foundation,
  o: Owners,
  b: BankFloor,
  rfiAnswers: RfiAnswers,
  entityWatch: EntityWatch,
): ProfilesService {
  return createProfilesService({
    settings: f.settings,
    vault: f.vault,
    destinations: f.destinations,
    session: o.session,
    profiles: o.profiles,
    operations: b.operations,
    log: f.log,
    // What a removed profile takes with it: its unsent answers, drafts and RFI caches.
    work: {
      describe: (profileId) => {
        const n = rfiAnswers.queuedFor(profileId).answers;
        return n > 0 ? `${n} queued answer${n === 1 ? '' : 's'}` : null;
      },
      // The new default profile is watched before the switch is answered (its queue is there).
      defaultChanged: () => entityWatch.watchDefault(),
      drop: async (profileId, origin) => {
        // Its RFI service stops first (the entity watch no longer watches a profile that is gone).
        await entityWatch.reconcile();
        await rfiAnswers.removeProfile(profileId);
        await removeProfileCache(f.dataDir, profileId, origin);
      },
    },
  });
}

/**
 * The team connection: its own state file and keychain entry, the team server's address approved
 * like a bank address, the system browser for sign-in, and each RFI's legal entity from the
 * profile that owns it. Nothing runs until a team server is set and an analyst signed in.
 */
export async function assembleTeam(f: Foundation, entityWatch: EntityWatch): Promise<TeamService> {
  await mkdir(path.join(f.dataDir, 'team'), { recursive: true, mode: 0o700 });
  const team = await createTeamService({
    store: await f.stores.open('team', teamStateFormat, teamStateDefaults),
    credential: keychainTeamCredential(f.keyring, f.keyringService, f.log),
    log: f.log,
    approveOrigin: (origin) => f.destinations.approveTeamOrigin(origin),
    openExternal: (url) => f.platform.openExternal(url),
    // Only the named profile: another entity's RFI of the same id is never claimed instead.
    legalEntityOf: async (rfiId, profileId) =>
      (await ownedRfis(entityWatch)(rfiId, profileId)).member.session.scope().legalEntityId,
    outboxFile: path.join(f.dataDir, 'team', 'outbox.json'),
    codec: f.atRest,
    onProblem: (message, file, movedTo) => f.stores.report({ file, movedTo, message }),
    onStatus: (view) => f.events.emit('team.changed', view),
    onAssignments: (notice) => f.events.emit('team.assignmentsChanged', { notice }),
    ...f.options.team,
  });
  f.disposables.add(() => team.dispose());
  void team.start().catch((err: unknown) => f.log.warn('team: start failed', { error: err }));
  return team;
}
