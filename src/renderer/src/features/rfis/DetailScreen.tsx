import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { DraftView } from '../../../../shared/ipc/channels/rfi-answers';
import type { RfiDetailView } from '../../../../shared/ipc/channels/rfis';
import { rfiDeadline } from '../../../../shared/rfi-rules';
import { rfiTypeWords } from '../../../../shared/words';
import { StatusBadge } from '../../components/StatusBadge';
import { BackLink, Button, CopyableId, ErrorState, RelativeTime, Skeleton } from '../../components/ui';
import { bankClockSubscription, bankNow } from '../../lib/bank-clock';
import { call, errorMessage } from '../../lib/desk';
import { entityLabel } from '../../lib/entity';
import { useDeskEvent, useSubscription } from '../../lib/events';
import { useRouter, withQuery } from '../../lib/router';
import { CaseFileExport } from '../case-files/CaseFileExport';
import { answerOf, answersSubscription, latestAnswer, useAnswers } from './answers-store';
import { DeadlineClock } from './DeadlineClock';
import { QuestionCard, useAnswerShortcut } from './QuestionCard';
import type { KnownDocuments } from './QuestionHistory';
import { relatedLabel, useRelatedNames } from './related-names';
import { SnoozeControl } from './SnoozeControl';
import { Assignment } from '../team/Assignment';
import { RfiTeamNotes } from '../team-share/RfiTeamNotes';
import { TeamActivity } from '../team-share/TeamActivity';

type Drafts = Record<string, DraftView>;

const draftsById = (r: { drafts: DraftView[] }): Drafts =>
  Object.fromEntries(r.drafts.map((d) => [d.questionId, d]));

/** The related object by name, linked to its own screen when it has one (a transfer, an exchange order). */
function RelatedObject({ detail }: { detail: RfiDetailView }) {
  const navigate = useRouter((s) => s.navigate);
  const names = useRelatedNames((s) => s.names);
  const orders = useRelatedNames((s) => s.orders);
  const rfi = detail.rfi;
  // Named through the profile that owns the RFI (its account book, its bank), whichever is the default.
  const owner = detail.owner?.profileId ?? detail.summary.profileId;
  useEffect(() => {
    void useRelatedNames.getState().want([{ profileId: owner, type: rfi.type, relatedId: rfi.related_id }]);
  }, [owner, rfi.type, rfi.related_id]);
  // The entity is named in the facts above: the related object does not repeat it.
  const related = relatedLabel(names, owner, rfi.type, rfi.related_id, detail.owner?.entityName);
  // A transaction RFI is about an incoming transfer (Returns) or one of this workstation's
  // exchange orders (its quote screen): the link goes to the screen of its kind. The transfer is
  // read (and returned) through the profile that owns this RFI.
  const exchangeOrder = orders[rfi.related_id];
  const relatedPath = exchangeOrder
    ? `/exchange/${encodeURIComponent(exchangeOrder)}`
    : withQuery(`/returns/${encodeURIComponent(rfi.related_id)}`, { profile: detail.owner?.profileId });
  return (
    <dd className="rfi-detail__related">
      {rfi.type === 'transaction' ? (
        <a
          href={`#${relatedPath}`}
          data-testid="rfi-related-name"
          onClick={(e) => {
            e.preventDefault();
            navigate(relatedPath);
          }}
        >
          {related.name ?? (exchangeOrder ? 'Open the exchange order' : 'Open the transfer')}
        </a>
      ) : (
        <span data-testid="rfi-related-name">{related.name ?? related.kind}</span>
      )}{' '}
      <span data-testid="rfi-related">
        <CopyableId id={rfi.related_id} kind={`${related.kind.toLowerCase()} id`} />
      </span>
    </dd>
  );
}

/** The RFI's facts: entity, status, related object, times, deadline on the bank's clock, reminders. */
function DetailFacts({ detail, ownerName, now }: { detail: RfiDetailView; ownerName: string; now: number }) {
  const rfi = detail.rfi;
  const deadline = rfiDeadline(rfi);
  return (
    <dl className="rfi-detail__facts">
      {detail.owner && (
        <div>
          <dt>Legal entity</dt>
          <dd data-testid="rfi-entity">{ownerName}</dd>
        </div>
      )}
      <div>
        <dt>Status</dt>
        <dd data-testid="rfi-status">
          <StatusBadge status={rfi.status} />
        </dd>
      </div>
      <div>
        <dt>Related object</dt>
        <RelatedObject detail={detail} />
      </div>
      <div>
        <dt>Created</dt>
        <dd>
          <RelativeTime value={rfi.created_at} now={now} />
        </dd>
      </div>
      <div>
        <dt>Updated</dt>
        <dd>
          <RelativeTime value={rfi.updated_at} now={now} />
        </dd>
      </div>
      <div>
        <dt>Deadline</dt>
        <dd>
          <DeadlineClock deadline={deadline ? deadline.toISOString() : null} now={now} />
        </dd>
      </div>
      {detail.summary.awaitingAction && deadline && (
        <div>
          <dt>Reminders</dt>
          <dd>
            <SnoozeControl
              rfiId={rfi.id}
              profileId={detail.owner?.profileId ?? detail.summary.profileId ?? ''}
            />
          </dd>
        </div>
      )}
    </dl>
  );
}

/**
 * The RFI of the named profile, its drafts and the error of the last read, kept current with the
 * bank's changes. Every read goes through that profile: another bank's RFI of the same id is
 * another RFI.
 */
function useRfiDetail(id: string, profileId: string) {
  const [detail, setDetail] = useState<RfiDetailView | null>(null);
  const [drafts, setDrafts] = useState<Drafts | null>(null);
  const [error, setError] = useState<string | null>(null);
  const loadFor = useAnswers((s) => s.loadFor);
  const seenFor = useRef<string | null>(null);

  const load = useCallback(
    (refresh: boolean) =>
      call('rfis.get', { profileId, id, refresh }).then(
        (d) => {
          setDetail(d);
          setError(null);
          if (seenFor.current !== d.rfi.updated_at) {
            seenFor.current = d.rfi.updated_at;
            void call('rfis.markSeen', { profileId, id, updatedAt: d.rfi.updated_at }).catch(() => undefined);
          }
        },
        (err: unknown) => setError(errorMessage(err)),
      ),
    [id, profileId],
  );

  useSubscription(answersSubscription);
  useDeskEvent('rfis.changed', (c) => {
    if (c.truncated || c.updated.includes(id) || c.created.includes(id)) void load(false);
  });
  // When one of our answers lands, re-read the RFI from the bank (its status moved).
  useDeskEvent('answers.changed', (a) => {
    if (answerOf(a, id, profileId) && (a.state === 'sent' || a.state === 'conflict')) void load(true);
  });

  // The screen is keyed by the RFI id (RfisScreen), so its state starts empty for every RFI.
  useEffect(() => {
    void load(true);
    void loadFor(id, profileId).catch((err: unknown) => setError(errorMessage(err)));
    void call('drafts.get', { profileId, rfiId: id })
      .then((r) => setDrafts(draftsById(r)))
      .catch((err: unknown) => {
        setDrafts({});
        setError(`Drafts could not be read: ${errorMessage(err)}`);
      });
  }, [id, profileId, load, loadFor]);

  // When the RFI changes at the bank (a question closed or answered), re-read the drafts: what
  // the analyst typed since this screen opened is on disk, and must show as "not sent" if its
  // question no longer awaits an answer. (Composers take their draft only when they mount.)
  const updatedAt = detail?.rfi.updated_at;
  const ownerId = detail?.owner?.profileId ?? profileId;
  useEffect(() => {
    if (!updatedAt) return;
    void call('drafts.get', { rfiId: id, profileId: ownerId })
      .then((r) => setDrafts(draftsById(r)))
      .catch(() => undefined);
  }, [id, updatedAt, ownerId]);

  const discardDraft = useCallback(
    (questionId: string) =>
      setDrafts((d) => {
        const next = { ...d };
        delete next[questionId];
        return next;
      }),
    [],
  );
  return { detail, drafts, error, load, discardDraft };
}

/** Now on the bank's clock, ticking every 30 s (deadlines and ages are the bank's). */
function useBankTick(): number {
  const [now, setNow] = useState(() => bankNow());
  useSubscription(bankClockSubscription);
  useEffect(() => {
    const t = setInterval(() => setNow(bankNow()), 30_000);
    return () => clearInterval(t);
  }, []);
  return now;
}

/**
 * One RFI (#/rfis/<id>): description, related object, questions with history and answer
 * composers. `inSplit`: shown beside the queue (no back link; the queue is right there).
 */
export function DetailScreen({
  id,
  profileId,
  inSplit = false,
}: {
  id: string;
  profileId: string;
  inSplit?: boolean | undefined;
}) {
  const { detail, drafts, error, load, discardDraft } = useRfiDetail(id, profileId);
  const byId = useAnswers((s) => s.byId);
  const limits = useAnswers((s) => s.limits);
  const now = useBankTick();
  useAnswerShortcut();
  const known: KnownDocuments = useMemo(
    () => new Map((detail?.documents ?? []).map((d) => [d.id, d])),
    [detail?.documents],
  );

  const back = inSplit ? null : <BackLink href="#/rfis">Back to the queue</BackLink>;

  if (error && !detail) {
    return (
      <section className="screen" aria-labelledby="rfi-detail-title">
        {back}
        <h1 id="rfi-detail-title">RFI</h1>
        <ErrorState
          title="This RFI could not be read"
          action={
            <Button variant="primary" onPress={() => void load(true)}>
              Try again
            </Button>
          }
        >
          {error}
        </ErrorState>
      </section>
    );
  }
  if (!detail) {
    return (
      <section className="screen" aria-busy="true" aria-labelledby="rfi-detail-title">
        {back}
        <h1 id="rfi-detail-title">RFI</h1>
        <Skeleton label="Loading the RFI" lines={5} />
      </section>
    );
  }
  const rfi = detail.rfi;
  const owner = detail.owner;
  // The profile that owns the RFI (main's answer; the route's until it answered).
  const ownerId = owner?.profileId ?? profileId;
  const ownerName = owner ? entityLabel({ name: owner.entityName, id: rfi.legal_entity_id }) : '';

  return (
    <section className="screen rfi-detail" aria-labelledby="rfi-detail-title" data-testid="rfi-detail">
      {back}
      <h1 id="rfi-detail-title">
        <span className="rfi-detail__kind">{rfiTypeWords(rfi.type)} RFI</span>
        {rfi.description && <span className="rfi-detail__title">{rfi.description}</span>}
      </h1>
      <p className="rfi-detail__id">
        <CopyableId id={rfi.id} kind="RFI id" />
      </p>
      <DetailFacts detail={detail} ownerName={ownerName} now={now} />
      <Assignment rfiId={rfi.id} profileId={ownerId} legalEntityId={detail.summary.legalEntityId ?? null} />
      {owner && (
        <p className="muted" data-testid="rfi-acting">
          Answers go out as {ownerName}, with its own credential.
        </p>
      )}
      <CaseFileExport rfis={[{ profileId: ownerId, rfiId: rfi.id }]} />
      {detail.bankUnreachable && (
        <p className="notice notice--warn" role="status" data-testid="rfi-from-cache">
          The bank could not be reached: this is the copy saved on this computer.
        </p>
      )}
      {error && (
        <p role="alert" className="field-error">
          {error}
        </p>
      )}
      {/* The description is the title above: not repeated, so the first question comes sooner.
          Without one, the title is the type and this says so. */}
      {!rfi.description && <p className="muted rfi-detail__description">The bank gave no description.</p>}

      <h2>Questions</h2>
      {rfi.questions.length === 0 && <p className="muted">This RFI has no questions.</p>}
      {rfi.questions.map((q, i) => (
        <QuestionCard
          key={q.id}
          rfiId={rfi.id}
          profileId={ownerId}
          question={q}
          index={i}
          ownerName={ownerName}
          known={known}
          now={now}
          drafts={drafts}
          answer={latestAnswer(byId, { rfiId: rfi.id, profileId }, q.id)}
          limits={limits}
          onDraftDiscarded={discardDraft}
        />
      ))}
      <RfiTeamNotes rfiId={rfi.id} profileId={ownerId} />
      <TeamActivity rfiId={rfi.id} profileId={ownerId} />
    </section>
  );
}
