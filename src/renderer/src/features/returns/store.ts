import { create } from 'zustand';
import type { TransactionProgress } from '../../../../shared/ipc/channels/session';
import type { RecentTransfer, ReturnEntry, TransferView } from '../../../../shared/ipc/channels/returns';
import { isReturnReasonCode } from '../../../../shared/catalogue';
import type { ReturnReasonCode } from '../../../../shared/catalogue';
import { maySendAgain } from '../../../../shared/failure-policy';
import { MainCallError, call, errorMessage } from '../../lib/desk';
import { onEvents, sharedSubscription } from '../../lib/events';
import { useSession } from '../session/store';

/**
 * The return flow of one transfer: look it up, fill the form, send the intent (one operationId
 * per intended return, reused when the analyst sends again after an ambiguous failure), wait out
 * the bank's read-after-create window, review, confirm or cancel, follow to the final status.
 */
export type ReturnPhase =
  | 'idle'
  | 'form'
  | 'sending'
  | 'processing'
  | 'review'
  | 'confirm-step'
  | 'confirming'
  | 'cancelling'
  | 'following'
  | 'completed'
  | 'cancelled';

export interface SendProblem {
  message: string;
  /** Ambiguous (the request may have arrived): sending again reuses the same key. */
  retryable: boolean;
  field?: string | undefined;
}

export interface PendingIntent {
  operationId: string;
  transactionId: string;
  amount: string;
  reasonCode: ReturnReasonCode;
  description: string;
}

/** The kind of a failed call ('offline', 'forbidden'…), null when it was not main's typed error. */
function kindOf(err: unknown): string | null {
  return err instanceof MainCallError ? err.error.kind : null;
}

export interface ReturnsStore {
  transactionId: string | null;
  /** The profile the open transfer belongs to (null: the default profile's, as main decides). */
  profileId: string | null;
  transfer: TransferView | null;
  loading: boolean;
  lookupError: string | null;
  /** The kind of the lookup's failure ('offline': the bank could not be reached; null: none or unknown). */
  lookupKind: string | null;
  phase: ReturnPhase;
  operationId: string | null;
  pending: PendingIntent | null;
  sendProblem: SendProblem | null;
  progress: TransactionProgress | null;
  /** The id the create answered (its read-after-create progress is shown). */
  createdId: string | null;
  review: TransferView | null;
  actionError: string | null;
  notice: string | null;
  recent: RecentTransfer[];
  entries: ReturnEntry[];
  listLoading: boolean;
  listError: string | null;

  /** Opens a transfer; `profileId`: the profile it belongs to (the screen it was opened from says it). */
  open(transactionId: string, profileId?: string | null): Promise<void>;
  startForm(): void;
  closeForm(): void;
  send(intent: Omit<PendingIntent, 'operationId'>): Promise<void>;
  sendAgain(): Promise<void>;
  /** Reads the created intent again after the wait gave up or failed. */
  recheck(): Promise<void>;
  askConfirm(): void;
  backToReview(): void;
  confirm(): Promise<void>;
  cancel(): Promise<void>;
  /** Sends an entry of the Returns list again under its own operation (same key). */
  resend(entry: ReturnEntry): Promise<string | null>;
  loadRecent(): Promise<void>;
  loadList(): Promise<void>;
  /** Subscribes to progress and status pushes; returns the unsubscribe. */
}

function newOperationId(): string {
  return `ret-${crypto.randomUUID()}`;
}

function phaseOf(view: TransferView): ReturnPhase {
  if (view.status === 'intent_created' && view.returnDetails) return 'review';
  if (view.status === 'in_progress' && view.returnDetails) return 'following';
  if (view.status === 'return_completed') return 'completed';
  return 'idle';
}

/**
 * The profile a transfer typed in or opened from a link belongs to: the default profile (the one a
 * new object is made for), as main reports it.
 */
async function defaultProfileId(): Promise<string> {
  const known = useSession.getState().status?.environment.id;
  return known ?? (await call('session.status', undefined)).environment.id;
}

export const useReturns = create<ReturnsStore>((set, get) => {
  /** Every call about the open transfer goes through the profile it belongs to (set when it opened). */
  const owner = (): { profileId: string } => ({
    profileId: get().transfer?.profileId ?? get().profileId ?? '',
  });
  const runSend = async (intent: PendingIntent): Promise<void> => {
    set({
      phase: 'sending',
      pending: intent,
      sendProblem: null,
      progress: null,
      createdId: null,
      actionError: null,
    });
    let created: { transactionId: string };
    try {
      created = await call('returns.createIntent', {
        operationId: intent.operationId,
        transactionId: intent.transactionId,
        amount: intent.amount,
        reasonCode: intent.reasonCode,
        ...(intent.description ? { description: intent.description } : {}),
        ...owner(),
      });
    } catch (err) {
      const e = err instanceof MainCallError ? err.error : null;
      set({
        phase: 'form',
        sendProblem: {
          message: errorMessage(err),
          retryable: e ? maySendAgain(e) : false,
          field: e?.field,
        },
      });
      return;
    }
    set({ phase: 'processing', createdId: created.transactionId });
    try {
      const review = await call('returns.review', { transactionId: created.transactionId, ...owner() });
      if (get().transactionId !== intent.transactionId) return;
      set({
        review,
        transfer: get().transfer,
        phase: phaseOf(review) === 'idle' ? 'review' : phaseOf(review),
      });
    } catch (err) {
      set({ phase: 'processing', actionError: errorMessage(err) });
    }
  };

  return {
    transactionId: null,
    transfer: null,
    loading: false,
    lookupError: null,
    lookupKind: null,
    phase: 'idle',
    operationId: null,
    pending: null,
    sendProblem: null,
    progress: null,
    createdId: null,
    review: null,
    actionError: null,
    notice: null,
    profileId: null,
    recent: [],
    entries: [],
    listLoading: false,
    listError: null,

    async open(transactionId, profileId) {
      set({
        transactionId,
        profileId: profileId ?? null,
        transfer: null,
        loading: true,
        lookupError: null,
        lookupKind: null,
        phase: 'idle',
        review: null,
        sendProblem: null,
        actionError: null,
        notice: null,
        progress: null,
        pending: null,
      });
      try {
        const owned = profileId ?? (await defaultProfileId());
        if (get().transactionId !== transactionId) return;
        set({ profileId: owned });
        const view = await call('returns.lookup', { transactionId, profileId: owned });
        if (get().transactionId !== transactionId) return;
        const phase = phaseOf(view);
        set({ transfer: view, loading: false, phase, review: phase === 'idle' ? null : view });
      } catch (err) {
        if (get().transactionId !== transactionId) return;
        set({ loading: false, lookupError: errorMessage(err), lookupKind: kindOf(err) });
      }
    },

    startForm() {
      set({ phase: 'form', operationId: newOperationId(), sendProblem: null, notice: null });
    },
    closeForm() {
      set({ phase: 'idle', sendProblem: null, pending: null });
    },

    async send(intent) {
      const s = get();
      const same =
        s.pending &&
        s.sendProblem?.retryable &&
        s.pending.amount === intent.amount &&
        s.pending.reasonCode === intent.reasonCode &&
        s.pending.description === intent.description;
      // After a definitive refusal or a change, a fresh operation (and key); an ambiguous failure
      // with the same details keeps its operation so the bank can recognise it.
      const operationId = same && s.pending ? s.pending.operationId : (s.operationId ?? newOperationId());
      set({ operationId });
      await runSend({ ...intent, operationId });
      if (get().phase === 'form' && !get().sendProblem?.retryable) set({ operationId: newOperationId() });
    },

    async sendAgain() {
      const p = get().pending;
      if (p) await runSend(p);
    },

    async recheck() {
      const id = get().createdId;
      if (!id) return;
      set({ actionError: null, progress: null });
      try {
        const review = await call('returns.review', { transactionId: id, ...owner() });
        set({ review, phase: phaseOf(review) === 'idle' ? 'review' : phaseOf(review) });
      } catch (err) {
        set({ actionError: errorMessage(err) });
      }
    },

    askConfirm() {
      set({ phase: 'confirm-step', actionError: null });
    },
    backToReview() {
      set({ phase: 'review', actionError: null });
    },

    async confirm() {
      const id = get().review?.transactionId ?? get().transactionId;
      if (!id) return;
      set({ phase: 'confirming', actionError: null });
      try {
        const view = await call('returns.confirm', { transactionId: id, ...owner() });
        set({ review: view, phase: view.status === 'return_completed' ? 'completed' : 'following' });
      } catch (err) {
        set({ phase: 'review', actionError: errorMessage(err) });
      }
    },

    async cancel() {
      const id = get().review?.transactionId ?? get().transactionId;
      if (!id) return;
      set({ phase: 'cancelling', actionError: null });
      try {
        const view = await call('returns.cancel', { transactionId: id, ...owner() });
        set({
          transfer: view,
          review: null,
          phase: 'cancelled',
          pending: null,
          notice: `The return intent was cancelled. The transfer is ${view.status.replace(/_/g, ' ')} again.`,
        });
      } catch (err) {
        set({ phase: 'review', actionError: errorMessage(err) });
      }
    },

    async resend(entry) {
      if (!isReturnReasonCode(entry.reasonCode)) return 'This entry has an unknown reason code.';
      try {
        await call('returns.createIntent', {
          operationId: entry.operationId,
          transactionId: entry.transactionId,
          amount: entry.amount,
          reasonCode: entry.reasonCode,
          ...(entry.description ? { description: entry.description } : {}),
          profileId: entry.environmentId,
        });
        return null;
      } catch (err) {
        return errorMessage(err);
      } finally {
        void get().loadList();
      }
    },

    async loadRecent() {
      try {
        set({ recent: (await call('returns.recent', undefined)).items });
      } catch {
        set({ recent: [] });
      }
    },

    async loadList() {
      set({ listLoading: true, listError: null });
      try {
        set({ entries: (await call('returns.list', undefined)).entries, listLoading: false });
      } catch (err) {
        set({ listLoading: false, listError: errorMessage(err) });
      }
    },
  };
});

/** The progress of a new intent and every change of this workstation's returns. */
export const returnsSubscription = sharedSubscription(() =>
  onEvents({
    'transaction.progress': (p) => {
      if (p.transactionId === useReturns.getState().createdId) useReturns.setState({ progress: p });
    },
    'returns.changed': (entry) => {
      const { entries } = useReturns.getState();
      useReturns.setState({
        entries: entries.some((e) => e.operationId === entry.operationId)
          ? entries.map((e) => (e.operationId === entry.operationId ? entry : e))
          : [entry, ...entries],
      });
      const s = useReturns.getState();
      if (entry.transactionId !== s.transactionId) return;
      if (s.review && entry.status && entry.status !== s.review.status) {
        useReturns.setState({ review: { ...s.review, status: entry.status } });
        if (entry.status === 'return_completed') useReturns.setState({ phase: 'completed' });
        // Refresh the record (return_updated_at) once final.
        if (entry.status !== 'in_progress') {
          void call('returns.lookup', { transactionId: entry.transactionId, profileId: entry.environmentId })
            .then((view) => {
              if (useReturns.getState().transactionId === view.transactionId)
                useReturns.setState({ review: view, transfer: view });
            })
            .catch(() => undefined);
        }
      }
    },
  }),
);
