/**
 * Taking over a team's send job: an approved answer whose send job no workstation holds (queued
 * and left alone, or its holder's lease expired: the maker's workstation died or went away) is
 * sent by another workstation of the legal entity's team that can send it. It needs what the bank
 * needs, with this analyst's own credential: a profile whose bank named that legal entity, the
 * RFI's question, and every document of the approved content by its sha256 from the team's shared
 * evidence locker (the maker's own files never leave their workstation).
 *
 * The job is leased first (one holder at a time, `FOR UPDATE SKIP LOCKED` on the server), then the
 * documents are staged from the shared locker and the answer goes to the owning profile's bank
 * outbox under the job's idempotency key. A job leased again says `verifyFirst`: the outbox entry
 * starts by re-reading the RFI, and the response already there (the same text with as many
 * documents) is the send's result, so the bank keeps one response. Whatever stops the hand-over
 * hands the lease back as an unknown outcome, so the next holder verifies first too.
 */
import { bankKey } from '../bank/scope';
import type { Logger } from '../infra/log';
import type { RfiAnswers } from '../rfi-answers';
import type { TeamApprovals } from '../team/approvals-service';
import type { TeamService } from '../team/service';
import type { TeamShare } from '../team/share';
import type { WatchedEntity } from '../watch/entity-watch';

export interface TakeoverTiming {
  /** How often leases are looked at (they expire without a change on the feed). */
  everyMs: number;
  /** How long a queued job is left to the workstation that queued it (it leases it at once). */
  graceMs: number;
}

export const DEFAULT_TAKEOVER: TakeoverTiming = { everyMs: 15_000, graceMs: 60_000 };

export interface TakeoverDeps {
  team: TeamService;
  approvals: TeamApprovals;
  rfiAnswers: RfiAnswers;
  share: TeamShare;
  log: Logger;
  /** The profile that owns an RFI (null: none of this workstation's). */
  /** The watched profile of the job's legal entity that holds the RFI (null: none here). */
  ownerOf(legalEntityId: string, rfiId: string): Promise<WatchedEntity | null>;
  timing?: Partial<TakeoverTiming>;
}

export interface SendTakeover {
  /** Looks at the free send jobs now and takes over those this workstation can send. */
  sweep(): Promise<void>;
  dispose(): Promise<void>;
}

export function startSendTakeover(deps: TakeoverDeps): SendTakeover {
  const timing = { ...DEFAULT_TAKEOVER, ...deps.timing };
  const { approvals, rfiAnswers, log } = deps;
  const book = approvals.book;
  /** When this workstation first saw each queued job (its maker leases it at once). */
  const queuedSince = new Map<string, number>();
  /** Jobs looked at and found not sendable here, by why (logged once). */
  const cannot = new Map<string, string>();
  let running: Promise<void> | null = null;
  let disposed = false;

  const handedHere = (idempotencyKey: string): boolean =>
    rfiAnswers.outbox
      .list()
      .some((a) => rfiAnswers.outbox.get(a.id)?.teamJob?.idempotencyKey === idempotencyKey);

  const skip = (jobId: string, why: string): void => {
    if (cannot.get(jobId) === why) return;
    cannot.set(jobId, why);
    log.info('team: a free send job is not sendable here', { jobId, why });
  };

  const once = async (): Promise<void> => {
    const status = deps.team.status();
    if (status.connection !== 'connected' || !status.analyst) return;
    const now = Date.now();
    for (const { job, approval } of book.leasable(now)) {
      if (disposed) return;
      const content = approval.content;
      if (content.kind !== 'rfi_answer') continue;
      if (job.status === 'queued' && !job.verifyFirst) {
        const since = queuedSince.get(job.id) ?? now;
        queuedSince.set(job.id, since);
        if (now - since < timing.graceMs) continue;
      }
      if (handedHere(job.idempotencyKey)) continue;
      const owner = await deps.ownerOf(job.legalEntityId, content.rfiId).catch(() => null);
      const scope = owner?.session.scope();
      if (!owner || !scope) {
        skip(job.id, 'no profile of this legal entity holds the RFI');
        continue;
      }
      const shared = (await deps.share.evidence(owner.profileId).catch(() => [])).find(
        (e) => e.legalEntityId === job.legalEntityId,
      );
      const docs = content.documentSha256s.map((sha) =>
        shared?.documents.find((d) => d.sha256 === sha && !d.pending),
      );
      if (docs.some((d) => d === undefined)) {
        skip(job.id, 'a document is not in the team’s shared locker');
        continue;
      }
      const question = (await owner.rfis.get(content.rfiId).catch(() => null))?.rfi.questions.find(
        (q) => q.id === job.object.id,
      );
      if (!question) {
        skip(job.id, 'the RFI’s question could not be read');
        continue;
      }
      const ownDraft = await rfiAnswers.drafts.getOne(content.rfiId, question.id, bankKey(scope));
      if (ownDraft && (ownDraft.text !== '' || ownDraft.files.length > 0)) {
        skip(job.id, 'this analyst has a draft of their own for the question');
        continue;
      }
      let leased;
      try {
        leased = await book.leaseJob(job.id);
      } catch (err) {
        // Another workstation took it first, or the server is away: nothing was leased.
        log.info('team: a send job was not leased', { jobId: job.id, error: err });
        continue;
      }
      // Renewed from now until the send ends: a long send is not taken over in turn.
      approvals.leases.hold(leased);
      const teamJob = {
        id: leased.id,
        legalEntityId: leased.legalEntityId,
        leaseNumber: leased.leaseNumber,
        idempotencyKey: leased.idempotencyKey,
      };
      try {
        const files: string[] = [];
        for (const d of docs)
          if (d)
            files.push(
              (await deps.share.attachEvidence(d.id, content.rfiId, question.id, owner.profileId)).ref,
            );
        await rfiAnswers.submit({
          rfiId: content.rfiId,
          questionId: question.id,
          questionType: question.question_type,
          text: content.text,
          files,
          owner: scope,
          teamJob,
          verifyFirst: leased.verifyFirst,
        });
        log.info('team: took over a send job', {
          jobId: leased.id,
          leaseNumber: leased.leaseNumber,
          verifyFirst: leased.verifyFirst,
        });
      } catch (err) {
        log.warn('team: taking over a send job failed; the lease is handed back', {
          jobId: leased.id,
          error: err,
        });
        approvals.leases.release(leased.id);
        await book
          .sendFinished(
            {
              id: leased.id,
              leaseNumber: leased.leaseNumber,
              legalEntityId: leased.legalEntityId,
              objectId: question.id,
              rfiId: content.rfiId,
            },
            { sent: false },
          )
          .catch((e: unknown) => log.warn('team: handing a lease back failed', { error: e }));
      }
    }
  };

  const sweep = (): Promise<void> => {
    if (disposed) return Promise.resolve();
    running ??= once()
      .catch((err: unknown) => log.warn('team: looking for send jobs to take over failed', { error: err }))
      .finally(() => {
        running = null;
      });
    return running;
  };

  const timer = setInterval(() => void sweep(), timing.everyMs);
  timer.unref?.();
  deps.team.follow({
    change: (c) => {
      if (c.topic === 'send_job') void sweep();
    },
    connected: () => void sweep(),
  });

  return {
    sweep,
    async dispose() {
      disposed = true;
      clearInterval(timer);
      await running;
    },
  };
}
