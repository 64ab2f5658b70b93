/**
 * The one way the renderer listens to main's push events. A feature store describes its listeners
 * once with `sharedSubscription(() => onEvents({...}))`; screens mount it with `useSubscription`.
 * However many screens use a store at once, its events are subscribed once, from the first user
 * mounting to the last one leaving.
 */

import { useEffect, useEffectEvent } from 'react';
import type { EventName, EventPayload } from '../../../shared/ipc/contract';
import { on } from './desk';

export type EventHandlers = { [E in EventName]?: (payload: EventPayload<E>) => void };

function onOne<E extends EventName>(event: E, handlers: EventHandlers): () => void {
  const handler = handlers[event];
  return handler ? on(event, handler) : () => undefined;
}

/** Subscribes to several events at once; returns one unsubscribe. */
export function onEvents(handlers: EventHandlers): () => void {
  const offs = (Object.keys(handlers) as EventName[]).map((event) => onOne(event, handlers));
  return () => {
    for (const off of offs) off();
  };
}

export interface SharedSubscription {
  /** Starts the subscription for one more user; the answer releases that use (once). */
  acquire(): () => void;
}

/** A subscription shared by its users: `start` runs for the first, its stop after the last. */
export function sharedSubscription(start: () => () => void): SharedSubscription {
  let users = 0;
  let stop: (() => void) | null = null;
  return {
    acquire() {
      if (users === 0) stop = start();
      users += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        users -= 1;
        if (users === 0) {
          const s = stop;
          stop = null;
          s?.();
        }
      };
    },
  };
}

/** Keeps the subscription for as long as the component is mounted. */
export function useSubscription(subscription: SharedSubscription): void {
  useEffect(() => subscription.acquire(), [subscription]);
}

/**
 * Listens to one event for as long as the component is mounted, for reactions that belong to the
 * component (its props and local state); the handler always sees the latest render's values.
 */
export function useDeskEvent<E extends EventName>(
  event: E,
  handler: (payload: EventPayload<E>) => void,
): void {
  const onEvent = useEffectEvent(handler);
  useEffect(() => on(event, (payload) => onEvent(payload)), [event]);
}

/** Coalesces bursts of events into one reload after `ms`. */
export function coalesce(run: () => Promise<void>, ms: number): () => void {
  let pending: ReturnType<typeof setTimeout> | null = null;
  return () => {
    if (pending) return;
    pending = setTimeout(() => {
      pending = null;
      void run();
    }, ms);
  };
}
