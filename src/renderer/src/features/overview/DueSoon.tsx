import { useEffect, useId } from 'react';
import { BellOff, CalendarCheck } from 'lucide-react';
import type { DueSoonItemView } from '../../../../shared/ipc/channels/reminders';
import { thresholdLabel } from '../../../../shared/reminder-rules';
import { EmptyState } from '../../components/ui';
import { useNow } from '../../components/ui/clock';
import { describeDate } from '../../lib/dates';
import { DeadlineClock } from '../rfis/DeadlineClock';
import { relatedLabel, useRelatedNames } from '../rfis/related-names';
import { useOverview } from './store';
import { rfiTypeWords } from '../../../../shared/words';
import { entityLabel } from '../../lib/entity';
import { rfiPath } from '../../lib/router';

/** The row's name: the RFI's description, else its type ("Account RFI"). */
export function dueSoonTitle(item: Pick<DueSoonItemView, 'description' | 'type'>): string {
  const d = item.description.trim();
  if (d) return d;
  return `${rfiTypeWords(item.type)} RFI`;
}

/** The rows' one entity when every row is that entity's (named once above the list), else null. */
function oneEntity(items: readonly DueSoonItemView[]): string | null {
  const first = items[0];
  return first && items.every((i) => i.profileId === first.profileId) ? first.entityName : null;
}

function Row({ item, showEntity }: { item: DueSoonItemView; showEntity: boolean }) {
  const tick = useNow();
  const names = useRelatedNames((s) => s.names);
  // The entity is said once (on the row or above the list): the related object leaves it out.
  const related = relatedLabel(names, item.profileId, item.type, item.relatedId, item.entityName);
  // Time left on the owning entity's bank clock (main's estimate when it answered).
  const bankNow = tick + item.offsetMs;
  const snoozed = item.snoozedUntil ? describeDate(item.snoozedUntil, bankNow) : null;
  const labelId = useId();
  return (
    <li data-testid="due-soon-item" data-rfi-id={item.rfiId} aria-labelledby={labelId}>
      <a
        href={`#${rfiPath({ id: item.rfiId, profileId: item.profileId })}`}
        id={labelId}
        className="due-soon__link"
      >
        {dueSoonTitle(item)}
      </a>
      <span className="due-soon__meta">
        {showEntity && (
          <>
            <span data-testid="due-soon-entity">{entityLabel({ name: item.entityName })}</span>
            {' · '}
          </>
        )}
        <span title={related.name ? `${related.kind} ${item.relatedId}` : item.relatedId}>
          {related.name ?? related.kind}
        </span>
      </span>
      <DeadlineClock deadline={item.deadline} now={bankNow} />
      {snoozed && (
        <span className="due-soon__snoozed" data-testid="due-soon-snoozed">
          <BellOff size={12} aria-hidden="true" />
          <span>
            Reminders snoozed: they resume{' '}
            <time dateTime={snoozed.iso} title={`${snoozed.absolute} (bank time)`}>
              {snoozed.relative}
            </time>
          </span>
        </span>
      )}
    </li>
  );
}

/**
 * The overview's "Due soon": RFIs awaiting action, across every entity, whose timeout is within
 * the largest reminder threshold (7 days with reminders off), soonest first. The deadline panel
 * above counts them by band; this names them, each a link to the RFI.
 */
export function DueSoon() {
  const dueSoon = useOverview((s) => s.dueSoon);
  const error = useOverview((s) => s.errors.dueSoon);
  const loaded = useOverview((s) => s.loaded.dueSoon);
  const id = useId();
  useEffect(() => {
    void useOverview.getState().loadDueSoon();
    void useRelatedNames
      .getState()
      .load()
      .catch(() => undefined);
  }, []);
  const horizon = dueSoon ? thresholdLabel(dueSoon.horizonHours) : null;
  // One entity's RFIs name it once, above the list; several name each row's.
  const single = dueSoon ? oneEntity(dueSoon.items) : null;
  // Each row's related object, named through the profile that owns its RFI.
  useEffect(() => {
    if (dueSoon) void useRelatedNames.getState().want(dueSoon.items);
  }, [dueSoon]);
  return (
    <section className="panel overview__due-soon" aria-labelledby={`${id}-h`} data-testid="overview-due-soon">
      <h2 id={`${id}-h`}>Due soon</h2>
      {error && (
        <p className="notice notice--bad" role="alert">
          {error}
        </p>
      )}
      {!loaded ? (
        <p role="status">Loading…</p>
      ) : !dueSoon ? null : dueSoon.items.length === 0 ? (
        <EmptyState
          title="Nothing is due soon"
          icon={<CalendarCheck size={28} />}
          className="due-soon__empty"
        >
          No RFI awaiting action times out in the next {horizon}.
        </EmptyState>
      ) : (
        <>
          <p className="muted" id={`${id}-note`}>
            {single ? (
              <>
                RFIs of <span data-testid="due-soon-one-entity">{entityLabel({ name: single })}</span>{' '}
                awaiting action that time out within {horizon}
              </>
            ) : (
              <>RFIs awaiting action that time out within {horizon}</>
            )}
            {dueSoon.enabled ? ' (your earliest reminder)' : ''}, soonest first; times are the bank’s.
          </p>
          <ul className="due-soon" aria-describedby={`${id}-note`} aria-label="RFIs due soon">
            {dueSoon.items.map((item) => (
              <Row key={`${item.profileId} ${item.rfiId}`} item={item} showEntity={single === null} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
