/**
 * Accepted webhook events to the RFI service of the profile they came for. Events are thin: each
 * RFI is re-read once per burst (creation sends one event per question), in order per profile,
 * through THAT profile's RFI service (its bank client, its token, its cache); one profile's slow
 * bank does not hold up another's events.
 */

import type { WebhookEvent } from '../../shared/api/webhooks';
import type { Logger } from '../infra/log';
import type { WebhookMember } from './webhook-members';

export interface EventDispatch {
  onEvent(profileId: string, event: WebhookEvent): void;
  /** The re-reads running or queued, one chain per profile. */
  inFlight(): Promise<void>[];
}

export function createEventDispatch(deps: {
  member(profileId: string): WebhookMember | undefined;
  /** Told of every accepted event, whichever profile it came for (the case file lists them). */
  onSeen?(seen: { profileId: string; rfiId: string; kind: 'webhook'; detail: string }): void;
  log: Logger;
}): EventDispatch {
  const pending = new Set<string>();
  const chains = new Map<string, Promise<void>>();
  return {
    onEvent(profileId, event) {
      const m = deps.member(profileId);
      if (!m) return; // removed between the check and now: nothing is read for it
      const id = event.data.rfi_id;
      deps.onSeen?.({
        profileId,
        rfiId: id,
        kind: 'webhook',
        detail: `${event.type} ${event.id} (${event.data.question_id ? `question ${event.data.question_id} ` : ''}${event.data.status}, sent ${event.created_at})`,
      });
      const key = `${profileId}\u0000${id}`;
      if (pending.has(key)) return;
      pending.add(key);
      const target = m.rfis;
      const chain = (chains.get(profileId) ?? Promise.resolve()).then(async () => {
        await target.ready();
        pending.delete(key);
        try {
          await target.refresh(id, 'webhook');
        } catch (err) {
          // Polling will catch up; an RFI this profile cannot see (404) stays out of its cache.
          deps.log.warn('webhook: RFI re-read failed', { profileId, rfiId: id, error: err });
        }
      });
      chains.set(profileId, chain);
    },
    inFlight: () => [...chains.values()],
  };
}
