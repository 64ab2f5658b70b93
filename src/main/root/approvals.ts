/**
 * Four-eyes approval of RFI answers, joined to the rest of the app: each answer's legal entity and
 * RFI type from the profile that owns the RFI, its content from the saved draft (the staged
 * documents' sha256s), and an approved answer handed to that profile's bank outbox under the team
 * send job's idempotency key, its outcome reported back when the bank holds it.
 */
import { bankKey } from '../bank/scope';
import type { OutboxEntry, RfiAnswers } from '../rfi-answers';
import { SEND_TAKEN_OVER } from '../rfi-answers/answer-state';
import type { SendOutcome } from '../team/send-lease';
import type { TeamService } from '../team/service';
import {
  createTeamApprovals,
  type AnswerRef,
  type DraftContent,
  type TeamApprovals,
} from '../team/approvals-service';
import { teamRulesDefaults, teamRulesFormat } from '../team/stored';
import type { EntityWatch } from '../watch/entity-watch';
import { entityOwner, workstationName } from './features';
import type { Foundation } from './foundation';

export async function assembleApprovals(
  f: Foundation,
  team: TeamService,
  entityWatch: EntityWatch,
  rfiAnswers: RfiAnswers,
): Promise<TeamApprovals> {
  const ownerOf = (rfiId: string, profileId: string) => entityWatch.owner(rfiId, profileId);

  const sha256sOf = async (refs: string[]): Promise<string[]> =>
    Promise.all(refs.map((ref) => rfiAnswers.files.source(ref).sha256()));

  const draftOf = async (ref: AnswerRef): Promise<DraftContent | null> => {
    const owner = await ownerOf(ref.rfiId, ref.profileId);
    const d = await rfiAnswers.drafts.getOne(ref.rfiId, ref.questionId, bankKey(owner.session.scope()));
    if (!d) return null;
    return { questionType: d.questionType, text: d.text, documentSha256s: await sha256sOf(d.files) };
  };

  const workstation = workstationName(f.dataDir);

  const approvals = await createTeamApprovals({
    team,
    log: f.log,
    dataDir: f.dataDir,
    codec: f.atRest,
    rulesStore: await f.stores.open('team-rules', teamRulesFormat, teamRulesDefaults),
    onProblem: (message, file, movedTo) => f.stores.report({ file, movedTo, message }),
    workstation,
    rfiOf: async (rfiId, profileId) => {
      const owner = await ownerOf(rfiId, profileId);
      const detail = await owner.rfis.get(rfiId);
      return { legalEntityId: owner.session.scope().legalEntityId, rfiType: detail.rfi.type };
    },
    draftOf,
    saveDraft: async ({ rfiId, questionId, profileId, questionType, text, files }) => {
      const owner = await ownerOf(rfiId, profileId);
      await rfiAnswers.saveDraft({
        rfiId,
        questionId,
        questionType,
        text,
        files,
        owner: owner.session.scope(),
      });
    },
    async sendApproved(job, approval, questionId) {
      if (approval.content.kind !== 'rfi_answer') return null;
      const rfiId = approval.content.rfiId;
      const owner = await entityOwner(entityWatch, approval.legalEntityId, rfiId);
      if (!owner) return null;
      const scope = owner.session.scope();
      // Handed over once per key (a retried lease, a restart): the outbox keeps the entry.
      const handed = rfiAnswers.outbox
        .list(rfiId)
        .find((a) => rfiAnswers.outbox.get(a.id)?.teamJob?.idempotencyKey === job.idempotencyKey);
      if (handed) return handed;
      const d = await rfiAnswers.drafts.getOne(rfiId, questionId, bankKey(scope));
      if (!d) return null;
      const draft = await draftOf({ rfiId, questionId, profileId: owner.profileId });
      if (!draft || draft.text !== approval.content.text) return null;
      if (draft.documentSha256s.join() !== approval.content.documentSha256s.join()) return null;
      return rfiAnswers.submit({
        rfiId,
        questionId,
        questionType: d.questionType,
        text: d.text,
        files: d.files,
        owner: scope,
        teamJob: {
          id: job.id,
          legalEntityId: job.legalEntityId,
          leaseNumber: job.leaseNumber,
          idempotencyKey: job.idempotencyKey,
        },
      });
    },
    onChange: (notice) => f.events.emit('team.approvalsChanged', { notice }),
    ...(f.options.team?.outboxRetry ? { retry: f.options.team.outboxRetry } : {}),
    ...(f.options.team?.leaseRenewal ? { leaseRenewal: f.options.team.leaseRenewal } : {}),
  });
  const report = (entry: OutboxEntry, outcome: SendOutcome): void => {
    const j = entry.teamJob;
    if (!j) return;
    approvals.leases.release(j.id);
    void approvals
      .sendFinished(
        {
          id: j.id,
          leaseNumber: j.leaseNumber,
          legalEntityId: j.legalEntityId,
          objectId: entry.questionId,
          rfiId: entry.rfiId,
        },
        outcome,
      )
      .catch((err: unknown) => f.log.warn('team: reporting a send failed', { error: err }));
  };
  // The bank holds the answer: the send job is done (reported under its lease number).
  const offSent = rfiAnswers.onSent((_rfiId, _owner, entry) => {
    if (entry.responseId) report(entry, { sent: true, responseId: entry.responseId });
  });
  // The bank refused it, or the question moved on: the job ends with the reason, for the whole team.
  // Stopped because another workstation took the send over: that workstation reports it.
  const offEnded = rfiAnswers.onEnded((entry) => {
    if (!entry.teamJob) return;
    if (entry.lastError?.reason === SEND_TAKEN_OVER) return approvals.leases.release(entry.teamJob.id);
    report(entry, { sent: false, ended: endedWords(entry) });
  });
  // No bank write of a send job's answer without its lease (renewed while the send is under way).
  const offGuard = rfiAnswers.guardWrites(async (entry) => {
    if (entry.teamJob) await approvals.leases.check(entry.teamJob);
  });
  f.disposables.add(() => approvals.dispose());
  f.disposables.add(offSent);
  f.disposables.add(offEnded);
  f.disposables.add(offGuard);
  return approvals;
}

/** Why an answer of a send job ended without reaching the bank, in the words the team reads. */
export function endedWords(entry: OutboxEntry): { outcome: 'failed' | 'conflict'; reason: string } {
  if (entry.state === 'conflict') {
    const status = entry.conflict?.questionStatus;
    return {
      outcome: 'conflict',
      reason:
        status && status !== 'unknown'
          ? `the question is ${status.replace(/_/g, ' ')} at the bank and no longer awaits a response`
          : 'the question no longer awaits a response at the bank',
    };
  }
  return {
    outcome: 'failed',
    reason: `the bank refused the answer: ${entry.lastError?.message ?? 'no reason given'}`,
  };
}
