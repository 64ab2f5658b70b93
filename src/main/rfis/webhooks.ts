/**
 * Webhooks: one local receiver with a route per watched profile (the entity watch watches every
 * profile with a token, the default profile included). Each route has its own unguessable path,
 * verifies signatures with the key pinned for THAT profile's environment against THAT profile's
 * bank clock, drops duplicate event ids per profile, and hands an accepted event to THAT profile's
 * RFI service only (a re-read with that profile's own token, through the same change detector as
 * polling). A route is bound to its profile for as long as the profile is watched: changing the
 * default profile moves no route. For the embedded sandbox, each admin credential is pointed at
 * its own route; Settings shows the default profile's route and the bank's configuration of the
 * default profile's credential (looked up at each call).
 *
 * Its parts: the receiver (`webhook-receiver.ts`), the pinned keys (`webhook-keys.ts`), the event
 * dispatch to each profile's RFI service (`webhook-dispatch.ts`), the sandbox pointing
 * (`sandbox-pointing.ts`) and the views (`webhook-status.ts`); here, which profiles the routes serve.
 */

import { maskRouteUrl } from './route-mask';
import type { AtRestCodec } from '../infra/at-rest';
import path from 'node:path';
import type { ReceiverStatusView, WebhookConfigView } from '../../shared/ipc/channels/webhook';
import { AppFailure } from '../../shared/ipc/errors';
import type { BankClient } from '../bank/client';
import type { EventHub } from '../infra/events';
import type { Logger } from '../infra/log';
import { bankOrigin } from '../infra/origins';
import type { SessionManager } from '../session/session';
import type { SettingsStore } from '../session/settings';
import { keyFingerprint } from './signature';
import { createSandboxPointing, memberOrigin } from './sandbox-pointing';
import { createEventDispatch } from './webhook-dispatch';
import { createPinnedKeys } from './webhook-keys';
import type { WatchedWebhookProfile, WebhookMember } from './webhook-members';
import { createWebhookReceiver } from './webhook-receiver';
import type { ReceiverCounters, WebhookReceiver } from './webhook-receiver';
import { profileWebhookState, readWebhookConfig } from './webhook-status';
import type { ProfileWebhookState } from './webhook-status';

export type { WatchedWebhookProfile } from './webhook-members';
export type { ProfileWebhookState } from './webhook-status';

/** In the data folder: accepted event ids and their signature time, pruned past the tolerance. */
export const SEEN_EVENTS_FILE = 'webhook-seen-events.json';

export interface WebhookServiceOptions {
  port?: number;
  maxBodyBytes?: number;
  toleranceSeconds?: number;
  /** Embedded sandbox: PUT /v1/webhook/url to each admin credential's route (default true). */
  autoConfigureSandbox?: boolean;
}

export interface WebhookServiceDeps {
  /** The default profile (Settings → Webhook is about it) and the embedded sandbox. */
  session: Pick<SessionManager, 'profile' | 'environment' | 'sandbox'>;
  /** Each profile's own bank client: Settings reads and sets the webhook URL of the profile it names. */
  owner(profileId: string): { bank: BankClient };
  settings: SettingsStore;
  events: EventHub;
  log: Logger;
  /** The data folder: seen event ids are kept in `webhook-seen-events.json` there. */
  dataDir?: string;
  /** Seals the seen event ids at rest. */
  codec?: AtRestCodec;
  options?: WebhookServiceOptions;
  /** Told of every accepted event, whichever profile it came for (the case file lists the events seen for an RFI). */
  onSeen?(seen: { profileId: string; rfiId: string; kind: 'webhook'; detail: string }): void;
}

export interface WebhookService {
  /** The receiver as Settings sees it: `url` is the default profile's route. */
  readonly receiver: {
    readonly url: string | null;
    readonly startedAt: string | null;
    counters(): ReceiverCounters;
  };
  status(): ReceiverStatusView;
  /** The bank's webhook configuration of a profile's credential (default: the default profile's). */
  config(profileId?: string): Promise<WebhookConfigView>;
  /**
   * Sets the webhook URL of a profile's credential (default: the default profile's), through that
   * profile's own client; `useReceiver` is that profile's own route.
   */
  setUrl(args: { url?: string; useReceiver?: boolean; profileId?: string }): Promise<WebhookConfigView>;
  /** Points the embedded sandbox's credential of the default profile at its route (no-op elsewhere). */
  autoConfigure(): Promise<void>;
  /**
   * The profiles the entity watch watches (called on every change of the set or of a watched
   * profile's credential). Routes follow: a profile no longer listed loses its route.
   */
  watch(profiles: readonly WatchedWebhookProfile[]): void;
  /** One watched profile's route, key and mode; null when it has none. */
  profile(profileId: string): ProfileWebhookState | null;
  /** Resolves when every received event so far has been applied and every re-pointing is done (tests). */
  idle(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * The receiver of the service: one server, a route per member (not listening yet). Each route
 * checks signature times on its own bank's clock; seen event ids are forgotten by the earliest of
 * the members' clocks (kept a little longer, never dropped early).
 */
function receiverOf(
  deps: WebhookServiceDeps,
  members: () => Iterable<WebhookMember>,
  onStatus: () => void,
): WebhookReceiver {
  const earliest = (): number => {
    let now = Number.POSITIVE_INFINITY;
    for (const m of members()) now = Math.min(now, m.clock.now());
    return Number.isFinite(now) ? now : Date.now();
  };
  return createWebhookReceiver({
    ...(deps.options?.port !== undefined ? { port: deps.options.port } : {}),
    ...(deps.options?.maxBodyBytes !== undefined ? { maxBodyBytes: deps.options.maxBodyBytes } : {}),
    toleranceSeconds:
      deps.options?.toleranceSeconds ?? deps.session.sandbox?.options.webhookTimestampToleranceSeconds ?? 300,
    nowMs: earliest,
    onStatus,
    log: deps.log,
    ...(deps.dataDir ? { seenIdsFile: path.join(deps.dataDir, SEEN_EVENTS_FILE) } : {}),
    ...(deps.codec ? { codec: deps.codec } : {}),
  });
}

export async function createWebhookService(deps: WebhookServiceDeps): Promise<WebhookService> {
  const { session, settings, events, log } = deps;
  let disposed = false;
  let watchedProfiles: readonly WatchedWebhookProfile[] = [];
  /** Profile id → the member its route serves: bound to that profile for as long as it is watched. */
  const members = new Map<string, WebhookMember>();
  const member = (id: string): WebhookMember | undefined => members.get(id);
  const sandboxOrigin = (): string | null => (session.sandbox ? bankOrigin(session.sandbox.url) : null);
  const defaultId = (): string => session.profile.id;

  const keys = createPinnedKeys({
    settings,
    log,
    // The embedded sandbox runs in this process: its key is known without the network.
    fallbackPem: (id) => {
      const m = members.get(id);
      const o = sandboxOrigin();
      return m && o !== null && memberOrigin(m) === o ? (session.sandbox?.publicKeyPem ?? null) : null;
    },
  });
  const pinned = (profileId: string) => (members.has(profileId) ? keys.of(profileId).key : null);
  const dispatch = createEventDispatch({ member, ...(deps.onSeen ? { onSeen: deps.onSeen } : {}), log });

  /** Settings → Webhook: the default profile's route and key (looked up at each call). */
  const activeStatus = (): ReceiverStatusView => {
    const id = defaultId();
    const k = members.has(id) ? keys.of(id) : { key: null, problem: null };
    return {
      listening: receiver.origin !== null,
      // The route's secret path never reaches the page.
      url: maskRouteUrl(receiver.routeUrl(id)),
      startedAt: receiver.startedAt,
      pinnedKeyFingerprint: k.key ? keyFingerprint(k.key) : null,
      environmentId: session.environment.id,
      ...receiver.counters(),
      ...(k.problem && !receiver.counters().lastFailure
        ? { lastFailure: { reason: k.problem, at: new Date().toISOString() } }
        : {}),
      autoConfigure: pointer.state(id),
    };
  };
  const push = (): void => {
    if (!disposed) events.emit('webhook.receiverChanged', activeStatus());
  };

  const receiver = receiverOf(deps, () => members.values(), push);
  const pointer = createSandboxPointing({
    enabled: deps.options?.autoConfigureSandbox !== false,
    member,
    sandboxOrigin,
    routeUrl: (id) => receiver.routeUrl(id),
    onStateChange: (id) => {
      if (id === defaultId()) push();
    },
    log,
  });
  try {
    await receiver.start();
  } catch (err) {
    log.error('webhook: receiver could not start; polling only', { error: err });
  }

  const drop = (id: string): void => {
    members.delete(id);
    receiver.removeRoute(id);
    pointer.forget(id);
    keys.forget(id);
  };

  /** Routes follow the watched profiles; a profile keeps its route (same path) while it is watched. */
  const rebind = (): void => {
    if (disposed) return;
    const next = new Map(watchedProfiles.map((w) => [w.profileId, w] as const));
    // No longer watched: its route goes, events for it are refused (404) from now on.
    for (const id of [...members.keys()]) if (!next.has(id)) drop(id);
    for (const [id, m] of next) {
      const prev = members.get(id);
      members.set(id, m);
      if (prev?.rfis !== m.rfis || prev.session !== m.session) {
        receiver.addRoute({
          scope: id,
          publicKey: () => pinned(id),
          onEvent: (e) => dispatch.onEvent(id, e),
          nowMs: () => m.clock.now(),
        });
      }
      void pointer.maybeConfigure(m);
    }
    push();
  };

  // The default profile's credential or environment moved: its pointing may be due; Settings is told.
  const offEvents = events.attach((msg) => {
    if (msg.event === 'session.changed') rebind();
  });

  const ownRouteOf = (profileId: string): string | null => receiver.routeUrl(profileId);
  const config = (profileId = defaultId()): Promise<WebhookConfigView> =>
    readWebhookConfig(deps.owner(profileId).bank, activeStatus, log);
  const inFlight = (): Promise<void>[] => [...dispatch.inFlight(), ...pointer.inFlight()];

  return {
    receiver: {
      get url() {
        return ownRouteOf(defaultId());
      },
      get startedAt() {
        return receiver.startedAt;
      },
      counters: () => receiver.counters(),
    },
    status: activeStatus,
    config,
    async setUrl({ url, useReceiver, profileId = defaultId() }) {
      if ((url === undefined) === (useReceiver !== true)) {
        throw new AppFailure({
          kind: 'invalid_argument',
          field: 'url',
          message: 'Give either a URL ("" clears it) or useReceiver: true.',
        });
      }
      const target = useReceiver ? ownRouteOf(profileId) : url;
      if (target === null || target === undefined) {
        throw new AppFailure({ kind: 'local', message: 'The local receiver is not listening.' });
      }
      await deps.owner(profileId).bank.setWebhookUrl(target);
      return config(profileId);
    },
    autoConfigure: () => {
      const m = members.get(defaultId());
      return m ? pointer.maybeConfigure(m, true) : Promise.resolve();
    },
    watch(profiles) {
      watchedProfiles = profiles;
      rebind();
    },
    profile(profileId): ProfileWebhookState | null {
      if (!members.has(profileId)) return null;
      return profileWebhookState(
        profileId,
        receiver.routeUrl(profileId),
        keys.of(profileId),
        pointer.state(profileId),
        receiver.routeCounters(profileId),
      );
    },
    idle: async () => {
      for (;;) {
        const all = inFlight();
        await Promise.all(all.map((c) => c.catch(() => undefined)));
        const again = inFlight();
        if (again.length === all.length && again.every((c, i) => c === all[i])) return;
      }
    },
    async dispose() {
      disposed = true;
      offEvents();
      await receiver.close();
      await Promise.all(inFlight().map((c) => c.catch(() => undefined)));
    },
  };
}
