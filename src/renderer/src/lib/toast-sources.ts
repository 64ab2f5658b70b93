/**
 * Which background outcomes become toasts: main's push events, remembered per object so that only
 * a change of state speaks (an event repeated with the same state says nothing again).
 */

import type { EventPayload } from '../../../shared/ipc/contract';
import { exchangeWords } from '../../../shared/activity';
import { describeReasonCode, questionTypeInfo } from '../../../shared/catalogue';
import { formatMinor, isMinorUnits, parseMinor } from '../../../shared/money';
import type { ToastInput } from './toasts';
import { onEvents, sharedSubscription } from './events';
import { pushToast } from './toasts';
import { rfiPath } from './router';

/** The last state seen per object key; a toast only when it changes to one worth saying. */
export class ToastMemory {
  private readonly last = new Map<string, string>();
  /** true when `state` is new for `key` (and remembers it). */
  changed(key: string, state: string): boolean {
    if (this.last.get(key) === state) return false;
    this.last.set(key, state);
    return true;
  }
}

const money = (amount: string, currency: string): string =>
  isMinorUnits(amount) && currency ? formatMinor(parseMinor(amount), currency) : '';

export function answerToast(a: EventPayload<'answers.changed'>, memory: ToastMemory): ToastInput | null {
  if (!memory.changed(`answer:${a.id}`, a.state)) return null;
  const link = { to: rfiPath({ id: a.rfiId, profileId: a.bank?.profileId }), label: 'Open the RFI' };
  if (a.state === 'sent')
    return {
      key: `answer:${a.id}`,
      tone: 'ok',
      title: 'Answer sent',
      body: questionTypeInfo(a.questionType).label,
      link,
    };
  if (a.state === 'conflict')
    return {
      key: `answer:${a.id}`,
      tone: 'warn',
      title: 'Answer not sent: the question changed at the bank',
      body: 'Your text is kept: open the RFI to copy or discard it.',
      link,
    };
  if (a.state === 'failed')
    return {
      key: `answer:${a.id}`,
      tone: 'bad',
      title: 'Answer not sent',
      body: a.lastError?.message ?? null,
      link,
    };
  return null;
}

export function returnToast(r: EventPayload<'returns.changed'>, memory: ToastMemory): ToastInput | null {
  if (!memory.changed(`return:${r.operationId}`, r.phase)) return null;
  if (r.phase !== 'completed') return null;
  const amount = money(r.amount, r.currency);
  return {
    key: `return:${r.operationId}`,
    tone: 'ok',
    title: 'Return completed',
    // Which transfer it was, in the analyst's words: the amount and why it went back.
    body: `${amount ? `${amount} returned` : 'The funds were returned'}: ${describeReasonCode(r.reasonCode)}`,
    link: { to: `/returns/${encodeURIComponent(r.transactionId)}`, label: 'Open the transfer' },
  };
}

export function orderToast(o: EventPayload<'crypto.orderChanged'>, memory: ToastMemory): ToastInput | null {
  const status = o.status ?? o.phase;
  if (!memory.changed(`order:${o.id}`, status)) return null;
  const link = { to: `/exchange/${encodeURIComponent(o.id)}`, label: 'Open the order' };
  const c = o.crypto;
  const what = c ? exchangeWords(o.request.side, c) : null;
  if (status === 'pending_execution')
    return { key: `order:${o.id}`, tone: 'info', title: 'Quote confirmed', body: what, link };
  if (status === 'completed')
    return { key: `order:${o.id}`, tone: 'ok', title: 'Exchange settled', body: what, link };
  if (status === 'failed')
    return {
      key: `order:${o.id}`,
      tone: 'bad',
      title: 'Exchange failed',
      body: o.error?.message ?? what,
      link,
    };
  return null;
}

export function syncToast(s: EventPayload<'rfis.syncState'>, memory: ToastMemory): ToastInput | null {
  // Only the move into a failure speaks; "offline" repeats what the status line already says.
  const failing = s.state === 'error' ? 'error' : 'ok';
  if (s.state === 'syncing') return null;
  if (!memory.changed('rfi-sync', failing) || failing === 'ok') return null;
  return {
    key: 'rfi-sync',
    tone: 'bad',
    title: 'RFI sync failed',
    body: s.lastError,
    link: { to: '/rfis', label: 'Open the RFIs' },
  };
}

/** Subscribed once by the shell: background outcomes become toasts. */
export const toastSubscription = sharedSubscription(() => {
  const memory = new ToastMemory();
  const show = (t: ToastInput | null): void => {
    if (t) pushToast(t);
  };
  return onEvents({
    'answers.changed': (a) => show(answerToast(a, memory)),
    'returns.changed': (r) => show(returnToast(r, memory)),
    'crypto.orderChanged': (o) => show(orderToast(o, memory)),
    'rfis.syncState': (s) => show(syncToast(s, memory)),
  });
});
