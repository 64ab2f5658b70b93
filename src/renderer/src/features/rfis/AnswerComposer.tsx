import { useEffect, useState } from 'react';
import { CircleCheck, CircleX, FilePlus, LoaderCircle, TriangleAlert, X } from 'lucide-react';
import { DOCUMENT_TYPES, isDocumentType, questionTypeInfo } from '../../../../shared/catalogue';
import type { DocumentType } from '../../../../shared/catalogue';
import type { AnswerView, DraftView, StagedFileView } from '../../../../shared/ipc/channels/rfi-answers';
import { useDraftAutosave, useFileStaging } from './composer-hooks';
import { FileDrop } from '../../components/FileDrop';
import { ProgressBar } from '../../components/ProgressBar';
import { Button, IconButton, RelativeTime, Select, TextArea } from '../../components/ui';
import { formatAbsolute, toEpoch } from '../../lib/dates';
import { call, errorMessage } from '../../lib/desk';
import { useAnswers } from './answers-store';
import type { UploadLimits } from './answers-store';
import { formatBytes } from './format';
import { LockerPicker } from '../locker/LockerPicker';
import { SharedPicker } from '../team-share/SharedLocker';
import { documentTypeWords, statusWords } from '../../../../shared/words';
import { AnswerApproval, useAnswerApproval } from '../approvals/AnswerApproval';

/** "in 12 s" for a retry that is near, to the second (ticks while one is pending). */
function useRetryIn(at: string | null | undefined): string | null {
  const [now, setNow] = useState(() => Date.now());
  const t = at ? Date.parse(at) : NaN;
  const pending = Number.isFinite(t) && t > now;
  useEffect(() => {
    if (!pending) return;
    const i = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(i);
  }, [pending]);
  if (!Number.isFinite(t)) return null;
  const s = Math.max(0, Math.ceil((t - now) / 1000));
  return s === 0 ? 'now' : s < 120 ? `in ${s} s` : `in ${Math.round(s / 60)} min`;
}

const ACTIVE = new Set(['queued', 'uploading', 'sending', 'verifying']);

export interface AnswerComposerProps {
  rfiId: string;
  /** The profile that owns the RFI: the answer goes out with its credential. */
  profileId: string;
  questionId: string;
  questionType: string;
  /** Whether the bank waits for the customer on this question (status action_required). */
  awaiting: boolean;
  draft: DraftView | undefined;
  answer: AnswerView | undefined;
  limits: UploadLimits | null;
}

/** What the analyst sees about the answer: draft, queued, uploading n%, sent, failed (why), conflict. */
export function AnswerStatus({
  answer,
  draftSavedAt,
}: {
  answer: AnswerView | undefined;
  draftSavedAt: string | null;
}) {
  const progress = useAnswers((s) => (answer ? s.progress[answer.id] : undefined));
  const retryIn = useRetryIn(answer?.nextAttemptAt);
  if (!answer) {
    // The draft line under the editor says "Draft saved"; this one says what the bank has.
    return (
      <p className="answer-status" data-testid="answer-status" data-state={draftSavedAt ? 'draft' : 'none'}>
        {draftSavedAt ? 'Not sent yet' : 'No draft yet'}
      </p>
    );
  }
  const p = progress ?? answer.progress;
  const retryNote =
    answer.lastError && ACTIVE.has(answer.state)
      ? ` — will retry${retryIn ? ` ${retryIn}` : ''}: ${answer.lastError.message}`
      : '';
  let text: string;
  if (answer.waitingForBank && ACTIVE.has(answer.state)) {
    // Another bank is active: this answer is sent only to the one it was written for.
    text = `Waiting for ${answer.bank?.origin === 'embedded-sandbox' ? 'the embedded sandbox' : (answer.bank?.origin ?? 'its bank')}: sent only to the bank it was written for, once that bank is active again`;
  } else
    switch (answer.state) {
      case 'queued':
        text = `Queued${retryNote}`;
        break;
      case 'uploading':
        text = `Uploading ${p && p.totalBytes > 0 ? Math.floor((p.sentBytes / p.totalBytes) * 100) : 0}%${retryNote}`;
        break;
      case 'sending':
        text = 'Sending…';
        break;
      case 'verifying':
        text = `Checking with the bank whether the answer arrived${retryNote}`;
        break;
      case 'sent':
        text = 'Sent';
        break;
      case 'failed':
        text = `Failed: ${answer.lastError?.message ?? 'unknown reason'}`;
        break;
      case 'conflict':
        text = `Conflict: the question is now ${answer.conflict ? statusWords(answer.conflict.questionStatus).toLowerCase() : 'changed'}; the answer was not sent and the draft is kept.`;
        break;
      default:
        text = answer.state;
    }
  return (
    <div className="answer-status-box">
      <p
        className={`answer-status answer-status--${answer.state}`}
        data-testid="answer-status"
        data-state={answer.state}
        data-waiting-for-bank={answer.waitingForBank ? 'true' : undefined}
        role="status"
      >
        {answer.state === 'failed' ? (
          <CircleX size={16} aria-hidden="true" />
        ) : answer.state === 'conflict' ? (
          <TriangleAlert size={16} aria-hidden="true" />
        ) : answer.state === 'sent' ? (
          <CircleCheck size={16} aria-hidden="true" />
        ) : (
          <LoaderCircle size={16} aria-hidden="true" />
        )}
        <span>
          {text}
          {answer.state === 'sent' && (
            <>
              {' '}
              <RelativeTime value={answer.updatedAt} />
            </>
          )}
        </span>
      </p>
      {answer.state === 'uploading' && p && (
        <ProgressBar
          value={p.sentBytes}
          max={p.totalBytes}
          label="Upload of the documents"
          data-testid="answer-progress"
        />
      )}
      {answer.state === 'conflict' && answer.conflict?.latestStaffResponse && (
        <blockquote className="answer-conflict" data-testid="answer-conflict">
          Latest response from the bank: {answer.conflict.latestStaffResponse}
        </blockquote>
      )}
    </div>
  );
}

/** The documents of an answer: their type, the picker and drop zone, the staged list. */
function DocumentsField(props: {
  idBase: string;
  locked: boolean;
  limits: UploadLimits | null;
  documentType: DocumentType;
  onDocumentType(t: DocumentType): void;
  onPick(): void;
  onDrop(files: File[]): void;
  staging: string | null;
  files: StagedFileView[];
  onRemove(ref: string): void;
}) {
  const { idBase, locked, limits, files } = props;
  return (
    <div className="answer__field" id={`${idBase}-docs`}>
      <Select
        label="Document type"
        value={props.documentType}
        isDisabled={locked}
        onChange={(v) => {
          if (isDocumentType(v)) props.onDocumentType(v);
        }}
        options={DOCUMENT_TYPES.map((t) => ({ value: t, label: documentTypeWords(t) }))}
        data-testid="answer-doctype"
      />
      <FileDrop
        label="Documents for this answer"
        disabled={locked}
        onFiles={props.onDrop}
        data-testid="answer-drop"
      >
        <Button
          isDisabled={locked}
          onPress={props.onPick}
          icon={<FilePlus size={16} aria-hidden="true" />}
          data-testid="answer-pick"
        >
          Choose files…
        </Button>
        <span className="muted">
          PDF, PNG or JPEG, up to {limits ? formatBytes(limits.maxBytes) : '25 MB'} each
        </span>
      </FileDrop>
      {props.staging && (
        <p role="status" className="muted">
          {props.staging}
        </p>
      )}
      {files.length > 0 && (
        <ul className="answer__files" aria-label="Documents" data-testid="answer-files">
          {files.map((f) => (
            <li key={f.ref}>
              {f.name} · {f.contentType} · {formatBytes(f.sizeBytes)} · {documentTypeWords(f.documentType)}{' '}
              {!locked && (
                <IconButton
                  label={`Remove ${f.name}`}
                  icon={<X size={14} aria-hidden="true" />}
                  onPress={() => props.onRemove(f.ref)}
                />
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The composer of one question: text and/or documents, saved as a draft as the analyst types. */
export function AnswerComposer({
  rfiId,
  profileId,
  questionId,
  questionType,
  awaiting,
  draft,
  answer,
  limits,
}: AnswerComposerProps) {
  const info = questionTypeInfo(questionType);
  const wantsText = info.expects !== 'documents';
  const wantsFiles = info.expects !== 'text';
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [documentType, setDocumentType] = useState<DocumentType>(info.defaultDocumentType);
  const answerDraft = useDraftAutosave({ rfiId, profileId, questionId, questionType }, draft, setProblem);
  const { text, files, savedAt, saving } = answerDraft;
  // The team's four-eyes rule: Send becomes "Ask for approval" until an approval covers the draft.
  const approval = useAnswerApproval(rfiId, questionId, profileId, savedAt);
  const askFirst = approval.required === true && !approval.covers;
  const staging = useFileStaging(limits, profileId);
  const upsert = useAnswers((s) => s.upsert);
  const remove = useAnswers((s) => s.remove);

  const active = answer !== undefined && ACTIVE.has(answer.state);
  const locked = active || answer?.state === 'conflict' || answer?.state === 'failed' || !awaiting;

  const addStaged = (r: { files: StagedFileView[]; refusals: string[] }): void => {
    if (r.files.length > 0) answerDraft.addFiles(r.files);
    if (r.refusals.length > 0) setProblem(r.refusals.join(' '));
  };

  const pick = async (): Promise<void> => {
    setProblem(null);
    try {
      addStaged(await staging.pick(documentType));
    } catch (err) {
      setProblem(errorMessage(err));
    }
  };

  const drop = async (dropped: File[]): Promise<void> => {
    setProblem(null);
    addStaged(await staging.drop(dropped, documentType));
  };

  const submit = async (): Promise<void> => {
    setProblem(null);
    setBusy(true);
    const saveWasDue = answerDraft.cancelPendingSave();
    // The same content is asked for approval or sent: what a checker approves is what goes out.
    const content = {
      profileId,
      rfiId,
      questionId,
      questionType,
      text,
      files: files.map((f) => f.ref),
    };
    try {
      if (askFirst) {
        await call('team.askApproval', content);
        approval.refresh();
        return;
      }
      const a = await call('answers.submit', content);
      upsert(a);
      answerDraft.handedOver();
    } catch (err) {
      setProblem(errorMessage(err));
      // Not sent: the draft keeps what was typed.
      if (saveWasDue) answerDraft.saveNow();
    } finally {
      setBusy(false);
    }
  };

  const retry = async (): Promise<void> => {
    if (!answer) return;
    try {
      upsert(await call('answers.retry', { answerId: answer.id }));
    } catch (err) {
      setProblem(errorMessage(err));
    }
  };

  const dismiss = async (): Promise<void> => {
    if (!answer) return;
    try {
      await call('answers.dismiss', { answerId: answer.id });
      remove(answer.id);
    } catch (err) {
      setProblem(errorMessage(err));
    }
  };

  const idBase = `answer-${questionId}`;
  const savedEpoch = saving === 'idle' ? toEpoch(savedAt) : null;
  const savedTitle = savedEpoch !== null ? `Saved on this computer ${formatAbsolute(savedEpoch)}` : undefined;
  const showEditor = awaiting || answer?.state === 'conflict' || answer?.state === 'failed' || active;

  return (
    <div className="answer" data-testid="answer-composer">
      <AnswerStatus answer={answer} draftSavedAt={savedAt} />
      <AnswerApproval approval={approval.approval} profileId={profileId} onDecided={approval.refresh} />
      {approval.held && !locked && (
        <p role="status" className="answer-approval__words" data-testid="answer-held">
          {approval.held}
        </p>
      )}
      {(answer?.state === 'failed' || answer?.state === 'conflict') && (
        <div className="answer__actions">
          <Button onPress={() => void retry()}>
            {answer.state === 'conflict' ? 'Check again and send' : 'Retry now'}
          </Button>
          <Button variant="ghost" onPress={() => void dismiss()}>
            Remove from outbox (keep the draft)
          </Button>
        </div>
      )}
      {answer?.state === 'queued' && answer.lastError && (
        <div className="answer__actions">
          <Button onPress={() => void retry()}>Retry now</Button>
        </div>
      )}
      {showEditor && (
        <form
          className="answer__form"
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          {wantsText && (
            <TextArea
              className="answer__field"
              label="Your answer"
              rows={4}
              maxLength={10_000}
              value={text}
              isReadOnly={locked}
              aria-describedby={`${idBase}-saved`}
              onChange={(v) => answerDraft.setText(v)}
              data-testid="answer-text"
            />
          )}
          {wantsFiles && (
            <DocumentsField
              idBase={idBase}
              locked={locked}
              limits={limits}
              documentType={documentType}
              onDocumentType={setDocumentType}
              onPick={() => void pick()}
              onDrop={(f) => void drop(f)}
              staging={staging.staging}
              files={files}
              onRemove={answerDraft.removeFile}
            />
          )}
          {wantsFiles && (
            <LockerPicker
              rfiId={rfiId}
              profileId={profileId}
              questionId={questionId}
              questionType={questionType}
              disabled={locked}
              onAttached={(f) => answerDraft.addFiles([f])}
              onProblem={setProblem}
            />
          )}
          {wantsFiles && (
            <SharedPicker
              rfiId={rfiId}
              profileId={profileId}
              questionId={questionId}
              disabled={locked}
              onAttached={(f) => answerDraft.addFiles([f])}
              onProblem={setProblem}
            />
          )}
          <p
            id={`${idBase}-saved`}
            className="muted"
            aria-live="polite"
            data-testid="draft-state"
            title={savedTitle}
          >
            {saving === 'pending'
              ? 'Saving draft…'
              : saving === 'error'
                ? 'Draft not saved'
                : savedAt
                  ? 'Draft saved'
                  : ''}
          </p>
          {problem && (
            <p role="alert" className="field-error" data-testid="answer-problem">
              {problem}
            </p>
          )}
          {!locked && (
            <Button type="submit" variant="primary" isPending={busy} data-testid="answer-submit">
              {askFirst ? 'Ask for approval' : approval.required ? 'Send approved answer' : 'Send answer'}
            </Button>
          )}
        </form>
      )}
    </div>
  );
}
