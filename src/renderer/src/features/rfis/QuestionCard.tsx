import { useEffect } from 'react';
import { questionTypeInfo } from '../../../../shared/catalogue';
import type { AnswerView, DraftView } from '../../../../shared/ipc/channels/rfi-answers';
import type { RfiDetailView } from '../../../../shared/ipc/channels/rfis';
import { questionTypeWords } from '../../../../shared/words';
import { StatusBadge } from '../../components/StatusBadge';
import { AnswerComposer, AnswerStatus } from './AnswerComposer';
import type { UploadLimits } from './answers-store';
import { QuestionHistory } from './QuestionHistory';
import type { KnownDocuments } from './QuestionHistory';
import { UnsentDraft } from './UnsentDraft';

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

/**
 * "A" answers: the first question awaiting an answer gets the keyboard (its text box, else its
 * first control), wherever focus was on the screen; not while typing or in a dialog.
 */
export function useAnswerShortcut(): void {
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
}

export interface QuestionCardProps {
  rfiId: string;
  /** The profile that owns the RFI: drafts, files and the answer go through it alone. */
  profileId: string;
  question: Question;
  index: number;
  ownerName: string;
  known: KnownDocuments;
  now: number;
  /** null while the drafts are being read. */
  drafts: Record<string, DraftView> | null;
  answer: AnswerView | undefined;
  limits: UploadLimits | null;
  onDraftDiscarded(questionId: string): void;
}

/** One question: its text, type and status, its history, and its composer or answer state. */
export function QuestionCard(p: QuestionCardProps) {
  const q = p.question;
  const info = questionTypeInfo(q.question_type);
  const awaiting = q.status === 'action_required';
  const draft = p.drafts?.[q.id];
  return (
    <article
      className="rfi-question"
      aria-labelledby={`q-${q.id}-title`}
      data-testid={`question-${q.id}`}
      data-question-status={q.status}
    >
      <h3 id={`q-${q.id}-title`}>
        {p.index + 1}. {q.question_data.question_text || info.label}
      </h3>
      <p className="rfi-question__meta">
        <span data-testid="question-type">
          <span title={`The bank’s question type: ${q.question_type}`}>
            {questionTypeWords(q.question_type)} ·{' '}
            {info.expects === 'either' ? 'answer with text or documents' : `answer with ${info.expects}`}
          </span>
        </span>{' '}
        <span data-testid="question-status">
          <StatusBadge status={q.status} />
        </span>
      </p>
      {q.question_data.comment && <p className="muted">{q.question_data.comment}</p>}
      <h4>History</h4>
      <QuestionHistory question={q} ownerName={p.ownerName} known={p.known} now={p.now} />
      {p.drafts === null ? (
        <p className="muted">Loading the draft…</p>
      ) : !awaiting && unsent(p.answer, draft) ? (
        <UnsentDraft
          rfiId={p.rfiId}
          profileId={p.profileId}
          questionId={q.id}
          questionStatus={q.status}
          draft={draft}
          answer={p.answer}
          onDiscarded={() => p.onDraftDiscarded(q.id)}
        />
      ) : awaiting || (p.answer && p.answer.state !== 'sent') ? (
        <AnswerComposer
          key={q.id}
          rfiId={p.rfiId}
          profileId={p.profileId}
          questionId={q.id}
          questionType={q.question_type}
          awaiting={awaiting}
          draft={draft}
          answer={p.answer}
          limits={p.limits}
        />
      ) : p.answer ? (
        <AnswerStatus answer={p.answer} draftSavedAt={null} />
      ) : null}
    </article>
  );
}
