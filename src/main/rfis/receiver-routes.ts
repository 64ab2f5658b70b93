/**
 * The webhook receiver's routes: path → route (its scope, key, handler, counters, paused or not)
 * and scope → path. A scope's route keeps its path when re-bound; a new route gets a fresh
 * unguessable path `/webhooks/rfi/<128 random bits>`.
 */

import { randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { WebhookEvent } from '../../shared/api/webhooks';

export const WEBHOOK_PATH = '/webhooks/rfi';

/** One route: whose events it takes, the key they must be signed with, where they go. */
export interface ReceiverRoute {
  /** Duplicate event ids are dropped per scope (a profile id). */
  scope: string;
  /** The key pinned for this route's environment (null: every request to it is refused). */
  publicKey(): KeyObject | null;
  onEvent(event: WebhookEvent): void;
  /** Now in ms on THIS route's bank clock (each bank signs with its own); else the receiver's. */
  nowMs?(): number;
}

export interface RouteCounters {
  accepted: number;
  duplicates: number;
  refused: number;
  lastEvent: { id: string; type: string; rfiId: string; at: string } | null;
}

export interface LiveRoute extends ReceiverRoute {
  path: string;
  counters: RouteCounters;
  paused: boolean;
}

export interface RouteTable {
  /** The live route at a path (undefined: none, or removed). */
  at(path: string): LiveRoute | undefined;
  /** The path of the scope's route. */
  pathOf(scope: string): string | undefined;
  /** Adds the scope's route under a fixed path (the one-route use). */
  addFixed(route: ReceiverRoute, path: string): void;
  /** Adds a route under a fresh path, or re-binds the scope's live one (same path). */
  add(route: ReceiverRoute): string;
  remove(scope: string): void;
  pause(scope: string): void;
  counters(scope: string): RouteCounters | null;
}

const freshCounters = (): RouteCounters => ({ accepted: 0, duplicates: 0, refused: 0, lastEvent: null });

export function createRouteTable(): RouteTable {
  /** Path → route. */
  const routes = new Map<string, LiveRoute>();
  /** Scope → its route's path. */
  const paths = new Map<string, string>();
  const ofScope = (scope: string): LiveRoute | undefined => {
    const p = paths.get(scope);
    return p === undefined ? undefined : routes.get(p);
  };
  const put = (route: ReceiverRoute, path: string): void => {
    routes.set(path, { ...route, path, counters: freshCounters(), paused: false });
    paths.set(route.scope, path);
  };
  return {
    at: (path) => routes.get(path),
    pathOf: (scope) => paths.get(scope),
    addFixed: put,
    add(route) {
      const live = ofScope(route.scope);
      if (live) {
        live.publicKey = route.publicKey;
        live.onEvent = route.onEvent;
        if (route.nowMs) live.nowMs = route.nowMs;
        else delete live.nowMs;
        live.paused = false;
        return live.path;
      }
      const p = `${WEBHOOK_PATH}/${randomBytes(16).toString('base64url')}`;
      put(route, p);
      return p;
    },
    remove(scope) {
      const p = paths.get(scope);
      if (p === undefined) return;
      paths.delete(scope);
      routes.delete(p);
    },
    pause(scope) {
      const r = ofScope(scope);
      if (r) r.paused = true;
    },
    counters(scope) {
      const r = ofScope(scope);
      return r ? { ...r.counters } : null;
    },
  };
}
