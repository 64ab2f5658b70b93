/**
 * Approvals as the renderer calls them: every call names the RFI and the profile that owns it,
 * main finds the legal entity from that profile's session (what the bank said about its
 * credential) and the content from the saved draft (text, the RFI's type, the documents' sha256s),
 * so what a checker approves is what this workstation would send. Solo use (no team server, not
 * signed in) answers "no approval needed" and sends nothing anywhere.
 */
import path from 'node:path';
import { AppFailure } from '../../shared/ipc/errors';
import type { ApprovalView, EntityRulesView } from '../../shared/ipc/channels/team-approvals';
import type { AnswerView } from '../../shared/ipc/channels/rfi-answers';
import { SendJob, type Approval, type ApprovalRule } from '../../shared/team/schemas';
import type { AtRestCodec } from '../infra/at-rest';
import type { Logger } from '../infra/log';
import type { TypedStore } from '../infra/stores';
import { TeamNotSignedIn } from './api';
import {
  approvedFor,
  approvalFailure,
  openApprovals,
  type AnswerContent,
  type ApprovalsBook,
  type RulesMemory,
} from './approvals';
import { createLeaseKeeper, type LeaseKeeper } from './send-lease';
import type { TeamService } from './service';
import type { StoredRules } from './stored';

/** An answer as the workstation holds it: the RFI, its question and the owning profile. */
export interface AnswerRef {
  rfiId: string;
  questionId: string;
  profileId: string;
}

/** The draft's content as it would be sent. */
export interface DraftContent {
  questionType: string;
  text: string;
  /** sha256 of each staged document, in the draft's order. */
  documentSha256s: string[];
}

export interface TeamApprovalsDeps {
  team: TeamService;
  log: Logger;
  dataDir: string;
  codec?: AtRestCodec;
  onProblem?(message: string, file: string, movedTo: string | null): void;
  /** Where the rules last read are kept between runs (the data folder's sealed store). */
  rulesStore?: TypedStore<StoredRules>;
  /** This workstation's name for its send leases. */
  workstation: string;
  /** The owning profile's legal entity and the RFI's type (the bank says them); null when unknown. */
  rfiOf(rfiId: string, profileId: string): Promise<{ legalEntityId: string | null; rfiType: string } | null>;
  /** The saved draft's content (null: no draft). */
  draftOf(ref: AnswerRef): Promise<DraftContent | null>;
  /** Saves the draft (the answer form's content) as drafts.save does. */
  saveDraft(ref: AnswerRef & { questionType: string; text: string; files: string[] }): Promise<void>;
  /**
   * Puts the approved answer (the saved draft) in the owning profile's bank outbox under the send
   * job's key, once per key; null when the draft is no longer the approved content.
   */
  sendApproved(job: SendJob, approval: Approval, questionId: string): Promise<AnswerView | null>;
  onChange(notice: string | null): void;
  retry?: { baseMs: number; maxMs: number };
  /** Bounds of the wait between send lease renewals (see send-lease.ts). */
  leaseRenewal?: { minMs?: number; maxMs?: number };
}

export interface TeamApprovals {
  book: ApprovalsBook;
  /** The send leases this workstation holds, renewed while their sends are under way. */
  leases: LeaseKeeper;
  rules(): EntityRulesView[];
  setRules(legalEntityId: string, rules: ApprovalRule[]): Promise<EntityRulesView>;
  forAnswer(ref: AnswerRef): Promise<{
    required: boolean | null;
    approval: ApprovalView | null;
    covers: boolean;
    /** Why the answer cannot go to the bank now, in words (null: nothing holds it). */
    held: string | null;
  }>;
  ask(ref: AnswerRef & { questionType: string; text: string; files: string[] }): Promise<ApprovalView>;
  decide(
    ref: AnswerRef & { approvalId: string; contentHash: string } & (
        { decision: 'approve' } | { decision: 'reject'; reason: string }
      ),
  ): Promise<ApprovalView>;
  list(rfiId?: string): ApprovalView[];
  /**
   * An answer the analyst sends: null when the team has no say (solo, or no rule applies: the
   * answer goes straight to the outbox); the approved answer handed to the outbox as its send job;
   * refused when a rule wants a checker and no approval covers the draft as it is.
   */
  submit(ref: AnswerRef): Promise<AnswerView | null>;
  /** The draft was saved: a live approval of other content is asked again (the old one no longer covers it). */
  draftSaved(ref: AnswerRef): Promise<void>;
  /** An answer of a send job left the outbox (sent, or given up). */
  sendFinished: ApprovalsBook['sendFinished'];
  dispose(): Promise<void>;
}

const failure = approvalFailure('answer');

/** The rules last read, kept in the store for the team server they were read from. */
function rulesMemory(store: TypedStore<StoredRules>, serverUrl: () => string | null): RulesMemory {
  return {
    read() {
      const s = store.get();
      const url = serverUrl();
      return new Map(
        url && s.serverUrl === url ? Object.entries(s.entities).map(([id, e]) => [id, e.rules]) : [],
      );
    },
    write(legalEntityId, rules) {
      const url = serverUrl();
      if (!url) return;
      store.update((s) => ({
        serverUrl: url,
        entities: {
          ...(s.serverUrl === url ? s.entities : {}),
          [legalEntityId]: { rules, readAt: new Date().toISOString() },
        },
      }));
    },
  };
}

export async function createTeamApprovals(deps: TeamApprovalsDeps): Promise<TeamApprovals> {
  const { team } = deps;
  const analyst = () => team.status().analyst;
  const book = await openApprovals({
    http: team.http,
    ...(deps.rulesStore ? { remembered: rulesMemory(deps.rulesStore, () => team.status().serverUrl) } : {}),
    log: deps.log,
    file: path.join(deps.dataDir, 'team', 'approvals-outbox.json'),
    ...(deps.codec ? { codec: deps.codec } : {}),
    ...(deps.onProblem ? { onProblem: deps.onProblem } : {}),
    me: () => analyst()?.subject ?? null,
    rolesIn: (id) => analyst()?.memberships.find((m) => m.legalEntityId === id)?.roles ?? [],
    nameOf: (id, subject) => team.book.nameOf(id, subject),
    onChange: (_id, notice) => deps.onChange(notice),
    workstation: deps.workstation,
    ...(deps.retry ? { retry: deps.retry } : {}),
  });
  team.attach(book);

  /** The answer's legal entity (one of the analyst's team) and its content as the draft says it. */
  const resolve = async (
    ref: AnswerRef,
  ): Promise<{ legalEntityId: string; content: AnswerContent | null } | null> => {
    if (!team.status().serverUrl) return null;
    const me = analyst();
    const rfi = await deps.rfiOf(ref.rfiId, ref.profileId);
    if (!rfi?.legalEntityId) return null;
    // Signed out, the entity is the team's when its rules were read here: signing out is no way around them.
    const member = me
      ? me.memberships.some((m) => m.legalEntityId === rfi.legalEntityId)
      : book.rules(rfi.legalEntityId) !== null;
    if (!member) return null;
    const draft = await deps.draftOf(ref);
    const content: AnswerContent | null = draft
      ? {
          kind: 'rfi_answer',
          rfiId: ref.rfiId,
          rfiType: rfi.rfiType,
          text: draft.text,
          documentSha256s: draft.documentSha256s,
        }
      : null;
    return { legalEntityId: rfi.legalEntityId, content };
  };

  const requireTeam = async (ref: AnswerRef) => {
    if (!team.status().serverUrl || !analyst()) failure(new TeamNotSignedIn());
    const r = await resolve(ref);
    if (!r)
      throw new AppFailure({
        kind: 'forbidden',
        reason: 'NOT_A_MEMBER',
        message:
          'This RFI’s legal entity is not part of your team (or the bank has not said which it is yet).',
      });
    return r;
  };

  const entityName = (id: string): string =>
    analyst()?.memberships.find((m) => m.legalEntityId === id)?.legalEntityName ?? id;

  /**
   * Why an answer of the team's cannot go to the bank now, in words; null when it may (no rule
   * applies by the rules last read, or an approval covers it and the analyst is signed in).
   */
  const heldWhy = (
    legalEntityId: string,
    content: AnswerContent,
    covered: boolean,
  ): { reason: 'TEAM_RULES_UNKNOWN' | 'TEAM_SIGNED_OUT'; words: string } | null => {
    const required = book.required(legalEntityId, content);
    if (required === null)
      return {
        reason: 'TEAM_RULES_UNKNOWN',
        words: `Not sent: ${entityName(legalEntityId)}’s approval rules are not known on this workstation yet, so this answer waits for the team server (it may need a checker).`,
      };
    if (required && !analyst())
      return {
        reason: 'TEAM_SIGNED_OUT',
        words: covered
          ? 'Not sent: sign in to the team to send this approved answer.'
          : 'Not sent: your team’s rules want a checker to approve this answer; sign in to the team to ask.',
      };
    return null;
  };

  const leases = createLeaseKeeper({
    // Refused `stale_lease` once another workstation holds it (the feed carries the renewal too).
    renew: ({ id, leaseNumber }) =>
      deps.team.http.call('POST', `/v1/send-jobs/${encodeURIComponent(id)}/renew`, SendJob, { leaseNumber }),
    log: deps.log,
    ...(deps.leaseRenewal ? { timing: deps.leaseRenewal } : {}),
  });

  return {
    book,
    leases,
    rules: () =>
      (analyst()?.memberships ?? []).map((m) => ({
        ...book.rulesView(m.legalEntityId),
        legalEntityName: m.legalEntityName,
        known: book.rules(m.legalEntityId) !== null,
      })),
    async setRules(legalEntityId, rules) {
      if (!analyst()?.memberships.some((m) => m.legalEntityId === legalEntityId && m.roles.includes('admin')))
        throw new AppFailure({
          kind: 'forbidden',
          reason: 'NOT_ADMIN',
          message: 'Only an admin of this legal entity sets its approval rules.',
        });
      try {
        const v = await book.setRules(legalEntityId, rules);
        return { ...v, legalEntityName: entityName(legalEntityId), known: true };
      } catch (err) {
        return failure(err);
      }
    },
    async forAnswer(ref) {
      const r = await resolve(ref);
      if (!r) return { required: null, approval: null, covers: false, held: null };
      const approval = analyst() ? book.view(r.legalEntityId, ref.questionId) : null;
      const required = r.content ? book.required(r.legalEntityId, r.content) : null;
      const covers = approvedFor(approval, r.content);
      const held = r.content ? (heldWhy(r.legalEntityId, r.content, covers)?.words ?? null) : null;
      return { required, approval: approval?.rfiId === ref.rfiId ? approval : null, covers, held };
    },
    async ask(input) {
      const { questionType, text, files, ...ref } = input;
      await deps.saveDraft({ ...ref, questionType, text, files });
      const r = await requireTeam(ref);
      if (!r.content)
        throw new AppFailure({ kind: 'invalid_argument', field: 'text', message: 'Write the answer first.' });
      try {
        return await book.ask(r.legalEntityId, ref.questionId, r.content);
      } catch (err) {
        return failure(err);
      }
    },
    async decide(input) {
      const r = await requireTeam(input);
      const view = book.view(r.legalEntityId, input.questionId);
      if (!view || view.approvalId !== input.approvalId)
        throw new AppFailure({
          kind: 'conflict',
          reason: 'CONTENT_CHANGED',
          message: 'This approval is no longer the answer’s current one: read it again.',
        });
      try {
        return await book.decide(
          input.approvalId,
          input.decision === 'approve'
            ? { approve: true, contentHash: input.contentHash }
            : { approve: false, contentHash: input.contentHash, reason: input.reason },
        );
      } catch (err) {
        return failure(err);
      }
    },
    list: (rfiId) => (analyst() ? book.views(rfiId ? { rfiId } : undefined) : []),
    async submit(ref) {
      const r = await resolve(ref);
      if (!r?.content) return null;
      // The rules unknown (never read here), or signed out where a rule applies: the answer is held
      // (its draft kept), never sent to the bank as in solo use.
      const held = heldWhy(r.legalEntityId, r.content, false);
      if (held) throw new AppFailure({ kind: 'precondition', reason: held.reason, message: held.words });
      const view = book.view(r.legalEntityId, ref.questionId);
      const approved = approvedFor(view, r.content) && !view?.queued;
      // Only the RFI's type decides for an answer, by the rules last read; but an answer a checker
      // approved goes out as its send job whatever the rules say now (a rule dropped since, or
      // rules read stale): the job is what keeps it to one send across the team's workstations.
      if (book.required(r.legalEntityId, r.content) !== true && !approved) return null;
      if (!approved)
        throw new AppFailure({
          kind: 'precondition',
          reason: 'APPROVAL_REQUIRED',
          message: 'Your team’s rules want a checker to approve this answer first: ask for approval.',
        });
      try {
        const { approval, job } = await book.takeSendJob(r.legalEntityId, ref.questionId);
        if (job.status === 'done' || job.status === 'failed')
          throw new AppFailure({
            kind: 'conflict',
            reason: 'ALREADY_SENT',
            message: 'This approved answer was sent already (by its send job).',
          });
        const queued = await deps.sendApproved(job, approval, ref.questionId);
        // Held from now until the send ends: a long send is not taken over meanwhile.
        if (queued && job.status === 'leased') leases.hold(job);
        if (!queued)
          throw new AppFailure({
            kind: 'conflict',
            reason: 'CONTENT_CHANGED',
            message: 'The answer changed since it was approved: ask for approval again.',
          });
        return queued;
      } catch (err) {
        return failure(err);
      }
    },
    async draftSaved(ref) {
      const r = await resolve(ref).catch(() => null);
      if (r?.content) book.draftChanged(r.legalEntityId, ref.questionId, r.content);
    },
    sendFinished: (job, outcome) => book.sendFinished(job, outcome),
    async dispose() {
      leases.dispose();
      await book.dispose();
    },
  };
}
