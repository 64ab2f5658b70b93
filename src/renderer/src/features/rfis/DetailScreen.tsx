import { useCallback, useEffect, useRef, useState } from 'react';
import { questionTypeInfo } from '../../../../shared/catalogue';
import type { DraftView } from '../../../../shared/ipc/channels/rfi-answers';
import type { RfiDetailView } from '../../../../shared/ipc/channels/rfis';
import { rfiDeadline } from '../../../../shared/rfi-rules';
import { StatusBadge } from '../../components/StatusBadge';
import { call, errorMessage } from '../../lib/desk';
import { useDeskEvent, useSubscription } from '../../lib/events';
import { useRouter } from '../../lib/router';
import { AnswerComposer, AnswerStatus } from './AnswerComposer';
import { answersSubscription, latestAnswer, useAnswers } from './answers-store';
import { DeadlineClock } from './DeadlineClock';
import { formatTime } from './format';
import { CaseFileExport } from '../case-files/CaseFileExport';

type Question = RfiDetailView['rfi']['questions'][number];
type Response = Question['responses'][number];

function responseContent(q: Question, r: Response): { text: string; documentIds: string[] } {
  const c = r.response[q.question_type] ?? Object.values(r.response)[0];
  return { text: c?.response_text ?? '', documentIds: c?.document_ids ?? [] };
}

const RESPONDER: Record<string, string> = {
  customer: 'Customer (us)',
  staff: 'Bank staff',
  system: 'System',
};

/** One RFI (#/rfis/<id>): description, related object, questions with history and answer composers. */
export function DetailScreen({ id }: { id: string }) {
  const navigate = useRouter((s) => s.navigate);
  const [detail, setDetail] = useState<RfiDetailView | null>(null);
  const [drafts, setDrafts] = useState<Record<string, DraftView> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const byId = useAnswers((s) => s.byId);
  const limits = useAnswers((s) => s.limits);
  const loadFor = useAnswers((s) => s.loadFor);
  const seenFor = useRef<string | null>(null);

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

  if (error && !detail) {
    return (
      <section className="screen">
        <h1>RFI {id}</h1>
        <p role="alert" className="field-error">
          {error}
        </p>
        <button type="button" onClick={() => void load(true)}>
          Try again
        </button>{' '}
        <a href="#/rfis">Back to the queue</a>
      </section>
    );
  }
  if (!detail) {
    return (
      <section className="screen" aria-busy="true">
        <h1>RFI {id}</h1>
        <p className="muted">Loading…</p>
      </section>
    );
  }
  const rfi = detail.rfi;
  const deadline = rfiDeadline(rfi);

  return (
    <section className="screen rfi-detail" aria-labelledby="rfi-detail-title" data-testid="rfi-detail">
      <p>
        <a
          href="#/rfis"
          onClick={(e) => {
            e.preventDefault();
            navigate('/rfis');
          }}
        >
          ← Back to the queue
        </a>
      </p>
      <h1 id="rfi-detail-title">
        {rfi.type.replace(/_/g, ' ')} RFI <code>{rfi.id}</code>
      </h1>
      <dl className="rfi-detail__facts">
        <div>
          <dt>Status</dt>
          <dd data-testid="rfi-status">
            <StatusBadge status={rfi.status} />
          </dd>
        </div>
        <div>
          <dt>Related object</dt>
          <dd>
            <code data-testid="rfi-related">{rfi.related_id}</code>
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatTime(rfi.created_at)}</dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>{formatTime(rfi.updated_at)}</dd>
        </div>
        <div>
          <dt>Deadline</dt>
          <dd>
            <DeadlineClock deadline={deadline ? deadline.toISOString() : null} now={now} />
          </dd>
        </div>
      </dl>
      <CaseFileExport rfiIds={[rfi.id]} />
      {detail.fromCache && (
        <p className="muted" role="status" data-testid="rfi-from-cache">
          The bank could not be reached: this is the copy saved on this computer.
        </p>
      )}
      {error && (
        <p role="alert" className="field-error">
          {error}
        </p>
      )}
      <h2>Description</h2>
      <p className="rfi-detail__description">{rfi.description || '(no description)'}</p>

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
              <span>
                Type: <code>{q.question_type}</code>
                {info.expects === 'either'
                  ? ' (unknown type: text or documents)'
                  : ` (${info.label}; expects ${info.expects})`}
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
                  return (
                    <li key={r.id} className={`rfi-history__item rfi-history__item--${r.responder_type}`}>
                      <span className="rfi-history__who">
                        {RESPONDER[r.responder_type] ?? r.responder_type}
                      </span>{' '}
                      <span className="muted">{formatTime(r.created_at)}</span>
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
            ) : awaiting || (answer && answer.state !== 'sent') ? (
              <AnswerComposer
                key={q.id}
                rfiId={rfi.id}
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
