import { create } from 'zustand';
import type { DocumentType } from '../../../../shared/catalogue';
import type { ChannelArgs } from '../../../../shared/ipc/contract';
import type { LockerDocumentView } from '../../../../shared/ipc/channels/locker';
import { call, errorMessage } from '../../lib/desk';
import { onEvents, sharedSubscription } from '../../lib/events';
import { stageDroppedFile } from '../rfis/answers-store';

export type LockerFilter = NonNullable<ChannelArgs<'locker.list'>>;
export type NewLockerDocument = Omit<ChannelArgs<'locker.add'>, 'source'>;

/** The evidence locker as its screen shows it: filtered in main, live on `locker.changed`. */
export interface LockerStore {
  documents: LockerDocumentView[];
  filter: LockerFilter;
  loading: boolean;
  error: string | null;
  /** What the last add or replace said (refusals by file name, or what was added). */
  notice: { tone: 'ok' | 'bad'; text: string } | null;
  /** Expiry warnings given during this session, newest first. */
  warnings: string[];
  load(): Promise<void>;
  setFilter(patch: Partial<LockerFilter>): void;
  addPicked(doc: NewLockerDocument): Promise<boolean>;
  addDropped(file: File, doc: NewLockerDocument): Promise<boolean>;
  replacePicked(id: string, dates: { issuedOn?: string | null; expiresOn?: string | null }): Promise<void>;
  remove(id: string): Promise<void>;
}

const CHUNK = 512 * 1024;

function clean(filter: LockerFilter): LockerFilter {
  return Object.fromEntries(
    Object.entries(filter).filter(([, v]) => v !== undefined && v !== ''),
  ) as LockerFilter;
}

export const useLocker = create<LockerStore>((set, get) => {
  const afterAdd = (r: {
    document: LockerDocumentView | null;
    refused: Array<{ name: string; message: string }>;
  }) => {
    if (r.refused.length > 0) {
      set({ notice: { tone: 'bad', text: r.refused.map((f) => `${f.name}: ${f.message}`).join(' ') } });
      return false;
    }
    if (r.document) {
      set({ notice: { tone: 'ok', text: `${r.document.current.name} is in the locker.` } });
      void get().load();
      return true;
    }
    set({ notice: null });
    return false;
  };
  return {
    documents: [],
    filter: {},
    loading: false,
    error: null,
    notice: null,
    warnings: [],
    async load() {
      set({ loading: true, error: null });
      try {
        const { documents } = await call('locker.list', clean(get().filter));
        set({ documents, loading: false });
      } catch (err) {
        set({ loading: false, error: errorMessage(err) });
      }
    },
    setFilter(patch) {
      set((s) => ({ filter: { ...s.filter, ...patch } }));
      void get().load();
    },
    async addPicked(doc) {
      set({ notice: null });
      try {
        return afterAdd(await call('locker.add', { ...doc, source: { from: 'picker' } }));
      } catch (err) {
        set({ notice: { tone: 'bad', text: errorMessage(err) } });
        return false;
      }
    },
    async addDropped(file, doc) {
      set({ notice: null });
      try {
        const staged = await stageDroppedFile(
          file,
          doc.documentType as DocumentType,
          CHUNK,
          undefined,
          'locker',
        );
        return afterAdd(await call('locker.add', { ...doc, source: { from: 'staged', ref: staged.ref } }));
      } catch (err) {
        set({ notice: { tone: 'bad', text: `${file.name || 'file'}: ${errorMessage(err)}` } });
        return false;
      }
    },
    async replacePicked(id, dates) {
      set({ notice: null });
      try {
        afterAdd(await call('locker.replace', { id, source: { from: 'picker' }, ...dates }));
      } catch (err) {
        set({ notice: { tone: 'bad', text: errorMessage(err) } });
      }
    },
    async remove(id) {
      try {
        await call('locker.remove', { id });
        await get().load();
      } catch (err) {
        set({ notice: { tone: 'bad', text: errorMessage(err) } });
      }
    },
  };
});

/** Reloads when main says the locker changed; collects expiry warnings for the screen. */
export const lockerSubscription = sharedSubscription(() =>
  onEvents({
    'locker.changed': () => void useLocker.getState().load(),
    'locker.expiryWarning': (w) =>
      useLocker.setState((s) => ({
        warnings: [
          w.daysLeft < 0
            ? `${w.name} (${w.holder}) has expired.`
            : `${w.name} (${w.holder}) expires in ${w.daysLeft} day${w.daysLeft === 1 ? '' : 's'}.`,
          ...s.warnings,
        ].slice(0, 20),
      })),
  }),
);
