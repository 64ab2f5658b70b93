import { useCallback, useEffect, useRef, useState } from 'react';
import type { DocumentType } from '../../../../shared/catalogue';
import type { DraftView, StagedFileView } from '../../../../shared/ipc/channels/rfi-answers';
import { call, errorMessage } from '../../lib/desk';
import { stageDroppedFile } from './answers-store';
import type { UploadLimits } from './answers-store';
import { formatBytes } from './format';

const SAVE_DEBOUNCE_MS = 400;

export interface DraftKey {
  rfiId: string;
  /** The profile that owns the RFI: the draft is kept with its bank. */
  profileId: string;
  questionId: string;
  questionType: string;
}

/**
 * The text and files of one question's answer, saved to main as a draft 400 ms after the last
 * change and flushed when the composer goes away. `cancelPendingSave` is for sending: the outbox
 * takes the answer over.
 */
export function useDraftAutosave(
  key: DraftKey,
  initial: DraftView | undefined,
  onProblem: (m: string) => void,
) {
  const [text, setTextState] = useState(initial?.text ?? '');
  const [files, setFilesState] = useState<StagedFileView[]>(initial?.files ?? []);
  const [savedAt, setSavedAt] = useState<string | null>(initial?.updatedAt ?? null);
  const [saving, setSaving] = useState<'idle' | 'pending' | 'error'>('idle');
  // What the next save writes; updated with the state in the event handlers, never in render.
  const latest = useRef({ text, files });
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const { rfiId, profileId, questionId, questionType } = key;

  const save = useCallback(async () => {
    timer.current = null;
    try {
      const d = await call('drafts.save', {
        profileId,
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
      onProblem(`The draft could not be saved: ${errorMessage(err)}`);
    }
  }, [rfiId, profileId, questionId, questionType, onProblem]);

  const scheduleSave = (): void => {
    setSaving('pending');
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => void save(), SAVE_DEBOUNCE_MS);
  };

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

  const setText = (value: string): void => {
    latest.current = { ...latest.current, text: value };
    setTextState(value);
    scheduleSave();
  };
  const setFiles = (next: StagedFileView[]): void => {
    latest.current = { ...latest.current, files: next };
    setFilesState(next);
    scheduleSave();
  };

  return {
    text,
    files,
    savedAt,
    saving,
    setText,
    addFiles: (added: StagedFileView[]) => setFiles([...latest.current.files, ...added]),
    removeFile: (ref: string) => setFiles(latest.current.files.filter((f) => f.ref !== ref)),
    /** Stops a scheduled save (the outbox takes the answer over); answers whether one was due. */
    cancelPendingSave(): boolean {
      const due = timer.current !== null;
      if (timer.current) clearTimeout(timer.current);
      timer.current = null;
      return due;
    },
    /** The answer was handed to the outbox: nothing waits to be saved. */
    handedOver: () => setSaving('idle'),
    saveNow: () => void save(),
  };
}

/**
 * Staging of files for an answer: the native picker (paths stay in main) or dropped files, each
 * staged for the profile that owns the RFI (main refuses it in another profile's answer).
 */
export function useFileStaging(limits: UploadLimits | null, profileId: string) {
  const [staging, setStaging] = useState<string | null>(null);

  const pick = async (
    documentType: DocumentType,
  ): Promise<{ files: StagedFileView[]; refusals: string[] }> => {
    const r = await call('files.pick', { documentType, multiple: true, profileId });
    return { files: r.files, refusals: r.refused.map((x) => `${x.name}: ${x.message}`) };
  };

  const drop = async (
    dropped: File[],
    documentType: DocumentType,
  ): Promise<{ files: StagedFileView[]; refusals: string[] }> => {
    const refusals: string[] = [];
    const files: StagedFileView[] = [];
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
        files.push(
          await stageDroppedFile(
            f,
            documentType,
            limits?.chunkBytes ?? 512 * 1024,
            (s, t) => setStaging(`Adding ${f.name}: ${Math.floor((s / t) * 100)}%`),
            { profileId },
          ),
        );
      } catch (err) {
        refusals.push(`${f.name}: ${errorMessage(err)}`);
      }
    }
    setStaging(null);
    return { files, refusals };
  };

  return { staging, pick, drop };
}
