/**
 * Webhooks: one local receiver with a route per watched profile (the active one and every profile
 * the desk watches). Each route has its own unguessable path, verifies signatures with the key
 * pinned for THAT profile's environment, drops duplicate event ids per profile, and hands an
 * accepted event to THAT profile's RFI service only (a re-read with that profile's own token,
 * through the same change detector as polling). For the embedded sandbox, each admin credential
 * is pointed at its own route; Settings shows the active profile's route and the bank's
 * configuration of the active credential.
 */

import { maskRouteUrl } from './route-mask';
import type { AtRestCodec } from '../infra/at-rest';
import type { KeyObject } from 'node:crypto';
import path from 'node:path';
import type { WebhookEvent } from '../../shared/api/webhooks';
import type { ReceiverStatusView, WebhookConfigView } from '../../shared/ipc/channels/webhook';
import { DeskFailure } from '../../shared/ipc/errors';
import type { BankClient } from '../bank/client';
import type { ServerClock } from '../bank/clock';
import type { EventHub } from '../infra/events';
import type { Logger } from '../infra/log';
import { bankOrigin } from '../infra/origins';
import type { SessionManager } from '../session/session';
import type { SettingsStore } from '../session/settings';
import type { RfiService, RfiSession } from './service';
import { keyFingerprint, loadPublicKey } from './signature';
import { createWebhookReceiver } from './webhook-receiver';
import type { ReceiverCounters, RouteCounters } from './webhook-receiver';

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

/** A profile the desk watches besides the active one: its own session, bank client and RFI service. */
export interface WatchedWebhookProfile {
  profileId: string;
  session: RfiSession;
  bank: BankClient;
  rfis: RfiService;
}

type AutoState = ReceiverStatusView['autoConfigure'];

/** How one profile's events reach the desk (the desk's entity list says it). */
export interface ProfileWebhookState {
  profileId: string;
  /** This profile's route (null: not listening). */
  url: string | null;
  pinnedKeyFingerprint: string | null;
  autoConfigure: AutoState;
  /**
   * 'webhook': the bank is known to post this profile's events to its route (pointed by this app,
   * or events arrived); 'polling': polling only as far as this app knows (polling always runs).
   */
  mode: 'webhook' | 'polling';
  /** Why polling only, or where events go. */
  reason: string | null;
  counters: RouteCounters | null;
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
   * The profiles the desk watches besides the active one (called on every change of the set or
   * of a watched profile's credential). Routes follow: a profile no longer listed loses its route.
   */
  watch(profiles: readonly WatchedWebhookProfile[]): void;
  /** One profile's route, key and mode (the active one or a watched one); null when it has none. */
  profile(profileId: string): ProfileWebhookState | null;
  /** Resolves when every received event so far has been applied and every re-pointing is done (tests). */
  idle(): Promise<void>;
  dispose(): Promise<void>;
}

interface Member extends WatchedWebhookProfile {
  active: boolean;
}

export async function createWebhookService(deps: WebhookServiceDeps): Promise<WebhookService> {
  const { bank, clock, session, settings, events, log, rfis } = deps;
  let disposed = false;
  let watchedProfiles: readonly WatchedWebhookProfile[] = [];
  /** Profile id → the member its route serves now (the active one wins over a watcher). */
  const members = new Map<string, Member>();
  const autoState = new Map<string, AutoState>();
  const autoKey = new Map<string, string>();

  const activeMember = (): Member => ({
    profileId: session.profile.id,
    session,
    bank,
    rfis,
    active: true,
  });

  const sandboxOrigin = (): string | null => (session.sandbox ? bankOrigin(session.sandbox.url) : null);
  const memberOrigin = (m: Member): string | null => bankOrigin(m.session.environment.baseUrl);
  /** The embedded sandbox runs in this process: its origin is ours, its key known without the network. */
  const isEmbeddedSandbox = (m: Member): boolean => {
    const o = sandboxOrigin();
    return o !== null && memberOrigin(m) === o;
  };

  // The key pinned for each profile's environment, parsed once per PEM.
  const parsed = new Map<string, { pem: string | null; key: KeyObject | null; problem: string | null }>();
  const pemOf = (profileId: string): string | null => {
    const m = members.get(profileId);
    let pem: string | null = null;
    try {
      pem = settings.profile(profileId).webhookPublicKeyPem;
    } catch {
      return null; // the profile is gone
    }
    if (!pem && m && isEmbeddedSandbox(m)) pem = session.sandbox?.publicKeyPem ?? null;
    return pem;
  };
  const keyState = (profileId: string): { key: KeyObject | null; problem: string | null } => {
    const pem = pemOf(profileId);
    const cached = parsed.get(profileId);
    if (cached && cached.pem === pem) return cached;
    const next = { pem, key: null as KeyObject | null, problem: null as string | null };
    if (pem) {
      try {
        next.key = loadPublicKey(pem);
      } catch (err) {
        next.problem = err instanceof Error ? err.message : String(err);
        log.warn('webhook: the pinned key cannot be used', { profileId, error: next.problem });
      }
    }
    parsed.set(profileId, next);
    return next;
  };
  const pinned = (profileId: string): KeyObject | null =>
    members.has(profileId) ? keyState(profileId).key : null;

  // Events are thin: re-read each RFI once per burst (creation sends one event per question), in
  // order per profile; one profile's slow bank does not hold up another's events.
  const pending = new Set<string>();
  const chains = new Map<string, Promise<void>>();
  const onEvent = (profileId: string, event: WebhookEvent): void => {
    const m = members.get(profileId);
    if (!m) return; // removed between the check and now: nothing is read for it
    const id = event.data.rfi_id;
    if (m.active) {
      deps.onSeen?.({
        rfiId: id,
        kind: 'webhook',
        detail: `${event.type} ${event.id} (${event.data.question_id ? `question ${event.data.question_id} ` : ''}${event.data.status}, sent ${event.created_at})`,
      });
    }
    const key = `${profileId}\u0000${id}`;
    if (pending.has(key)) return;
    pending.add(key);
    const target = m.rfis;
    const chain = (chains.get(profileId) ?? Promise.resolve()).then(async () => {
      await target.ready();
      pending.delete(key);
      try {
        // Through THIS profile's RFI service: its bank client, its token, its cache.
        await target.refresh(id, 'webhook');
      } catch (err) {
        // Polling will catch up; an RFI this profile cannot see (404) stays out of its cache.
        log.warn('webhook: RFI re-read failed', { profileId, rfiId: id, error: err });
      }
    });
    chains.set(profileId, chain);
  };

  const activeStatus = (): ReceiverStatusView => {
    const id = session.profile.id;
    const k = members.has(id) ? keyState(id) : { key: null, problem: null };
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
      autoConfigure: autoState.get(id) ?? null,
    };
  };
  const push = (): void => {
    if (!disposed) events.emit('webhook.receiverChanged', activeStatus());
  };

  const receiver = createWebhookReceiver({
    ...(deps.options?.port !== undefined ? { port: deps.options.port } : {}),
    ...(deps.options?.maxBodyBytes !== undefined ? { maxBodyBytes: deps.options.maxBodyBytes } : {}),
    toleranceSeconds:
      deps.options?.toleranceSeconds ?? session.sandbox?.options.webhookTimestampToleranceSeconds ?? 300,
    nowMs: () => clock.now(),
    onStatus: push,
    log,
    ...(deps.dataDir ? { seenIdsFile: path.join(deps.dataDir, SEEN_EVENTS_FILE) } : {}),
    ...(deps.codec ? { codec: deps.codec } : {}),
  });
  try {
    await receiver.start();
  } catch (err) {
    log.error('webhook: receiver could not start; polling only', { error: err });
  }

  // ---- pointing the embedded sandbox's admin credentials at their routes ----
  const pointing = new Map<string, Promise<void>>();
  const configure = async (m: Member): Promise<void> => {
    const id = m.profileId;
    const set = (state: AutoState): void => {
      // No longer served by this session (not watched any more, or it switched between active
      // and watched): the newer member's own pointing, queued behind this one, says what holds.
      if (members.get(id)?.session !== m.session) return;
      autoState.set(id, state);
      if (m.active) push();
    };
    if (!isEmbeddedSandbox(m)) {
      set({
        state: 'not_applicable',
        message: 'Only the embedded sandbox is pointed at this app automatically.',
      });
      return;
    }
    const url = receiver.routeUrl(id);
    if (!url) {
      set({ state: 'failed', message: 'The receiver is not listening.' });
      return;
    }
    try {
      // The bank says which credential this profile's token is and its role (this profile's own
      // client and token: one credential is never pointed by another's).
      const current = await m.bank.getWebhookConfig();
      if (current.role !== 'admin') {
        set({
          state: 'failed',
          message: `The sandbox credential is a ${current.role}: only an admin may set the webhook URL. Polling only.`,
        });
      } else {
        if (current.webhook_url !== url) await m.bank.setWebhookUrl(url);
        set({ state: 'done', message: `Sandbox events go to ${maskRouteUrl(url)}.` });
      }
    } catch (err) {
      set({
        state: 'failed',
        message: err instanceof DeskFailure ? err.message : 'The webhook URL could not be set (see the log).',
      });
      log.warn('webhook: sandbox webhook URL not set', { profileId: id, error: err });
    }
  };
  /** Re-points a profile when its environment, credential or route changed. */
  const maybeConfigure = (m: Member, force = false): Promise<void> => {
    if (deps.options?.autoConfigureSandbox === false) return Promise.resolve();
    const st = m.session.lastStatus;
    const cred = m.session.credential ?? st?.credential ?? null;
    if (!cred && !force) return Promise.resolve();
    const k = `${m.session.environment.id}|${memberOrigin(m) ?? ''}|${cred?.webhookName ?? ''}|${receiver.routeUrl(m.profileId) ?? ''}`;
    if (!force && autoKey.get(m.profileId) === k) return Promise.resolve();
    autoKey.set(m.profileId, k);
    // Whoever serves the profile when the turn comes (a rebind may have replaced `m` meanwhile);
    // nothing when it is no longer watched.
    const p = (pointing.get(m.profileId) ?? Promise.resolve()).then(() => {
      const current = members.get(m.profileId);
      return current ? configure(current) : undefined;
    });
    pointing.set(m.profileId, p);
    return p;
  };

  /**
   * The profile that was active until a switch: its route is held (503, the bank retries) until
   * the desk says whether it watches it now (same path, nothing to re-point) or not (removed). It
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
    autoState.delete(id);
    autoKey.delete(id);
    parsed.delete(id);
  };

  /** Routes follow the members: the active profile plus every watched one. */
  const rebind = (fromDesk: boolean): void => {
    if (disposed) return;
    const next = new Map<string, Member>();
    const active = activeMember();
    next.set(active.profileId, active);
    for (const w of watchedProfiles) {
      if (!next.has(w.profileId)) next.set(w.profileId, { ...w, active: false });
    }
    for (const id of [...members.keys()]) {
      if (next.has(id)) continue;
      const prev = members.get(id);
      if (!fromDesk && prev?.active) {
        // Just stopped being active: held until the desk has reconciled (at most 10 s).
        members.delete(id);
        receiver.pauseRoute(id);
        // Whoever takes it next points the bank again (a pointing in flight was cut by the switch).
        autoKey.delete(id);
        if (!held.has(id)) {
          const timer = setTimeout(() => {
            held.delete(id);
            if (!members.has(id)) drop(id);
          }, 10_000);
          timer.unref?.();
          held.set(id, timer);
        }
        continue;
      }
      // No longer watched: its route goes, events for it are refused (404) from now on.
      drop(id);
    }
    if (fromDesk) {
      for (const id of [...held.keys()]) if (!next.has(id)) drop(id);
    }
    for (const [id, m] of next) {
      release(id);
      const prev = members.get(id);
      members.set(id, m);
      // Same path as before when the profile only changed role (active ↔ watched).
      receiver.addRoute({ scope: id, publicKey: () => pinned(id), onEvent: (e) => onEvent(id, e) });
      if (prev && prev.active !== m.active) autoKey.delete(id);
      void maybeConfigure(m);
    }
  };
  rebind(false);

  const offEvents = events.attach((msg) => {
    if (msg.event === 'session.changed') rebind(false);
  });

  const config = async (): Promise<WebhookConfigView> => {
    try {
      const c = await bank.getWebhookConfig();
      const admin = c.role === 'admin';
      return {
        config: {
          webhook_name: c.webhook_name,
          webhook_url: maskRouteUrl(c.webhook_url),
          legal_entity_id: c.legal_entity_id,
          role: c.role,
          created_at: c.created_at,
          updated_at: c.updated_at,
        },
        error: null,
        canSet: admin,
        cannotSetReason: admin
          ? null
          : `This credential's role is ${c.role}: only an admin credential may set the webhook URL.`,
        receiver: activeStatus(),
      };
    } catch (err) {
      const message =
        err instanceof DeskFailure && err.kind === 'not_found'
          ? 'This bank does not offer GET /v1/webhook/url (the spec has it in sandbox and development environments only).'
          : err instanceof DeskFailure
            ? err.message
            : 'The webhook configuration could not be read.';
      if (!(err instanceof DeskFailure)) log.error('webhook: config read failed', { error: err });
      return {
        config: null,
        error: message,
        canSet: false,
        cannotSetReason: 'The configuration could not be read from the bank.',
        receiver: activeStatus(),
      };
    }
  };

  const profileState = (profileId: string): ProfileWebhookState | null => {
    const m = members.get(profileId);
    if (!m) return null;
    const k = keyState(profileId);
    const url = receiver.routeUrl(profileId);
    const auto = autoState.get(profileId) ?? null;
    let mode: ProfileWebhookState['mode'] = 'webhook';
    let reason: string | null = null;
    if (!url) {
      mode = 'polling';
      reason = 'The local webhook receiver is not listening.';
    } else if (!k.key) {
      mode = 'polling';
      reason = k.problem
        ? `The pinned webhook key cannot be used: ${k.problem}`
        : 'No webhook signing key is pinned for this environment.';
    } else if (auto?.state === 'failed') {
      mode = 'polling';
      reason = auto.message;
    } else if (auto?.state === 'done') {
      reason = auto.message;
    } else if ((receiver.routeCounters(profileId)?.accepted ?? 0) > 0) {
      reason = `Signed events arrive at ${url}.`;
    } else {
      // Nothing says the bank posts here: polling is what keeps this entity current.
      mode = 'polling';
      reason = `Polling; signed events are taken at ${url} once the bank is pointed there.`;
    }
    return {
      profileId,
      url,
      pinnedKeyFingerprint: k.key ? keyFingerprint(k.key) : null,
      autoConfigure: auto,
      mode,
      reason,
      counters: receiver.routeCounters(profileId),
    };
  };

  const activeUrl = (): string | null => receiver.routeUrl(session.profile.id);

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
        throw new DeskFailure({
          kind: 'invalid_argument',
          field: 'url',
          message: 'Give either a URL ("" clears it) or useReceiver: true.',
        });
      }
      const target = useReceiver ? activeUrl() : url;
      if (target === null || target === undefined) {
        throw new DeskFailure({ kind: 'local', message: 'The local receiver is not listening.' });
      }
      await bank.setWebhookUrl(target);
      return config();
    },
    autoConfigure: () => {
      const m = members.get(session.profile.id);
      return m ? maybeConfigure(m, true) : Promise.resolve();
    },
    watch(profiles) {
      watchedProfiles = profiles.filter((p) => p.profileId !== session.profile.id);
      rebind(true);
    },
    profile: profileState,
    idle: async () => {
      for (;;) {
        const all = [...chains.values(), ...pointing.values()];
        await Promise.all(all.map((c) => c.catch(() => undefined)));
        const again = [...chains.values(), ...pointing.values()];
        if (again.length === all.length && again.every((c, i) => c === all[i])) return;
      }
    },
    async dispose() {
      disposed = true;
      offEvents();
      for (const id of [...held.keys()]) release(id);
      await receiver.close();
      await Promise.all([...chains.values(), ...pointing.values()].map((c) => c.catch(() => undefined)));
    },
  };
}
