import { useCallback, useEffect, useRef, useState } from 'react';
import { ArrowLeft, Bot, Landmark, UserRound } from 'lucide-react';
import type { LucideIcon } from 'lucide-react';
import { questionTypeInfo } from '../../../../shared/catalogue';
import type { AnswerView, DraftView } from '../../../../shared/ipc/channels/rfi-answers';
import type { RfiDetailView } from '../../../../shared/ipc/channels/rfis';
import { rfiDeadline } from '../../../../shared/rfi-rules';
import { StatusBadge } from '../../components/StatusBadge';
import { Button, CopyableId, ErrorState, RelativeTime, Skeleton } from '../../components/ui';
import { call, errorMessage } from '../../lib/desk';
import { useDeskEvent, useSubscription } from '../../lib/events';
import { useRouter, withQuery } from '../../lib/router';
import { AnswerComposer, AnswerStatus } from './AnswerComposer';
import { answersSubscription, latestAnswer, useAnswers } from './answers-store';
import { DeadlineClock } from './DeadlineClock';
import { relatedLabel, useRelatedNames } from './related-names';
import { SnoozeControl } from './SnoozeControl';
import { UnsentDraft } from './UnsentDraft';
import { CaseFileExport } from '../case-files/CaseFileExport';
import { entityLabel } from '../../lib/entity';
import { questionTypeWords, rfiTypeWords, roleWords } from '../../../../shared/words';

type Question = RfiDetailView['rfi']['questions'][number];

const ACTIVE = new Set(['queued', 'uploading', 'sending', 'verifying']);

/**
 * Something the analyst wrote that did not reach the bank and can no longer be sent there: a
 * saved draft with text or files, or an answer the outbox stopped (conflict, failed) — unless an
 * answer is still on its way.
 */
function unsent(answer: AnswerView | undefined, draft: DraftView | undefined): boolean {
  if (answer && ACTIVE.has(answer.state)) return false;
  if (answer && (answer.state === 'conflict' || answer.state === 'failed')) return true;
  return !!draft && (draft.text.trim() !== '' || draft.files.length > 0);
}
type Response = Question['responses'][number];

function responseContent(q: Question, r: Response): { text: string; documentIds: string[] } {
  const c = r.response[q.question_type] ?? Object.values(r.response)[0];
  return { text: c?.response_text ?? '', documentIds: c?.document_ids ?? [] };
}

const RESPONDER: Record<string, { label: string; icon: LucideIcon }> = {
  customer: { label: 'Customer (us)', icon: UserRound },
  staff: { label: 'Bank staff', icon: Landmark },
  system: { label: 'System', icon: Bot },
};

/**
 * One RFI (#/rfis/<id>): description, related object, questions with history and answer
 * composers. `inSplit`: shown beside the queue (no back link; the queue is right there).
 */
export function DetailScreen({ id, inSplit = false }: { id: string; inSplit?: boolean }) {
  const navigate = useRouter((s) => s.navigate);
  const [detail, setDetail] = useState<RfiDetailView | null>(null);
  const [drafts, setDrafts] = useState<Record<string, DraftView> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const byId = useAnswers((s) => s.byId);
  const limits = useAnswers((s) => s.limits);
  const loadFor = useAnswers((s) => s.loadFor);
  const seenFor = useRef<string | null>(null);
  const names = useRelatedNames((s) => s.names);
  const orders = useRelatedNames((s) => s.orders);

  const load = useCallback(
    (refresh: boolean) =>
      call('rfis.get', { id, refresh }).then(
        (d) => {
          setDetail(d);
          setError(null);
          if (seenFor.current !== d.rfi.updated_at) {
            seenFor.current = d.rfi.updated_at;
            void call('rfis.markSeen', { id, updatedAt: d.rfi.updated_at }).catch(() => undefined);
          }
        },
        (err: unknown) => setError(errorMessage(err)),
      ),
    [id],
  );

  useSubscription(answersSubscription);
  useDeskEvent('rfis.changed', (c) => {
    if (c.truncated || c.updated.includes(id) || c.created.includes(id)) void load(false);
  });
  // When one of our answers lands, re-read the RFI from the bank (its status moved).
  useDeskEvent('answers.changed', (a) => {
    if (a.rfiId === id && (a.state === 'sent' || a.state === 'conflict')) void load(true);
  });

  // "A" answers: the first question awaiting an answer gets the keyboard (its text box, else its
  // first control), wherever focus was on the screen; not while typing or in a dialog.
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent): void => {
      if (e.key.toLowerCase() !== 'a' || e.ctrlKey || e.metaKey || e.altKey || e.shiftKey) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName))) return;
      if (document.querySelector('[role="dialog"]')) return;
      const composer = document.querySelector<HTMLElement>('[data-testid="answer-composer"]');
      const target =
        composer?.querySelector<HTMLElement>('textarea') ?? composer?.querySelector<HTMLElement>('button');
      if (!target) return;
      e.preventDefault();
      target.focus();
      target.scrollIntoView({ block: 'center' });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  // The screen is keyed by the RFI id (RfisScreen), so its state starts empty for every RFI.
  useEffect(() => {
    void load(true);
    void loadFor(id).catch((err: unknown) => setError(errorMessage(err)));
    void call('drafts.get', { rfiId: id })
      .then((r) => setDrafts(Object.fromEntries(r.drafts.map((d) => [d.questionId, d]))))
      .catch((err: unknown) => {
        setDrafts({});
        setError(`Drafts could not be read: ${errorMessage(err)}`);
      });
    const t = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(t);
  }, [id, load, loadFor]);

  // When the RFI changes at the bank (a question closed or answered), re-read the drafts: what
  // the analyst typed since this screen opened is on disk, and must show as "not sent" if its
  // question no longer awaits an answer. (Composers take their draft only when they mount.)
  const updatedAt = detail?.rfi.updated_at;
  const ownerId = detail?.owner?.profileId;
  useEffect(() => {
    if (!updatedAt) return;
    void call('drafts.get', { rfiId: id, ...(ownerId ? { profileId: ownerId } : {}) })
      .then((r) => setDrafts(Object.fromEntries(r.drafts.map((d) => [d.questionId, d]))))
      .catch(() => undefined);
  }, [id, updatedAt, ownerId]);

  const back = inSplit ? null : (
    <p className="rfi-detail__back">
      <a
        href="#/rfis"
        onClick={(e) => {
          e.preventDefault();
          navigate('/rfis');
        }}
      >
        <ArrowLeft size={16} aria-hidden="true" /> Back to the queue
      </a>
    </p>
  );

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
  const deadline = rfiDeadline(rfi);
  const related = relatedLabel(names, rfi.type, rfi.related_id);
  // A transaction RFI is about an incoming transfer (Returns) or one of this workstation's
  // exchange orders (its quote screen): the link goes to the screen of its kind. The transfer is
  // read (and returned) through the profile that owns this RFI.
  const owner = detail.owner;
  const exchangeOrder = orders[rfi.related_id];
  const relatedPath = exchangeOrder
    ? `/exchange/${encodeURIComponent(exchangeOrder)}`
    : withQuery(`/returns/${encodeURIComponent(rfi.related_id)}`, { profile: owner?.profileId });
  const ownerName = owner ? entityLabel({ name: owner.entityName, id: detail.rfi.legal_entity_id }) : '';

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
      <dl className="rfi-detail__facts">
        {owner && (
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
              <SnoozeControl rfiId={rfi.id} />
            </dd>
          </div>
        )}
      </dl>
      {owner && (
        <p className="muted" data-testid="rfi-acting">
          Answers go out as {ownerName}, with its own credential.
        </p>
      )}
      <CaseFileExport rfiIds={[rfi.id]} owners={owner ? { [rfi.id]: owner.profileId } : undefined} />
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
      {rfi.questions.map((q, i) => {
        const info = questionTypeInfo(q.question_type);
        const answer = latestAnswer(byId, rfi.id, q.id);
        const awaiting = q.status === 'action_required';
        return (
          <article
            key={q.id}
            className="rfi-question"
            aria-labelledby={`q-${q.id}-title`}
            data-testid={`question-${q.id}`}
            data-question-status={q.status}
          >
            <h3 id={`q-${q.id}-title`}>
              {i + 1}. {q.question_data.question_text || info.label}
            </h3>
            <p className="rfi-question__meta">
              <span data-testid="question-type">
                <span title={`The bank’s question type: ${q.question_type}`}>
                  {questionTypeWords(q.question_type)} ·{' '}
                  {info.expects === 'either'
                    ? 'answer with text or documents'
                    : `answer with ${info.expects}`}
                </span>
              </span>{' '}
              <span data-testid="question-status">
                <StatusBadge status={q.status} />
              </span>
            </p>
            {q.question_data.comment && <p className="muted">{q.question_data.comment}</p>}
            <h4>History</h4>
            {q.responses.length === 0 ? (
              <p className="muted">No responses yet.</p>
            ) : (
              <ol className="rfi-history" data-testid="question-history">
                {q.responses.map((r) => {
                  const c = responseContent(q, r);
                  const who = RESPONDER[r.responder_type];
                  const Icon = who?.icon ?? Bot;
                  return (
                    <li key={r.id} className={`rfi-history__item rfi-history__item--${r.responder_type}`}>
                      <span className="rfi-history__who">
                        <Icon size={14} aria-hidden="true" className="rfi-history__icon" />
                        {who?.label ?? roleWords(r.responder_type)}
                      </span>{' '}
                      <RelativeTime value={r.created_at} now={now} className="muted" />
                      {c.text && <p className="rfi-history__text">{c.text}</p>}
                      {c.documentIds.length > 0 && (
                        <p className="rfi-history__docs">
                          Documents:{' '}
                          {c.documentIds.map((d) => (
                            <code key={d}>{d} </code>
                          ))}
                        </p>
                      )}
                    </li>
                  );
                })}
              </ol>
            )}
            {drafts === null ? (
              <p className="muted">Loading the draft…</p>
            ) : !awaiting && unsent(answer, drafts[q.id]) ? (
              <UnsentDraft
                rfiId={rfi.id}
                {...(owner ? { profileId: owner.profileId } : {})}
                questionId={q.id}
                questionStatus={q.status}
                draft={drafts[q.id]}
                answer={answer}
                onDiscarded={() =>
                  setDrafts((d) => {
                    const next = { ...d };
                    delete next[q.id];
                    return next;
                  })
                }
              />
            ) : awaiting || (answer && answer.state !== 'sent') ? (
              <AnswerComposer
                key={q.id}
                rfiId={rfi.id}
                {...(owner ? { profileId: owner.profileId } : {})}
                questionId={q.id}
                questionType={q.question_type}
                awaiting={awaiting}
                draft={drafts[q.id]}
                answer={answer}
                limits={limits}
              />
            ) : answer ? (
              <AnswerStatus answer={answer} draftSavedAt={null} />
            ) : null}
          </article>
        );
      })}
    </section>
  );
}
