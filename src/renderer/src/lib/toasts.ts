/**
 * Toasts: short notices of outcomes that happen in the background (an answer sent, a return
 * completed, a quote confirmed or settled, a sync that failed), each with a link to the object.
 * A small store; the region that shows them is components/ToastRegion.tsx (role=status, polite).
 */

import { create } from 'zustand';

export type ToastTone = 'ok' | 'info' | 'warn' | 'bad';

export interface Toast {
  id: string;
  tone: ToastTone;
  title: string;
  body: string | null;
  /** In-app route the toast links to ('/rfis/rfi_1'), with the link's words. */
  link: { to: string; label: string } | null;
  /** Same key → the newer toast replaces the older one (no pile of "sync failed"). */
  key: string;
  createdAt: number;
}

export type ToastInput = Omit<Toast, 'id' | 'createdAt' | 'body' | 'link'> & {
  body?: string | null;
  link?: Toast['link'];
};

/** How long a toast stays (ms); failures stay until dismissed. */
export const TOAST_MS = 8_000;
const MAX_TOASTS = 4;

interface ToastStore {
  toasts: Toast[];
  push(input: ToastInput): string;
  dismiss(id: string): void;
}

let seq = 0;
const timers = new Map<string, ReturnType<typeof setTimeout>>();

export const useToasts = create<ToastStore>((set, get) => ({
  toasts: [],
  push(input) {
    const id = `t${++seq}`;
    const toast: Toast = { body: null, link: null, ...input, id, createdAt: Date.now() };
    const replaced = get().toasts.filter((t) => t.key === input.key);
    for (const t of replaced) get().dismiss(t.id);
    set((s) => ({ toasts: [...s.toasts.filter((t) => t.key !== input.key), toast].slice(-MAX_TOASTS) }));
    if (input.tone !== 'bad') {
      timers.set(
        id,
        setTimeout(() => get().dismiss(id), TOAST_MS),
      );
    }
    return id;
  },
  dismiss(id) {
    const timer = timers.get(id);
    if (timer) clearTimeout(timer);
    timers.delete(id);
    set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }));
  },
}));

export const pushToast = (input: ToastInput): string => useToasts.getState().push(input);
