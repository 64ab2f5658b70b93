import { CircleDot } from 'lucide-react';
import type { RfiSummaryView } from '../../../../shared/ipc/channels/rfis';
import { rfiTypeWords } from '../../../../shared/words';
import { StatusBadge, statusLabel } from '../../components/StatusBadge';
import { RelativeTime } from '../../components/ui';
import type { DataColumn } from '../../components/ui';
import { entityLabel } from '../../lib/entity';
import { DeadlineClock } from './DeadlineClock';
import { relatedLabel } from './related-names';
import type { RelatedName } from '../../../../shared/words';
import { SnoozedMark } from './SnoozeControl';
import { HolderCell, holderOf, holderWords } from '../team/holders';
import type { Holders } from '../team/holders';

const typeLabel = rfiTypeWords;

/** The most of the queue's width the Entity column takes (a longer name is capped, titled). */
export const ENTITY_SHARE = 30;

/** The unread marker, made once (rows reuse the element as it is). */
const UNREAD_MARK = (
  <span className="rfi-unread" title="New: not opened since it changed">
    <CircleDot size={12} aria-hidden="true" />
    <span className="ui-visually-hidden">New</span>
  </span>
);

/** The queue's columns: fewer beside the detail pane, the entity when the desk watches several. */
export function queueColumns(
  names: Readonly<Record<string, RelatedName>>,
  now: number,
  compact: boolean,
  several: boolean,
  /** With a team: who holds each RFI (by legal entity and RFI id); null in solo use (no column). */
  holders: Holders | null = null,
  /** The px width of the longest entity name as drawn (null: not measured, a flexible column). */
  entityTextWidth: number | null = null,
): DataColumn<RfiSummaryView>[] {
  const all: (DataColumn<RfiSummaryView> | false)[] = [
    {
      id: 'unread',
      header: 'Unread',
      enableSorting: false,
      cell: (c) => (c.row.original.unread ? UNREAD_MARK : null),
      meta: {
        width: '28px',
        hideHeader: true,
        className: 'dt__cell--icon',
        title: (r) => (r.unread ? 'New' : undefined),
      },
    },
    {
      id: 'rfi',
      header: 'RFI',
      enableSorting: false,
      // The subject first (what the RFI asks about), its type after it in muted words.
      accessorFn: (r) => {
        const about = relatedLabel(names, r.profileId, r.type, r.relatedId, r.entityName).name;
        return `${r.description || `${typeLabel(r.type)} RFI`} · ${typeLabel(r.type)}${about ? ` · ${about}` : ''}`;
      },
      cell: (c) => {
        const r = c.row.original;
        // Where the "Related to" column gave way (beside the detail pane, at 1024 px), the related
        // object's name takes the type's place in this cell: what the RFI is about stays in view.
        const about = relatedLabel(names, r.profileId, r.type, r.relatedId, r.entityName).name;
        return (
          <span className="rfi-cell">
            <SnoozedMark rfiId={r.id} profileId={r.profileId} />
            <span className="rfi-cell__subject">{r.description || `${typeLabel(r.type)} RFI`}</span>
            <span className={about ? 'rfi-cell__type rfi-cell__type--named' : 'rfi-cell__type'}>
              {typeLabel(r.type)}
            </span>
            {about && (
              <span className="rfi-cell__about" data-testid="rfi-row-about">
                {about}
              </span>
            )}
          </span>
        );
      },
      // The subject takes what the other columns leave (they are never cut), at least 120 px.
      meta: { width: 'minmax(120px, 3fr)' },
    },
    several && {
      id: 'entity',
      header: 'Entity',
      enableSorting: false,
      accessorFn: (r) => entityLabel({ name: r.entityName }),
      cell: (c) => (
        <span className="rfi-cell__entity">{entityLabel({ name: c.row.original.entityName })}</span>
      ),
      meta: {
        // As wide as the longest entity name, so the names stay whole and the subject gives way
        // (beside the detail pane too); at most 30% of the table, where a very long name is
        // capped with its full name as the title.
        width:
          entityTextWidth === null
            ? 'minmax(110px, 1.2fr)'
            : `min(calc(${entityTextWidth + 2}px + 2 * var(--cell-pad-x)), ${ENTITY_SHARE}%)`,
        title: (r) => entityLabel({ name: r.entityName }),
      },
    },
    {
      id: 'related',
      header: 'Related to',
      enableSorting: false,
      cell: (c) => {
        const r = c.row.original;
        const l = relatedLabel(names, r.profileId, r.type, r.relatedId, r.entityName);
        return l.name ? (
          <span>{l.name}</span>
        ) : (
          <span className="rfi-cell__related">
            <span className="muted">{l.kind}</span> <code>{r.relatedId}</code>
          </span>
        );
      },
      meta: {
        width: 'minmax(120px, 2fr)',
        // Gives way first on a narrow table: the detail pane names the related object.
        minTableWidth: several ? 860 : 700,
        title: (r) => {
          const l = relatedLabel(names, r.profileId, r.type, r.relatedId, r.entityName);
          return l.name ? `${l.name} (${r.relatedId})` : `${l.kind} ${r.relatedId}`;
        },
      },
    },
    holders !== null && {
      id: 'holder',
      header: 'Held by',
      enableSorting: false,
      accessorFn: (r) => holderWords(holderOf(holders, r)),
      cell: (c) => <HolderCell view={holderOf(holders, c.row.original)} />,
      meta: { width: 'minmax(110px, 1.2fr)', title: (r) => holderWords(holderOf(holders, r)) },
    },
    {
      id: 'status',
      header: 'Status',
      enableSorting: false,
      cell: (c) => <StatusBadge status={c.row.original.status} />,
      meta: { width: '144px', title: (r) => statusLabel(r.status) },
    },
    {
      id: 'deadline',
      header: 'Deadline',
      // An accessor makes the header a sort button (TanStack sorts only columns with a value);
      // the queue sorts itself (manualSorting), by the shared rules.
      accessorFn: (r) => r.deadline ?? '',
      cell: (c) => <DeadlineClock deadline={c.row.original.deadline} now={now} />,
      // "On track · in 22d" with its icon inside the cell's padding, beside the pane too.
      meta: { width: compact ? '164px' : '170px', title: () => undefined },
    },
    !compact && {
      id: 'updated',
      header: 'Updated',
      accessorFn: (r) => r.updatedAt,
      cell: (c) => <RelativeTime value={c.row.original.updatedAt} now={now} />,
      // The least needed column gives way first on a narrow table (the Sort control still orders
      // by it): the related object keeps its room beside the subject.
      meta: { width: '112px', align: 'end', title: () => undefined, minTableWidth: several ? 1000 : 900 },
    },
  ];
  return all.filter((c): c is DataColumn<RfiSummaryView> => c !== false);
}
