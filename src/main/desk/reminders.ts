/**
 * Deadline reminders: a native notification when an RFI awaiting action comes within a threshold
 * of its timeout (30 days after its last update; `rfiDeadline` in src/shared/rfi-rules.ts) — by
 * default 7 days (at risk), 48 h and 24 h. Time is each entity's bank clock (the server-time
 * estimate of the member that holds the RFI), never the workstation's. Each reminder is sent once
 * per RFI, deadline and threshold: the keys are kept in `state/deadline-reminders.json`, so a
 * restart does not repeat them, and two watchers that see the same RFI share one key.
 */

import { z } from 'zod';
import type { RfiSummaryView } from '../../shared/ipc/channels/rfis';
import type { EventHub } from '../infra/events';
import type { Logger } from '../infra/log';
import type { Platform } from '../infra/platform';
import type { StoreFormat, Stores, TypedStore } from '../infra/stores';

const HOUR = 3_600_000;
/** Hours before the timeout: at risk (7 days), then 48 h and 24 h. */
export const DEFAULT_REMINDER_HOURS: readonly number[] = [168, 48, 24];
/** Keys of deadlines long gone are dropped (the file stays small). */
const KEEP_AFTER_DEADLINE_MS = 7 * 24 * HOUR;

const storedSchema = z.object({
  version: z.literal(1),
  /** `<rfi id>|<deadline ISO>|<hours>` → the deadline in ms (to prune). */
  sent: z.record(z.string(), z.number()),
});
export const remindersFormat: StoreFormat<z.infer<typeof storedSchema>> = {
  label: 'The deadline reminders already shown',
  consequence: 'A reminder already shown may be shown once more.',
  version: 1,
  schema: storedSchema,
};

export interface ReminderMember {
  /** The member's rows (awaiting action and deadline are what count). */
  rows(): Promise<RfiSummaryView[]>;
  /** The member's bank time (its server-clock estimate). */
  now(): number;
  entityName(): string | null;
}

export interface RemindersDeps {
  stores: Stores;
  platform: Platform;
  events: EventHub;
  log: Logger;
  members(): ReminderMember[];
  hours?: readonly number[];
}

export interface Reminders {
  /** Looks at every member's RFIs and notifies what crossed a threshold (serialised). */
  check(): Promise<number>;
}

function label(hours: number): string {
  return hours % 24 === 0 && hours >= 72 ? `${hours / 24} days` : `${hours} hours`;
}

export async function createReminders(deps: RemindersDeps): Promise<Reminders> {
  const store: TypedStore<{ sent: Record<string, number> }> = await deps.stores.open(
    'deadline-reminders',
    remindersFormat,
    { sent: {} },
  );
  const hours = [...(deps.hours ?? DEFAULT_REMINDER_HOURS)].sort((a, b) => b - a);
  let chain: Promise<number> = Promise.resolve(0);

  const run = async (): Promise<number> => {
    const sent = { ...store.get().sent };
    let shown = 0;
    let changed = false;
    for (const m of deps.members()) {
      const now = m.now();
      const rows = await m.rows();
      for (const r of rows) {
        if (!r.awaitingAction || !r.deadline) continue;
        const deadline = Date.parse(r.deadline);
        const left = deadline - now;
        if (left <= 0) continue;
        // The tightest threshold crossed is the one shown; looser ones count as shown with it.
        const crossed = hours.filter((h) => left <= h * HOUR);
        const tightest = crossed[crossed.length - 1];
        if (tightest === undefined) continue;
        const key = (h: number): string => `${r.id}|${r.deadline}|${h}`;
        if (sent[key(tightest)] !== undefined) continue;
        for (const h of crossed) sent[key(h)] = deadline;
        changed = true;
        const entity = m.entityName();
        try {
          deps.platform.notify({
            title: `RFI due in less than ${label(tightest)}${entity ? ` — ${entity}` : ''}`,
            body: `${r.description || r.type} · times out ${new Date(deadline).toISOString().slice(0, 16).replace('T', ' ')} UTC (bank time)`,
            onClick: () => deps.events.emit('rfis.openRequested', { rfiId: r.id }),
          });
          shown++;
        } catch (err) {
          deps.log.warn('reminders: notification not shown', { error: err });
        }
      }
    }
    const floor = Math.min(...deps.members().map((m) => m.now()));
    for (const [k, d] of Object.entries(sent)) {
      if (d + KEEP_AFTER_DEADLINE_MS < floor) {
        delete sent[k];
        changed = true;
      }
    }
    if (changed) store.set({ sent });
    return shown;
  };

  return {
    check() {
      chain = chain.then(run, run).catch((err: unknown) => {
        deps.log.warn('reminders: check failed', { error: err });
        return 0;
      });
      return chain;
    },
  };
}
