/**
 * Deadline reminders: a native notification when an RFI awaiting action comes within a threshold
 * of its timeout (30 days after its last update; `rfiDeadline` in src/shared/rfi-rules.ts) — by
 * default 7 days (at risk), 48 h and 24 h; the analyst sets them in Settings and a change applies
 * at the next check (no restart). Time is each entity's bank clock (the server-time estimate of
 * the member that holds the RFI), never the workstation's. Each reminder is sent once per RFI,
 * deadline and threshold: the keys are kept in `state/deadline-reminders.json`, so a restart does
 * not repeat them, two watchers that see the same RFI share one key, and changing the thresholds
 * never shows again one already shown.
 *
 * A snooze (./snoozes.ts) holds one RFI's reminders back until an instant of its entity's bank
 * time, never past the last reminder; when it ends, the tightest threshold crossed meanwhile and
 * not yet shown is shown once (the looser ones count as shown with it).
 */

import { z } from 'zod';
import type { DueSoonView, SnoozeView } from '../../shared/ipc/channels/reminders';
import type { RfiSummaryView } from '../../shared/ipc/channels/rfis';
import { AppFailure } from '../../shared/ipc/errors';
import { dateWords, rfiTypeWords } from '../../shared/words';
import {
  DEFAULT_DUE_SOON_HOURS,
  HOUR_MS,
  planSnooze,
  snoozeEnd,
  sortedThresholds,
  thresholdLabel,
} from '../../shared/reminder-rules';
import type { SnoozeChoice } from '../../shared/reminder-rules';
import type { EventHub } from '../infra/events';
import type { Logger } from '../infra/log';
import type { Platform } from '../infra/platform';
import type { StoreFormat, Stores, TypedStore } from '../infra/stores';
import { openSnoozes, snoozeKey, snoozeView } from './snoozes';
import type { StoredSnooze } from './snoozes';

export { DEFAULT_REMINDER_HOURS } from '../../shared/reminder-rules';

/** Keys of deadlines long gone are dropped (the file stays small). */
const KEEP_AFTER_DEADLINE_MS = 7 * 24 * HOUR_MS;

const storedSchema = z.object({
  version: z.literal(1),
  /**
   * `<bank origin> <rfi id>|<deadline ISO>|<hours>` → the deadline in ms (to prune). Keys written
   * before they named the bank (`<rfi id>|…`) are still honoured until they are pruned.
   */
  sent: z.record(z.string(), z.number()),
});
export const remindersFormat: StoreFormat<z.infer<typeof storedSchema>> = {
  label: 'The deadline reminders already shown',
  consequence: 'A reminder already shown may be shown once more.',
  version: 1,
  schema: storedSchema,
};

export interface ReminderMember {
  profileId: string;
  /** The member's rows (awaiting action and deadline are what count). */
  rows(): Promise<RfiSummaryView[]>;
  /** The member's bank time (its server-clock estimate). */
  now(): number;
  /** The entity's name for notification titles (null: one entity only, the title needs none). */
  entityName(): string | null;
  /** The entity's name for lists (always one). */
  displayName(): string;
  /** Where its RFI ids are unique: the bank's origin. */
  scope(): string;
}

/** The thresholds in force: from Settings, or a test's override. */
export interface ReminderThresholds {
  enabled: boolean;
  hours: readonly number[];
}

export interface RemindersDeps {
  stores: Stores;
  platform: Platform;
  events: EventHub;
  log: Logger;
  members(): ReminderMember[];
  thresholds(): ReminderThresholds;
  /** Told of every reminder shown and every snooze set or cancelled (the RFI's case file lists them). */
  onSeen?(profileId: string, rfiId: string, detail: string): void;
}

export interface Reminders {
  /** Looks at every member's RFIs and notifies what crossed a threshold (serialised). */
  check(): Promise<number>;
  /**
   * Snoozes the reminders of one RFI of the named profile (a member's id): the end is computed on
   * that entity's bank clock, and another bank's RFI of the same id is untouched.
   */
  snooze(profileId: string, rfiId: string, choice: SnoozeChoice): Promise<SnoozeView>;
  /** Cancels the snooze of one RFI of the named profile; answers whether there was one. */
  unsnooze(profileId: string, rfiId: string): Promise<boolean>;
  /** The snoozes in force. */
  snoozes(): Promise<SnoozeView[]>;
  /** RFIs awaiting action whose timeout is within the largest threshold, soonest first. */
  dueSoon(): Promise<DueSoonView>;
  /** Resolves once the checks, snoozes and cancels asked for so far are done. */
  settled(): Promise<void>;
}

export async function createReminders(deps: RemindersDeps): Promise<Reminders> {
  const store: TypedStore<{ sent: Record<string, number> }> = await deps.stores.open(
    'deadline-reminders',
    remindersFormat,
    { sent: {} },
  );
  const snoozes = await openSnoozes(deps.stores);
  const hoursNow = (): number[] => sortedThresholds(deps.thresholds().hours);
  let chain: Promise<unknown> = Promise.resolve();
  /** Checks, snoozes and cancels run one after the other: none overwrites another's write. */
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = chain.then(fn, fn);
    chain = next.catch(() => undefined);
    return next;
  };

  const publish = (): void => {
    void activeSnoozes()
      .then((list) => deps.events.emit('reminders.changed', { snoozes: list }))
      .catch((err: unknown) => deps.log.warn('reminders: change not published', { error: err }));
  };

  const nowOfScope = (): Map<string, number> => {
    const out = new Map<string, number>();
    for (const m of deps.members()) if (!out.has(m.scope())) out.set(m.scope(), m.now());
    return out;
  };
  /** The profile watching each bank (the default profile first), for snoozes that name none. */
  const ownerOfScope = (): Map<string, string> => {
    const out = new Map<string, string>();
    for (const m of deps.members()) if (!out.has(m.scope())) out.set(m.scope(), m.profileId);
    return out;
  };

  const activeSnoozes = async (): Promise<SnoozeView[]> => {
    const hours = hoursNow();
    const nows = nowOfScope();
    const owners = ownerOfScope();
    return snoozes
      .all()
      .filter((s) => {
        const now = nows.get(s.scope);
        return now === undefined || snoozeEnd(s.until, s.deadline, hours) > now;
      })
      .map((s) => snoozeView(s, hours, nows.get(s.scope) ?? Date.now(), owners.get(s.scope) ?? null));
  };

  const run = async (): Promise<number> => {
    const { enabled } = deps.thresholds();
    const hours = hoursNow();
    const sent = { ...store.get().sent };
    let shown = 0;
    let changed = false;
    /** Snoozes that no longer apply: ended, or their RFI's deadline moved or it awaits no action. */
    const stale = new Set<string>();
    const held = snoozes.byKey();
    // One entity's RFI seen through two bank addresses (two profiles) is kept per address, but the
    // analyst is told once: the same reminder is not shown twice in one pass.
    const toldNow = new Set<string>();
    for (const m of deps.members()) {
      const now = m.now();
      const scope = m.scope();
      const rows = await m.rows();
      for (const r of rows) {
        const snooze = held.get(snoozeKey(scope, r.id)) ?? null;
        const deadline = r.deadline ? Date.parse(r.deadline) : NaN;
        if (snooze && (!r.awaitingAction || !holds(snooze, deadline, now, hours)))
          stale.add(snoozeKey(snooze.scope, snooze.rfiId));
        if (!enabled || !r.awaitingAction || !r.deadline) continue;
        const left = deadline - now;
        if (left <= 0) continue;
        // The tightest threshold crossed is the one shown; looser ones count as shown with it.
        const crossed = hours.filter((h) => left <= h * HOUR_MS);
        const tightest = crossed[crossed.length - 1];
        if (tightest === undefined) continue;
        // Keyed by the bank and the RFI: another bank's RFI of the same id has reminders of its own.
        const prefix = `${snoozeKey(scope, r.id)}|${r.deadline}|`;
        const key = (h: number): string => `${prefix}${h}`;
        if (sent[key(tightest)] !== undefined) continue;
        // A threshold looser than (or as tight as) one already shown never fires again: changing
        // the thresholds back and forth re-fires nothing. (A key from before keys named the bank
        // counts for every bank until it is pruned: at worst one reminder is not repeated.)
        if (
          shownAtOrBelow(sent, prefix, tightest) ||
          shownAtOrBelow(sent, `${r.id}|${r.deadline}|`, tightest)
        )
          continue;

        // Snoozed: held back (nothing marked), so the snooze's end shows what was crossed meanwhile.
        if (holds(snooze, deadline, now, hours)) continue;
        for (const h of crossed) sent[key(h)] = deadline;
        changed = true;
        const told = `${m.entityName() ?? ''}|${r.id}|${r.deadline}|${tightest}`;
        if (toldNow.has(told)) continue;
        toldNow.add(told);
        if (showReminder(deps, m, r, { tightest, deadline, now })) shown++;
      }
    }
    const nows = deps.members().map((m) => m.now());
    const floor = nows.length > 0 ? Math.min(...nows) : Date.now();
    for (const [k, d] of Object.entries(sent)) {
      if (d + KEEP_AFTER_DEADLINE_MS < floor) {
        delete sent[k];
        changed = true;
      }
    }
    if (changed) store.set({ sent });
    // Snoozes of a bank no member watches now: dropped a while after their deadline.
    const scopes = new Set(deps.members().map((m) => m.scope()));
    const pruned = snoozes.prune(
      (s) =>
        stale.has(snoozeKey(s.scope, s.rfiId)) ||
        (!scopes.has(s.scope) && s.deadline + KEEP_AFTER_DEADLINE_MS < floor),
    );
    if (pruned > 0) publish();
    return shown;
  };

  const find = (profileId: string, rfiId: string) => memberRow(deps.members(), profileId, rfiId);

  return {
    check() {
      return serial(run).catch((err: unknown) => {
        deps.log.warn('reminders: check failed', { error: err });
        return 0;
      });
    },
    snooze(profileId, rfiId, choice) {
      return serial(async () => {
        const found = await find(profileId, rfiId);
        if (!found?.row) throw notHeld(rfiId, found?.m);
        const { m, row } = found;
        if (!row.awaitingAction) {
          throw new AppFailure({
            kind: 'precondition',
            reason: 'NOT_AWAITING_ACTION',
            message: 'This RFI is not waiting for an answer from us: it has no reminders to snooze.',
          });
        }
        const now = m.now();
        const deadline = row.deadline ? Date.parse(row.deadline) : null;
        const hours = hoursNow();
        const plan = planSnooze(choice, now, deadline, hours);
        if (!plan.ok) throw snoozeRefused(plan.reason, hours);
        const stored: StoredSnooze = {
          rfiId,
          profileId: m.profileId,
          scope: m.scope(),
          deadline: deadline!,
          until: plan.until,
          setAt: now,
          capped: plan.capped,
        };
        snoozes.set(stored);
        deps.log.info('reminders: snoozed', { rfiId, until: new Date(plan.until).toISOString() });
        deps.onSeen?.(
          m.profileId,
          rfiId,
          `Reminders snoozed by the analyst until ${new Date(plan.until).toISOString()}${plan.capped ? ', capped at the last reminder' : ''} (bank time ${new Date(now).toISOString()})`,
        );
        publish();
        return snoozeView(stored, hours, now);
      });
    },
    unsnooze(profileId, rfiId) {
      return serial(async () => {
        const found = await find(profileId, rfiId);
        if (!found) throw notHeld(rfiId, undefined);
        // Only this bank's snooze of the RFI: another bank's RFI of the same id keeps its own.
        const had = snoozes.remove(rfiId, found.m.scope());
        if (!had && !found.row) throw notHeld(rfiId, found.m);
        if (had) {
          deps.log.info('reminders: snooze cancelled', { rfiId });
          deps.onSeen?.(found.m.profileId, rfiId, 'Reminder snooze cancelled by the analyst');
          publish();
        }
        return had;
      });
    },
    snoozes: () => serial(activeSnoozes),
    settled: () => serial(async () => undefined),
    async dueSoon() {
      const t = deps.thresholds();
      const hours = hoursNow();
      const horizonHours = t.enabled && hours.length > 0 ? hours[0]! : DEFAULT_DUE_SOON_HOURS;
      const items: DueSoonView['items'] = [];
      const seen = new Set<string>();
      const held = snoozes.byKey();
      for (const m of deps.members()) {
        const now = m.now();
        const scope = m.scope();
        for (const r of await m.rows()) {
          if (!r.awaitingAction || !r.deadline) continue;
          // Two watchers of one entity: one row (the same key its snooze is kept under).
          const key = snoozeKey(scope, r.id);
          if (seen.has(key)) continue;
          const deadline = Date.parse(r.deadline);
          const left = deadline - now;
          if (left <= 0 || left > horizonHours * HOUR_MS) continue;
          seen.add(key);
          const snooze = held.get(key) ?? null;
          items.push({
            rfiId: r.id,
            type: r.type,
            description: r.description,
            relatedId: r.relatedId,
            profileId: m.profileId,
            entityName: m.displayName(),
            deadline: r.deadline,
            offsetMs: now - Date.now(),
            snoozedUntil: holds(snooze, deadline, now, hours)
              ? new Date(snoozeEnd(snooze!.until, deadline, hours)).toISOString()
              : null,
          });
        }
      }
      items.sort((a, b) => Date.parse(a.deadline) - Date.parse(b.deadline) || a.rfiId.localeCompare(b.rfiId));
      return { items, horizonHours, enabled: t.enabled };
    },
  };
}

/** The named profile's member and its row of the RFI (null: no such member; row null: it does not hold it). */
async function memberRow(
  members: readonly ReminderMember[],
  profileId: string,
  rfiId: string,
): Promise<{ m: ReminderMember; row: RfiSummaryView | null } | null> {
  const m = members.find((x) => x.profileId === profileId);
  if (!m) return null;
  return { m, row: (await m.rows()).find((r) => r.id === rfiId) ?? null };
}

/** An RFI the named profile does not hold, as the analyst reads it. */
function notHeld(rfiId: string, m: ReminderMember | undefined): AppFailure {
  return new AppFailure({
    kind: 'not_found',
    field: 'rfiId',
    message: m ? `${m.displayName()} has no RFI ${rfiId}.` : `There is no RFI ${rfiId}.`,
  });
}

/** Whether a reminder at `hours` or tighter was already shown for this RFI and deadline. */
function shownAtOrBelow(sent: Record<string, number>, prefix: string, hours: number): boolean {
  for (const k of Object.keys(sent)) {
    if (k.startsWith(prefix) && Number(k.slice(prefix.length)) <= hours) return true;
  }
  return false;
}

/** Whether a snooze still holds, on its scope's bank clock (and its deadline unchanged). */
function holds(s: StoredSnooze | null, deadline: number, now: number, hours: readonly number[]): boolean {
  return !!s && s.deadline === deadline && snoozeEnd(s.until, s.deadline, hours) > now;
}

/**
 * Shows one reminder (the tightest threshold crossed) as a native notification and tells the RFI's
 * case file; answers whether it was shown.
 */
function showReminder(
  deps: RemindersDeps,
  m: ReminderMember,
  r: RfiSummaryView,
  at: { tightest: number; deadline: number; now: number },
): boolean {
  const entity = m.entityName();
  let shown = false;
  try {
    deps.platform.notify({
      title: `RFI due in less than ${thresholdLabel(at.tightest)}${entity ? ` — ${entity}` : ''}`,
      // The RFI in words and its deadline in the app's one date style, never a type code or ISO time.
      body: `${r.description || rfiTypeWords(r.type)} · times out ${dateWords(at.deadline)}`,
      onClick: () => deps.events.emit('rfis.openRequested', { rfiId: r.id, profileId: m.profileId }),
      source: 'reminders',
      object: r.id,
      coalesce: (count) => ({
        title: `${count} RFIs are due soon`,
        body: 'Open the RFI queue to see their deadlines.',
      }),
    });
    shown = true;
    deps.onSeen?.(
      m.profileId,
      r.id,
      `Deadline reminder: less than ${thresholdLabel(at.tightest)} left (bank time ${new Date(at.now).toISOString()})`,
    );
  } catch (err) {
    deps.log.warn('reminders: notification not shown', { error: err });
  }
  return shown;
}

/** Why a snooze cannot be set, as the analyst reads it. */
function snoozeRefused(reason: 'no_deadline' | 'nothing_left', hours: readonly number[]): AppFailure {
  return new AppFailure({
    kind: 'precondition',
    reason: reason === 'no_deadline' ? 'NO_DEADLINE' : 'LAST_REMINDER_DUE',
    message:
      reason === 'no_deadline'
        ? 'This RFI has no running deadline: there is no reminder to snooze.'
        : `The last reminder (${thresholdLabel(Math.min(...hours))} before the timeout) is already due: a snooze would only hide the timeout.`,
  });
}
