/**
 * What the team shares beside assignment, on the workstation: the shared evidence locker, notes
 * and presence on RFIs, and the team activity log. Every call names the profile that owns the
 * object (the RFI's, or the one whose legal entity the analyst picked); main finds the legal entity
 * from that profile's session (what the bank said about its credential) and checks the analyst
 * is a member of that entity's team. Bank tokens stay with the profile: a shared document used in
 * an answer is staged for that profile's outbox, which uploads it to the bank. Nothing runs in
 * solo use.
 */
import { AppFailure } from '../../shared/ipc/errors';
import { csvCell } from '../bank/audit';
import type { StagedFileView } from '../../shared/ipc/channels/rfi-answers';
import type { AtRestCodec } from '../infra/at-rest';
import type { Logger } from '../infra/log';
import { ActivityEntry } from '../../shared/team/schemas';
import { teamCallFailure } from './api';
import { createTeamActivity, type TeamActivity, type TeamActivityView, type ChainView } from './activity';
import {
  createTeamEvidence,
  type LocalDocument,
  type SharedDocumentView,
  type TeamEvidence,
} from './evidence';
import { createTeamNotes, type NoteView, type PresentView, type TeamNotes } from './notes';
import { openShareOutbox, type ShareOutbox } from './share-outbox';
import type { TeamService } from './service';

export interface TeamProfileEntity {
  profileId: string;
  legalEntityId: string | null;
  legalEntityName: string;
}

export interface TeamShareDeps {
  team: TeamService;
  log: Logger;
  outboxFile: string;
  codec?: AtRestCodec;
  onProblem?(message: string, file: string, movedTo: string | null): void;
  /** The profiles being watched, with the legal entity the bank named for each. */
  profiles(): TeamProfileEntity[];
  /** The profile that owns an RFI and its legal entity (the named profile must hold it). */
  ownerOf(rfiId: string, profileId: string): Promise<{ profileId: string; legalEntityId: string | null }>;
  readLocal(lockerId: string): Promise<LocalDocument>;
  /** Stages a shared document's bytes as a file of the named profile's answer. */
  stageForAnswer(o: {
    name: string;
    documentType: string;
    profileId: string;
    sizeBytes: number;
    sha256: string;
    bytes: Buffer;
  }): Promise<StagedFileView>;
  documentTypeName(type: string): string;
  /** Tells the page what changed (`team.shared`). */
  emit(e: {
    legalEntityId: string;
    topic: 'evidence' | 'note' | 'presence' | 'activity';
    rfiId: string | null;
    notice: string | null;
  }): void;
  outboxRetry?: { baseMs: number; maxMs: number };
}

export interface SharedEntityView {
  profileId: string;
  legalEntityId: string;
  legalEntityName: string;
  /** The analyst may share documents here (maker or admin). */
  canShare: boolean;
  documents: SharedDocumentView[];
  offline: boolean;
}

export interface TeamShare {
  evidence(profileId?: string): Promise<SharedEntityView[]>;
  shareEvidence(lockerId: string, profileId: string): Promise<SharedDocumentView>;
  attachEvidence(
    documentId: string,
    rfiId: string,
    questionId: string,
    profileId: string,
  ): Promise<StagedFileView>;
  notes(
    rfiId: string,
    profileId: string,
  ): Promise<{ notes: NoteView[]; present: PresentView[]; canWrite: boolean; offline: boolean }>;
  addNote(rfiId: string, text: string, profileId: string): Promise<NoteView>;
  presence(
    rfiId: string,
    activity: 'viewing' | 'editing' | 'gone',
    profileId: string,
  ): Promise<PresentView[]>;
  /** A profile's entity (the default profile's when none is named), only an RFI's of that profile when named. */
  activity(o: { profileId?: string; rfiId?: undefined } | { profileId: string; rfiId: string }): Promise<{
    legalEntityId: string;
    legalEntityName: string;
    entries: TeamActivityView[];
    chain: ChainView;
    offline: boolean;
  } | null>;
  /** The team activity of an RFI for a case file or an export: null in solo use or when not a member. */
  activityOfRfi(
    rfiId: string,
    profileId: string,
  ): Promise<{ entries: TeamActivityView[]; chain: ChainView } | null>;
  /**
   * The team log of every legal entity the analyst's profiles reach, as rows of the audit CSV's
   * columns: marked "Team log (<entity>)" in the environment column, `team-<n>` as the id, the
   * chain's state as a last row per entity when it is broken.
   */
  csvRows(): Promise<string[]>;
  pendingCount(): number;
  readonly outbox: ShareOutbox;
  dispose(): Promise<void>;
}

/** Whether the team is in use: a server set and an analyst signed in. */
function teamActive(team: TeamService): boolean {
  const s = team.status();
  return s.connection !== 'solo' && s.analyst !== null;
}

/** A failed call about shared evidence, notes or activity as the typed error the renderer reads. */
const failure = (err: unknown): never =>
  teamCallFailure(
    err,
    {
      conflict: 'conflict',
      superseded: 'conflict',
      forbidden: 'forbidden',
      not_found: 'not_found',
      too_large: 'invalid',
      hash_mismatch: 'invalid',
      bad_request: 'invalid',
    },
    (refusal) =>
      refusal.code === 'forbidden'
        ? 'Your role in this legal entity does not allow this.'
        : refusal.code === 'not_found'
          ? 'This legal entity is not part of your team, or the document is gone.'
          : `The team server refused: ${refusal.message}`,
  );

/** The outbox and the three parts that share it, wired to the page's `team.shared` event. */
async function openParts(
  deps: TeamShareDeps,
  me: () => string | null,
  nameOf: (legalEntityId: string, subject: string) => string,
): Promise<{ outbox: ShareOutbox; notes: TeamNotes; evidence: TeamEvidence; activity: TeamActivity }> {
  const { team } = deps;
  const parts: { notes?: TeamNotes; evidence?: TeamEvidence } = {};
  const outbox = await openShareOutbox({
    file: deps.outboxFile,
    log: deps.log,
    ...(deps.codec ? { codec: deps.codec } : {}),
    ...(deps.onProblem ? { onProblem: deps.onProblem } : {}),
    ...(deps.outboxRetry ? { retry: deps.outboxRetry } : {}),
    me,
    send: (job) => (job.what === 'note' ? parts.notes!.send(job) : parts.evidence!.send(job)),
    notice: (job, message) =>
      deps.emit({
        legalEntityId: job.legalEntityId,
        topic: job.what === 'note' ? 'note' : 'evidence',
        rfiId: job.what === 'note' ? job.objectId : null,
        notice:
          job.what === 'note'
            ? `Your note was not kept by the team server: ${message}`
            : `“${job.fileName}” was not shared: ${message}`,
      }),
    onChange: (job) =>
      deps.emit({
        legalEntityId: job.legalEntityId,
        topic: job.what === 'note' ? 'note' : 'evidence',
        rfiId: job.what === 'note' ? job.objectId : null,
        notice: null,
      }),
  });
  const notes = createTeamNotes({
    http: team.http,
    log: deps.log,
    outbox,
    me,
    nameOf,
    onChange: (legalEntityId, topic, rfiId) => deps.emit({ legalEntityId, topic, rfiId, notice: null }),
  });
  const evidence = createTeamEvidence({
    http: team.http,
    log: deps.log,
    outbox,
    me,
    nameOf,
    readLocal: deps.readLocal,
    onChange: (legalEntityId) => deps.emit({ legalEntityId, topic: 'evidence', rfiId: null, notice: null }),
  });
  const activity: TeamActivity = createTeamActivity({
    http: team.http,
    me,
    nameOf,
    documentTypeName: deps.documentTypeName,
    onChange: (legalEntityId) => deps.emit({ legalEntityId, topic: 'activity', rfiId: null, notice: null }),
  });

  parts.notes = notes;
  parts.evidence = evidence;
  return { outbox, notes, evidence, activity };
}

/** The team log of each entity the profiles reach, as rows of the audit CSV's columns. */
async function teamCsvRows(
  share: Pick<TeamShare, 'activity'>,
  profiles: readonly TeamProfileEntity[],
  active: () => boolean,
): Promise<string[]> {
  if (!active()) return [];
  const rows: string[] = [];
  const seen = new Set<string>();
  for (const p of profiles) {
    if (!p.legalEntityId || seen.has(p.legalEntityId)) continue;
    seen.add(p.legalEntityId);
    const log = await share.activity({ profileId: p.profileId }).catch(() => null);
    if (!log) continue;
    const where = `Team log (${log.legalEntityName})`;
    for (const e of log.entries)
      rows.push(
        [
          e.at,
          e.actor.name,
          '',
          where,
          e.action,
          '',
          e.object ? `${e.object.kind}:${e.object.id}` : '',
          'recorded',
          JSON.stringify(e.detail),
          `team-${e.seq}`,
          e.words,
        ]
          .map(csvCell)
          .join(','),
      );
    if (!log.chain.intact)
      rows.push(
        [
          new Date().toISOString(),
          '',
          '',
          where,
          'team.chain_check',
          '',
          '',
          'broken',
          '',
          '',
          log.chain.words,
        ]
          .map(csvCell)
          .join(','),
      );
  }
  return rows;
}

export async function createTeamShare(deps: TeamShareDeps): Promise<TeamShare> {
  const { team } = deps;
  const nameOf = (le: string, subject: string): string => team.book.nameOf(le, subject);
  const me = (): string | null => team.me();

  const membership = (legalEntityId: string | null) => {
    const analyst = team.status().analyst;
    if (!teamActive(team) || !analyst)
      throw new AppFailure({
        kind: 'unauthenticated',
        reason: 'TEAM_SIGNED_OUT',
        message: 'Sign in to the team first (Settings → Team).',
      });
    if (!legalEntityId)
      throw new AppFailure({
        kind: 'precondition',
        reason: 'LEGAL_ENTITY_UNKNOWN',
        message: 'The bank has not yet said which legal entity this is. Try again once it is connected.',
      });
    const m = analyst.memberships.find((x) => x.legalEntityId === legalEntityId);
    if (!m)
      throw new AppFailure({
        kind: 'forbidden',
        reason: 'NOT_A_MEMBER',
        message: 'This legal entity is not part of your team.',
      });
    return m;
  };
  const canWrite = (roles: readonly string[]): boolean =>
    roles.some((r) => r === 'maker' || r === 'checker' || r === 'admin');

  const { outbox, notes, evidence, activity } = await openParts(deps, me, nameOf);
  team.follow({
    change(change) {
      notes.apply(change);
      evidence.apply(change);
      activity.apply(change);
    },
    presence: (data) => notes.applyPresence(data),
    connected: () => outbox.wake(),
    signedOut() {
      notes.clear();
      evidence.clear();
      activity.clear();
    },
  });

  const entityOfRfi = async (rfiId: string, profileId: string) => {
    const owner = await deps.ownerOf(rfiId, profileId);
    return { ...owner, membership: membership(owner.legalEntityId) };
  };

  const share: TeamShare = {
    outbox,
    pendingCount: () => outbox.pending().length,
    async evidence(profileId) {
      const seen = new Set<string>();
      const out: SharedEntityView[] = [];
      for (const p of deps.profiles()) {
        if (profileId && p.profileId !== profileId) continue;
        if (!p.legalEntityId || seen.has(p.legalEntityId)) continue;
        const m = team.status().analyst?.memberships.find((x) => x.legalEntityId === p.legalEntityId);
        if (!m) continue;
        seen.add(p.legalEntityId);
        try {
          const list = await evidence.list(p.legalEntityId);
          out.push({
            profileId: p.profileId,
            legalEntityId: p.legalEntityId,
            legalEntityName: m.legalEntityName || p.legalEntityName,
            canShare: m.roles.some((r) => r === 'maker' || r === 'admin'),
            documents: list.documents,
            offline: list.offline,
          });
        } catch (err) {
          failure(err);
        }
      }
      return out;
    },
    async shareEvidence(lockerId, profileId) {
      const p = deps.profiles().find((x) => x.profileId === profileId);
      const m = membership(p?.legalEntityId ?? null);
      if (!m.roles.some((r) => r === 'maker' || r === 'admin'))
        throw new AppFailure({
          kind: 'forbidden',
          reason: 'FORBIDDEN',
          message: 'Only makers and admins of this legal entity share documents with the team.',
        });
      try {
        return await evidence.share(m.legalEntityId, lockerId);
      } catch (err) {
        return failure(err);
      }
    },
    async attachEvidence(documentId, rfiId, questionId, profileId) {
      const owner = await entityOfRfi(rfiId, profileId);
      const legalEntityId = owner.membership.legalEntityId;
      try {
        const { document, bytes } = await evidence.download(legalEntityId, documentId);
        const staged = await deps.stageForAnswer({
          name: document.fileName,
          documentType: document.documentType,
          profileId: owner.profileId,
          sizeBytes: bytes.length,
          sha256: document.sha256,
          bytes,
        });
        // The team's log says which shared document went into which RFI's answer (best effort:
        // the answer itself does not wait for the log).
        void team.http
          .call('POST', '/v1/activity', ActivityEntry, {
            legalEntityId,
            action: 'evidence.used',
            object: { kind: 'evidence', id: document.id },
            detail: { rfiId, questionId, sha256: document.sha256, documentType: document.documentType },
          })
          .catch((err: unknown) =>
            deps.log.info('team: the use of a shared document was not logged', { error: err }),
          );
        return staged;
      } catch (err) {
        return failure(err);
      }
    },
    async notes(rfiId, profileId) {
      const owner = await entityOfRfi(rfiId, profileId);
      const le = owner.membership.legalEntityId;
      try {
        const list = await notes.list(le, rfiId);
        return { ...list, present: notes.present(le, rfiId), canWrite: canWrite(owner.membership.roles) };
      } catch (err) {
        return failure(err);
      }
    },
    async addNote(rfiId, text, profileId) {
      const owner = await entityOfRfi(rfiId, profileId);
      if (!canWrite(owner.membership.roles))
        throw new AppFailure({
          kind: 'forbidden',
          reason: 'FORBIDDEN',
          message: 'Viewers read the team’s notes; makers, checkers and admins write them.',
        });
      try {
        return await notes.add(owner.membership.legalEntityId, rfiId, text);
      } catch (err) {
        return failure(err);
      }
    },
    async presence(rfiId, activityKind, profileId) {
      const owner = await entityOfRfi(rfiId, profileId);
      try {
        return await notes.beat(owner.membership.legalEntityId, rfiId, activityKind);
      } catch (err) {
        return failure(err);
      }
    },
    async activity(o) {
      if (!teamActive(team)) return null;
      const rfiId = o.rfiId;
      let legalEntityId: string | null;
      if (o.rfiId !== undefined) legalEntityId = (await deps.ownerOf(o.rfiId, o.profileId)).legalEntityId;
      else {
        const ps = deps.profiles();
        const { profileId } = o;
        legalEntityId =
          (profileId ? ps.find((p) => p.profileId === profileId) : ps[0])?.legalEntityId ?? null;
      }
      const m = team.status().analyst?.memberships.find((x) => x.legalEntityId === legalEntityId);
      if (!m || !legalEntityId) return null;
      try {
        const r = await activity.entries(legalEntityId, rfiId);
        return { legalEntityId, legalEntityName: m.legalEntityName || legalEntityId, ...r };
      } catch (err) {
        return failure(err);
      }
    },
    async activityOfRfi(rfiId, profileId) {
      const r = await share.activity({ rfiId, profileId });
      return r ? { entries: r.entries, chain: r.chain } : null;
    },
    csvRows: () => teamCsvRows(share, deps.profiles(), () => teamActive(team)),
    dispose: () => outbox.dispose(),
  };
  return share;
}
