/**
 * Push events from the services to every attached renderer (Electron windows, harness pages).
 * Payloads are validated against the contract before they leave, so a renderer never receives
 * something its types do not describe.
 */

import { events } from '../../shared/ipc/contract';
import type { EventName, EventPayload } from '../../shared/ipc/contract';
import type { PushMessage } from '../../shared/ipc/bridge';
import type { Logger } from './log';

export interface EventHub {
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  /** Attach a transport; returns a detach function. */
  attach(listener: (message: PushMessage) => void): () => void;
}

export function createEventHub(log: Logger): EventHub {
  const listeners = new Set<(message: PushMessage) => void>();
  return {
    emit(event, payload) {
      const parsed = events[event].payload.safeParse(payload);
      if (!parsed.success) {
        log.error('events: payload does not match the contract; not sent', {
          event,
          issues: parsed.error.issues,
        });
        return;
      }
      const message: PushMessage = { event, payload: parsed.data };
      for (const l of [...listeners]) {
        try {
          l(message);
        } catch (err) {
          log.warn('events: a listener failed', { event, error: err });
        }
      }
    },
    attach(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
