/**
 * What the command palette offers for a text: actions (new quote, return a transfer, sync now,
 * switch profile, go to a screen) and objects (RFIs, transfers, quotes) found by id or text.
 * Pure: the palette gathers the data, this decides the list.
 */

import { statusWords } from '../../../../shared/words';
import { rfiPath } from '../../lib/router';

export interface PaletteItem {
  id: string;
  section: 'Actions' | 'RFIs' | 'Transfers' | 'Quotes';
  label: string;
  /** Secondary words (an id, a status). */
  hint: string | null;
  /** A route to open, or an action to run. */
  run: { kind: 'navigate'; to: string } | { kind: 'sync' } | { kind: 'profile'; profileId: string };
}

export interface PaletteData {
  rfis: Array<{
    id: string;
    profileId?: string | undefined;
    description: string;
    type: string;
    status: string;
  }>;
  transfers: Array<{ transactionId: string; debtorName: string | null; label: string }>;
  quotes: Array<{ id: string; transactionId: string | null; label: string; status: string }>;
  profiles: Array<{ id: string; name: string; active: boolean }>;
  screens: Array<{ path: string; label: string }>;
}

const has = (hay: string, needle: string): boolean => hay.toLowerCase().includes(needle);

/** Ids the bank gives: an RFI or a transaction typed whole is offered even when not in the lists. */
const RFI_ID = /^rfi_[A-Za-z0-9]+$/;
const TXN_ID = /^txn_[A-Za-z0-9]+$/;

export function paletteItems(text: string, data: PaletteData, max = 8): PaletteItem[] {
  const q = text.trim().toLowerCase();
  const allActions: PaletteItem[] = [
    {
      id: 'a:new-quote',
      section: 'Actions',
      label: 'New quote',
      hint: 'Exchange',
      run: { kind: 'navigate', to: '/exchange/new' },
    },
    {
      id: 'a:return',
      section: 'Actions',
      label: 'Return a transfer',
      hint: 'Returns',
      run: { kind: 'navigate', to: '/returns' },
    },
    { id: 'a:sync', section: 'Actions', label: 'Sync RFIs now', hint: null, run: { kind: 'sync' } },
    ...data.profiles
      .filter((p) => !p.active)
      .map((p): PaletteItem => ({
        id: `a:profile:${p.id}`,
        section: 'Actions',
        label: `Switch profile: ${p.name}`,
        hint: null,
        run: { kind: 'profile', profileId: p.id },
      })),
    ...data.screens.map((s): PaletteItem => ({
      id: `a:go:${s.path}`,
      section: 'Actions',
      label: `Go to ${s.label}`,
      hint: null,
      run: { kind: 'navigate', to: `/${s.path}` },
    })),
  ];
  const actions = allActions.filter((a) => !q || has(a.label, q) || (a.hint !== null && has(a.hint, q)));

  const rfis: PaletteItem[] = data.rfis
    .filter((r) => !q || has(r.id, q) || has(r.description, q) || has(r.type, q))
    .slice(0, max)
    .map((r) => ({
      id: r.profileId ? `r:${r.profileId}/${r.id}` : `r:${r.id}`,
      section: 'RFIs',
      label: r.description || r.type,
      // Words first, the id last (it gives way in a narrow palette; the name holds it whole).
      hint: `${statusWords(r.status)} · ${r.id}`,
      run: { kind: 'navigate', to: rfiPath(r) },
    }));
  const typed = text.trim();
  if (RFI_ID.test(typed) && !data.rfis.some((r) => r.id === typed)) {
    rfis.unshift({
      id: `r:${typed}`,
      section: 'RFIs',
      label: `Open RFI ${typed}`,
      hint: null,
      run: { kind: 'navigate', to: `/rfis/${encodeURIComponent(typed)}` },
    });
  }
  const transfers: PaletteItem[] = data.transfers
    .filter((t) => !q || has(t.transactionId, q) || has(t.debtorName ?? '', q) || has(t.label, q))
    .slice(0, max)
    .map((t) => ({
      id: `t:${t.transactionId}`,
      section: 'Transfers',
      label: t.label,
      hint: t.transactionId,
      run: { kind: 'navigate', to: `/returns/${encodeURIComponent(t.transactionId)}` },
    }));
  if (TXN_ID.test(typed) && !transfers.some((t) => t.id === `t:${typed}`)) {
    transfers.unshift({
      id: `t:${typed}`,
      section: 'Transfers',
      label: `Open transaction ${typed}`,
      hint: null,
      run: { kind: 'navigate', to: `/returns/${encodeURIComponent(typed)}` },
    });
  }
  const quotes: PaletteItem[] = data.quotes
    .filter((o) => !q || has(o.id, q) || has(o.transactionId ?? '', q) || has(o.label, q))
    .slice(0, max)
    .map((o) => ({
      id: `q:${o.id}`,
      section: 'Quotes',
      label: o.label,
      hint: `${statusWords(o.status)} · ${o.transactionId ?? o.id}`,
      run: { kind: 'navigate', to: `/exchange/${encodeURIComponent(o.id)}` },
    }));
  return [...actions, ...rfis, ...transfers, ...quotes];
}
