import { useCallback, useEffect, useRef, useState } from 'react';
import { DOCUMENT_TYPES, questionTypeInfo } from '../../../../shared/catalogue';
import type { AnswerView, DraftView, StagedFileView } from '../../../../shared/ipc/channels/rfi-answers';
import { FileDrop } from '../../components/FileDrop';
import { ProgressBar } from '../../components/ProgressBar';
import { call, errorMessage } from '../../lib/desk';
import { stageDroppedFile, useAnswers } from './answers-store';
import type { UploadLimits } from './answers-store';
import { formatBytes, formatTime } from './format';

const SAVE_DEBOUNCE_MS = 400;
const ACTIVE = new Set(['queued', 'uploading', 'sending', 'verifying']);

export interface AnswerComposerProps {
  rfiId: string;
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
  if (!answer) {
    return (
      <p className="answer-status" data-testid="answer-status" data-state={draftSavedAt ? 'draft' : 'none'}>
        {draftSavedAt ? `Draft saved on this computer (${formatTime(draftSavedAt)})` : 'No draft yet'}
      </p>
    );
  }
  const p = progress ?? answer.progress;
  const retryNote =
    answer.lastError && ACTIVE.has(answer.state)
      ? ` — will retry${answer.nextAttemptAt ? ` at ${formatTime(answer.nextAttemptAt)}` : ''}: ${answer.lastError.message}`
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
        text = `Sent (${formatTime(answer.updatedAt)})`;
        break;
      case 'failed':
        text = `Failed: ${answer.lastError?.message ?? 'unknown reason'}`;
        break;
      case 'conflict':
        text = `Conflict: the question is now ${answer.conflict?.questionStatus.replace(/_/g, ' ') ?? 'changed'}; the answer was not sent and the draft is kept.`;
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
        <span aria-hidden="true">
          {answer.state === 'failed'
            ? '✕ '
            : answer.state === 'conflict'
              ? '⚠ '
              : answer.state === 'sent'
                ? '✓ '
                : '↻ '}
        </span>
        {text}
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

/** The composer of one question: text and/or documents, saved as a draft as the analyst types. */
export function AnswerComposer({
  rfiId,
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
  const [text, setText] = useState(draft?.text ?? '');
  const [files, setFiles] = useState<StagedFileView[]>(draft?.files ?? []);
  const [documentType, setDocumentType] = useState<string>(info.defaultDocumentType);
  const [savedAt, setSavedAt] = useState<string | null>(draft?.updatedAt ?? null);
  const [saving, setSaving] = useState<'idle' | 'pending' | 'error'>('idle');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [staging, setStaging] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const latest = useRef({ text, files });
  latest.current = { text, files };
  const upsert = useAnswers((s) => s.upsert);
  const remove = useAnswers((s) => s.remove);

  const active = answer !== undefined && ACTIVE.has(answer.state);
  const locked = active || answer?.state === 'conflict' || answer?.state === 'failed' || !awaiting;

  const save = useCallback(async () => {
    timer.current = null;
    try {
      const d = await call('drafts.save', {
        rfiId,
        questionId,
        questionType,
        text: latest.current.text,
        files: latest.current.files.map((f) => f.ref),
      });
      setSavedAt(d.updatedAt);
      setSaving('idle');
    } catch (err) {
      setSaving('error');
      setProblem(`The draft could not be saved: ${errorMessage(err)}`);
    }
  }, [rfiId, questionId, questionType]);

  const scheduleSave = useCallback(() => {
    setSaving('pending');
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => void save(), SAVE_DEBOUNCE_MS);
  }, [save]);

  // Flush a pending save when the composer goes away (navigation).
  useEffect(
    () => () => {
      if (timer.current) {
        clearTimeout(timer.current);
        void save();
      }
    },
    [save],
  );

  const addFiles = (added: StagedFileView[]): void => {
    setFiles((cur) => {
      const next = [...cur, ...added];
      latest.current = { ...latest.current, files: next };
      return next;
    });
    scheduleSave();
  };

  const pick = async (): Promise<void> => {
    setProblem(null);
    try {
      const r = await call('files.pick', { documentType: documentType as never, multiple: true });
      if (r.files.length > 0) addFiles(r.files);
      if (r.refused.length > 0) setProblem(r.refused.map((x) => `${x.name}: ${x.message}`).join(' '));
    } catch (err) {
      setProblem(errorMessage(err));
    }
  };

  const drop = async (dropped: File[]): Promise<void> => {
    setProblem(null);
    const refusals: string[] = [];
    const ok: StagedFileView[] = [];
    for (const f of dropped) {
      // Checked before any byte moves: type and size against what the bank accepts.
      if (limits && f.type && !limits.contentTypes.includes(f.type)) {
        refusals.push(`${f.name}: ${f.type} is not accepted (PDF, PNG or JPEG only).`);
        continue;
      }
      if (limits && f.size > limits.maxBytes) {
        refusals.push(`${f.name}: ${formatBytes(f.size)} is over the ${formatBytes(limits.maxBytes)} limit.`);
        continue;
      }
      if (f.size === 0) {
        refusals.push(`${f.name}: the file is empty.`);
        continue;
      }
      try {
        setStaging(`Adding ${f.name}…`);
        ok.push(
          await stageDroppedFile(f, documentType, limits?.chunkBytes ?? 512 * 1024, (s, t) =>
            setStaging(`Adding ${f.name}: ${Math.floor((s / t) * 100)}%`),
          ),
        );
      } catch (err) {
        refusals.push(`${f.name}: ${errorMessage(err)}`);
      }
    }
    setStaging(null);
    if (ok.length > 0) addFiles(ok);
    if (refusals.length > 0) setProblem(refusals.join(' '));
  };

  const submit = async (): Promise<void> => {
    setProblem(null);
    setBusy(true);
    if (timer.current) {
      clearTimeout(timer.current);
      timer.current = null;
    }
    try {
      const a = await call('answers.submit', {
        rfiId,
        questionId,
        questionType,
        text,
        files: files.map((f) => f.ref),
      });
      upsert(a);
      setSaving('idle');
    } catch (err) {
      setProblem(errorMessage(err));
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
  const showEditor = awaiting || answer?.state === 'conflict' || answer?.state === 'failed' || active;

  return (
    <div className="answer" data-testid="answer-composer">
      <AnswerStatus answer={answer} draftSavedAt={savedAt} />
      {(answer?.state === 'failed' || answer?.state === 'conflict') && (
        <div className="answer__actions">
          <button type="button" onClick={() => void retry()}>
            {answer.state === 'conflict' ? 'Check again and send' : 'Retry now'}
          </button>
          <button type="button" onClick={() => void dismiss()}>
            Remove from outbox (keep the draft)
          </button>
        </div>
      )}
      {answer?.state === 'queued' && answer.lastError && (
        <div className="answer__actions">
          <button type="button" onClick={() => void retry()}>
            Retry now
          </button>
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
            <div className="answer__field">
              <label htmlFor={`${idBase}-text`}>Your answer</label>
              <textarea
                id={`${idBase}-text`}
                rows={4}
                maxLength={10_000}
                value={text}
                readOnly={locked}
                aria-describedby={`${idBase}-saved`}
                onChange={(e) => {
                  setText(e.target.value);
                  latest.current = { ...latest.current, text: e.target.value };
                  scheduleSave();
                }}
                data-testid="answer-text"
              />
            </div>
          )}
          {wantsFiles && (
            <div className="answer__field">
              <label htmlFor={`${idBase}-doctype`}>Document type</label>
              <select
                id={`${idBase}-doctype`}
                value={documentType}
                disabled={locked}
                onChange={(e) => setDocumentType(e.target.value)}
                data-testid="answer-doctype"
              >
                {DOCUMENT_TYPES.map((t) => (
                  <option key={t} value={t}>
                    {t.replace(/_/g, ' ')}
                  </option>
                ))}
              </select>
              <FileDrop
                label="Documents for this answer"
                disabled={locked}
                onFiles={(f) => void drop(f)}
                data-testid="answer-drop"
              >
                <button type="button" disabled={locked} onClick={() => void pick()} data-testid="answer-pick">
                  Choose files…
                </button>
                <span className="muted">
                  PDF, PNG or JPEG, up to {limits ? formatBytes(limits.maxBytes) : '25 MB'} each
                </span>
              </FileDrop>
              {staging && (
                <p role="status" className="muted">
                  {staging}
                </p>
              )}
              {files.length > 0 && (
                <ul className="answer__files" aria-label="Documents" data-testid="answer-files">
                  {files.map((f) => (
                    <li key={f.ref}>
                      {f.name} · {f.contentType} · {formatBytes(f.sizeBytes)} ·{' '}
                      {f.documentType.replace(/_/g, ' ')}{' '}
                      {!locked && (
                        <button
                          type="button"
                          aria-label={`Remove ${f.name}`}
                          onClick={() => {
                            setFiles((cur) => {
                              const next = cur.filter((x) => x.ref !== f.ref);
                              latest.current = { ...latest.current, files: next };
                              return next;
                            });
                            scheduleSave();
                          }}
                        >
                          Remove
                        </button>
                      )}
                    </li>
                  ))}
                </ul>
              )}
            </div>
          )}
          <p id={`${idBase}-saved`} className="muted" aria-live="polite" data-testid="draft-state">
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
            <button type="submit" className="primary" disabled={busy} data-testid="answer-submit">
              Send answer
            </button>
          )}
        </form>
      )}
    </div>
  );
}
