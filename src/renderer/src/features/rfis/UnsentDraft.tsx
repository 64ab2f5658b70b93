import { useState } from 'react';
import { Copy, Trash2, TriangleAlert } from 'lucide-react';
import type { AnswerView, DraftView } from '../../../../shared/ipc/channels/rfi-answers';
import { statusLabel } from '../../components/StatusBadge';
import { Button, ConfirmDialog, TextArea, copyText } from '../../components/ui';
import { call, errorMessage } from '../../lib/desk';
import { AnswerStatus } from './AnswerComposer';
import { useAnswers } from './answers-store';
import { formatBytes } from './format';
import { documentTypeWords } from '../../../../shared/words';

export interface UnsentDraftProps {
  rfiId: string;
  /** The profile that owns the RFI. */
  profileId: string;
  questionId: string;
  /** The question's status now (not action_required). */
  questionStatus: string;
  draft: DraftView | undefined;
  answer: AnswerView | undefined;
  onDiscarded(): void;
}

/** Why an answer can no longer be sent, in the analyst's words. */
export function notSentReason(questionStatus: string): string {
  return questionStatus === 'closed'
    ? 'the question was closed by the bank'
    : `the question was answered by the bank (it is now ${statusLabel(questionStatus)})`;
}

/**
 * Nothing the analyst wrote becomes invisible: a draft (or an answer the outbox stopped) whose
 * question no longer awaits a response stays on screen as "Not sent", with its text, a Copy
 * button and Discard, which deletes the draft in main (and takes the answer off the outbox).
 */
export function UnsentDraft({
  rfiId,
  profileId,
  questionId,
  questionStatus,
  draft,
  answer,
  onDiscarded,
}: UnsentDraftProps) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [copied, setCopied] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const remove = useAnswers((s) => s.remove);
  const text = draft?.text ?? '';
  const files = draft?.files ?? [];

  const discard = async (): Promise<void> => {
    setBusy(true);
    setProblem(null);
    try {
      if (answer) {
        await call('answers.dismiss', { answerId: answer.id });
        remove(answer.id);
      }
      await call('drafts.discard', { rfiId, questionId, profileId });
      setConfirming(false);
      onDiscarded();
    } catch (err) {
      setProblem(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="answer answer--unsent" data-testid="unsent-answer">
      {answer && <AnswerStatus answer={answer} draftSavedAt={null} />}
      <p className="notice notice--warn unsent__notice" data-testid="unsent-notice">
        <TriangleAlert size={16} aria-hidden="true" />
        <span>
          Not sent: {notSentReason(questionStatus)}. What you wrote is kept here until you discard it.
        </span>
      </p>
      {text !== '' && <TextArea label="Your answer (not sent)" value={text} isReadOnly rows={4} />}
      {files.length > 0 && (
        <ul className="answer__files" aria-label="Documents (not sent)">
          {files.map((f) => (
            <li key={f.ref}>
              {f.name} · {formatBytes(f.sizeBytes)} · {documentTypeWords(f.documentType)}
            </li>
          ))}
        </ul>
      )}
      {problem && (
        <p role="alert" className="field-error">
          {problem}
        </p>
      )}
      <div className="answer__actions">
        {text !== '' && (
          <Button
            icon={<Copy size={16} aria-hidden="true" />}
            onPress={() => void copyText(text).then(setCopied)}
          >
            {copied ? 'Copied' : 'Copy text'}
          </Button>
        )}
        <Button
          variant="danger"
          icon={<Trash2 size={16} aria-hidden="true" />}
          onPress={() => setConfirming(true)}
        >
          Discard
        </Button>
      </div>
      <ConfirmDialog
        isOpen={confirming}
        onOpenChange={setConfirming}
        title="Discard this answer?"
        confirmLabel="Discard"
        variant="danger"
        isPending={busy}
        onConfirm={() => void discard()}
      >
        The text{files.length > 0 ? ' and the documents' : ''} you wrote for this question will be deleted
        from this computer. Nothing is sent to the bank.
      </ConfirmDialog>
    </div>
  );
}
