/**
 * The change detector. Polling and the webhook receiver both end in the repository's upsert,
 * which runs one batch at a time and answers only real differences (before → after); this module
 * turns those differences into news and raises each piece of news once:
 *
 * - a change seen by the webhook and then by polling is no difference the second time (the cache
 *   already holds it), so it is not news again;
 * - and every notification carries a key (RFI, what, new status, updated_at) remembered for a
 *   while, so the same news is never shown twice even if the cache were re-filled in between.
 */

import { questionTypeWords, rfiTypeWords, statusWords } from '../../shared/words';
import type { Rfi } from '../../shared/api/rfis';
import type { RfiDiff } from './repository';

export type RfiNewsKind = 'created' | 'status' | 'question';

export interface RfiNews {
  kind: RfiNewsKind;
  rfiId: string;
  /** What the RFI is about: its type, description and related object (for the notification's words). */
  rfiType: string;
  description: string;
  relatedId: string;
  /** created: the RFI's status; status: the new RFI status; question: the new question status. */
  status: string;
  from: string | null;
  questionId: string | null;
  questionType: string | null;
  updatedAt: string;
  key: string;
}

/**
 * Question moves the analyst causes (answering: action_required → pending_review) are not news to
 * them; an RFI moving to pending_review is the echo of their own answer.
 */
const QUIET_STATUSES = new Set(['pending_review']);

/** What changed between two versions of an RFI that the analyst should hear about. */
export function newsOf(diff: RfiDiff): RfiNews[] {
  const { before, after } = diff;
  if (!before) {
    return [news('created', after, after.status, null, null, null)];
  }
  const out: RfiNews[] = [];
  if (before.status !== after.status && !QUIET_STATUSES.has(after.status)) {
    out.push(news('status', after, after.status, before.status, null, null));
  }
  const prev = new Map(before.questions.map((q) => [q.id, q.status]));
  for (const q of after.questions) {
    const was = prev.get(q.id);
    if (was === q.status || QUIET_STATUSES.has(q.status)) continue;
    out.push(news('question', after, q.status, was ?? null, q.id, q.question_type));
  }
  return out;
}

function news(
  kind: RfiNewsKind,
  rfi: Rfi,
  status: string,
  from: string | null,
  questionId: string | null,
  questionType: string | null,
): RfiNews {
  return {
    kind,
    rfiId: rfi.id,
    rfiType: rfi.type,
    description: rfi.description,
    relatedId: rfi.related_id,
    status,
    from,
    questionId,
    questionType,
    updatedAt: rfi.updated_at,
    key: `${rfi.id}|${kind}|${questionId ?? ''}|${status}|${rfi.updated_at}`,
  };
}

export interface NotificationPlan {
  title: string;
  body: string;
  /** The RFI a click opens (null for a summary of many: opens the queue). */
  rfiId: string | null;
  news: RfiNews[];
}

export interface NotificationPrefs {
  newRfi: boolean;
  rfiStatus: boolean;
}

/** Above this many RFIs with news in one batch, one summary notification instead of many. */
export const SUMMARY_THRESHOLD = 5;

/**
 * Names of related objects (transactions, accounts) by id, as main could learn them; an RFI whose
 * related object has no known name is shown with the id.
 */
export type RelatedNames = ReadonlyMap<string, string>;

/** "Transaction: Incoming transfer from Harbour Freight Ltd — Harbour Freight Ltd, 12,500.00 USD". */
export function aboutRfi(n: RfiNews, names: RelatedNames): string {
  const related = n.relatedId ? (names.get(n.relatedId) ?? n.relatedId) : '';
  const description = n.description.trim();
  const what = [description, related && related !== description ? related : ''].filter(Boolean).join(' — ');
  return `${rfiTypeWords(n.rfiType)}${what ? `: ${what}` : ''}`;
}

/**
 * Remembers notification keys (bounded) and plans the notifications of one batch: one per RFI
 * (its news merged), or a single summary when many RFIs changed at once (back from offline).
 */
export class ChangeDetector {
  private readonly shown = new Map<string, number>();
  constructor(private readonly capacity = 20_000) {}

  /** Drops news already notified; remembers the rest. */
  fresh(items: readonly RfiNews[]): RfiNews[] {
    const out: RfiNews[] = [];
    for (const n of items) {
      if (this.shown.has(n.key)) continue;
      this.shown.set(n.key, Date.now());
      out.push(n);
    }
    while (this.shown.size > this.capacity) {
      const first = this.shown.keys().next();
      if (first.done) break;
      this.shown.delete(first.value);
    }
    return out;
  }

  plan(
    diffs: readonly RfiDiff[],
    prefs: NotificationPrefs,
    names: RelatedNames = new Map(),
  ): NotificationPlan[] {
    const all = this.fresh(diffs.flatMap(newsOf));
    const wanted = all.filter((n) => (n.kind === 'created' ? prefs.newRfi : prefs.rfiStatus));
    const byRfi = new Map<string, RfiNews[]>();
    for (const n of wanted) {
      const list = byRfi.get(n.rfiId) ?? [];
      list.push(n);
      byRfi.set(n.rfiId, list);
    }
    if (byRfi.size === 0) return [];
    if (byRfi.size > SUMMARY_THRESHOLD) {
      const created = [...byRfi.values()].filter((l) => l.some((n) => n.kind === 'created')).length;
      const changed = byRfi.size - created;
      const parts = [
        created > 0 ? `${created} new RFI${created === 1 ? '' : 's'}` : '',
        changed > 0 ? `${changed} RFI${changed === 1 ? '' : 's'} changed status` : '',
      ].filter(Boolean);
      return [{ title: 'RFIs updated', body: parts.join(', '), rfiId: null, news: wanted }];
    }
    const plans: NotificationPlan[] = [];
    for (const [rfiId, list] of byRfi) {
      const created = list.find((n) => n.kind === 'created');
      const rfiStatus = list.find((n) => n.kind === 'status');
      const questions = list.filter((n) => n.kind === 'question');
      const first = list[0];
      if (!first) continue;
      const about = aboutRfi(first, names);
      if (created) {
        plans.push({
          title: 'New RFI',
          body: `${about} · ${statusWords(created.status)}`,
          rfiId,
          news: list,
        });
      } else if (rfiStatus) {
        plans.push({
          title: 'RFI status changed',
          body: `${about} · ${statusWords(rfiStatus.from)} → ${statusWords(rfiStatus.status)}`,
          rfiId,
          news: list,
        });
      } else {
        const q = questions[0];
        plans.push({
          title: 'RFI question changed',
          body:
            questions.length === 1 && q
              ? `${about} · ${q.questionType ? questionTypeWords(q.questionType) : 'A question'} is now ${statusWords(q.status).toLowerCase()}`
              : `${about} · ${questions.length} questions changed status`,
          rfiId,
          news: list,
        });
      }
    }
    return plans;
  }
}
