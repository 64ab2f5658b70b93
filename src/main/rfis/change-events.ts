/**
 * What the RFI service tells once the cache changed: the `rfis.changed` push (ids capped), the
 * awaiting-action badge, native notifications of the news (after the baseline; a few RFIs named,
 * many summarised) and the listeners of applied diffs.
 */

import type { Rfi } from '../../shared/api/rfis';
import type { RfiChangedView, RfiCountsView } from '../../shared/ipc/channels/rfis';
import type { EventHub } from '../infra/events';
import type { Logger } from '../infra/log';
import type { Platform } from '../infra/platform';
import type { SettingsStore } from '../session/settings';
import { ChangeDetector, newsOf, SUMMARY_THRESHOLD } from './notifier';
import type { RfiDiff, RfiRepository } from './repository';

export type ChangeSource = RfiChangedView['source'];

const ID_CAP = 1000;

export interface ChangeEventsDeps {
  settings: SettingsStore;
  events: EventHub;
  platform: Platform;
  log: Logger;
  /** The counts of the current cache (empty when none). */
  counts(): RfiCountsView;
  /** True once the service is disposed: nothing more is shown. */
  disposed(): boolean;
  relatedNames?(rfis: readonly Rfi[]): Promise<ReadonlyMap<string, string>>;
  badge?(count: number): void;
  entityName?(): string | null;
  onSeen?(seen: { rfiId: string; kind: 'notification'; detail: string }): void;
}

export interface ChangeEvents {
  /** The `rfis.changed` push (and the badge) for what changed. */
  emitChanged(source: ChangeSource, diffs: RfiDiff[], removed: string[], seen: string[]): void;
  updateBadge(counts: RfiCountsView): void;
  /** Native notifications of the news in `diffs` (none before the cache's baseline). */
  notify(r: RfiRepository, diffs: RfiDiff[]): Promise<void>;
  /** Tells the listeners of applied diffs; `guarded`: one failing listener does not stop the others. */
  tellApplied(diffs: RfiDiff[], source: ChangeSource, guarded: boolean): void;
  onApplied(listener: (diffs: RfiDiff[], source: ChangeSource) => void): () => void;
}

const cap = (ids: string[]): { list: string[]; over: boolean } =>
  ids.length > ID_CAP ? { list: ids.slice(0, ID_CAP), over: true } : { list: ids, over: false };

export function createChangeEvents(deps: ChangeEventsDeps): ChangeEvents {
  const { events, platform, log } = deps;
  const detector = new ChangeDetector();
  const listeners = new Set<(diffs: RfiDiff[], source: ChangeSource) => void>();

  let lastBadge = -1;
  const updateBadge = (counts: RfiCountsView): void => {
    if (counts.awaitingAction === lastBadge) return;
    lastBadge = counts.awaitingAction;
    try {
      if (deps.badge) deps.badge(counts.awaitingAction);
      else platform.setBadgeCount(counts.awaitingAction);
    } catch (err) {
      log.warn('rfis: badge not set', { error: err });
    }
  };

  /** Names of the objects a few RFIs are about (none when naming fails). */
  const nameRelated = (
    name: NonNullable<ChangeEventsDeps['relatedNames']>,
    rfis: readonly Rfi[],
  ): Promise<ReadonlyMap<string, string>> =>
    name(rfis).catch((err: unknown) => {
      log.info('rfis: related objects not named', { error: err });
      return new Map<string, string>();
    });

  return {
    emitChanged(source, diffs, removed, seen) {
      const counts = deps.counts();
      updateBadge(counts);
      const created = cap(diffs.filter((d) => !d.before).map((d) => d.id));
      const updated = cap(diffs.map((d) => d.id));
      const statusChanged = cap(
        diffs.filter((d) => d.before && d.before.status !== d.after.status).map((d) => d.id),
      );
      const rem = cap(removed);
      events.emit('rfis.changed', {
        source,
        created: created.list,
        updated: updated.list,
        statusChanged: statusChanged.list,
        removed: rem.list,
        seen,
        truncated: created.over || updated.over || statusChanged.over || rem.over,
        counts,
      });
    },
    updateBadge,
    async notify(r, diffs) {
      if (!r.meta().baseline) return;
      const prefs = deps.settings.get().notifications;
      // A few RFIs with news are named (one read each); many become one summary without names.
      const withNews = diffs.filter((d) => newsOf(d).length > 0).map((d) => d.after);
      const names =
        deps.relatedNames && withNews.length > 0 && withNews.length <= SUMMARY_THRESHOLD
          ? await nameRelated(deps.relatedNames, withNews)
          : new Map<string, string>();
      if (deps.disposed()) return;
      for (const plan of detector.plan(diffs, { newRfi: prefs.newRfi, rfiStatus: prefs.rfiStatus }, names)) {
        const rfiId = plan.rfiId;
        const entity = deps.entityName?.() ?? null;
        if (rfiId) deps.onSeen?.({ rfiId, kind: 'notification', detail: `${plan.title}: ${plan.body}` });
        try {
          platform.notify({
            title: entity ? `${plan.title} — ${entity}` : plan.title,
            body: plan.body,
            onClick: () => events.emit('rfis.openRequested', { rfiId: rfiId ?? '' }),
          });
        } catch (err) {
          log.warn('rfis: notification not shown', { error: err });
        }
      }
    },
    tellApplied(diffs, source, guarded) {
      for (const l of [...listeners]) {
        if (!guarded) {
          l(diffs, source);
          continue;
        }
        try {
          l(diffs, source);
        } catch (err) {
          log.warn('rfis: applied listener failed', { error: err });
        }
      }
    },
    onApplied(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
