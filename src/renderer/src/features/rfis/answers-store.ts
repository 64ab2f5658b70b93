import { create } from 'zustand';
import type { DocumentType } from '../../../../shared/catalogue';
import type { AnswerView, StagedFileView } from '../../../../shared/ipc/channels/rfi-answers';
import { call } from '../../lib/desk';
import { onEvents, sharedSubscription } from '../../lib/events';

export interface UploadLimits {
  contentTypes: string[];
  extensions: string[];
  maxBytes: number;
  chunkBytes: number;
}

export interface AnswersState {
  byId: Record<string, AnswerView>;
  progress: Record<string, { sentBytes: number; totalBytes: number }>;
  limits: UploadLimits | null;
  /** The answers of one RFI of one profile (another bank's RFI of the same id is another RFI). */
  loadFor(rfiId: string, profileId: string): Promise<void>;
  upsert(a: AnswerView): void;
  remove(id: string): void;
}

export const useAnswers = create<AnswersState>((set, get) => ({
  byId: {},
  progress: {},
  limits: null,
  async loadFor(rfiId, profileId) {
    const [list, status] = await Promise.all([
      call('answers.list', { rfiId, profileId }),
      get().limits ? Promise.resolve(null) : call('answers.status', undefined),
    ]);
    const byId = { ...get().byId };
    for (const a of Object.values(byId)) if (answerOf(a, rfiId, profileId)) delete byId[a.id];
    for (const a of list.answers) byId[a.id] = a;
    set({ byId, ...(status ? { limits: status.limits } : {}) });
  },
  upsert(a) {
    set({ byId: { ...get().byId, [a.id]: a } });
  },
  remove(id) {
    const byId = { ...get().byId };
    delete byId[id];
    set({ byId });
  },
}));

/** Whether an answer is for this RFI of this profile (one queued before answers named their bank counts for any). */
export const answerOf = (a: AnswerView, rfiId: string, profileId: string): boolean =>
  a.rfiId === rfiId && (a.bank === null || a.bank.profileId === profileId);

/** The newest answer of a question of one profile's RFI, if any. */
export function latestAnswer(
  byId: Record<string, AnswerView>,
  rfi: { rfiId: string; profileId: string },
  questionId: string,
): AnswerView | undefined {
  let best: AnswerView | undefined;
  for (const a of Object.values(byId)) {
    if (!answerOf(a, rfi.rfiId, rfi.profileId) || a.questionId !== questionId) continue;
    if (!best || a.createdAt > best.createdAt) best = a;
  }
  return best;
}

/** Answers and their upload progress as main reports them. */
export const answersSubscription = sharedSubscription(() =>
  onEvents({
    'answers.changed': (a) => useAnswers.getState().upsert(a),
    'answers.progress': (p) =>
      useAnswers.setState((s) => ({
        progress: { ...s.progress, [p.answerId]: { sentBytes: p.sentBytes, totalBytes: p.totalBytes } },
      })),
  }),
);

function toBase64(bytes: Uint8Array): string {
  let s = '';
  const step = 0x8000;
  for (let i = 0; i < bytes.length; i += step) {
    s += String.fromCharCode(...bytes.subarray(i, i + step));
  }
  return btoa(s);
}

/**
 * Hands a dropped file to main in chunks (the page has the bytes, not a path); main writes them to
 * its staging folder under a name it chooses and checks type and size.
 */
export async function stageDroppedFile(
  file: File,
  documentType: DocumentType,
  chunkBytes: number,
  onProgress: ((sent: number, total: number) => void) | undefined,
  /** The profile whose answer the file is for (main binds the file to it), or the evidence locker. */
  target: { profileId: string } | 'locker',
): Promise<StagedFileView> {
  const start = { name: file.name || 'file', contentType: file.type, sizeBytes: file.size, documentType };
  const begun = await call(
    'files.stageDropped',
    target === 'locker'
      ? { op: 'beginForLocker', ...start }
      : { op: 'begin', ...start, profileId: target.profileId },
  );
  const stagingId = begun.stagingId ?? '';
  try {
    for (let offset = 0; offset < file.size; offset += chunkBytes) {
      const buf = new Uint8Array(await file.slice(offset, offset + chunkBytes).arrayBuffer());
      await call('files.stageDropped', { op: 'chunk', stagingId, offset, data: toBase64(buf) });
      onProgress?.(Math.min(file.size, offset + buf.length), file.size);
    }
    const done = await call('files.stageDropped', { op: 'commit', stagingId });
    if (!done.file) throw new Error('The file was not staged.');
    return done.file;
  } catch (err) {
    await call('files.stageDropped', { op: 'abort', stagingId }).catch(() => undefined);
    throw err;
  }
}
