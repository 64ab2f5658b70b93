/**
 * Webhooks: one local receiver with a route per watched profile (the active one and every profile
 * the entity watch watches). Each route has its own unguessable path, verifies signatures with the key
 * pinned for THAT profile's environment, drops duplicate event ids per profile, and hands an
 * accepted event to THAT profile's RFI service only (a re-read with that profile's own token,
 * through the same change detector as polling). For the embedded sandbox, each admin credential
 * is pointed at its own route; Settings shows the active profile's route and the bank's
 * configuration of the active credential.
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
import type { ServerClock } from '../bank/clock';
import type { EventHub } from '../infra/events';
import type { Logger } from '../infra/log';
import { bankOrigin } from '../infra/origins';
import type { SessionManager } from '../session/session';
import type { SettingsStore } from '../session/settings';
import type { RfiService } from './service';
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
  bank: BankClient;
  clock: ServerClock;
  session: SessionManager;
  settings: SettingsStore;
  events: EventHub;
  log: Logger;
  rfis: RfiService;
  /** The data folder: seen event ids are kept in `webhook-seen-events.json` there. */
  dataDir?: string;
  /** Seals the seen event ids at rest. */
  codec?: AtRestCodec;
  options?: WebhookServiceOptions;
  /** Told of every accepted event of the active profile (the case file lists the events seen for an RFI). */
  onSeen?(seen: { rfiId: string; kind: 'webhook'; detail: string }): void;
}

export interface WebhookService {
  /** The receiver as Settings sees it: `url` is the active profile's route. */
  readonly receiver: {
    readonly url: string | null;
    readonly startedAt: string | null;
    counters(): ReceiverCounters;
  };
  status(): ReceiverStatusView;
  config(): Promise<WebhookConfigView>;
  setUrl(args: { url?: string; useReceiver?: boolean }): Promise<WebhookConfigView>;
  /** Points the embedded sandbox's active credential at its route (no-op elsewhere). */
  autoConfigure(): Promise<void>;
  /**
   * The profiles the entity watch watches besides the active one (called on every change of the set or
   * of a watched profile's credential). Routes follow: a profile no longer listed loses its route.
   */
  watch(profiles: readonly WatchedWebhookProfile[]): void;
  /** One profile's route, key and mode (the active one or a watched one); null when it has none. */
  profile(profileId: string): ProfileWebhookState | null;
  /** Resolves when every received event so far has been applied and every re-pointing is done (tests). */
  idle(): Promise<void>;
  dispose(): Promise<void>;
}

/** The receiver of the service: one server, a route per member (not listening yet). */
function receiverOf(deps: WebhookServiceDeps, onStatus: () => void): WebhookReceiver {
  return createWebhookReceiver({
    ...(deps.options?.port !== undefined ? { port: deps.options.port } : {}),
    ...(deps.options?.maxBodyBytes !== undefined ? { maxBodyBytes: deps.options.maxBodyBytes } : {}),
    toleranceSeconds:
      deps.options?.toleranceSeconds ?? deps.session.sandbox?.options.webhookTimestampToleranceSeconds ?? 300,
    nowMs: () => deps.clock.now(),
    onStatus,
    log: deps.log,
    ...(deps.dataDir ? { seenIdsFile: path.join(deps.dataDir, SEEN_EVENTS_FILE) } : {}),
    ...(deps.codec ? { codec: deps.codec } : {}),
  });
}

export async function createWebhookService(deps: WebhookServiceDeps): Promise<WebhookService> {
  const { bank, session, settings, events, log, rfis } = deps;
  let disposed = false;
  let watchedProfiles: readonly WatchedWebhookProfile[] = [];
  /** Profile id → the member its route serves now (the active one wins over a watcher). */
  const members = new Map<string, WebhookMember>();
  const member = (id: string): WebhookMember | undefined => members.get(id);
  const sandboxOrigin = (): string | null => (session.sandbox ? bankOrigin(session.sandbox.url) : null);

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

  const activeStatus = (): ReceiverStatusView => {
    const id = session.profile.id;
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

  const receiver = receiverOf(deps, push);
  const pointer = createSandboxPointing({
    enabled: deps.options?.autoConfigureSandbox !== false,
    member,
    sandboxOrigin,
    routeUrl: (id) => receiver.routeUrl(id),
    onActiveChange: push,
    log,
  });
  try {
    await receiver.start();
  } catch (err) {
    log.error('webhook: receiver could not start; polling only', { error: err });
  }

  /**
   * The profile that was active until a switch: its route is held (503, the bank retries) until
   * the entity watch says whether it watches it now (same path, nothing to re-point) or not (removed). It
   * is never bound to the active RFI service, which now serves another profile.
   */
  const held = new Map<string, NodeJS.Timeout>();
  const release = (id: string): void => {
    const timer = held.get(id);
    if (timer) clearTimeout(timer);
    held.delete(id);
  };
  const drop = (id: string): void => {
    release(id);
    members.delete(id);
    receiver.removeRoute(id);
    pointer.forget(id);
    keys.forget(id);
  };
  /** Just stopped being active: held until the entity watch has reconciled (at most 10 s). */
  const hold = (id: string): void => {
    members.delete(id);
    receiver.pauseRoute(id);
    // Whoever takes it next points the bank again (a pointing in flight was cut by the switch).
    pointer.again(id);
    if (held.has(id)) return;
    const timer = setTimeout(() => {
      held.delete(id);
      if (!members.has(id)) drop(id);
    }, 10_000);
    timer.unref?.();
    held.set(id, timer);
  };

  /** Routes follow the members: the active profile plus every watched one. */
  const rebind = (fromDesk: boolean): void => {
    if (disposed) return;
    const next = new Map<string, WebhookMember>();
    next.set(session.profile.id, { profileId: session.profile.id, session, bank, rfis, active: true });
    for (const w of watchedProfiles) {
      if (!next.has(w.profileId)) next.set(w.profileId, { ...w, active: false });
    }
    for (const id of [...members.keys()]) {
      if (next.has(id)) continue;
      if (!fromDesk && members.get(id)?.active) hold(id);
      // No longer watched: its route goes, events for it are refused (404) from now on.
      else drop(id);
    }
    if (fromDesk) {
      for (const id of [...held.keys()]) if (!next.has(id)) drop(id);
    }
    for (const [id, m] of next) {
      release(id);
      const prev = members.get(id);
      members.set(id, m);
      // Same path as before when the profile only changed role (active ↔ watched).
      receiver.addRoute({ scope: id, publicKey: () => pinned(id), onEvent: (e) => dispatch.onEvent(id, e) });
      if (prev && prev.active !== m.active) pointer.again(id);
      void pointer.maybeConfigure(m);
    }
  };
  rebind(false);

  const offEvents = events.attach((msg) => {
    if (msg.event === 'session.changed') rebind(false);
  });

  const config = (): Promise<WebhookConfigView> => readWebhookConfig(bank, activeStatus, log);
  const activeUrl = (): string | null => receiver.routeUrl(session.profile.id);
  const inFlight = (): Promise<void>[] => [...dispatch.inFlight(), ...pointer.inFlight()];

  return {
    receiver: {
      get url() {
        return activeUrl();
      },
      get startedAt() {
        return receiver.startedAt;
      },
      counters: () => receiver.counters(),
    },
    status: activeStatus,
    config,
    async setUrl({ url, useReceiver }) {
      if ((url === undefined) === (useReceiver !== true)) {
        throw new AppFailure({
          kind: 'invalid_argument',
          field: 'url',
          message: 'Give either a URL ("" clears it) or useReceiver: true.',
        });
      }
      const target = useReceiver ? activeUrl() : url;
      if (target === null || target === undefined) {
        throw new AppFailure({ kind: 'local', message: 'The local receiver is not listening.' });
      }
      await bank.setWebhookUrl(target);
      return config();
    },
    autoConfigure: () => {
      const m = members.get(session.profile.id);
      return m ? pointer.maybeConfigure(m, true) : Promise.resolve();
    },
    watch(profiles) {
      watchedProfiles = profiles.filter((p) => p.profileId !== session.profile.id);
      rebind(true);
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
      for (const id of [...held.keys()]) release(id);
      await receiver.close();
      await Promise.all(inFlight().map((c) => c.catch(() => undefined)));
    },
  };
}
