import type { AssignmentView } from '../../../../shared/ipc/channels/team';

/** The key of one RFI's holder: its legal entity and its RFI id, as the team server knows it. */
export function holderKey(legalEntityId: string, rfiId: string): string {
  return `${legalEntityId}\n${rfiId}`;
}

/** Holders as the team store keeps them: by legal entity and RFI id (`holderKey`). */
export type Holders = Readonly<Record<string, AssignmentView>>;

/**
 * The holder of one RFI row: found by the legal entity its owning profile acts for and its id,
 * so two entities' RFIs of the same id never show each other's holder. A row whose entity the
 * bank has not named yet has none.
 */
export function holderOf(
  holders: Holders | null,
  row: { id: string; legalEntityId?: string | null | undefined },
): AssignmentView | undefined {
  return holders && row.legalEntityId ? holders[holderKey(row.legalEntityId, row.id)] : undefined;
}

/** Who holds an RFI, in words: "You", the analyst's name, "Unassigned"; a pending change says so. */
export function holderWords(view: AssignmentView | undefined): string {
  if (view?.pending === 'claim') return 'You (pending)';
  if (view?.pending === 'release') return 'Unassigned (pending)';
  if (view?.pending === 'reassign' && view.pendingTo)
    return `${view.pendingTo.isYou ? 'You' : view.pendingTo.name} (pending)`;
  if (!view?.holder) return 'Unassigned';
  return view.holder.isYou ? 'You' : view.holder.name;
}

export function HolderCell({ view }: { view: AssignmentView | undefined }) {
  const words = holderWords(view);
  return (
    <span
      className={
        view?.pending ? 'rfi-holder rfi-holder--pending' : view?.holder ? 'rfi-holder' : 'rfi-holder muted'
      }
    >
      {words}
    </span>
  );
}

/** The queue's "Mine" / "Unassigned" filter (a pending claim counts as the analyst's). */
export function holderMatches(view: AssignmentView | undefined, filter: 'mine' | 'unassigned'): boolean {
  const mine = view?.pending === 'claim' || (view?.pending !== 'release' && view?.holder?.isYou === true);
  if (filter === 'mine') return mine;
  return !mine && !view?.holder;
}
