/**
 * Expiry warnings of locker documents: 30 and 7 days before a document expires (by the bank's
 * clock estimate), once per document version and threshold, in the app and by one native
 * notification per check (several documents due at once are one summary). Which warnings were
 * given is written to the index before anything is shown, so a restart never repeats them.
 */
import { DOCUMENT_TYPE_LABELS, EXPIRY_WARNING_DAYS } from '../../shared/catalogue';
import type { EventHub } from '../infra/events';
import type { Platform } from '../infra/platform';
import { expiryOf } from './records';
import type { LockerDocument } from './records';

export interface ExpiryDeps {
  documents(): Iterable<LockerDocument>;
  now(): number;
  persist(): Promise<void>;
  platform: Platform;
  events: EventHub;
  changed(): void;
}

const summary = (count: number): { title: string; body: string } => ({
  title: `${count} locker documents have expired or expire soon`,
  body: 'Open the evidence locker to replace them with newer versions.',
});

/** Gives the expiry warnings now due; answers how many. */
export async function checkExpiry(deps: ExpiryDeps): Promise<number> {
  const now = deps.now();
  const due: Array<{ d: LockerDocument; daysLeft: number; threshold: number }> = [];
  for (const d of deps.documents()) {
    const { daysLeft } = expiryOf(d.current, now);
    if (daysLeft === null) continue;
    const crossed = EXPIRY_WARNING_DAYS.filter((t) => daysLeft <= t);
    const fresh = crossed.filter((t) => !d.warned.includes(`${d.current.versionId}:${t}`));
    if (fresh.length === 0) continue;
    // Every threshold crossed is marked at once: one warning, the most urgent one.
    for (const t of fresh) d.warned.push(`${d.current.versionId}:${t}`);
    due.push({ d, daysLeft, threshold: Math.min(...crossed) });
  }
  if (due.length === 0) return 0;
  // Written before anything is shown: a restart never repeats a warning.
  await deps.persist();
  if (due.length > 1) {
    deps.platform.notify({
      ...summary(due.length),
      source: 'locker.expiry',
      object: due.map(({ d }) => d.id).join(','),
      coalesce: summary,
    });
  }
  for (const { d, daysLeft, threshold } of due) {
    if (due.length === 1) {
      deps.platform.notify({
        title: daysLeft < 0 ? 'A locker document has expired' : 'A locker document expires soon',
        body: `${DOCUMENT_TYPE_LABELS[d.documentType]} of ${d.holder.name} (${d.current.name}) ${when(d, daysLeft)}. Replace it with a newer version.`,
        source: 'locker.expiry',
        object: d.id,
        coalesce: summary,
      });
    }
    deps.events.emit('locker.expiryWarning', {
      id: d.id,
      name: d.current.name,
      holder: d.holder.name,
      daysLeft,
      threshold,
    });
  }
  deps.changed();
  return due.length;
}

function when(d: LockerDocument, daysLeft: number): string {
  if (daysLeft < 0) return `expired on ${d.current.expiresOn}`;
  if (daysLeft === 0) return 'expires today';
  return `expires in ${daysLeft} day${daysLeft === 1 ? '' : 's'}, on ${d.current.expiresOn}`;
}
