/**
 * Snoozes of deadline reminders, one per RFI: until when (the owning entity's bank time) its
 * reminders are held back. Kept in `state/reminder-snoozes.json` (versioned, like the reminders
 * already shown), so a restart keeps them. Keyed by the bank (its origin) and the RFI id: two
 * watchers of the same entity see one snooze, and another bank's RFI of the same id is another.
 * The deadline a snooze was set for is kept with it: a snooze of a deadline that moved (the RFI
 * was updated) no longer applies and is dropped, as are snoozes that ended.
 */

import { z } from 'zod';
import type { SnoozeView } from '../../shared/ipc/channels/reminders';
import { snoozeEnd } from '../../shared/reminder-rules';
import type { StoreFormat, Stores, TypedStore } from '../infra/stores';

const snoozeSchema = z.object({
  rfiId: z.string().max(200),
  /** The profile whose RFI was snoozed (absent in snoozes set before snoozes named it). */
  profileId: z.string().max(64).optional(),
  /** The bank's origin (the entity watch's scope of the RFI). */
  scope: z.string().max(2000),
  /** The deadline the snooze was set for (ms). */
  deadline: z.number(),
  /** The end asked for, already bounded by the last reminder when it was set (ms, bank time). */
  until: z.number(),
  setAt: z.number(),
  capped: z.boolean(),
});
export type StoredSnooze = z.infer<typeof snoozeSchema>;

const storedSchema = z.object({
  version: z.literal(1),
  /** `<scope> <rfi id>` → the snooze. */
  snoozes: z.record(z.string(), snoozeSchema),
});

export const snoozesFormat: StoreFormat<z.infer<typeof storedSchema>> = {
  label: 'The snoozed deadline reminders',
  consequence: 'Snoozed RFIs remind again at their next threshold.',
  version: 1,
  schema: storedSchema,
};

export interface SnoozeStore {
  /** Every snooze by `<scope> <rfi id>`, read once (a check over thousands of rows reads this). */
  byKey(): ReadonlyMap<string, StoredSnooze>;
  all(): StoredSnooze[];
  set(s: StoredSnooze): void;
  /** Removes the RFI's snoozes (every scope when none is given); answers whether one was there. */
  remove(rfiId: string, scope?: string): boolean;
  /** Drops the snoozes `drop` answers true for; answers how many went. */
  prune(drop: (s: StoredSnooze) => boolean): number;
}

export const snoozeKey = (scope: string, rfiId: string): string => `${scope} ${rfiId}`;

export async function openSnoozes(stores: Stores): Promise<SnoozeStore> {
  const store: TypedStore<{ snoozes: Record<string, StoredSnooze> }> = await stores.open(
    'reminder-snoozes',
    snoozesFormat,
    { snoozes: {} },
  );
  const filtered = (keep: (s: StoredSnooze) => boolean): number => {
    const all = store.get().snoozes;
    const next = Object.fromEntries(Object.entries(all).filter(([, s]) => keep(s)));
    const gone = Object.keys(all).length - Object.keys(next).length;
    if (gone > 0) store.set({ snoozes: next });
    return gone;
  };
  return {
    byKey: () => new Map(Object.entries(store.get().snoozes)),
    all: () => Object.values(store.get().snoozes),
    set(s) {
      store.update((c) => ({ snoozes: { ...c.snoozes, [snoozeKey(s.scope, s.rfiId)]: s } }));
    },
    remove: (rfiId, scope) =>
      filtered((s) => !(s.rfiId === rfiId && (scope === undefined || s.scope === scope))) > 0,
    prune: (drop) => filtered((s) => !drop(s)),
  };
}

/**
 * A snooze as the page reads it, its end under today's thresholds; `owner` names its profile when
 * the stored snooze does not (one set before snoozes named it: the profile watching its bank).
 */
export function snoozeView(
  s: StoredSnooze,
  hours: readonly number[],
  bankNow: number,
  owner: string | null = null,
): SnoozeView {
  return {
    offsetMs: bankNow - Date.now(),
    rfiId: s.rfiId,
    profileId: s.profileId ?? owner,
    until: new Date(snoozeEnd(s.until, s.deadline, hours)).toISOString(),
    capped: s.capped,
    setAt: new Date(s.setAt).toISOString(),
  };
}
